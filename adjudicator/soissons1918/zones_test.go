package soissons1918

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// caseGame builds a game with the given units on the map (id hex pairs).
func caseGame(t *testing.T, at ...string) *game {
	t.Helper()
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	s, _ := r.New(nil)
	st := s.(*State)
	st.T, st.P = 4, "en2"
	for i := range st.Units {
		st.Units[i].Where = Removed
	}
	for i := 0; i+1 < len(at); i += 2 {
		u := st.unit(at[i])
		if u == nil {
			t.Fatalf("no unit %s", at[i])
		}
		u.Where, u.Hex = OnMap, at[i+1]
	}
	g := newGame(r.sc, st)
	g.moved, g.used = map[string]bool{}, map[string]int{}
	return g
}

// TestThreatZoneExample is 14's example: "Unit X cannot project a TZ into 1003 because
// unit B projects a ZOC into that hex. Unit X cannot project a TZ beyond 0805 into 0706
// because unit A projects a ZOC into 0805." X is 1US in 0905, A 17/42 in 0906 and B
// 131/42 in 1103 (0906 and 1103 are the hexes that make the example's words hold:
// 0706 is reached from 0905 only through 0805).
func TestThreatZoneExample(t *testing.T) {
	g := caseGame(t, "1US", "0905", "17/42", "0906", "131/42", "1103")
	tz := g.tz(EN)
	for _, s := range []string{"1003", "0706"} {
		if tz[hex.MustParse(s)] {
			t.Errorf("14: X's TZ reaches %s", s)
		}
	}
	// 14: "projected two hexes away from the unit": 0704 is two hexes from 0905 through
	// 0804, where no German ZOC is.
	if !tz[hex.MustParse("0704")] {
		t.Errorf("14: X's TZ does not reach 0704, two hexes away through a free hex")
	}
	// 13: "ZOCs are projected into hexes regardless of whether they are occupied or not".
	if z := g.zoc(EN); !z[hex.MustParse("0906")] || !z[hex.MustParse("0805")] {
		t.Errorf("13: X's ZOC misses an adjacent hex")
	}
	// 10: "HQs ... exert no ZOC".
	h := caseGame(t, "XX", "0905")
	if len(h.zoc(EN)) != 0 || len(h.tz(EN)) != 0 {
		t.Errorf("10: an HQ projects a ZOC or TZ")
	}
}

// TestSupplyLineExample is 15.1's: "the supply line must bypass 1509 because of the TZ
// of unit Z"; and "friendly unit presence and friendly ZOC negate enemy TZ". A
// German unit in 1308 traces east; Z, an Entente unit in 1310, puts 1509 (on a
// shortest way east from 1308) in its TZ.
func TestSupplyLineExample(t *testing.T) {
	g := caseGame(t, "17/42", "1308", "1US", "1310")
	path, ok := g.supply(DE, hex.MustParse("1308"))
	if !ok {
		t.Fatal("15.1: no supply line")
	}
	for _, h := range path {
		if h.String() == "1509" {
			t.Errorf("15.1: the supply line %v goes through 1509, in Z's TZ", path)
		}
	}
	if !g.tz(EN)[hex.MustParse("1509")] {
		t.Fatalf("1509 is not in Z's TZ: the case does not test 15.1")
	}
	// A friendly ZOC negates the enemy TZ: with a second German unit next to 1509,
	// 1509 is free again.
	g2 := caseGame(t, "17/42", "1308", "1US", "1310", "131/42", "1608")
	if g2.tz(EN)[hex.MustParse("1509")] {
		t.Errorf("15.1: a friendly ZOC in 1509 does not negate the enemy TZ")
	}
}

// TestSupplyAisne: 15.1 "Terrain (other than the impassable river Aisne) does not
// affect Supply path determination": a German unit north of the Aisne whose way east
// along the north bank is closed by an Entente unit in 3102 traces its line over a
// bridge (2602/2603), never across an unbridged Aisne hexside.
func TestSupplyAisne(t *testing.T) {
	g := caseGame(t, "17/42", "3001", "1US", "3102")
	path, ok := g.supply(DE, hex.MustParse("3001"))
	if !ok {
		t.Fatal("no supply line")
	}
	bridge := false
	for i := 1; i < len(path); i++ {
		if g.aisne(path[i-1], path[i]) {
			t.Errorf("15.1: the line %v crosses the Aisne at %s/%s", path, path[i-1], path[i])
		}
		if g.sc.Map.SideHas(path[i-1], path[i], "bridge") {
			bridge = true
		}
	}
	if !bridge {
		t.Errorf("15.1: the line %v does not use a bridge", path)
	}
}
