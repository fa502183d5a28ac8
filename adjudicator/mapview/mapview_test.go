package mapview_test

import (
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

var vocab = board.Vocabulary{
	Terrain: []string{"clear", "forest", "town"},
	Sides:   []string{"canal", "river", "bridge"},
}

func testMap(t *testing.T, cols string) *board.Map {
	t.Helper()
	src := "columns " + cols + ` | reconstructed: test
rows odd 00-02 | reconstructed: test
rows even 01-03 | reconstructed: test
parity odd-columns-shifted | reconstructed: test
default clear | reconstructed: test
terrain forest 1102 | reconstructed: test
terrain town 1202 | reconstructed: test
side canal 1001/1002 1001/1101 1101/1102 1101/1202 | reconstructed: test
side river 1201/1202 | reconstructed: test
side bridge 1201/1202 | reconstructed: test
place Town 1202 | reconstructed: test
`
	m, err := board.ParseMap("map.txt", []byte(src), vocab)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

var legend = mapview.Legend{
	Terrain: []mapview.Symbol{{Name: "clear", Char: '.', Text: "clear"}, {Name: "forest", Char: 'f', Text: "forest"}, {Name: "town", Char: 'T', Text: "town"}},
	Sides:   []mapview.SideSymbol{{Name: "bridge", Char: 'H', Point: true, Text: "bridge"}, {Name: "canal", Char: '=', Text: "canal"}, {Name: "river", Char: '~', Text: "river"}},
	Marks:   []mapview.Symbol{{Name: "g", Char: 'G', Text: "German stack"}},
}

// TestRenderSmall pins the drawing of a small map: every hexside is where the geometry
// puts it (7.2's odd-columns-shifted grid), features replace the grid lines.
func TestRenderSmall(t *testing.T) {
	m := testMap(t, "10-12")
	got := mapview.Render(mapview.View{
		Title: "Test map", Map: m, Legend: legend,
		Cells: map[hex.Hex]string{hex.MustParse("1101"): "G2", hex.MustParse("1202"): "toolong"},
		Key:   []string{"G2: two German units."},
	})
	golden(t, "testdata/small.golden", got)
	for _, sub := range []string{"=====", "~~H~~", "f", "Ttoo+", "G2", "Places: Town 1202.", `"H" bridge`} {
		if !strings.Contains(got, sub) {
			t.Errorf("Render() lacks %q", sub)
		}
	}
}

// TestRenderStrips: a wide map is cut into strips of whole columns, no line over 78.
func TestRenderStrips(t *testing.T) {
	m := testMap(t, "10-48")
	got := mapview.Render(mapview.View{Title: strings.Repeat("T", 100), Map: m, Legend: legend,
		Key: []string{strings.Repeat("word ", 40)}})
	for i, line := range strings.Split(got, "\n") {
		if len(line) > mapview.Width {
			t.Errorf("line %d is %d columns: %q", i+1, len(line), line)
		}
	}
	for _, s := range []string{"Strip 1 of 4: columns 10-19", "Strip 2 of 4: columns 20-29", "Strip 4 of 4: columns 40-48"} {
		if !strings.Contains(got, s) {
			t.Errorf("Render() lacks %q", s)
		}
	}
	// Every column number appears in a header, twice (above and below its strip).
	count := map[string]int{}
	for _, line := range strings.Split(got, "\n") {
		if strings.HasPrefix(line, "     ") && !strings.ContainsAny(line, "_/\\") {
			for _, f := range strings.Fields(line) {
				count[f]++
			}
		}
	}
	for c := 10; c <= 48; c++ {
		if n := count[hex.Hex{Col: c}.String()[:2]]; n != 2 {
			t.Errorf("column %d printed %d times in headers, want 2", c, n)
		}
	}
}

// TestRenderRowsUp: a map whose rows grow north (Soldiers 1918) is drawn with its last
// row at the top, and every drawn neighbour is still a neighbour of the grid.
func TestRenderRowsUp(t *testing.T) {
	m := testMap(t, "10-12")
	got := mapview.Render(mapview.View{Title: "Rows up", Map: m, Legend: legend, RowsUp: true,
		Cells: map[hex.Hex]string{hex.MustParse("1103"): "top"}})
	golden(t, "testdata/rowsup.golden", got)
	lines := strings.Split(got, "\n")
	first := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "0") {
			first = i
			break
		}
	}
	if first < 0 || !strings.HasPrefix(lines[first], "03") {
		t.Errorf("first labelled line %q, want row 03 on top", lines[first])
	}
}

// golden compares got with the file at path, rewriting it under -update.
func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Render() =\n%s\nwant (%s)\n%s", got, path, want)
	}
}
