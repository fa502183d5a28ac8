package teaching_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// FuzzCheckAndResolve feeds any mail to the order check of an American and a German
// turn; what the check accepts must resolve without error, and Check must never panic.
func FuzzCheckAndResolve(f *testing.F) {
	for _, s := range []string{
		"SHELL HE 0619\nMOVE 2 MARINE BLACK 0611-0612\nCUT 0516/0517\nCHIP 0612 BLACK 1 ARMY",
		"SHELL SMOKE 0102\nMOVE 0611-0610-0609-0608-0607",
		"FIRE 0619 0618 AT 0612 BLACK\nSHELL 0612",
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
	f.Fuzz(func(t *testing.T, text string) {
		lines, _ := orders.Split(text)
		if len(lines) == 0 {
			return
		}
		for _, side := range []teaching.Side{teaching.American, teaching.German} {
			st := us
			if side == teaching.German {
				st = de
			}
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
