package soissons1918_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// FuzzCheck feeds arbitrary order text to the order check at the Entente maneuver of
// 18 July PM, one mail per part between "---" lines, and resolves the step with what
// it accepts: neither may panic, and a resolution of accepted orders never fails.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"MOVE 1US 0807-0908", "BOMBARD 0904 H2 M1 XX", "PREPARE 1DM", "IMPROVISE 1US 0906",
		"FALLBACK 17/42 0906-1006", "TANK T6 1US", "REINFORCE 153 0103", "PASS", "ATTACK 0904", "MOVE XX 0509-0510",
		"LOSSES 17/42,131/42", "PURSUE 1US 0908", "MOVE 1US,2US 0807", "BOMBARD 9999 H1",
		"IMPROVISE 1US 0908\nATTACK 0908 WITH 1US", "IMPROVISE 162 0904\nATTACK 0904,0802 WITH 0803 HQ I LEAD 162 X 2",
		"ASSAULT 0904 WITH 162", "LEAD 17/42", "XRESULT 2", "ATTACK 0906 FROM 0807,0806",
		"CANCEL ALL", "CANCEL ATTACK 1,2", "CANCEL BOMBARD 0904", "CANCEL PASS", "CANCEL LEAD",
		"MOVE 1US 0807-0908\n---\nCANCEL MOVE 1US\nMOVE 1US 0807-0806",
		"IMPROVISE 1US 0908\nATTACK 0908 WITH 1US\n---\nCANCEL ATTACK 1\n---\nATTACK 0908 WITH 1US\n---\nCANCEL ALL"} {
		f.Add(s)
	}
	r, err := soissons1918.New()
	if err != nil {
		f.Fatal(err)
	}
	st, _ := r.New(nil)
	for _, side := range []rules.Side{soissons1918.DE, soissons1918.EN} {
		out, err := r.Resolve(st, r.Defaults(st, side, nil), dice.NewScript())
		if err != nil {
			f.Fatal(err)
		}
		st = out.State
	}
	// On to 18 July PM, step 2 (en2), both sides passing.
	for st.Phase() != "en2" || st.Turn() != 2 {
		var filed []rules.Order
		for _, s := range r.Waiting(st, nil) {
			filed = append(filed, r.Defaults(st, s, filed)...)
		}
		out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript())
		if err != nil {
			f.Fatal(err)
		}
		st = out.State
	}
	f.Fuzz(func(t *testing.T, text string) {
		// A line "---" ends a mail: each is filed as the desk files it (desk.mail).
		d := &desk{t: t, r: r, st: st}
		for _, side := range []rules.Side{soissons1918.EN, soissons1918.DE} {
			for _, mail := range strings.Split(text, "\n---\n") {
				d.mail(side, mail)
			}
		}
		filed := d.filed
		if _, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript(1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6)); err != nil {
			t.Errorf("resolving accepted orders %q: %v", text, err)
		}
	})
}
