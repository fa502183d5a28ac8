package adjudicator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestWinner: each ruleset names the winner of a finished game as its rules do, and
// decides nothing its rules leave to a match or to no rule.
func TestWinner(t *testing.T) {
	mons, _ := mons1914.New()
	sol, _ := soldiers1918.New()
	soi, _ := soissons1918.New()
	tea, _ := teaching.New()
	cases := []struct {
		name    string
		rs      rules.Ruleset
		st      rules.State
		side    rules.Side
		decided bool
	}{
		{"mons German", mons, &mons1914.State{Winner: "de"}, "de", true},
		{"mons British", mons, &mons1914.State{Winner: "bef"}, "bef", true},
		{"soldiers sudden death", sol, &soldiers1918.State{Winner: "us"}, "us", true},
		{"soldiers penetration: the match decides", sol, &soldiers1918.State{}, "", false},
		{"soissons sudden death", soi, &soissons1918.State{Verdict: "Sudden Death: the Entente entered a red location: Entente Outstanding Performance Victory (3.2, 3.4)"}, "en", true},
		{"soissons German by VP", soi, &soissons1918.State{Verdict: "5 Entente VP (x, y): German Superior Performance Victory (3.4)"}, "de", true},
		{"soissons draw", soi, &soissons1918.State{Verdict: "8 Entente VP (x): Draw (3.4)"}, "", true},
		{"teaching American", tea, &teaching.State{End: "every German MG has been killed"}, "us", true},
		{"teaching German", tea, &teaching.State{End: "no live American unit is left (not printed: the game cannot end otherwise)"}, "de", true},
		{"teaching turn limit", tea, &teaching.State{End: "the turn limit of 12 is reached (an option, not printed)"}, "", false},
	}
	for _, c := range cases {
		w, ok := c.rs.(rules.Winner)
		if !ok {
			t.Fatalf("%s is no rules.Winner", c.rs.Name())
		}
		if side, decided := w.Winner(c.st); side != c.side || decided != c.decided {
			t.Errorf("%s: %q %v, want %q %v", c.name, side, decided, c.side, c.decided)
		}
	}
}

func (f *fixture) ratings(ruleset string) []store.Rating {
	f.t.Helper()
	var r []store.Rating
	if err := f.db.Read(context.Background(), func(tx store.Tx) (err error) { r, err = tx.Ratings(ruleset); return err }); err != nil {
		f.t.Fatal(err)
	}
	return r
}

// resign has side resign g1 (two mails: the code, then the code back).
func (f *fixture) resign(side, pass string) {
	f.t.Helper()
	_, mails := f.orders(side, pass, "RESIGN")
	if out, _ := f.orders(side, pass, "RESIGN "+resignCodeIn(f.t, mails[0].Body)); out != adjudicator.Handled {
		f.t.Fatalf("RESIGN: %q", out)
	}
}

// TestLadder: a resignation once turn 1 was played moves both ratings by Elo (K 32,
// from 1500: 16 points each way between equals) and RATINGS shows both players; a
// resignation before turn 1 and the host's end count for nothing.
func TestLadder(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	f.orders("de", passD, "PLOT NONE\n") // turn 1 is under way: phases of it resolved
	f.resign("us", passU)
	got := map[string]store.Rating{}
	for _, r := range f.ratings(soldiers1918.Name) {
		got[r.Address] = r
	}
	if u, d := got[us], got[de]; u.Rating != 1484 || d.Rating != 1516 || u.Losses != 1 || d.Wins != 1 || u.Games != 1 {
		t.Errorf("after the US resigned: %+v", got)
	}
	_, mails := f.send("someone@else.example", "r", "RATINGS soldiers1918\n")
	body := only(t, mails, "someone@else.example").Body
	for _, want := range []string{"1. 1516 de***@players.example 1 game(s): 1 won", "2. 1484 us***@players.example"} {
		if !strings.Contains(body, want) {
			t.Errorf("RATINGS lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, de) {
		t.Errorf("RATINGS gives an address whole:\n%s", body)
	}

	early := newFixture(t, adjudicator.NewGame{})
	early.resign("de", passD)
	if r := early.ratings(soldiers1918.Name); len(r) != 0 {
		t.Errorf("a resignation before turn 1 is rated: %+v", r)
	}
	ended := hostFixture(t)
	ended.orders("us", passU, usSetup)
	ended.orders("de", passD, deSetup)
	ended.orders("de", passD, "PLOT NONE\n")
	if out, _ := ended.host("end", "HOST PASSWORD "+hostPass+"\nEND g1\n"); !strings.HasPrefix(out, adjudicator.Handled) {
		t.Fatalf("END: %q", out)
	}
	if r := ended.ratings(soldiers1918.Name); len(r) != 0 || !ended.game().Over {
		t.Errorf("a game the host ended is rated: %+v", r)
	}
}
