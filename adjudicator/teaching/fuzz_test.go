package teaching_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// FuzzCheckAndResolve feeds any mail to the order check of an American and a German
// turn, and of the steps a player stopped before; what the check accepts must resolve without error, and Check must never panic.
func FuzzCheckAndResolve(f *testing.F) {
	for _, s := range []string{
		"SHELL HE 0619\nMOVE 2 MARINE BLACK 0611-0612\nCUT 0516/0517\nCHIP 0612 BLACK 1 ARMY",
		"SHELL SMOKE 0102\nMOVE 0611-0610-0609-0608-0607",
		"FIRE 0619 0618 AT 0612 BLACK\nSHELL 0612",
		"SHELL HE 0614\nMOVE MARINE 0611-0612-0613-0713\nCHIP 0713 BLUE",
		"SHELL HE 0618\nSTOP AFTER ARTILLERY", "MOVE 0516-0517\nSTOP AFTER HAND TO HAND", "STOP AFTER MOVEMENT\nCUT 0516/0517",
		"PLACE ARMY 0306 3", "SETUP DEFAULT", "PASS", "MOVE 3", "FIRE AT 0612 BLUE", "CHIP 0612", "CUT 0516",
	} {
		f.Add(s)
	}
	r, err := teaching.New()
	if err != nil {
		f.Fatal(err)
	}
	a := teaching.CaseAdapter{Rules: r}
	us, err := a.State([]string{"turn 2", "unit mg 0619", "unit inf 0618", "unit army 0612 2 black", "unit marine 0611 black", "unit army 0516", "deck us AS 2H 3D KC"})
	if err != nil {
		f.Fatal(err)
	}
	de, err := a.State([]string{"turn 2", "phase de", "unit mg 0619", "unit inf 0618", "unit army 0612 2 black", "unit army 0210", "deck de AS 2H 3D KC"})
	if err != nil {
		f.Fatal(err)
	}
	// The same positions in the steps a player stopped before (STOP AFTER).
	steps := map[string]rules.State{}
	for _, p := range []string{teaching.PhaseAmericanMove, teaching.PhaseAmericanWire, teaching.PhaseGermanFire} {
		if steps[p], err = a.State([]string{"turn 2", "phase " + p, "unit mg 0619", "unit inf 0614", "unit army 0612 2 black", "unit marine 0611 black", "unit army 0516", "deck us AS 2H 3D KC"}); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, _ := orders.Split(text)
		if len(lines) == 0 {
			return
		}
		for _, sst := range []struct {
			side teaching.Side
			st   rules.State
		}{
			{teaching.American, us}, {teaching.German, de}, {teaching.American, steps[teaching.PhaseAmericanMove]},
			{teaching.American, steps[teaching.PhaseAmericanWire]}, {teaching.German, steps[teaching.PhaseGermanFire]},
		} {
			side, st := sst.side, sst.st
			checked := r.Check(st, side, lines, nil)
			if len(checked) != len(lines) {
				t.Fatalf("%d verdicts for %d lines", len(checked), len(lines))
			}
			ok := true
			for _, c := range checked {
				ok = ok && c.OK
			}
			if !ok {
				continue
			}
			if _, err := r.Resolve(st, checked[len(checked)-1].Orders, dice.WithDealer(dice.NewScript(), dice.NewScriptDealer())); err != nil {
				t.Fatalf("accepted %q, then Resolve: %v", text, err)
			}
		}
	})
}
