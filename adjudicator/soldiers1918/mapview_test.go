package soldiers1918_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

// The golden map is rewritten with: go test ./adjudicator/soldiers1918/ -run MapRenderGolden -update
//
// The flag is registered in init, and only if no other test file of the
// package has registered one already: package-level variables (where a
// flag.Bool("update", ...) elsewhere would live) are initialised before any
// init runs, so the two never collide.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files")
	}
}

func mvUpdating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

const mvGolden = "testdata/mapview.golden"

// mvSampleView is the default set-up in mid-game, with each kind of marker.
func mvSampleView(s *soldiers1918.Scenario) soldiers1918.MapView {
	v := soldiers1918.MapView{
		Turn: 2, Phase: "VII US Movement", Visibility: 11,
		Stacks:      map[hex.Hex]soldiers1918.Stack{},
		Carnage:     map[hex.Hex]int{scH("2102"): 2, scH("1100"): 1},
		COWed:       map[hex.Hex]bool{scH("3801"): true},
		Bombardment: map[hex.Hex]int{scH("3802"): 3},
	}
	for _, ps := range [][]soldiers1918.Placement{s.DefaultGerman, s.DefaultUS} {
		for _, p := range ps {
			st := v.Stacks[p.Hex]
			switch p.Kind {
			case "de-inf":
				st.DeInf += p.Count
			case "de-hmg":
				st.DeHMG += p.Count
			case "us-army":
				st.USArmy += p.Count
			case "york":
				st.USArmy += p.Count
				st.York = true
			case "usmc":
				st.USMC += p.Count
			}
			v.Stacks[p.Hex] = st
		}
	}
	return v
}

var mvStripRE = regexp.MustCompile(`^Strip (\d+) of (\d+): columns (\d\d)-(\d\d)$`)

// mvCellAt reads the cell of hex h from a rendered map, following the kit's
// documented layout (adjudicator/mapview): find the strip holding h's column, the
// x of the column's label (centred over its cells), and among the lines labelled
// with h's row the one where h's content follows a "/" (the other line of that row
// label holds the other columns' lower borders there).
func mvCellAt(t *testing.T, out string, h hex.Hex) string {
	t.Helper()
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		m := mvStripRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		first, _ := strconv.Atoi(m[3])
		last, _ := strconv.Atoi(m[4])
		if h.Col < first || h.Col > last {
			continue
		}
		strip := lines[i+1:]
		for j, sl := range strip {
			if sl == "" {
				strip = strip[:j]
				break
			}
		}
		label := fmt.Sprintf("%02d", h.Col)
		k := strings.Index(strip[0]+" ", " "+label+" ")
		if k < 0 {
			t.Fatalf("no label for column %s in strip %s", label, m[1])
		}
		x := k + 1 - (mvCellWidth-2)/2 // the label sits over the middle of the cell
		for _, row := range strip[1 : len(strip)-1] {
			if strings.HasPrefix(row, fmt.Sprintf("%02d ", h.Row)) && x-1 < len(row) && row[x-1] == '/' {
				return strings.TrimRight(row[x:min(len(row), x+mvCellWidth)], " ")
			}
		}
		t.Fatalf("no content line for row %02d, column %s in strip %s", h.Row, label, m[1])
	}
	t.Fatalf("no strip holds column %02d", h.Col)
	return ""
}

// mvCellWidth is the cell the Soldiers map asks of the kit (mapview.go).
const mvCellWidth = 8

func TestMapRenderLayout(t *testing.T) {
	s := scLoad(t)
	for _, v := range []soldiers1918.MapView{
		mvSampleView(s),
		{},
		{Turn: 6, Phase: strings.Repeat("a very long phase name ", 10), Visibility: 16},
	} {
		out := mvRender(t, s, v)
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 78 {
				t.Errorf("line %d is %d runes long, over 78: %q", i+1, n, l)
			}
		}
		// No four-digit hex id anywhere: mails are searched for them.
		if ids := regexp.MustCompile(`\d{4}`).FindAllString(out, -1); len(ids) > 0 {
			t.Errorf("map prints hex ids %v", ids)
		}
		var strips []string
		for _, l := range strings.Split(out, "\n") {
			if mvStripRE.MatchString(l) {
				strips = append(strips, l)
			}
		}
		want := []string{
			"Strip 1 of 5: columns 10-17",
			"Strip 2 of 5: columns 18-25",
			"Strip 3 of 5: columns 26-33",
			"Strip 4 of 5: columns 34-41",
			"Strip 5 of 5: columns 42-49",
		}
		if strings.Join(strips, "\n") != strings.Join(want, "\n") {
			t.Errorf("strips:\n%s\nwant:\n%s", strings.Join(strips, "\n"), strings.Join(want, "\n"))
		}
		head := strings.SplitN(out, "\n\n", 2)[0]
		if !strings.HasPrefix(head, "Soldiers map -- ") || !strings.Contains(head, "phase") || !strings.Contains(head, "visibility") {
			t.Errorf("header %q lacks turn, phase or visibility", head)
		}
		if !strings.Contains(out, "\n\nLegend (defence strength in brackets)\n") {
			t.Error("no legend title after the last strip")
		}
		flat := strings.Join(strings.Fields(out), " ") // the legend wraps where it must
		for _, w := range []string{"Terrain", "Units", "markers", "COWed", "bombardment", "carnage", "Sergeant York", "USMC",
			"Main Trench (20)", "Support Trench (15)", "communication trench (10)", "bunker (30)", "wire", "outpost", "column number", "north-edge exit hex (4.1)"} {
			if !strings.Contains(flat, w) {
				t.Errorf("legend lacks %q", w)
			}
		}
	}
}

// mvRender renders and fails on an empty map.
func mvRender(t *testing.T, s *soldiers1918.Scenario, v soldiers1918.MapView) string {
	t.Helper()
	out := soldiers1918.RenderMap(s, v)
	if len(out) < 1000 {
		t.Fatalf("RenderMap() = %q, too short", out)
	}
	return out
}

func TestMapRenderHeader(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		v    soldiers1918.MapView
		want string
	}{
		{soldiers1918.MapView{Turn: 2, Phase: "VII US Movement", Visibility: 11},
			"Soldiers map -- turn 2, visibility 11, phase VII US Movement"},
		// Too long for one line: wrapped at a space, never cut (issue 8: the header
		// was cut to "phase Turn 1, Phase ...").
		{soldiers1918.MapView{Turn: 3, Phase: "I US Bombardment Execution"},
			"Soldiers map -- turn 3, visibility not yet determined, phase I US Bombardment\n    Execution"},
		{soldiers1918.MapView{Phase: "German set-up"},
			"Soldiers map -- set-up, visibility not yet determined, phase German set-up"},
	} {
		out := soldiers1918.RenderMap(s, tc.v)
		if head := strings.SplitN(out, "\n\n", 2)[0]; head != tc.want {
			t.Errorf("header = %q, want %q", head, tc.want)
		}
	}
}

func TestMapRenderCells(t *testing.T) {
	s := scLoad(t)
	v := mvSampleView(s)
	v.Stacks[scH("2104")] = soldiers1918.Stack{DeInf: 1, USArmy: 2} // both sides, for the format
	out := soldiers1918.RenderMap(s, v)
	for _, tc := range []struct {
		h, want, why string
	}{
		{"1911", ".BC 1g2h", "bunker on a communication trench, German infantry and HMG"},
		{"3801", ".O 1g!", "outpost, one German infantry, COWed"},
		{"3802", ".M 1g*3", "Main Trench, bombardment markers"},
		{"2102", ".# x2", "wire on open ground, carnage"},
		{"3800", "~# 4ay", "No Man's Land and wire, four Army platoons with Sergeant York"},
		{"3000", "~ 4m", "USMC"},
		{"1100", "~ 4ax1", "Army and carnage"},
		{"1306", ".SC", "support and communication trench, empty"},
		{"1302", ".MC", "main and communication trench"},
		{"1510", ".", "open ground"},
		{"4900", "~", "empty No Man's Land"},
		{"4919", ".", "an odd column's top hex"},
		{"4820", ".", "an even column's top hex"},
		{"1020", ".", "the first exit hex"},
		{"1000", "~ 4a", "the first hex"},
		{"2104", ". 1g2a", "both sides in one hex"},
	} {
		if got := mvCellAt(t, out, scH(tc.h)); got != tc.want {
			t.Errorf("cell %s = %q, want %q (%s)", tc.h, got, tc.want, tc.why)
		}
	}
}

func TestMapRenderOverflow(t *testing.T) {
	s := scLoad(t)
	h := scH("1302")
	v := soldiers1918.MapView{
		Stacks:      map[hex.Hex]soldiers1918.Stack{h: {DeInf: 2, DeHMG: 1}},
		COWed:       map[hex.Hex]bool{h: true},
		Bombardment: map[hex.Hex]int{h: 12},
		Carnage:     map[hex.Hex]int{h: 11},
	}
	out := soldiers1918.RenderMap(s, v)
	if got, want := mvCellAt(t, out, h), ".MC2g1h+"; got != want {
		t.Errorf("overflowing cell = %q, want %q", got, want)
	}
	if want := "\n+ column 13, row 02: .MC 2g 1h ! *12 x11\n"; !strings.Contains(out, want) {
		t.Errorf("map lacks the note %q:\n%s", want, out)
	}
	if !strings.Contains(out, "\nA cell ending in + is spelt out here:\n") {
		t.Error("legend does not explain +")
	}
	// A cell that fits has no note.
	if strings.Count(out, "\n+ column ") != 1 {
		t.Errorf("want one note, for the one crowded hex:\n%s", out)
	}
}

// TestMapRenderGolden: the sample map as a game of each revision shows it. A game
// created before revision 2 keeps its trench letters (the golden of then, unchanged);
// from revision 2 trenches, bunkers and wire are in the kit's letters
// (mapview.Works), the only change between the two.
func TestMapRenderGolden(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		revision int
		golden   string
		legend   []string
	}{
		{0, mvGolden, []string{`"B" bunker`, `"#" wire`, `"M" Main Trench`}},
		{1, mvGolden, []string{`"B" bunker`, `"#" wire`, `"M" Main Trench`}},
		{2, "testdata/mapview-r2.golden", []string{`"D" bunker`, `"W" wire`, `"T" Main Trench`, `"Z" communication`}},
	} {
		t.Run(strconv.Itoa(tc.revision), func(t *testing.T) {
			v := mvSampleView(s)
			v.Revision = tc.revision
			got := soldiers1918.RenderMap(s, v)
			if mvUpdating() {
				if err := os.WriteFile(tc.golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(tc.golden)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("RenderMap() differs from %s (run with -update after checking):\n%s", tc.golden, got)
			}
			for _, w := range tc.legend {
				if !strings.Contains(strings.Join(strings.Fields(got), " "), w) {
					t.Errorf("legend lacks %s", w)
				}
			}
		})
	}
}

func BenchmarkRenderMap(b *testing.B) {
	s := scLoad(b)
	v := mvSampleView(s)
	b.ReportAllocs()
	for b.Loop() {
		soldiers1918.RenderMap(s, v)
	}
}

// TestMapEveryLineWithin78 renders crowded states, through Rules.Map in every phase
// and for both sides, and a view with everything at once in every hex: no line may be
// longer than 78 characters (DESIGN.md, "Text maps"), the header gives the whole
// phase title, never cut, and the legend is whole (issue 8).
func TestMapEveryLineWithin78(t *testing.T) {
	a := caseAdapter(t)
	s := a.Rules.Scenario()
	var us, de, mixed []string
	for n, h := range s.Hexes() {
		id := h.String()
		us = append(us, "unit york "+id, "unit us-army "+id+" 3", "carnage de-inf "+id+" 12", "carnage de-hmg "+id+" 9", "cowed "+id)
		de = append(de, "unit de-inf "+id+" 3", "unit de-hmg "+id, "carnage us-army "+id+" 99", "carnage usmc "+id+" 12")
		if !s.Hex(h).Has(soldiers1918.Bunker) { // 7.5: never COWed in a bunker
			de = append(de, "cowed "+id)
		}
		if n%2 == 0 {
			mixed = append(mixed, "unit usmc "+id+" 4", "carnage de-inf "+id+" 10", "carnage york "+id)
		} else {
			mixed = append(mixed, "unit de-hmg "+id+" 4", "carnage usmc "+id+" 4")
		}
	}
	legend := []string{
		"Legend (defence strength in brackets)",
		`Terrain: "." open ground (2), "~" No Man's Land (3).`,
		"Units and markers: 3g is three German infantry, 1h one German HMG, 4a four US",
		"  two bombardment markers, x3 three carnage.",
	}
	check := func(name, out, title string) {
		t.Helper()
		for i, l := range strings.Split(out, "\n") {
			if n := utf8.RuneCountInString(l); n > 78 {
				t.Errorf("%s: line %d is %d characters, over 78: %q", name, i+1, n, l)
			}
		}
		head := strings.Join(strings.Fields(strings.SplitN(out, "\n\n", 2)[0]), " ")
		if !strings.Contains(head, "phase "+strings.Join(strings.Fields(title), " ")) || strings.Contains(head, "...") || strings.Contains(head, "phase Phase") {
			t.Errorf("%s: header %q does not give the phase %q whole", name, head, title)
		}
		want := legend
		if strings.Contains(out, "\n+ column ") {
			want = append(want, "A cell ending in + is spelt out here:")
		}
		for _, l := range want {
			if !strings.Contains(out, "\n"+l+"\n") {
				t.Errorf("%s: legend lacks the line %q", name, l)
			}
		}
	}
	phases := map[string]int{"setup-plots": 0, "setup-german": 0, "setup-us": 0, "over": 6}
	for _, p := range []string{"I", "II", "III", "IV", "IVp", "V", "Vp", "VI", "VII", "VIII", "IX", "X", "XI"} {
		phases[p] = 6
	}
	for name, units := range map[string][]string{"us": us, "de": de, "mixed": mixed} {
		built, err := a.State(append([]string{"turn 6", "phase VII", "quality 6", "visibility 16", "option york"}, units...))
		if err != nil {
			t.Fatal(err)
		}
		st := built.(*soldiers1918.State)
		for phase, turn := range phases {
			st.T, st.P, st.COWToPlace = turn, phase, 7
			title := strings.TrimPrefix(st.PhaseTitle(), "Turn 6, Phase ")
			maps := map[rules.Side]string{}
			for _, side := range []rules.Side{"us", "de"} {
				maps[side] = a.Rules.Map(st, side)
				check(name+" "+phase+" "+string(side), maps[side], title)
			}
			// 6.5: no fog of war; both sides see the same map.
			if maps["us"] != maps["de"] {
				t.Errorf("%s %s: the US and German maps differ", name, phase)
			}
		}
	}
	// Everything at once in every hex, which no state holds (live units of both sides
	// never share a hex, 9.6), with a long phase name.
	v := soldiers1918.MapView{Turn: 6, Phase: strings.Repeat("VIII: German Fire (5.2 VIII, 10.0) ", 4), Visibility: 16,
		Stacks: map[hex.Hex]soldiers1918.Stack{}, Carnage: map[hex.Hex]int{}, COWed: map[hex.Hex]bool{}, Bombardment: map[hex.Hex]int{}}
	for _, h := range s.Hexes() {
		v.Stacks[h] = soldiers1918.Stack{DeInf: 4, DeHMG: 4, USArmy: 4, USMC: 4, York: true}
		v.Carnage[h], v.COWed[h], v.Bombardment[h] = 156, true, 12
	}
	check("everything", soldiers1918.RenderMap(s, v), v.Phase)
}

// TestMapStripsForSetMapChanges pins the shape the desk's SET MAP CHANGES relies on
// (adjudicator/results.go, splitMap): the map is cut at lines starting "Strip " and at
// the line starting "Legend", so a change in one hex changes its strip only, and the
// legend and key after the strips stay the same.
func TestMapStripsForSetMapChanges(t *testing.T) {
	s := scLoad(t)
	split := func(out string) (head string, strips []string, tail string) {
		part := 0
		for _, line := range strings.SplitAfter(out, "\n") {
			switch {
			case strings.HasPrefix(line, "Strip "):
				part = 1
				strips = append(strips, "")
			case strings.HasPrefix(line, "Legend"):
				part = 2
			}
			switch part {
			case 0:
				head += line
			case 1:
				strips[len(strips)-1] += line
			default:
				tail += line
			}
		}
		return head, strips, tail
	}
	before := mvSampleView(s)
	after := mvSampleView(s)
	after.Carnage[scH("3000")] = 1 // column 30: strip 3 of 5, columns 26-33
	h0, s0, t0 := split(soldiers1918.RenderMap(s, before))
	h1, s1, t1 := split(soldiers1918.RenderMap(s, after))
	if h0 != h1 || t0 != t1 {
		t.Errorf("head or legend changed with one hex:\n%s\n%s", t0, t1)
	}
	if len(s0) != 5 || len(s1) != 5 {
		t.Fatalf("%d and %d strips, want 5", len(s0), len(s1))
	}
	for i := range s0 {
		if changed := s0[i] != s1[i]; changed != (i == 2) {
			t.Errorf("strip %d changed: %v, want only strip 3 to change", i+1, changed)
		}
	}
	if !strings.HasPrefix(t0, "Legend (defence strength in brackets)\n") {
		t.Errorf("the tail starts %q, want the legend title", t0[:min(len(t0), 40)])
	}
}
