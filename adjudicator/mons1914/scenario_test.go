package mons1914_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
)

func scenario(t *testing.T) *mons1914.Scenario {
	t.Helper()
	s, err := mons1914.LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func h(s string) hex.Hex { return hex.MustParse(s) }

func hexes(ids ...string) []hex.Hex {
	var out []hex.Hex
	for _, id := range ids {
		out = append(out, h(id))
	}
	return out
}

func zones(s *mons1914.Scenario, at string) []string {
	var out []string
	for z := range board.Zones(s.Map, hexes(at), s.ZOCInto) {
		out = append(out, z.String())
	}
	slices.Sort(out)
	return out
}

// TestWorkedExamplesOnMap holds every worked example of rulebook 004 that depends on the
// map alone against the shipped data (DESIGN.md: "every worked example in the rulebook
// holds on the shipped data").
func TestWorkedExamplesOnMap(t *testing.T) {
	s := scenario(t)
	m := s.Map
	// 2.2: "the town of Conde is in hex 1708".
	if p, ok := m.Place("Conde"); !ok || p != h("1708") {
		t.Errorf("Conde = %v, %v; want 1708 (2.2)", p, ok)
	}
	// 7.2: "a unit in hex 2707 projects ZOC into 2607, 2706 and 2807."
	if got, want := zones(s, "2707"), []string{"2607", "2706", "2807"}; !slices.Equal(got, want) {
		t.Errorf("7.2: ZOC of 2707 = %v, want %v", got, want)
	}
	// 7.2: "A unit in 3513 would project no ZOC at all."
	if got := zones(s, "3513"); len(got) != 0 {
		t.Errorf("7.2: ZOC of 3513 = %v, want none", got)
	}
	// 7.2: "A unit in hex 3506 would project ZOC into 3407, 3505, 3606 and 3607."
	if got, want := zones(s, "3506"), []string{"3407", "3505", "3606", "3607"}; !slices.Equal(got, want) {
		t.Errorf("7.2: ZOC of 3506 = %v, want %v", got, want)
	}
	// 10.2: "an artillery unit in hex 2524 bombarding a unit in hex 2823 is firing at a
	// range of three hexes."
	if d := m.Grid.Distance(h("2524"), h("2823")); d != 3 {
		t.Errorf("10.2: range 2524-2823 = %d, want 3", d)
	}
	// 10.4: "An artillery unit in hex 3514 can't bombard a unit in hex 3714 ... the forest
	// in 3615 is blocking terrain."
	if ok, by := s.LineOfSight(h("3514"), h("3714")); ok || by != h("3615") {
		t.Errorf("10.4: LoS 3514-3714 = %v (blocked by %s), want blocked by 3615", ok, by)
	}
	// 10.4: "An artillery unit in hex 3714 can't bombard a unit in 3911, because the
	// built-up residential hex in 3813 blocks its LoS."
	if ok, by := s.LineOfSight(h("3714"), h("3911")); ok || by != h("3813") {
		t.Errorf("10.4: LoS 3714-3911 = %v (blocked by %s), want blocked by 3813", ok, by)
	}
	// 10.4: "An artillery unit in hex 4308 can bombard a unit in 4208 or 4209, since the
	// terrain in the hexes of the bombarding and targeted units is never a factor".
	for _, to := range []string{"4208", "4209"} {
		if ok, _ := s.LineOfSight(h("4308"), h(to)); !ok {
			t.Errorf("10.4: LoS 4308-%s blocked", to)
		}
		if !s.BlocksLoS(h(to)) {
			t.Errorf("10.4: %s does not block a LoS itself, so the example proves nothing on this map", to)
		}
	}
	// 12.3: "a unit in hex 1824 may not melee attack into both 1923 and 1924": both
	// are adjacent to it.
	for _, to := range []string{"1923", "1924"} {
		if !m.Grid.Adjacent(h("1824"), h(to)) {
			t.Errorf("12.3: 1824 not adjacent to %s", to)
		}
	}
	// 4.5: a unit in 3122 with German units in 3023 and 3222 is surrounded.
	z := board.Zones(m, hexes("3023", "3222"), s.ZOCInto)
	closed := func(x hex.Hex) bool { return z[x] || x == h("3023") || x == h("3222") }
	if !board.Surrounded(m, h("3122"), closed) {
		t.Error("4.5: 3122 not surrounded by units in 3023 and 3222")
	}
	// 9.16: "a railroad bridge spans hex side 1523/1624".
	if !m.SideHas(h("1523"), h("1624"), "railbridge") || !m.SideHas(h("1523"), h("1624"), "river") {
		t.Error("9.16: no rail bridge over a river on 1523/1624")
	}
	// 4.2: the six south bank bridge hexes, 3308 with two bridges.
	if got := m.Set("bridgehead"); !slices.Equal(got, hexes("2009", "2409", "2708", "2908", "3308", "4208")) {
		t.Errorf("4.2: bridge hexes %v", got)
	}
	n := 0
	for _, x := range m.Grid.Neighbours(h("3308")) {
		if m.SideHas(h("3308"), x, "bridge") || m.SideHas(h("3308"), x, "railbridge") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("4.2: 3308 has %d bridges, want 2", n)
	}
	// 3.1 and 4.4.
	if got := m.Set("entry"); !slices.Equal(got, hexes("2100", "2700", "3100", "3900", "4300", "4700")) {
		t.Errorf("3.1: entry hexes %v", got)
	}
	if got := m.Set("exit"); !slices.Equal(got, hexes("1327", "1628", "1927", "2228")) {
		t.Errorf("4.4: exit hexes %v", got)
	}
}

// TestMovementExamples: 9.18's cumulative cost and the TEC's printed values.
func TestMovementExamples(t *testing.T) {
	s := scenario(t)
	// 9.18: "a cavalry unit crossing an unbridged river hexside into a forest hex would
	// pay a total of five MP". 2211/2212 is an unbridged Haine hexside into forest.
	if s.Map.Terrain(h("2212")) != "forest" || !s.Map.SideHas(h("2211"), h("2212"), "river") || s.Map.SideHas(h("2211"), h("2212"), "bridge") {
		t.Fatal("the shipped map lost the 9.18 hexside 2211/2212")
	}
	for _, tt := range []struct {
		class, from, to string
		mp              int
		ok              bool
		rule            string
	}{
		{"cavalry", "2211", "2212", 5, true, "9.18"},
		{"infantry", "2211", "2212", 3, true, "9.12, 9.11"},
		{"artillery", "2211", "2212", 0, false, "9.11, 9.12"},
		{"heavy", "2606", "2607", 2, true, "9.10"},
		{"infantry", "2807", "2808", 2, true, "9.15"},
		{"infantry", "2608", "2609", 0, false, "9.13"},
		{"heavy", "2707", "2708", 1, true, "9.16, 9.17"},
		{"infantry", "1523", "1624", 1, true, "9.16"},
	} {
		mp, ok, why := s.TEC.Step(s.Map, tt.class, h(tt.from), h(tt.to))
		if mp != tt.mp || ok != tt.ok {
			t.Errorf("%s: %s %s-%s = %d, %v (%s), want %d, %v", tt.rule, tt.class, tt.from, tt.to, mp, ok, why, tt.mp, tt.ok)
		}
	}
}

func TestTablesHoldExamples(t *testing.T) {
	s := scenario(t)
	for _, tt := range []struct {
		table   string
		n, roll int
		want    string
		rule    string
	}{
		{"bombardment", 4, 3, "1", "10.7"},
		{"bombardment", 4, 1, "-", "10.8"},
		{"defensive-fire", 4, 3, "1", "11.4"},
		{"melee", 3, 3, "1/2", "12.11"},
	} {
		if got, _, err := s.Tables[tt.table].Lookup(tt.n, tt.roll); err != nil || got != tt.want {
			t.Errorf("%s: %s(%d, %d) = %q, %v; want %q", tt.rule, tt.table, tt.n, tt.roll, got, err, tt.want)
		}
	}
	if n, _ := board.Odds(26, 7); n != 3 {
		t.Errorf("12.7: 26 against 7 = %d:1, want 3:1", n)
	}
}

func TestCounterMix(t *testing.T) {
	s := scenario(t)
	c, ok := s.Counter("iii/8/5")
	if !ok || c.Corps != "III" || c.Division != 5 || c.Steps != 4 || c.SP != 4 || !c.Fact.Printed {
		t.Errorf("III/8/5 = %+v, %v", c, ok)
	}
	if c, ok := s.Counter("2/III"); !ok || c.Type != mons1914.Heavy || c.Division != 0 {
		t.Errorf("2/III = %+v, %v", c, ok)
	}
	if c, ok := s.Counter("3/III"); !ok || c.Type != mons1914.Cavalry || c.Division != 0 {
		t.Errorf("3/III = %+v, %v", c, ok)
	}
	if c, ok := s.Counter("1/NF"); !ok || c.Side != "bef" || !s.Map.OnMap(c.Start) {
		t.Errorf("1/NF = %+v, %v", c, ok)
	}
}

func TestScenarioErrors(t *testing.T) {
	files := map[string][]byte{}
	for _, n := range []string{"map.txt", "tec.txt", "tables.txt", "counters.txt"} {
		b, err := os.ReadFile("data/" + n)
		if err != nil {
			t.Fatal(err)
		}
		files[n] = b
	}
	tests := []struct {
		file, from, to, want string
	}{
		{"counters.txt", "unit III/8/5 side=de corps=III division=5 type=infantry steps=4 melee=8/6/4/2 mf=4 sp=4", "unit III/8/5 side=de corps=III division=5 type=infantry steps=4 melee=8/6/4/2 mf=4 sp=1", "four stacking points (6.3)"},
		{"counters.txt", "unit 1/NF side=bef", "unit 1/NF side=us", `side="us"`},
		{"counters.txt", "unit RHA7 ", "#", "122 counters with the turn marker"},
		{"map.txt", "side bridge 2008/2009 ", "side bridge 2007/2008 ", "spans no river or canal"},
		{"map.txt", "set bridgehead 2009 ", "set bridgehead 2010 ", "bridge hex 2010 has no bridge over the canal"},
		{"tables.txt", "pin 4 3 1                  | printed 10.7", "pin 4 3 2                  | printed 10.7", "but the rulebook prints 2"},
		{"tec.txt", "enter forest 2 3 - -", "enter forest 2 3", "one cost per class"},
	}
	for _, tt := range tests {
		fsys := fstest.MapFS{}
		for n, b := range files {
			fsys[n] = &fstest.MapFile{Data: b}
		}
		src := string(files[tt.file])
		if !strings.Contains(src, tt.from) {
			t.Fatalf("%s lacks %q", tt.file, tt.from)
		}
		fsys[tt.file] = &fstest.MapFile{Data: []byte(strings.Replace(src, tt.from, tt.to, 1))}
		if _, err := mons1914.ParseScenario(fsys); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s %q -> %q: err = %v, want %q", tt.file, tt.from, tt.to, err, tt.want)
		}
	}
}

// TestProvenance: the values the rule text gives are marked printed with their rule,
// the others reconstructed (DESIGN.md, "Reconstructed data").
func TestProvenance(t *testing.T) {
	s := scenario(t)
	m := s.Map
	for _, tt := range []struct {
		hex, rule string
		printed   bool
	}{
		{"3615", "10.4", true}, {"3614", "10.4", true}, {"3813", "10.4", true}, {"2707", "7.2", true},
		{"3512", "7.2", true}, {"3507", "7.2", true}, {"3407", "7.2", true}, {"3023", "4.5", true},
		{"3513", "", false}, {"3122", "", false}, {"4209", "", false},
	} {
		f, ok := m.TerrainFact(h(tt.hex))
		if !ok || f.Printed != tt.printed || !strings.HasPrefix(f.Source, tt.rule) {
			t.Errorf("terrain of %s: %v, %v; want printed=%v (%s)", tt.hex, f, ok, tt.printed, tt.rule)
		}
	}
	for _, set := range []string{"entry", "exit", "bridgehead"} {
		if f, ok := m.SetFact(set); !ok || !f.Printed {
			t.Errorf("set %s: %v, %v; want printed", set, f, ok)
		}
	}
	if f, ok := m.SideFact(h("1523"), h("1624"), "railbridge"); !ok || !f.Printed || !strings.HasPrefix(f.Source, "9.16") {
		t.Errorf("rail bridge 1523/1624: %v, %v", f, ok)
	}
	if f, ok := m.SideFact(h("2211"), h("2212"), "river"); !ok || f.Printed {
		t.Errorf("river 2211/2212: %v, %v; want reconstructed", f, ok)
	}
	if f, ok := s.TEC.Fact("enter forest"); !ok || !f.Printed || !strings.HasPrefix(f.Source, "9.11") {
		t.Errorf("TEC forest: %v, %v", f, ok)
	}
	for name, tb := range s.Tables {
		if tb.Fact.Printed || len(tb.Pins()) == 0 {
			t.Errorf("table %s: reconstructed with printed pins expected", name)
		}
		for _, p := range tb.Pins() {
			if !p.Printed {
				t.Errorf("table %s: a pin not marked printed: %v", name, p)
			}
		}
	}
}
