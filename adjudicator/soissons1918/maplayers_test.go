package soissons1918

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// TestMapLayers: MAP ZOC marks, for the player who asks, the six hexes around each enemy
// combat unit (13: "the six hexes surrounding" it) with ! and around his own with +;
// MAP TZ marks the enemy's threat zone beyond its ZOC with ?, negated as 14's example
// says ("Unit X cannot project a TZ into 1003 because unit B projects a ZOC into that
// hex"). Plain MAP marks nothing.
func TestMapLayers(t *testing.T) {
	g := caseGame(t, "1US", "0905", "17/42", "0906", "131/42", "1103")
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cell := func(side rules.Side, layers []string, h string) string {
		v := r.layerView(g.st, side, layers)
		hx, err := hex.Parse(h)
		if err != nil {
			t.Fatal(err)
		}
		return v.Cells[hx]
	}
	// 1US (Entente) in 0905; 0805 is next to it. The German player sees it as enemy ZOC.
	if c := cell(DE, []string{"ZOC"}, "0805"); !strings.Contains(c, "!") {
		t.Errorf("0805 for the German with MAP ZOC: %q, want ! (the Entente 1US in 0905)", c)
	}
	if c := cell(EN, []string{"ZOC"}, "0805"); !strings.Contains(c, "+") || !strings.Contains(c, "!") {
		t.Errorf("0805 for the Entente with MAP ZOC: %q, want + (his 1US) and ! (17/42 in 0906)", c)
	}
	if c := cell(DE, []string{"TZ"}, "1003"); strings.Contains(c, "?") {
		t.Errorf("1003 for the German with MAP TZ: %q; X projects no TZ there (14's example)", c)
	}
	if c := cell(DE, []string{"TZ"}, "0706"); strings.Contains(c, "?") {
		t.Errorf("0706 for the German with MAP TZ: %q; X projects no TZ beyond 0805 (14's example)", c)
	}
	tzSomewhere := false
	for _, c := range r.layerView(g.st, DE, []string{"TZ"}).Cells {
		tzSomewhere = tzSomewhere || strings.Contains(c, "?")
	}
	if !tzSomewhere {
		t.Error("MAP TZ marked no hex at all")
	}
	for h, c := range r.MapView(g.st, DE).Cells {
		if strings.ContainsAny(c, "!+?") {
			t.Errorf("plain MAP marks %s: %q", h, c)
		}
	}
	if text := r.MapWith(g.st, EN, []string{"ZOC"}); !strings.Contains(text, "in the enemy's zone of control (13)") {
		t.Error("the legend does not explain the ZOC marks")
	}
}

// TestMapKeyIsolatedAndVP: the map's key names the isolated stacks of both sides (15.1:
// no supply line) and the Entente VP as the game stands (3.3).
func TestMapKeyIsolatedAndVP(t *testing.T) {
	// 17/42 ringed by six Entente divisions: no supply line can leave its hex.
	ring := []string{"17/42", "1308"}
	for i, n := range caseGame(t).sc.Map.Grid.Neighbours(hex.MustParse("1308")) {
		ring = append(ring, []string{"162", "11", "1US", "1DM", "2US", "38"}[i], n.String())
	}
	g := caseGame(t, ring...)
	if !g.isolated(DE, hex.MustParse("1308")) {
		t.Fatal("17/42 in 1308 is not isolated: the case tests nothing")
	}
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	key := strings.Join(r.MapView(g.st, EN).Key, "\n")
	if !strings.Contains(key, "no supply line to their friendly edge): 1308 G") {
		t.Errorf("the key does not name 1308 G as isolated:\n%s", key)
	}
	if !strings.Contains(key, "Entente VP if the game ended now (3.3): ") {
		t.Errorf("the key does not give the VP:\n%s", key)
	}
	g = caseGame(t, "17/42", "1308")
	if key := strings.Join(r.MapView(g.st, EN).Key, "\n"); !strings.Contains(key, "friendly edge): none") {
		t.Errorf("a lone German unit is named isolated:\n%s", key)
	}
}

// TestCounterMarks: the picture's counter of a stack carries its Prepare (19.4) and
// Retreat (21) markers and its worst disruption (11), which the text map gives in its
// key; the text map's cells stay as they were.
func TestCounterMarks(t *testing.T) {
	g := caseGame(t, "1US", "0905", "1DM", "0905", "17/42", "1308")
	g.st.unit("1US").Prepare = true
	g.st.unit("1DM").Dis = Disorganized
	g.st.unit("17/42").Retreat = true
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	v := r.MapView(g.st, EN)
	for h, want := range map[string]string{"0905": "E2P2", "1308": "G1R"} {
		hx := hex.MustParse(h)
		if got := v.Counters[hx]; got != want {
			t.Errorf("counter of %s: %q, want %q", h, got, want)
		}
		if strings.ContainsAny(v.Cells[hx], "PR2") && h == "1308" {
			t.Errorf("text cell of %s: %q; the marks belong to the picture's counter", h, v.Cells[hx])
		}
	}
}
