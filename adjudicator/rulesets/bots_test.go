package rulesets_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

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
