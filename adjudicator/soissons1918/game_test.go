package soissons1918_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

func newRules(t *testing.T) *soissons1918.Rules {
	t.Helper()
	r, err := soissons1918.New()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// play resolves phases as the desk does, each waiting side giving its default orders,
// until the game is over; it returns every step's key in order.
func play(t *testing.T, r *soissons1918.Rules, st rules.State) (rules.State, []string, []rules.Event) {
	t.Helper()
	var seen []string
	var events []rules.Event
	for n := 0; !st.Over(); n++ {
		if n > 200 {
			t.Fatalf("no end after %d steps, at %d %s", n, st.Turn(), st.Phase())
		}
		seen = append(seen, st.Phase())
		var filed []rules.Order
		for _, s := range r.Waiting(st, nil) {
			filed = append(filed, r.Defaults(st, s, filed)...)
		}
		if w := r.Waiting(st, filed); len(w) > 0 {
			t.Fatalf("still waiting for %v after defaults", w)
		}
		out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript())
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, out.Events...)
		st = out.State
	}
	return st, seen, events
}

// TestSequence plays the whole game on default orders: 4.1's AM, PM and night turns
// with every operational phase, no German phase on 18 July AM (22) nor on 23 July PM
// (3.2), and the verdict at the end (3.3).
func TestSequence(t *testing.T) {
	r := newRules(t)
	st, err := r.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	end, seen, events := play(t, r, st)
	got := strings.Join(seen, " ")
	day := "en1 en2 enfb de1 de2 defb"
	night := "enn enfb den defb"
	want := "setup-de setup-en en1 en2 enfb " + day + " " + night
	for range 4 {
		want += " " + day + " " + day + " " + night
	}
	want += " " + day + " en1 en2 enfb"
	if got != want {
		t.Errorf("steps:\n%s\nwant:\n%s", got, want)
	}
	if end.Turn() != 17 {
		t.Errorf("ended in turn %d, want 17", end.Turn())
	}
	last := events[len(events)-1]
	if last.Rule != "3.4" || !strings.Contains(last.Text, "Victory") {
		t.Errorf("last event %q, want the verdict (3.4)", last.Text)
	}
	for _, s := range []rules.Side{soissons1918.EN, soissons1918.DE} {
		for i, l := range strings.Split(r.Map(end, s)+r.Status(end, s), "\n") {
			if len(l) > 78 {
				t.Errorf("%s map/status line %d longer than 78: %q", s, i, l)
			}
		}
	}
}

// TestNothingNotImplemented: every keyword of the grammar is answered by a rule, never
// "not implemented yet" (issue 13), whatever step the game is at.
func TestNothingNotImplemented(t *testing.T) {
	r := newRules(t)
	st, _ := r.New(nil)
	text := strings.Join([]string{
		"ATTACK 0904 WITH 0803", "ASSAULT 0904 WITH 162 HQ I LEAD 162 X 2", "ASSAULT 0904,0906 FROM 0803",
		"LEAD 17/42,131/42", "LEAD DEFAULT", "XRESULT 2", "XRESULT DEFAULT", "LOSSES DEFAULT",
		"MOVE 1US 0807-0908", "PREPARE 1US", "IMPROVISE 1US 0908", "FALLBACK 17/42 0906-1006",
		"PURSUE 1US 0908", "BOMBARD 0904 H1", "TANK T1 1US", "REINFORCE 153 0103", "PASS",
		"SETUP DEFAULT", "PLACE 17/42 0905", "RETREAT ALL LINE", "CONVERT NONE", "ADVANCE 1US 0908", "SPENT T1 1US",
		"CANCEL ALL"}, "\n")
	lines, _ := orders.Split(text)
	for _, c := range r.Check(st, soissons1918.EN, lines, nil) {
		if strings.Contains(c.Reason, "not implemented") || strings.Contains(c.Reason, "unknown order") {
			t.Errorf("%q: %q", c.Line.Text, c.Reason)
		}
	}
	for _, kw := range r.Keywords() {
		if !strings.Contains(text, kw+" ") && kw != "PASS" {
			t.Errorf("keyword %s has no example in this test", kw)
		}
	}
}
