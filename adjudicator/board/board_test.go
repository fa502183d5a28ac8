package board_test

import (
	"io/fs"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

var vocab = board.Vocabulary{
	Terrain:  []string{"clear", "forest", "town"},
	Features: []string{"village"},
	Sides:    []string{"river", "canal", "road", "bridge", "railbridge"},
	Sets:     []string{"entry", "exit"},
}

const sampleMap = `# a small test map
columns 10-14            | reconstructed: test
rows odd 00-04           | reconstructed: test
rows even 01-05          | reconstructed: test
parity odd-columns-shifted | printed 7.2: 3506 touches 3407
default clear            | reconstructed: test
terrain forest 1202..1203 1302 | printed 10.4: forest
terrain town 1104        | reconstructed: a town
feature village 1104     | reconstructed: a village
side river 1001/1101 1101/1201 | reconstructed: a river
side canal 1202/1302     | reconstructed: a canal
path road 1001-1101-1201-1301 | reconstructed: a road
side bridge 1101/1201    | reconstructed: the road crosses the river
side railbridge 1202/1302 | printed 9.16: rail bridge
place Old_Town 1104      | reconstructed: test
set entry 1100 1300      | printed 3.1: entry hexes
set exit 1205            | printed 4.4: exit
`

func mustMap(t *testing.T) *board.Map {
	t.Helper()
	m, err := board.ParseMap("map.txt", []byte(sampleMap), vocab)
	if err != nil {
		t.Fatalf("ParseMap: %v", err)
	}
	return m
}

func h(s string) hex.Hex { return hex.MustParse(s) }

func TestParseMap(t *testing.T) {
	m := mustMap(t)
	for _, tt := range []struct {
		hex, terrain string
		on           bool
	}{
		{"1202", "forest", true}, {"1203", "forest", true}, {"1302", "forest", true},
		{"1104", "town", true}, {"1201", "clear", true}, {"1000", "", false},
		{"1100", "clear", true}, {"1105", "", false}, {"1205", "clear", true}, {"1500", "", false},
	} {
		if got := m.OnMap(h(tt.hex)); got != tt.on {
			t.Errorf("OnMap(%s) = %v, want %v", tt.hex, got, tt.on)
		}
		if tt.on && m.Terrain(h(tt.hex)) != tt.terrain {
			t.Errorf("Terrain(%s) = %q, want %q", tt.hex, m.Terrain(h(tt.hex)), tt.terrain)
		}
	}
	if got := m.Side(h("1201"), h("1101")); !slices.Equal(got, []string{"bridge", "river", "road"}) {
		t.Errorf("Side(1201, 1101) = %v", got)
	}
	if !m.SideHas(h("1201"), h("1301"), "road") || m.SideHas(h("1201"), h("1301"), "river") {
		t.Error("road path 1201-1301 not set, or a river there")
	}
	if !m.HasFeature(h("1104"), "village") {
		t.Error("village 1104 missing")
	}
	if p, ok := m.Place("old town"); !ok || p != h("1104") {
		t.Errorf("Place(old town) = %v, %v", p, ok)
	}
	if got := m.Set("entry"); !slices.Equal(got, []hex.Hex{h("1100"), h("1300")}) {
		t.Errorf("Set(entry) = %v", got)
	}
	if f, ok := m.TerrainFact(h("1302")); !ok || !f.Printed || f.Line != 7 || !strings.HasPrefix(f.Source, "10.4") {
		t.Errorf("TerrainFact(1302) = %+v, %v", f, ok)
	}
	if f, ok := m.TerrainFact(h("1104")); !ok || f.Printed {
		t.Errorf("TerrainFact(1104) = %+v, %v; want reconstructed", f, ok)
	}
	if _, ok := m.TerrainFact(h("1201")); ok {
		t.Error("TerrainFact of a default hex: ok")
	}
	if f, ok := m.SideFact(h("1302"), h("1202"), "railbridge"); !ok || !f.Printed {
		t.Errorf("SideFact(railbridge) = %+v, %v", f, ok)
	}
	if n := len(m.Hexes()); n != 5*5 {
		t.Errorf("len(Hexes()) = %d, want 25", n)
	}
	// The extent's lines keep their provenance too (the default terrain of every hex
	// not listed, the rows that make a hex exist).
	for _, tt := range []struct {
		key     string
		line    int
		printed bool
	}{{"columns", 2, false}, {"rows odd", 3, false}, {"rows even", 4, false}, {"parity", 5, true}, {"default", 6, false}} {
		if f, ok := m.ExtentFact(tt.key); !ok || f.Line != tt.line || f.Printed != tt.printed {
			t.Errorf("ExtentFact(%q) = %+v, %v; want line %d, printed %v", tt.key, f, ok, tt.line, tt.printed)
		}
	}
	if _, ok := m.ExtentFact("terrain"); ok {
		t.Error("ExtentFact(\"terrain\"): ok")
	}
	src := strings.Replace(sampleMap, "rows odd 00-04", "rows all 00-05", 1)
	src = strings.Replace(src, "rows even 01-05", "# rows even 01-05", 1)
	all, err := board.ParseMap("map.txt", []byte(src), vocab)
	if err != nil {
		t.Fatal(err)
	}
	for _, key := range []string{"rows odd", "rows even"} {
		if f, ok := all.ExtentFact(key); !ok || f.Line != 3 {
			t.Errorf("with rows all: ExtentFact(%q) = %+v, %v; want line 3", key, f, ok)
		}
	}
}

func TestParseMapErrors(t *testing.T) {
	head := strings.Join(strings.Split(sampleMap, "\n")[:6], "\n") + "\n"
	tests := []struct {
		name, text, want string
	}{
		{"no provenance", "terrain forest 1202\n", "map.txt:7: no provenance"},
		{"printed without rule", "terrain forest 1202 | printed: forest\n", "printed values name their rule"},
		{"reconstructed without why", "terrain forest 1202 | reconstructed\n", "say why"},
		{"unknown terrain", "terrain swamp 1202 | reconstructed: x\n", `map.txt:7: unknown terrain "swamp"`},
		{"off map", "terrain forest 1600 | reconstructed: x\n", "hex 1600 is off the map"},
		{"two terrains", "terrain forest 1202 | reconstructed: x\nterrain town 1202 | reconstructed: y\n", "map.txt:8: hex 1202 already has terrain forest (line 7)"},
		{"not adjacent", "side river 1001/1003 | reconstructed: x\n", "1001 and 1003 are not adjacent"},
		{"path gap", "path road 1001-1201 | reconstructed: x\n", "1001 and 1201 are not adjacent"},
		{"bad run", "terrain forest 1203..1202 | reconstructed: x\n", "lower id first"},
		{"unknown line", "lake 1202 | reconstructed: x\n", `unknown line "lake"`},
		{"unknown set", "set start 1202 | reconstructed: x\n", `unknown set "start"`},
		{"duplicate side", "side river 1001/1101 | reconstructed: x\nside river 1101/1001 | reconstructed: y\n", "hexside 1001/1101 already has river (line 7)"},
	}
	for _, tt := range tests {
		_, err := board.ParseMap("map.txt", []byte(head+tt.text), vocab)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: err = %v, want %q", tt.name, err, tt.want)
		}
	}
	if _, err := board.ParseMap("map.txt", []byte("default clear | reconstructed: x\n"), vocab); err == nil || !strings.Contains(err.Error(), `no "columns" line`) {
		t.Errorf("missing extent: err = %v", err)
	}
}

const sampleTEC = `classes infantry cavalry artillery heavy | printed 2.8
combine sum                  | printed 9.18
enter clear 1 1 1 2          | printed 9.10
enter forest 2 3 - -         | printed 9.11
enter town 2 2 2 -           | printed 9.15
cross river +1 +2 - -        | printed 9.12
cross canal - - - -          | printed 9.13
along road 1 1 1 1           | printed 9.17
negates bridge river canal   | printed 9.16
negates railbridge river canal | printed 9.16
`

func TestTEC(t *testing.T) {
	m := mustMap(t)
	tec, err := board.ParseTEC("tec.txt", []byte(sampleTEC), vocab)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		class, from, to string
		mp              int
		ok              bool
	}{
		{"infantry", "1201", "1202", 2, true},   // forest
		{"cavalry", "1201", "1202", 3, true},    // forest
		{"artillery", "1201", "1202", 0, false}, // forest, no road
		{"heavy", "1100", "1201", 2, true},      // clear
		{"heavy", "1101", "1201", 1, true},      // along the road, over the bridge
		{"heavy", "1001", "1101", 0, false},     // along the road but over an unbridged river
		{"infantry", "1001", "1101", 2, true},   // road 1, unbridged river +1
		{"infantry", "1100", "1000", 0, false},  // 1000 is off the map
		{"cavalry", "1002", "1101", 1, true},    // no river on 1002/1101
		{"cavalry", "1101", "1201", 1, true},    // road and bridge: no river penalty
		{"infantry", "1202", "1302", 2, true},   // railbridge negates canal; forest 2
		{"artillery", "1202", "1302", 0, false}, // over the railbridge, but into forest
		{"infantry", "1103", "1104", 2, true},   // town
		{"heavy", "1103", "1104", 0, false},     // town without road
		{"infantry", "1201", "1203", 0, false},  // not adjacent
	}
	for _, tt := range tests {
		mp, ok, why := tec.Step(m, tt.class, h(tt.from), h(tt.to))
		if mp != tt.mp || ok != tt.ok {
			t.Errorf("Step(%s, %s-%s) = %d, %v (%s), want %d, %v", tt.class, tt.from, tt.to, mp, ok, why, tt.mp, tt.ok)
		}
	}
	// 9.18: river (+2) into forest (3) is 5 for cavalry; add a river side to test it.
	m2, err := board.ParseMap("map.txt", []byte(sampleMap+"side river 1102/1202 | reconstructed: x\n"), vocab)
	if err != nil {
		t.Fatal(err)
	}
	if mp, ok, _ := tec.Step(m2, "cavalry", h("1102"), h("1202")); mp != 5 || !ok {
		t.Errorf("cavalry across a river into forest = %d, %v; want 5 (9.18)", mp, ok)
	}
	total, err := tec.PathCost(m, "infantry", []hex.Hex{h("1001"), h("1101"), h("1201"), h("1202")})
	if err != nil || total != 5 {
		t.Errorf("PathCost = %d, %v; want 2+1+2", total, err)
	}
	if _, err := tec.PathCost(m, "artillery", []hex.Hex{h("1201"), h("1202")}); err == nil || !strings.Contains(err.Error(), "1201-1202: artillery may not enter forest") {
		t.Errorf("PathCost(artillery into forest) err = %v", err)
	}
	if _, err := board.ParseTEC("tec.txt", []byte("classes a | printed 1.1\ncombine sum | printed 1.1\nenter clear 1 | printed 1.1\n"), vocab); err == nil || !strings.Contains(err.Error(), "no enter line for terrain forest") {
		t.Errorf("incomplete TEC: err = %v", err)
	}
	if _, err := board.ParseTEC("tec.txt", []byte("classes a b | printed 1.1\ncombine avg | printed 1.1\nenter clear 1 x | printed 1.1\n"), vocab); err == nil || !strings.Contains(err.Error(), "tec.txt:2: want combine") || !strings.Contains(err.Error(), `tec.txt:3: cost "x"`) {
		t.Errorf("bad TEC: err = %v", err)
	}
}

func TestZonesTraceReach(t *testing.T) {
	m := mustMap(t)
	// A unit in 1202 (even column): neighbours 1201, 1203, 1101, 1102, 1301, 1302; no
	// zone into the town, none off the map.
	z := board.Zones(m, []hex.Hex{h("1202")}, func(_, to hex.Hex) bool { return m.Terrain(to) != "town" })
	var got []string
	for k := range z {
		got = append(got, k.String())
	}
	slices.Sort(got)
	if want := []string{"1101", "1102", "1201", "1203", "1301", "1302"}; !slices.Equal(got, want) {
		t.Errorf("Zones(1202) = %v, want %v", got, want)
	}
	z = board.Zones(m, []hex.Hex{h("1103")}, func(_, to hex.Hex) bool { return m.Terrain(to) != "town" })
	if z[h("1104")] || !z[h("1102")] {
		t.Errorf("Zones(1103) = %v: want no zone into the town 1104", z)
	}
	// Trace from 1100 to the exit 1205 avoiding column 12 rows 2-4: must go round.
	blocked := map[hex.Hex]bool{h("1202"): true, h("1203"): true, h("1204"): true}
	path, ok := board.Trace(m, h("1100"), func(x hex.Hex) bool { return m.InSet("exit", x) },
		func(_, to hex.Hex) bool { return !blocked[to] })
	if !ok || path[0] != h("1100") || path[len(path)-1] != h("1205") {
		t.Fatalf("Trace = %v, %v", path, ok)
	}
	for i, x := range path {
		if blocked[x] {
			t.Errorf("Trace went through blocked %s", x)
		}
		if i > 0 && !m.Grid.Adjacent(path[i-1], x) {
			t.Errorf("Trace not contiguous at %s", x)
		}
	}
	// Fully blocked: no path.
	wall := func(_, to hex.Hex) bool { return to.Col != 12 }
	if _, ok := board.Trace(m, h("1100"), func(x hex.Hex) bool { return x == h("1205") }, wall); ok {
		t.Error("Trace through a wall: ok")
	}
	if !board.Surrounded(m, h("1000"), func(x hex.Hex) bool { return x == h("1001") || x == h("1100") || x == h("1101") }) {
		t.Error("Surrounded(1000) by its three on-map neighbours: false")
	}
	tec, err := board.ParseTEC("tec.txt", []byte(sampleTEC), vocab)
	if err != nil {
		t.Fatal(err)
	}
	cost := func(a, b hex.Hex) (int, bool) { mp, ok, _ := tec.Step(m, "infantry", a, b); return mp, ok }
	r := board.Reach(m, h("1201"), 2, cost, nil)
	if r[h("1202")] != 2 || r[h("1101")] != 1 {
		t.Errorf("Reach: 1202 = %d, 1101 = %d; want 2, 1", r[h("1202")], r[h("1101")])
	}
	if _, ok := r[h("1203")]; ok {
		t.Error("Reach: 1203 (forest beyond forest) within 2")
	}
	stop := func(x hex.Hex) bool { return x == h("1101") }
	if r := board.Reach(m, h("1201"), 3, cost, stop); r[h("1000")] != 0 {
		if _, ok := r[h("1001")]; ok && r[h("1001")] == 2 {
			t.Error("Reach went on through a stop hex")
		}
	}
}

const sampleTables = `table bombardment | reconstructed: test
columns 1-2 3-4 5+ | reconstructed: x
roll 1 - - 1       | reconstructed: x
roll 2 - 1 1       | reconstructed: x
roll 3 - 1 2       | reconstructed: x
pin 4 3 1          | printed 10.7: four factors, roll three, one step
table melee        | reconstructed: test
columns 1:1 2:1 3:1 | reconstructed: x
roll 1 1/0 1/1 0/2 | reconstructed: x
roll 2 2/0 1/1 1/2 | reconstructed: x
pin 3:1 2 1/2      | printed 12.11: 3:1, roll 2, 1/2
`

func TestTables(t *testing.T) {
	tabs, err := board.ParseTables("tables.txt", []byte(sampleTables))
	if err != nil {
		t.Fatal(err)
	}
	b := tabs["bombardment"]
	for _, tt := range []struct {
		n, roll int
		want    string
	}{{1, 1, "-"}, {4, 3, "1"}, {9, 3, "2"}, {5, 1, "1"}} {
		if got, _, err := b.Lookup(tt.n, tt.roll); err != nil || got != tt.want {
			t.Errorf("Lookup(%d, %d) = %q, %v; want %q", tt.n, tt.roll, got, err, tt.want)
		}
	}
	if _, _, err := b.Lookup(0, 1); err == nil {
		t.Error("Lookup(0): no error")
	}
	if got, col, _ := tabs["melee"].Lookup(3, 2); got != "1/2" || col != "3:1" {
		t.Errorf("melee Lookup(3, 2) = %q %q", got, col)
	}
	bad := strings.Replace(sampleTables, "pin 4 3 1 ", "pin 4 3 2 ", 1)
	if _, err := board.ParseTables("tables.txt", []byte(bad)); err == nil || !strings.Contains(err.Error(), "tables.txt:6: pin: the bombardment table gives 1 for 4 and roll 3, but the rulebook prints 2") {
		t.Errorf("wrong pin: err = %v", err)
	}
	for _, tt := range []struct{ text, want string }{
		{"table t | reconstructed: x\ncolumns 1-3 2 | reconstructed: x\n", "overlaps"},
		{"table t | reconstructed: x\ncolumns 1 2 | reconstructed: x\nroll 1 - | reconstructed: x\n", "1 results for 2 columns"},
		{"table t | reconstructed: x\ncolumns 1 | reconstructed: x\nroll 1 - | reconstructed: x\nroll 3 - | reconstructed: x\n", "without a gap"},
		{"columns 1 | reconstructed: x\n", "a table line must come first"},
		{"table t | reconstructed: x\nodds 1-1 3-2 | reconstructed: x\n", "from the highest odds to the lowest"},
		{"table t | reconstructed: x\nodds 3-2 1 | reconstructed: x\n", "want odds a-d"},
		{"table t | reconstructed: x\nodds 2-1 | reconstructed: x\nodds 1-1 | reconstructed: x\n", "one columns or odds line"},
	} {
		if _, err := board.ParseTables("t.txt", []byte(tt.text)); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseTables(%q) err = %v, want %q", tt.text, err, tt.want)
		}
	}
	if n, ok := board.Odds(26, 7); n != 3 || !ok {
		t.Errorf("Odds(26, 7) = %d, %v; want 3 (12.7)", n, ok)
	}
	if board.Clamp(-1, 1, 6) != 1 || board.Clamp(8, 1, 6) != 6 || board.Clamp(3, 1, 6) != 3 {
		t.Error("Clamp")
	}
}

func FuzzParseMap(f *testing.F) {
	f.Add([]byte(sampleMap))
	f.Add([]byte("columns 1-2 | reconstructed: x\n"))
	f.Fuzz(func(t *testing.T, src []byte) {
		m, err := board.ParseMap("map.txt", src, vocab)
		if err == nil {
			for _, x := range m.Hexes() {
				_ = m.Terrain(x)
			}
		}
	})
}

func FuzzParseTables(f *testing.F) {
	f.Add([]byte(sampleTables))
	f.Fuzz(func(t *testing.T, src []byte) {
		tabs, err := board.ParseTables("t.txt", src)
		if err == nil {
			for _, tb := range tabs {
				for r := tb.Rolls[0]; r <= tb.Rolls[1]; r++ {
					if _, _, err := tb.Lookup(tb.Cols[0].Lo, r); err != nil {
						t.Fatalf("Lookup of a parsed table: %v", err)
					}
				}
			}
		}
	})
}

// TestTECFractionsAndMax: a Soissons-like table (19.3: "1 movement point if the terrain
// in the hex entered is clear, and 2 movement points if it is not, and/or if a stream
// hexside is crossed"; road movement at 1/2 MP a hex) counts in half MP.
func TestTECFractionsAndMax(t *testing.T) {
	m := mustMap(t)
	src := `classes combat | printed 19.3
combine max | printed 19.3: not cumulative
enter clear 1 | printed 19.3
enter forest 2 | printed 19.3
enter town 2 | printed 19.3
cross river 2 | printed 19.3: a stream hexside
along road 1/2 | printed 19.4: road movement
`
	tec, err := board.ParseTEC("tec.txt", []byte(src), vocab)
	if err != nil {
		t.Fatal(err)
	}
	if tec.Scale != 2 {
		t.Fatalf("Scale = %d, want 2", tec.Scale)
	}
	for _, tt := range []struct {
		from, to string
		want     int // in half MP
	}{
		{"1201", "1301", 1}, // along the road: 1/2
		{"1100", "1201", 2}, // clear: 1
		{"1201", "1202", 4}, // forest: 2
		{"1001", "1101", 4}, // the road over an unbridged river: max(1/2, 2) = 2, not 5/2
	} {
		mp, ok, why := tec.Step(m, "combat", h(tt.from), h(tt.to))
		if !ok || mp != tt.want {
			t.Errorf("Step(%s-%s) = %d, %v (%s), want %d half MP", tt.from, tt.to, mp, ok, why, tt.want)
		}
	}
	if _, err := board.ParseTEC("tec.txt", []byte("classes a | printed 1.1\ncombine sum | printed 1.1\nenter clear 1/0 | printed 1.1\n"), vocab); err == nil || !strings.Contains(err.Error(), `cost "1/0"`) {
		t.Errorf("1/0: err = %v", err)
	}
}

// TestOddsTable: an odds table (Soissons 20.4.4) reads the column for attack against
// defence rounded in the defender's favour, held within its first and last columns, and
// keeps each roll line's provenance.
func TestOddsTable(t *testing.T) {
	src := "table crt | reconstructed: x\nodds 6-1 3-1 2-1 3-2 1-1 | reconstructed: x\n" +
		"roll 1 a b c d e | printed 20.2: row one\nroll 2 f g h i j | reconstructed: row two\n"
	tabs, err := board.ParseTables("combat.txt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	tab := tabs["crt"]
	for _, tt := range []struct {
		att, def int
		want     string
	}{
		{15, 8, "3-2"}, // 20.4.4's example: 15 against 8 is 3-2
		{12, 8, "3-2"}, {11, 8, "1-1"}, {16, 8, "2-1"}, {24, 8, "3-1"},
		{1, 8, "1-1"},   // below the last column
		{100, 1, "6-1"}, // above the first
	} {
		if got := tab.Cols[tab.OddsColumn(tt.att, tt.def)].Label; got != tt.want {
			t.Errorf("OddsColumn(%d, %d) = %s, want %s", tt.att, tt.def, got, tt.want)
		}
	}
	if tab.Column(3) != -1 {
		t.Error("Column(3) found a value column in an odds table")
	}
	if tabs, err := board.ParseTables("t.txt", []byte(sampleTables)); err != nil || tabs["melee"].OddsColumn(3, 1) != -1 {
		t.Errorf("OddsColumn of a table of value columns: want -1 (err %v)", err)
	}
	if f := tab.RowFacts[1]; !f.Printed || f.Line != 3 {
		t.Errorf("RowFacts[1] = %+v, want the printed line 3", f)
	}
	if f := tab.RowFacts[2]; f.Printed || f.Source != "row two" {
		t.Errorf("RowFacts[2] = %+v, want reconstructed row two", f)
	}
}

// TestWithSides: a state's hexside features (the teaching game's cut wire) go on a copy
// of the map, with their provenance, and the map itself is unchanged.
func TestWithSides(t *testing.T) {
	m := mustMap(t)
	river := hex.Hexside{A: h("1001"), B: h("1101")}
	canal, _ := m.Grid.Hexside(h("1202"), h("1302"))
	cut := board.Fact{Source: "game state, cut in turn 2"}
	w := m.WithSides("bridge", map[hex.Hexside]board.Fact{river: cut, canal: cut})
	if got := w.Side(h("1001"), h("1101")); !slices.Equal(got, []string{"bridge", "river", "road"}) {
		t.Errorf("copy: Side(1001, 1101) = %v, want bridge, river and road, sorted", got)
	}
	if got := m.Side(h("1001"), h("1101")); !slices.Equal(got, []string{"river", "road"}) {
		t.Errorf("original: Side(1001, 1101) = %v, want river and road: WithSides changed the map", got)
	}
	if f, ok := w.SideFact(h("1001"), h("1101"), "bridge"); !ok || f != cut {
		t.Errorf("copy: SideFact(bridge) = %v %v, want the fact given", f, ok)
	}
	if _, ok := m.SideFact(h("1001"), h("1101"), "bridge"); ok {
		t.Error("original: a bridge fact appeared")
	}
	// The canal hexside has a rail bridge already: the added bridge joins it once.
	if got := w.Side(h("1202"), h("1302")); !slices.Equal(got, []string{"bridge", "canal", "railbridge"}) {
		t.Errorf("copy: Side(1202, 1302) = %v", got)
	}
	again := w.WithSides("bridge", map[hex.Hexside]board.Fact{river: cut})
	if got := again.Side(h("1001"), h("1101")); !slices.Equal(got, []string{"bridge", "river", "road"}) {
		t.Errorf("a feature added twice: %v, want it once", got)
	}
}

// TestLoadDir: a scenario folder is parsed from its root; a folder that is not one is
// an error naming it.
func TestLoadDir(t *testing.T) {
	fsys := fstest.MapFS{"data/map.txt": {Data: []byte(sampleMap)}}
	parse := func(f fs.FS) (*board.Map, error) {
		src, err := fs.ReadFile(f, "map.txt")
		if err != nil {
			return nil, err
		}
		return board.ParseMap("map.txt", src, vocab)
	}
	if m, err := board.LoadDir(fsys, "data", parse); err != nil || !m.OnMap(h("1202")) {
		t.Errorf("LoadDir(data) = %v, %v", m, err)
	}
	if _, err := board.LoadDir(fsys, "nodata", parse); err == nil {
		t.Error("LoadDir(nodata): no error")
	}
	if _, err := board.LoadDir(fsys, "../data", parse); err == nil || !strings.Contains(err.Error(), "scenario folder ../data") {
		t.Errorf("LoadDir(../data) err = %v, want one naming the folder", err)
	}
}
