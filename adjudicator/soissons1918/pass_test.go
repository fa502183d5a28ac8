package soissons1918_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// TestPassStaysInItsStep: a PASS never reaches past the step the mail is for unless it
// names its turn (issue 21: "IMPROVISE ... / ATTACK ... / PASS", meant as "done", was
// held for 18 July PM step 1 and passed it), and the order check says which step each
// order is for: NOW, LATER THIS TURN or NEXT TURN.
func TestPassStaysInItsStep(t *testing.T) {
	layout := []string{"unit 1US 2510", "unit XX 2413", "unit 17/42 2610"}
	tests := []struct {
		name   string
		state  []string
		side   rules.Side
		mail   string
		phases []string // the step each line is filed for
		why    []string // a part of each line's reason
	}{
		{"a trailing PASS is done for now", append([]string{"turn 1", "phase en2"}, layout...), soissons1918.EN,
			"IMPROVISE 1US 2610\nATTACK 2610 WITH 1US\nPASS",
			[]string{"1.en2", "1.en2", "1.en2"},
			[]string{"for NOW, the step the game is at: 18 July AM, Entente step 2", "for NOW", "passes NOW, the step the game is at: 18 July AM, Entente step 2"}},
		{"orders held for later and PASS for now", append([]string{"turn 2", "phase en1"}, layout...), soissons1918.EN,
			"MOVE 1US 2510-2511\nPASS",
			[]string{"2.en2", "2.en1"},
			[]string{"held for LATER THIS TURN: 18 July PM, Entente step 2: maneuver", "passes NOW, the step the game is at: 18 July PM, Entente step 1"}},
		{"PASS naming its turn, twice", append([]string{"turn 2", "phase en2"}, layout...), soissons1918.DE,
			"PASS\nPASS 18 July PM\nPASS 18 July PM\nPASS 18 July night",
			[]string{"2.en2", "2.enfb", "2.de1", "3.enfb"},
			[]string{"passes NOW", "passes LATER THIS TURN: 18 July PM, German fall back", "passes LATER THIS TURN: 18 July PM, German step 1", "passes NEXT TURN: 18 July night, German fall back"}},
		{"held for the next turn", append([]string{"turn 1", "phase en2"}, layout...), soissons1918.EN,
			"ASSAULT 2610 WITH 1US",
			[]string{"2.en1"},
			[]string{"held for NEXT TURN: 18 July PM, Entente step 1"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, tt.state...)
			checked := d.mail(tt.side, tt.mail)
			for i, c := range checked {
				if !c.OK {
					t.Fatalf("line %q refused: %s", c.Line.Text, c.Reason)
				}
				if len(c.Orders) != 1 || c.Orders[0].Phase != tt.phases[i] {
					t.Errorf("line %q filed as %+v, want for step %s", c.Line.Text, c.Orders, tt.phases[i])
				}
				if !strings.Contains(c.Reason, tt.why[i]) {
					t.Errorf("line %q: %q, want it to contain %q", c.Line.Text, c.Reason, tt.why[i])
				}
			}
		})
	}
}

// TestPassRefused: PASS alone when the game does not wait for the side says which step
// comes next and how to pass it; a PASS naming a turn checks the turn.
func TestPassRefused(t *testing.T) {
	tests := []struct{ name, phase, mail, want string }{
		{"alone when the game does not wait", "enfb", "PASS",
			"PASS alone answers the step the game is at, 18 July PM, German fall back in the Entente phase, which does not wait for you; to pass your next step, 18 July PM, German step 1, name its turn: PASS 18 July PM"},
		{"a turn not coming", "en2", "PASS 20 July AM", "no step of 20 July AM from now on waits for you"},
		{"not a turn", "en2", "PASS 24 July AM", "want PASS alone (the step the game is at), or PASS and a turn as STATUS writes it, e.g. PASS 18 July PM"},
		// en2, de1, de2 (the mutual bombardments) and defb wait for the Entente: a fifth is one too many.
		{"no more steps that turn", "en2", strings.Repeat("PASS 18 July PM\n", 5), "no step of 18 July PM from now on waits for you"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, "turn 2", "phase "+tt.phase, "unit 1US 2510", "unit 17/42 2610")
			if got := d.refused(soissons1918.EN, tt.mail); !strings.Contains(got, tt.want) {
				t.Errorf("%q: %q, want it to contain %q", tt.mail, got, tt.want)
			}
		})
	}
}
