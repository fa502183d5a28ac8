package rulesets_test

import (
	"slices"
	"strings"
	"testing"

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

// TestEveryRulesetHasBots: each ruleset comes with its scripted players beside its
// rules (rules.Botter), the ones the demo and the whole-game tests play (cmd/adjutant's
// demo tests play every one to its end): the first mail of a new game is a side's
// of the game, under a subject that names the game.
func TestEveryRulesetHasBots(t *testing.T) {
	reg, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range reg.Names() {
		rs := reg[n]
		b, ok := rs.(rules.Botter)
		if !ok {
			t.Errorf("%s has no scripted players (rules.Botter)", n)
			continue
		}
		st, err := rs.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		m, ok, err := b.Bot("g7").Next(0, st)
		if err != nil || !ok {
			t.Errorf("%s: the bots' first mail: %v, %v", n, ok, err)
			continue
		}
		if !slices.Contains(rules.Sides(rs.Sides()).IDs(), m.Side) || !strings.Contains(m.Subject, "g7") || strings.TrimSpace(m.Body) == "" {
			t.Errorf("%s: the bots' first mail is %+v", n, m)
		}
	}
}
