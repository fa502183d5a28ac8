package soldiers1918_test

import (
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

func scLoad(t testing.TB) *soldiers1918.Scenario {
	t.Helper()
	s, err := soldiers1918.LoadScenario()
	if err != nil {
		t.Fatalf("LoadScenario() error:\n%v", err)
	}
	return s
}

func scH(s string) hex.Hex { return hex.MustParse(s) }

// scDataFS copies the shipped data files into a MapFS that a test may change.
func scDataFS(t *testing.T) fstest.MapFS {
	t.Helper()
	m := fstest.MapFS{}
	err := fs.WalkDir(os.DirFS("data"), ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile("data/" + path)
		if err != nil {
			return err
		}
		m[path] = &fstest.MapFile{Data: b}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestScenarioLoads(t *testing.T) {
	s := scLoad(t)
	// The shipped files and the embedded copy are the same data.
	s2, err := soldiers1918.ParseScenario(scDataFS(t))
	if err != nil {
		t.Fatalf("ParseScenario(data/) error:\n%v", err)
	}
	if len(s2.Hexes()) != len(s.Hexes()) || len(s2.Sources) != len(s.Sources) {
		t.Errorf("data/ and the embedded data differ: %d/%d hexes, %d/%d lines",
			len(s2.Hexes()), len(s.Hexes()), len(s2.Sources), len(s.Sources))
	}
	if s.Grid.Parity != hex.OddColumnsShifted {
		t.Errorf("Grid.Parity = %v, want %v", s.Grid.Parity, hex.OddColumnsShifted)
	}
	for _, src := range s.Sources {
		if src.Source == "" {
			t.Errorf("%s:%d has no source", src.File, src.Line)
		}
	}
}

// TestScenarioMapExtent checks the extent the rules give: columns 10-49,
// No Man's Land in row 00, exits 1020 through 4919 on the north edge (4.1),
// so even columns end at row 20 and odd ones at row 19.
func TestScenarioMapExtent(t *testing.T) {
	s := scLoad(t)
	hs := s.Hexes()
	if want := 20*21 + 20*20; len(hs) != want {
		t.Errorf("len(Hexes()) = %d, want %d", len(hs), want)
	}
	for i := 1; i < len(hs); i++ {
		if hex.Compare(hs[i-1], hs[i]) >= 0 {
			t.Fatalf("Hexes() not sorted: %v before %v", hs[i-1], hs[i])
		}
	}
	if hs[0] != scH("1000") || hs[len(hs)-1] != scH("4919") {
		t.Errorf("Hexes() runs %v..%v, want 1000..4919", hs[0], hs[len(hs)-1])
	}
	for _, tc := range []struct {
		h     string
		onMap bool
	}{
		{"1000", true}, {"1020", true}, {"1019", true}, {"1119", true}, {"1120", false},
		{"4919", true}, {"4920", false}, {"4820", true}, {"0910", false}, {"5010", false},
		{"2521", false},
	} {
		if got := s.OnMap(scH(tc.h)); got != tc.onMap {
			t.Errorf("OnMap(%s) = %v, want %v", tc.h, got, tc.onMap)
		}
	}
	for _, h := range []string{"5000", "0900", "1120"} {
		if s.NoMansLand(scH(h)) {
			t.Errorf("NoMansLand(%s) = true off the map", h)
		}
	}
	if got := s.Hex(scH("5010")); got.Features != nil || got.Exit || got.Outpost {
		t.Errorf("Hex(5010) = %+v, want the zero HexInfo", got)
	}
	var exits []hex.Hex
	for _, h := range hs {
		info := s.Hex(h)
		if info.Exit {
			exits = append(exits, h)
		}
		if got, want := s.NoMansLand(h), h.Row == 0; got != want {
			t.Errorf("NoMansLand(%v) = %v, want %v", h, got, want)
		}
		if got, want := info.Has(soldiers1918.NoMansLand), h.Row == 0; got != want {
			t.Errorf("Hex(%v) has No Man's Land = %v, want %v", h, got, want)
		}
	}
	if len(exits) != 40 || exits[0] != scH("1020") || exits[39] != scH("4919") {
		t.Fatalf("exit hexes = %v, want the 40 hexes 1020 through 4919", exits)
	}
	for _, h := range exits {
		top := 20 - h.Col%2
		if h.Row != top {
			t.Errorf("exit %v is not the top hex of column %d (row %d)", h, h.Col, top)
		}
	}
}

// TestScenarioPrintedValues checks that every value the rule text gives is
// loaded exactly and marked as printed, not reconstructed.
func TestScenarioPrintedValues(t *testing.T) {
	s := scLoad(t)
	mapFact := func(h, what string) func() (soldiers1918.Value, bool) {
		return func() (soldiers1918.Value, bool) {
			if what != "hex" && what != "exit" && what != "outpost" && !s.Hex(scH(h)).Has(soldiers1918.Terrain(what)) {
				return soldiers1918.Value{}, false
			}
			if what == "exit" && !s.Hex(scH(h)).Exit || what == "outpost" && !s.Hex(scH(h)).Outpost {
				return soldiers1918.Value{}, false
			}
			v, ok := s.MapSource(scH(h), what)
			return v, ok
		}
	}
	chart := func(m map[soldiers1918.Terrain]soldiers1918.Value, t soldiers1918.Terrain) func() (soldiers1918.Value, bool) {
		return func() (soldiers1918.Value, bool) { v, ok := m[t]; return v, ok }
	}
	counter := func(k string) func() (soldiers1918.Value, bool) {
		return func() (soldiers1918.Value, bool) {
			v, ok := s.CounterSources[k]
			if v.N != s.Counters[k] {
				return soldiers1918.Value{}, false
			}
			return v, ok
		}
	}
	for _, tc := range []struct {
		name string
		get  func() (soldiers1918.Value, bool)
		n    int // 0: do not check N
		rule string
	}{
		{"support trench defence 15 (10.3)", chart(s.DefenceStrength, soldiers1918.SupportTrench), 15, "10.3"},
		{"bunker 1911 (2.2)", mapFact("1911", "bunker"), 0, "2.2"},
		{"bunker 2808 (2.2)", mapFact("2808", "bunker"), 0, "2.2"},
		{"bunker 3603 (2.2)", mapFact("3603", "bunker"), 0, "2.2"},
		{"outpost 3801 (3.5)", mapFact("3801", "outpost"), 0, "3.5"},
		{"3801 is a Main Trench hex (3.5)", mapFact("3801", "main"), 0, "3.5"},
		{"hex 1000 exists (3.6)", mapFact("1000", "hex"), 0, "3.6"},
		{"hex 1020 exists (4.1)", mapFact("1020", "hex"), 0, "4.1"},
		{"hex 4919 exists (4.1)", mapFact("4919", "hex"), 0, "4.1"},
		{"exit 1020 (4.1)", mapFact("1020", "exit"), 0, "4.1"},
		{"exit 4919 (4.1)", mapFact("4919", "exit"), 0, "4.1"},
		{"No Man's Land 1000 (3.6)", mapFact("1000", "nomansland"), 0, "3.6"},
		{"No Man's Land 4900 (3.6)", mapFact("4900", "nomansland"), 0, "3.6"},
		{"24 German infantry (3.5)", counter("de-inf"), 24, "3.5"},
		{"9 German HMG (3.5)", counter("de-hmg"), 9, "3.5"},
		{"143 US Army besides York (3.6)", counter("us-army"), 143, "3.6"},
		{"1 Sergeant York (12.5)", counter("york"), 1, "12.5"},
		{"12 USMC (3.6)", counter("usmc"), 12, "3.6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, ok := tc.get()
			if !ok {
				t.Fatal("not loaded")
			}
			if !v.Printed {
				t.Errorf("reconstructed, want printed (source %q)", v.Source)
			}
			if tc.n != 0 && v.N != tc.n {
				t.Errorf("N = %d, want %d", v.N, tc.n)
			}
			if !strings.Contains(v.Source, tc.rule) {
				t.Errorf("Source = %q, want it to cite %s", v.Source, tc.rule)
			}
		})
	}
	if n := s.Counters["us-army"] + s.Counters["york"]; n != 144 {
		t.Errorf("US Army platoons = %d, want 144 (3.6)", n)
	}
}

// TestScenarioReconstructedValues checks that invented values are loaded as
// reconstructed, and that nothing printed is claimed beyond the rule text.
func TestScenarioReconstructedValues(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		name string
		v    soldiers1918.Value
		ok   bool
	}{
		{"main trench defence", s.DefenceStrength[soldiers1918.MainTrench], true},
		{"bunker defence", s.DefenceStrength[soldiers1918.Bunker], true},
		{"open defence", s.DefenceStrength[soldiers1918.Open], true},
		{"open move cost", tecValue(t, s, "open"), true},
		{"US Army FS", s.FireStrength["us-army"], true},
		{"German HMG FS", s.FireStrength["de-hmg"], true},
		{"German infantry FS on a 1", s.GermanInfantryFS[1], true},
		{"US Army movement", s.Movement["us-army"], true},
	} {
		if tc.v.Printed || tc.v.Source == "" || tc.v.File == "" || tc.v.Line == 0 {
			t.Errorf("%s = %+v, want reconstructed, with why, from a line of a data file", tc.name, tc.v)
		}
	}
	for _, tc := range []struct{ h, what string }{
		{"1002", "main"}, {"1401", "outpost"}, {"1006", "support"}, {"1302", "communication"},
		{"1001", "wire"}, {"1510", "open"},
	} {
		v, ok := s.MapSource(scH(tc.h), tc.what)
		if !ok || v.Printed {
			t.Errorf("MapSource(%s, %s) = %+v, %v; want reconstructed", tc.h, tc.what, v, ok)
		}
	}
	// Only the printed facts are printed: every printed line of the data
	// cites a rule section.
	printed := 0
	for _, src := range s.Sources {
		if !src.Printed {
			continue
		}
		printed++
		if !strings.ContainsAny(src.Source, "0123456789") {
			t.Errorf("%s:%d is printed but cites no rule: %q", src.File, src.Line, src.Source)
		}
	}
	if printed == 0 || printed > 15 {
		t.Errorf("%d printed lines; want the handful the rule text gives", printed)
	}
	for roll, v := range s.GermanInfantryFS {
		switch v.N {
		case 2, 3, 4, 6:
		default:
			t.Errorf("GermanInfantryFS[%d] = %d, want 2, 3, 4 or 6 (7.1)", roll, v.N)
		}
	}
	if s.GermanInfantryFS[6].N != 6 {
		t.Errorf("GermanInfantryFS[6] = %d, want 6 (6.3 shock troops)", s.GermanInfantryFS[6].N)
	}
	if y, a := s.FireStrength["york"].N, s.FireStrength["us-army"].N; y != 2*a {
		t.Errorf("york FS %d, us-army FS %d: want exactly double (12.5)", y, a)
	}
	for _, t2 := range []soldiers1918.Terrain{soldiers1918.Open, soldiers1918.NoMansLand, soldiers1918.MainTrench,
		soldiers1918.SupportTrench, soldiers1918.CommTrench, soldiers1918.Bunker, soldiers1918.Wire} {
		if c := tecValue(t, s, string(t2)).N; c != 1 && c != 2 {
			t.Errorf("enter %s costs %d, want 1 or 2 (9.5)", t2, c)
		}
	}
}

// tecValue is the cost to enter terrain in the scenario's TEC (tec.txt), with its
// provenance.
func tecValue(t *testing.T, s *soldiers1918.Scenario, terrain string) soldiers1918.Value {
	t.Helper()
	f, ok := s.TEC.Fact("enter " + terrain)
	if !ok {
		t.Fatalf("tec.txt has no enter line for %s", terrain)
	}
	return soldiers1918.Value{N: s.TEC.Enter[terrain][0].MP, Fact: f}
}

// TestScenarioTECOneClass: tec.txt gives one cost a terrain for every unit (9.5); a
// table with a column per class of unit is refused.
func TestScenarioTECOneClass(t *testing.T) {
	m := scDataFS(t)
	two := regexp.MustCompile(`(?m)^(enter +\w+ +)(\d)`).ReplaceAllString(string(m["tec.txt"].Data), "$1$2 $2")
	two = strings.Replace(two, "classes unit ", "classes unit horse ", 1)
	m["tec.txt"] = &fstest.MapFile{Data: []byte(two)}
	_, err := soldiers1918.ParseScenario(m)
	if err == nil || !strings.Contains(err.Error(), "tec.txt: want one class") {
		t.Errorf("two classes: err = %v, want tec.txt: want one class", err)
	}
}

func TestScenarioGermanSetupHex(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		h    string
		want bool
		why  string
	}{
		{"3801", true, "the printed outpost (3.5)"},
		{"1401", true, "a reconstructed outpost"},
		{"3701", false, "xx01 without an outpost (3.5)"},
		{"1001", false, "xx01 without an outpost (3.5)"},
		{"1000", false, "No Man's Land (3.5)"},
		{"3800", false, "No Man's Land in front of the outpost"},
		{"4900", false, "No Man's Land"},
		{"1002", true, "on the Main Trench line"},
		{"3802", true, "on the Main Trench line behind the outpost"},
		{"2103", true, "on the Main Trench line where it runs in row 03"},
		{"2102", false, "south of the Main Trench line in column 21"},
		{"4302", false, "south of the Main Trench line in column 43"},
		{"1006", true, "support trench, north of the main line"},
		{"1911", true, "bunker"},
		{"1020", true, "north edge"},
		{"1120", false, "off the map"},
		{"5005", false, "off the map"},
	} {
		if got := s.GermanSetupHex(scH(tc.h)); got != tc.want {
			t.Errorf("GermanSetupHex(%s) = %v, want %v: %s", tc.h, got, tc.want, tc.why)
		}
	}
	// The same rules over the whole map.
	for _, h := range s.Hexes() {
		info := s.Hex(h)
		got := s.GermanSetupHex(h)
		switch {
		case h.Row == 0 && got:
			t.Errorf("GermanSetupHex(%v) = true in No Man's Land", h)
		case h.Row == 1 && got != info.Outpost:
			t.Errorf("GermanSetupHex(%v) = %v, outpost %v: xx01 only if an outpost", h, got, info.Outpost)
		case info.Has(soldiers1918.MainTrench) && !got:
			t.Errorf("GermanSetupHex(%v) = false on the Main Trench", h)
		}
		// North of a set-up hex in the same column is a set-up hex too.
		if got && h.Row > 0 {
			north := hex.Hex{Col: h.Col, Row: h.Row + 1}
			if s.OnMap(north) && !s.GermanSetupHex(north) {
				t.Errorf("GermanSetupHex(%v) but not the hex north of it, %v", h, north)
			}
		}
	}
}

// TestScenarioTrenchLines checks the reconstructed trench lines make sense
// in the grid: the Main Trench (outposts aside) and the Support Trench each
// run unbroken from the west edge to the east edge, one hex per column, and
// every outpost touches the main line.
func TestScenarioTrenchLines(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		name string
		in   func(soldiers1918.HexInfo) bool
	}{
		{"Main Trench", func(i soldiers1918.HexInfo) bool { return i.Has(soldiers1918.MainTrench) && !i.Outpost }},
		{"Support Trench", func(i soldiers1918.HexInfo) bool { return i.Has(soldiers1918.SupportTrench) }},
	} {
		var line []hex.Hex
		for _, h := range s.Hexes() {
			if tc.in(s.Hex(h)) {
				line = append(line, h)
			}
		}
		for i := 1; i < len(line); i++ {
			if !s.Grid.Adjacent(line[i-1], line[i]) {
				t.Errorf("%s: %v and %v are consecutive but not adjacent", tc.name, line[i-1], line[i])
			}
		}
		if len(line) == 0 || line[0].Col != 10 || line[len(line)-1].Col != 49 {
			t.Errorf("%s runs %v, want from column 10 to column 49", tc.name, line)
		}
	}
	for _, h := range s.Hexes() {
		if !s.Hex(h).Outpost {
			continue
		}
		r, ok := s.MainTrenchRow(h.Col)
		if !ok || !s.Grid.Adjacent(h, hex.Hex{Col: h.Col, Row: r}) {
			t.Errorf("outpost %v does not touch the Main Trench line", h)
		}
	}
	for _, b := range []string{"1911", "2808", "3603"} {
		if !s.Hex(scH(b)).Has(soldiers1918.CommTrench) {
			t.Errorf("bunker %s is not on a communication trench", b)
		}
	}
}

func TestScenarioDefenceStrongest(t *testing.T) {
	s := scLoad(t)
	for _, tc := range []struct {
		h        string
		features []soldiers1918.Terrain // the hex must hold exactly these
		want     int
		wantT    soldiers1918.Terrain
	}{
		{"1306", []soldiers1918.Terrain{soldiers1918.SupportTrench, soldiers1918.CommTrench}, 15, soldiers1918.SupportTrench},
		{"2806", []soldiers1918.Terrain{soldiers1918.SupportTrench, soldiers1918.CommTrench}, 15, soldiers1918.SupportTrench},
		{"1302", []soldiers1918.Terrain{soldiers1918.MainTrench, soldiers1918.CommTrench}, 20, soldiers1918.MainTrench},
		{"1911", []soldiers1918.Terrain{soldiers1918.CommTrench, soldiers1918.Bunker}, 30, soldiers1918.Bunker},
		{"1310", []soldiers1918.Terrain{soldiers1918.CommTrench}, 10, soldiers1918.CommTrench},
		{"1001", []soldiers1918.Terrain{soldiers1918.Open, soldiers1918.Wire}, 2, soldiers1918.Open},
		{"1400", []soldiers1918.Terrain{soldiers1918.NoMansLand, soldiers1918.Wire}, 3, soldiers1918.NoMansLand},
		{"1000", []soldiers1918.Terrain{soldiers1918.NoMansLand}, 3, soldiers1918.NoMansLand},
		{"1510", []soldiers1918.Terrain{soldiers1918.Open}, 2, soldiers1918.Open},
	} {
		if got := s.Hex(scH(tc.h)).Features; fmt.Sprint(got) != fmt.Sprint(tc.features) {
			t.Errorf("Hex(%s).Features = %v, want %v", tc.h, got, tc.features)
		}
		d, dt := s.Defence(scH(tc.h))
		if d != tc.want || dt != tc.wantT {
			t.Errorf("Defence(%s) = %d, %s; want %d, %s", tc.h, d, dt, tc.want, tc.wantT)
		}
	}
	if d, dt := s.Defence(scH("5010")); d != 0 || dt != "" {
		t.Errorf("Defence(5010) off the map = %d, %q; want 0, \"\"", d, dt)
	}
	// Every hex with two kinds of trench defends with the stronger (10.11).
	twoKinds := 0
	for _, h := range s.Hexes() {
		best, kinds := 0, 0
		for _, f := range s.Hex(h).Features {
			if f == soldiers1918.MainTrench || f == soldiers1918.SupportTrench || f == soldiers1918.CommTrench {
				kinds++
			}
			if f != soldiers1918.Wire {
				best = max(best, s.DefenceStrength[f].N)
			}
		}
		if kinds >= 2 {
			twoKinds++
		}
		if d, _ := s.Defence(h); d != best {
			t.Errorf("Defence(%v) = %d, want %d, the strongest of %v", h, d, best, s.Hex(h).Features)
		}
	}
	if twoKinds == 0 {
		t.Error("no hex holds two kinds of trench; 10.11 needs at least one")
	}

	// The strongest is read from the chart, not from a fixed order: make
	// the communication trench stronger than the support trench.
	m := scDataFS(t)
	charts := string(m["charts.txt"].Data)
	changed := strings.Replace(charts, "defence communication 10 ", "defence communication 25 ", 1)
	if changed == charts {
		t.Fatal("charts.txt has no \"defence communication 10\" line to change")
	}
	m["charts.txt"] = &fstest.MapFile{Data: []byte(changed)}
	s2, err := soldiers1918.ParseScenario(m)
	if err != nil {
		t.Fatal(err)
	}
	if d, dt := s2.Defence(scH("1306")); d != 25 || dt != soldiers1918.CommTrench {
		t.Errorf("with communication 25, Defence(1306) = %d, %s; want 25, communication", d, dt)
	}
}

func TestScenarioDefaultDeployments(t *testing.T) {
	s := scLoad(t)
	count := map[string]int{}
	german := map[hex.Hex]int{}
	for _, p := range s.DefaultGerman {
		if p.Kind != "de-inf" && p.Kind != "de-hmg" {
			t.Errorf("German placement of kind %q", p.Kind)
		}
		if p.Count < 1 {
			t.Errorf("placement %+v has no units", p)
		}
		if !s.GermanSetupHex(p.Hex) {
			t.Errorf("German units in %v, outside the German position (3.5)", p.Hex)
		}
		count[p.Kind] += p.Count
		german[p.Hex] += p.Count
	}
	for h, n := range german {
		if n > 3 {
			t.Errorf("%d German units in %v, over the limit of 3 (6.3)", n, h)
		}
	}
	army, usmc := map[hex.Hex]int{}, map[hex.Hex]int{}
	for _, p := range s.DefaultUS {
		switch p.Kind {
		case "us-army", "york":
			army[p.Hex] += p.Count
		case "usmc":
			usmc[p.Hex] += p.Count
		default:
			t.Errorf("US placement of kind %q", p.Kind)
		}
		if p.Hex.Row != 0 || !s.OnMap(p.Hex) {
			t.Errorf("US units in %v, not in the No Man's Land row (3.6)", p.Hex)
		}
		count[p.Kind] += p.Count
	}
	for h, n := range army {
		if n > 4 {
			t.Errorf("%d US Army units in %v, over the limit of 4 (6.4)", n, h)
		}
		if usmc[h] > 0 {
			t.Errorf("US Army and USMC mixed in %v (6.4)", h)
		}
	}
	for h, n := range usmc {
		if n > 4 {
			t.Errorf("%d USMC units in %v, over the limit of 4 (6.4)", n, h)
		}
	}
	want := map[string]int{"de-inf": 24, "de-hmg": 9, "us-army": 143, "york": 1, "usmc": 12}
	for k, n := range want {
		if count[k] != n || s.Counters[k] != n {
			t.Errorf("%s: %d placed, %d in Counters; want %d", k, count[k], s.Counters[k], n)
		}
	}
	if len(count) != len(want) {
		t.Errorf("placed kinds %v, want %v", count, want)
	}
}

func TestScenarioParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name     string
		file     string
		old, new string // replace old by new ("" old: append new)
		wantLine bool   // the error names the line holding new
		want     string
	}{
		{"hex off the map", "map.txt", "", "feature main 5002 | reconstructed: test", true, "hex 5002 is off the map"},
		{"no provenance", "map.txt", "", "feature support 2010", true, "no provenance"},
		{"no provenance in the charts", "charts.txt", "", "defence bunker 31", true, "no provenance"},
		{"bad provenance", "map.txt", "", "feature support 2010 | guessed", true, `provenance "guessed"`},
		{"printed without rule", "map.txt", "", "feature support 2010 | printed", true, "printed values name their rule"},
		{"printed without rule in the counters", "counters.txt", "", "counter usmc 12 | printed: the Marines", true, "printed values name their rule"},
		{"bad run", "map.txt", "", "feature support 2010..2111 | reconstructed: test", true, "want a run along one row or one column"},
		{"bad hex id", "map.txt", "", "feature support 20x0 | reconstructed: test", true, `hex id "20x0"`},
		{"unknown keyword", "map.txt", "", "trench 2010 | reconstructed: test", true, `unknown line "trench"`},
		{"unknown feature", "map.txt", "", "feature trench 2010 | reconstructed: test", true, `unknown feature "trench"`},
		{"old-style line", "map.txt", "", "support 2010 | reconstructed: test", true, `unknown line "support"`},
		{"duplicate feature", "map.txt", "", "feature bunker 1911 | reconstructed: test", true, "hex 1911 already has bunker (line"},
		{"outpost listed as main", "map.txt", "", "feature main 3801 | reconstructed: test", true, "outpost is a Main Trench hex already"},
		{"outpost in No Man's Land", "map.txt", "", "feature outpost 2000 | reconstructed: test", true, "outpost cannot be in No Man's Land (3.5)"},
		{"No Man's Land out of row 00", "map.txt", "", "terrain nomansland 2010 | reconstructed: test", true, "xx00 row only (3.6)"},
		{"row 00 not No Man's Land", "map.txt", "terrain nomansland 1000..4900", "terrain nomansland 1100..4900", false, "hex 1000 is in row 00 but not No Man's Land"},
		{"main trench in row 01", "map.txt", "", "feature main 2001 | reconstructed: test", true, "must be an outpost"},
		{"column without Main Trench", "map.txt", "2502..4102", "2502..3902 4102", false, "column 40 has no Main Trench hex"},
		{"no exit hexes", "map.txt", "set exit", "# set exit", false, "no exit hexes"},
		{"exit off the map", "map.txt", "set exit 1020", "set exit 1021", true, "hex 1021 is off the map"},
		{"no rows for odd columns", "map.txt", "rows odd 00-19", "# gone", false, `no "rows odd" line`},
		{"defence not a number", "charts.txt", "defence main 20 ", "defence main twenty ", true, `"twenty" is not a number`},
		{"move cost 3", "tec.txt", "enter open          1 ", "enter open          3 ", true, "1 or 2 MP (9.5)"},
		{"move cost missing", "tec.txt", "enter wire ", "# enter wire ", false, "no enter line for wire"},
		{"outpost not as main", "tec.txt", "enter outpost       2 ", "enter outpost       1 ", true, "an outpost costs what the Main Trench does"},
		{"move cost in the charts", "charts.txt", "", "movecost open 1 | reconstructed: test", true, "the movement costs are in tec.txt"},
		{"wire defence", "charts.txt", "", "defence wire 5 | reconstructed: test", true, "wire adds nothing"},
		{"york not double", "charts.txt", "fs york 4 ", "fs york 5 ", true, "exactly double"},
		{"German FS 5", "tables.txt", "roll 5 4 ", "roll 5 5 ", true, "7.1 allows only 2, 3, 4 or 6"},
		{"shock troops not 6", "tables.txt", "roll 6 6 ", "roll 6 4 ", true, "shock-troop division (6.3)"},
		{"German FS not a number", "tables.txt", "roll 3 3 ", "roll 3 x ", true, `"x" is not a number`},
		{"German FS roll 7", "tables.txt", "", "roll 7 6 | reconstructed: test", false, "rolls 1 to 7, want 1 to 6"},
		{"no German FS chart", "tables.txt", "table german-fs ", "table other ", false, "no table german-fs (3.4)"},
		{"German FS in the charts", "charts.txt", "", "german-fs 1 2 | reconstructed: test", true, "german-fs in tables.txt"},
		{"missing chart line", "charts.txt", "defence bunker 30 ", "# defence bunker 30 ", false, "no defence line for bunker"},
		{"unknown counter", "counters.txt", "", "counter tank 3 | reconstructed: test", true, `unknown unit kind "tank"`},
		{"German in xx01", "deploy-german.txt", "1102 de-inf 1 ", "1101 de-inf 1 ", true, "outside the German position"},
		{"German south of main", "deploy-german.txt", "2103 de-inf 1 ", "2102 de-inf 1 ", true, "outside the German position"},
		{"German over-stacked", "deploy-german.txt", "1102 de-inf 1 | reconstructed: Main Trench", "1911 de-inf 1 | reconstructed: over-stacked", true, "holds 4 German units: at most 3 a hex (6.3)"},
		{"German kind in US file", "deploy-us.txt", "", "1000 de-inf 1 | reconstructed: test", true, "this file places us-army, york, usmc"},
		{"US out of row 00", "deploy-us.txt", "3800 york 1 ", "3801 york 1 ", true, "not in the No Man's Land row"},
		{"US Army and USMC mixed", "deploy-us.txt", "3800 york 1 ", "3000 york 1 ", true, "mixes US Army and USMC"},
		{"US unit missing", "deploy-us.txt", "3800 us-army 3 ", "3800 us-army 2 ", false, "142 us-army placed, but the counter mix has 143"},
		{"file missing", "counters.txt", "", "", false, "cannot read"},
		{"map missing", "map.txt", "", "", false, "cannot read"},
		{"map empty", "map.txt", "", "", false, `no "columns" line`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := scDataFS(t)
			text := string(m[tc.file].Data)
			switch {
			case tc.name == "file missing" || tc.name == "map missing":
				delete(m, tc.file)
			case tc.name == "map empty":
				text = ""
			case tc.old == "":
				text = strings.TrimRight(text, "\n") + "\n" + tc.new + "\n"
			default:
				if !strings.Contains(text, tc.old) {
					t.Fatalf("%s has no %q", tc.file, tc.old)
				}
				text = strings.Replace(text, tc.old, tc.new, 1)
			}
			if m[tc.file] != nil {
				m[tc.file] = &fstest.MapFile{Data: []byte(text)}
			}
			_, err := soldiers1918.ParseScenario(m)
			if err == nil {
				t.Fatal("ParseScenario() succeeded, want an error")
			}
			prefix := tc.file + ": "
			if tc.wantLine {
				line := strings.Count(text[:strings.Index(text, tc.new)], "\n") + 1
				prefix = fmt.Sprintf("%s:%d: ", tc.file, line)
			}
			for _, msg := range strings.Split(err.Error(), "\n") {
				if strings.HasPrefix(msg, prefix) && strings.Contains(msg, tc.want) {
					return
				}
			}
			t.Errorf("ParseScenario() error:\n%v\nwant a line starting %q containing %q", err, prefix, tc.want)
		})
	}
}
