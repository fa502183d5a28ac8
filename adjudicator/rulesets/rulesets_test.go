package rulesets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

// TestAllRulesets: the registry holds the four rulesets under the names games store,
// and an unknown name is refused with the names there are.
func TestAllRulesets(t *testing.T) {
	reg, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), " "); got != "mons1914 soissons1918 soldiers1918 teaching" {
		t.Errorf("Names = %s", got)
	}
	for _, n := range reg.Names() {
		if rs, err := reg.Lookup(n); err != nil || rs.Name() != n {
			t.Errorf("Lookup(%s) = %v, %v", n, rs, err)
		}
	}
	if _, err := reg.Lookup("verdun"); err == nil || !strings.Contains(err.Error(), "soissons1918") {
		t.Errorf("Lookup(verdun) = %v, want an error naming the rulesets", err)
	}
}

// TestWorksCollideWithNothing: every ruleset's new game draws trenches, bunkers and
// wire in the kit's letters (mapview.Works), and no ruleset draws anything else (a
// terrain, a hexside feature, a unit, a marker) with one of those letters.
func TestWorksCollideWithNothing(t *testing.T) {
	works := map[byte]string{}
	for _, w := range mapview.Works {
		if other, ok := works[w.Char]; ok {
			t.Errorf("%q is both %s and %s", w.Char, other, w.Name)
		}
		works[w.Char] = w.Name
	}
	reg, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range reg.Names() {
		rs, _ := reg.Lookup(n)
		st, err := rs.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, side := range rs.Sides() {
			l := rs.(rules.Viewer).MapView(st, side.ID).Legend
			type drawn struct {
				name string
				char byte
			}
			var all []drawn
			for _, s := range slices.Concat(l.Terrain, l.Marks, l.CounterMarks) {
				all = append(all, drawn{s.Name, s.Char})
			}
			for _, s := range l.Sides {
				all = append(all, drawn{s.Name, s.Char})
			}
			for _, d := range all {
				if w, ok := mapview.Work(d.name, ""); ok {
					if d.char != w.Char {
						t.Errorf("%s draws %s as %q, the kit as %q", n, d.name, d.char, w.Char)
					}
					continue
				}
				if d.name == mapview.CutWire.Name && d.char == mapview.CutWire.Char {
					continue
				}
				if w, ok := works[d.char]; ok {
					t.Errorf("%s draws %q (%s) with the letter of %s", n, d.char, d.name, w)
				}
			}
		}
	}
}

// TestOneRefusalForAnUnknownOrder: every ruleset refuses a line whose keyword is none of
// its orders in the one wording of package orders, naming its orders, and a line short
// of a field with the order's usage.
func TestOneRefusalForAnUnknownOrder(t *testing.T) {
	reg, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	short := map[string][2]string{ // a line short of a field, and its refusal
		"mons1914":     {"TOP 2908", "want TOP <hex> <unit>"},
		"soissons1918": {"PREPARE", "want PREPARE <unit>"},
		"soldiers1918": {"SETUP", "want SETUP DEFAULT"},
		"teaching":     {"CUT", "want CUT <hexside>"},
	}
	for _, n := range reg.Names() {
		rs, _ := reg.Lookup(n)
		st, err := rs.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ line, want string }{
			{"POLT TURN 2 NONE", `unknown order "POLT": want one of ` + rs.Keywords()[0] + ", "},
			{short[n][0], short[n][1]},
		} {
			lines, _ := orders.Split(tc.line)
			got := rs.Check(st, rs.Sides()[0].ID, lines, nil)
			if len(got) != 1 || got[0].OK || !strings.HasPrefix(got[0].Reason, tc.want) {
				t.Errorf("%s: Check(%q) = %+v, want a refusal starting %q", n, tc.line, got, tc.want)
			}
		}
	}
}
