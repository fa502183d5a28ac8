package soissons1918

import (
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

func h(s string) hex.Hex { return hex.MustParse(s) }

func loadT(t *testing.T) *Scenario {
	t.Helper()
	sc, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestLoadScenario(t *testing.T) {
	sc := loadT(t)
	if len(sc.Turns) != 17 {
		t.Errorf("%d turns, want 17 (3.2)", len(sc.Turns))
	}
	if sc.Prepare[DE] != 2 || sc.Prepare[EN] != 13 {
		t.Errorf("Prepare markers %v, want de 2 en 13 (19.4)", sc.Prepare)
	}
}

// TestExampleHexes pins every hex the rulebook's examples name where the example needs
// it (DESIGN.md, "Reconstructed data").
func TestExampleHexes(t *testing.T) {
	sc := loadT(t)
	g := sc.Map.Grid
	for _, s := range []string{"1915", "1615", "2115", "1003", "0805", "0706", "1509", "2013", "2113",
		"2212", "2213", "2310", "2209", "2311", "1317", "1216", "1416", "1613", "1513", "1713"} {
		if !sc.Map.OnMap(h(s)) {
			t.Errorf("%s is off the map", s)
		}
	}
	adj := []struct {
		rule, a, b string
		want       bool
	}{
		{"15.2", "2013", "2113", true}, {"15.2", "2113", "2213", true}, {"15.2", "2212", "2213", true},
		{"15.2", "2212", "2113", true},
		// 3.1 / 15.2: the town touches 2013 through 1914, and 1914 does not touch 2113,
		// so that the TZ in 2113 "would close behind" a unit entering it.
		{"15.2", "1914", "2013", true}, {"15.2", "1914", "2113", false}, {"3.1", "1915", "2013", false},
		{"3.1", "1914", "1915", true},
		{"19.5", "2310", "2209", true}, {"19.5", "2310", "2311", true}, {"19.5", "2209", "2311", false},
		{"14", "0805", "0706", true}, {"19.6", "1317", "1216", true}, {"19.6", "1317", "1416", true},
		{"20.4.7", "1613", "1513", true}, {"20.4.7", "1613", "1713", true},
	}
	for _, a := range adj {
		if got := g.Adjacent(h(a.a), h(a.b)); got != a.want {
			t.Errorf("%s: %s next to %s = %v, want %v", a.rule, a.a, a.b, got, a.want)
		}
		if a.want && sc.Map.SideHas(h(a.a), h(a.b), "aisne") {
			t.Errorf("%s: the Aisne runs between %s and %s", a.rule, a.a, a.b)
		}
	}
	// 14: a unit X in 0905 reaches 1003 and 0706 at two hexes, 0706 beyond 0805.
	for _, s := range []string{"1003", "0706"} {
		if d := g.Distance(h("0905"), h(s)); d != 2 {
			t.Errorf("14: 0905 to %s is %d hexes, want 2", s, d)
		}
	}
	// 12.1.2: "the path through 1615 and 2115": the two hexes are five apart, so they
	// cannot lie on one command path of at most three intervening hexes; the reading
	// kept is that they are the two equidistant paths' hexes (see rules.go, command).
	if d := g.Distance(h("1615"), h("2115")); d != 5 {
		t.Errorf("12.1.2: 1615 to 2115 is %d hexes, want 5", d)
	}
	het := sc.Town("Hartennes-et-Taux")
	if het == nil || het.Hexes[0] != h("1915") || len(het.Hexes) != 2 || het.Hexes[1] != h("1914") {
		t.Errorf("Hartennes-et-Taux = %+v, want 1915 (3.1) and 1914 (15.2)", het)
	}
	for _, tt := range []struct {
		name, circle string
		vp           int
	}{{"Bercy-le-Sec", "black", 3}, {"Buzancy", "black", 4}, {"Soissons", "red", 2}} {
		tw := sc.Town(tt.name)
		if tw == nil || tw.VP != tt.vp || tw.Circle != tt.circle {
			t.Errorf("%s = %+v, want %s %d (3.3)", tt.name, tw, tt.circle, tt.vp)
			continue
		}
		if !sc.German(tw.Hexes[0]) {
			t.Errorf("3.3: %s must start German (east of the front line)", tt.name)
		}
	}
	for _, s := range sc.Town("Soissons").Hexes {
		if sc.Map.Terrain(s) != "city" {
			t.Errorf("Soissons hex %s is %s, want city", s, sc.Map.Terrain(s))
		}
	}
}

// TestScenarioErrors checks that broken data is refused with the file and line.
func TestScenarioErrors(t *testing.T) {
	base := map[string]string{}
	for _, f := range []string{"map.txt", "tec.txt", "tables.txt", "combat.txt", "towns.txt", "armies.txt", "turns.txt"} {
		b, err := dataFS.ReadFile("data/" + f)
		if err != nil {
			t.Fatal(err)
		}
		base[f] = string(b)
	}
	tests := []struct{ file, add, want string }{
		{"towns.txt", "town Nowhere 0101 circle=blue vp=1 | reconstructed: test", "circle="},
		{"towns.txt", "town Nowhere 0101 circle=black vp=1 | reconstructed: test", "want village or city"},
		{"armies.txt", "regiment 9/42 side=de division=42 sp=2 stars=1 start=0906 | reconstructed: test", "always 3"},
		{"armies.txt", "division 99 side=en nation=fr corps=XX sp=8 stars=1 arrive=4 | reconstructed: test", "9 or higher"},
		{"armies.txt", "division 98 side=en nation=fr corps=XX sp=9 stars=1 start=0709 | reconstructed: test", "front line within their corps"},
		{"turns.txt", "turn 18 24 AM en=1,1,1 de=1,1,1 | reconstructed: test", "17 turns"},
		{"armies.txt", "division 97 side=en nation=fr corps=XX sp=9 stars=1 | reconstructed: test", "neither start= nor arrive="},
	}
	for _, tt := range tests {
		files := fstest.MapFS{}
		for f, s := range base {
			if f == tt.file {
				s += tt.add + "\n"
			}
			files[f] = &fstest.MapFile{Data: []byte(s)}
		}
		_, err := ParseScenario(files)
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.file) {
			t.Errorf("%s + %q: error %v, want one naming the file and saying %q", tt.file, tt.add, err, tt.want)
		}
	}
}
