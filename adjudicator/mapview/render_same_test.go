package mapview_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

// cellTexts are the cells the comparisons draw: empty, short, exactly full, too long.
var cellTexts = []string{"", "G", "3g1h", "~WT 4ay", "toolongforanycell", "x", "!*2x3"}

// variants are v as every ruleset could draw it: every cell width, rows either way,
// and cells of every length in a third of the hexes.
func variants(v mapview.View, seed uint64) []mapview.View {
	r := rand.New(rand.NewPCG(seed, 23))
	out := []mapview.View{v}
	for _, w := range []int{0, 1, 2, 3, 5, 8, 9} {
		for _, up := range []bool{false, true} {
			x := v
			x.CellWidth, x.RowsUp = w, up
			x.Cells = map[hex.Hex]string{}
			for _, h := range v.Map.Hexes() {
				if r.IntN(3) == 0 {
					x.Cells[h] = cellTexts[r.IntN(len(cellTexts))]
				}
			}
			out = append(out, x)
		}
	}
	return out
}

// TestRenderAsBefore: Render, which draws each line in one buffer, draws the same
// bytes as the renderer before it (RefRender), for every ruleset's map and side at the
// start of a game and in every variant of cell width, row order and cell length, and
// for the test maps of this package.
func TestRenderAsBefore(t *testing.T) {
	all, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	var views []mapview.View
	for _, name := range all.Names() {
		rs := all[name]
		v, ok := rs.(rules.Viewer)
		if !ok {
			continue
		}
		st, err := rs.New(rules.Options{})
		if err != nil {
			t.Fatalf("%s: New: %v", name, err)
		}
		for _, s := range rs.Sides() {
			views = append(views, variants(v.MapView(st, s.ID), uint64(len(views)))...)
		}
	}
	for _, cols := range []string{"10-12", "10-48", "09-14", "08-30"} {
		views = append(views, variants(mapview.View{Title: "Test map\nsecond line " + strings.Repeat("x", 90), Map: testMap(t, cols), Legend: legend,
			Key: []string{"G2: two German units."}}, uint64(len(views)))...)
	}
	for i, v := range views {
		if got, want := mapview.Render(v), mapview.RefRender(v); got != want {
			t.Fatalf("view %d (%q, cell width %d, rows up %v): Render() =\n%s\nwant\n%s", i, v.Title, v.CellWidth, v.RowsUp, got, want)
		}
	}
	if len(views) < 100 {
		t.Errorf("only %d views compared", len(views))
	}
}

// FuzzRender: whatever the cells, title, cell width and row order, Render draws what
// RefRender drew.
func FuzzRender(f *testing.F) {
	f.Add("Test map", "G2", "toolong", 5, false)
	f.Add("", "", "~WT 4ay", 8, true)
	f.Add("T\nU", "é€", "\x00\xff", 2, true)
	f.Fuzz(func(t *testing.T, title, a, b string, width int, up bool) {
		if width < -1 || width > 12 || len(a)+len(b)+len(title) > 500 {
			return
		}
		m := testMap(t, "10-20")
		cells := map[hex.Hex]string{}
		for i, h := range m.Hexes() {
			cells[h] = slices.Concat([]string{a, b, ""})[i%3]
		}
		v := mapview.View{Title: title, Map: m, Legend: legend, CellWidth: width, RowsUp: up, Cells: cells}
		if got, want := mapview.Render(v), mapview.RefRender(v); got != want {
			t.Errorf("Render() =\n%q\nwant\n%q", got, want)
		}
	})
}

// TestRenderAllocs: drawing a map allocates a few times a line of its legend and key,
// not a few times a hex (it drew each hex and hexside as strings of their own: 5,014
// allocations for the Soldiers 1918 map, 0.9 ms).
func TestRenderAllocs(t *testing.T) {
	all, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	rs := all["soldiers1918"]
	st, err := rs.New(rules.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := rs.(rules.Viewer).MapView(st, rs.Sides()[0].ID)
	if n := testing.AllocsPerRun(20, func() { mapview.Render(v) }); n > 100 {
		t.Errorf("Render allocates %.0f times, want at most 100 (the map has %d hexes)", n, len(v.Map.Hexes()))
	}
}

// FuzzWrap: the legend's and key's line breaking writes what it wrote before it
// wrote into one builder, for any text, width and indent.
func FuzzWrap(f *testing.F) {
	f.Add("Terrain: \".\" open ground (1), \"~\" No Man's Land (0).", 78, "  ")
	f.Add("  a  b\tc\n d ", 1, "")
	f.Add(strings.Repeat("word ", 40), 10, "    ")
	f.Fuzz(func(t *testing.T, s string, width int, indent string) {
		if got, want := mapview.WrapWidth(s, width, indent), mapview.RefWrap(s, width, indent); got != want {
			t.Errorf("wrap(%q, %d, %q) = %q, want %q", s, width, indent, got, want)
		}
	})
}

// TestRenderGridKey: a map's grid is laid out once for how it is drawn: the same map
// with other terrain or hexside symbols, another cell width or the rows the other way
// is drawn as such, and a map made from it (board.Map.WithSides) with its own
// hexsides.
func TestRenderGridKey(t *testing.T) {
	m := testMap(t, "10-12")
	v := mapview.View{Title: "Key", Map: m, Legend: legend, Cells: map[hex.Hex]string{hex.MustParse("1101"): "G2"}}
	other := v
	other.Legend.Terrain = slices.Clone(legend.Terrain)
	other.Legend.Terrain[1].Char = 'F'
	other.Legend.Sides = slices.Clone(legend.Sides)
	other.Legend.Sides[1].Char = '#'
	wider := v
	wider.CellWidth = 7
	cut := v
	side, err := hex.ParseHexside("1001/1002")
	if err != nil {
		t.Fatal(err)
	}
	cut.Map = m.WithSides("river", map[hex.Hexside]board.Fact{side: {}})
	for i, x := range []mapview.View{v, other, wider, cut, v} {
		if got, want := mapview.Render(x), mapview.RefRender(x); got != want {
			t.Errorf("view %d: Render() =\n%s\nwant\n%s", i, got, want)
		}
	}
}
