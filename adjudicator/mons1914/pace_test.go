package mons1914_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// TestPaceOfPlay holds what HELP's "PACE OF PLAY" says: a turn has four steps at which
// the game can wait (German movement, German combat, British phase 1, British phase 2);
// players who send everything as early as the rules allow (the German his player turn,
// the British his, both before the turn begins) make it wait at one step a turn; players
// who stop to see every result make it wait at four. The German may not send the next
// turn's orders during the British player turn.
func TestPaceOfPlay(t *testing.T) {
	r := newRules(t)
	start := func() rules.State {
		st, err := mons1914.CaseAdapter{Rules: r}.State([]string{"turn 2", "unit IX/31/18 4003", "unit 1/NF 4401", "unit 2/DG 4601"})
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	mails := map[rules.Side][]string{
		mons1914.DE:  {"MOVE IX/31/18 4003-4004", "COMBAT NONE"},
		mons1914.BEF: {"SEQUENCE fight/move\nCOMBAT NONE", "MOVE 1/NF 4401-4402"},
	}
	// play runs one turn; send says which mails a waiting side sends now.
	play := func(st rules.State, early bool) int {
		var filed []rules.Order
		next := map[rules.Side]int{}
		waits := 0
		file := func(side rules.Side, text string) {
			cs, got := submit(r, st, side, text, filed)
			for _, c := range cs {
				if !c.OK {
					t.Fatalf("%s %q refused: %s", side, c.Line.Text, c.Reason)
				}
			}
			filed = append(filed, got...)
		}
		for turn := st.Turn(); st.Turn() == turn; {
			if w := r.Waiting(st, filed); len(w) > 0 {
				waits++
				sides := w
				if early {
					sides = []rules.Side{mons1914.DE, mons1914.BEF}
				}
				for _, side := range sides {
					for next[side] < len(mails[side]) {
						file(side, mails[side][next[side]])
						next[side]++
						if !early {
							break
						}
					}
				}
				if len(r.Waiting(st, filed)) > 0 {
					t.Fatalf("%s: still waiting for %v", st.PhaseTitle(), r.Waiting(st, filed))
				}
			}
			out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript())
			if err != nil {
				t.Fatal(err)
			}
			st = out.State
			for _, id := range out.Consumed {
				for i := range filed {
					if filed[i].ID() == id {
						filed = append(filed[:i], filed[i+1:]...)
						break
					}
				}
			}
		}
		return waits
	}
	if n := play(start(), true); n != 1 {
		t.Errorf("sending everything early: the game waits %d times a turn, HELP says 1", n)
	}
	if n := play(start(), false); n != 4 {
		t.Errorf("stopping to see every result: the game waits %d times a turn, HELP says 4", n)
	}
	// The German cannot send his next turn ahead during the British player turn.
	st, _ := mons1914.CaseAdapter{Rules: r}.State([]string{"turn 2", "phase b1", "unit IX/31/18 4003"})
	if cs, _ := submit(r, st, mons1914.DE, "MOVE IX/31/18 4003-4004", nil); cs[0].OK || !strings.Contains(cs[0].Reason, "is over") {
		t.Errorf("a German move during British phase 1: %+v", cs[0])
	}
}

// TestMoveMoveSecondPhaseSentLate: 5.3's move/move gives the British two movement
// phases; a unit that moved in the first moves again in the second with its full MF (9.2:
// "MP may not be accumulated"; each phase is new). The second phase's orders, sent after
// the first is resolved, are checked against a state that still remembers the first.
func TestMoveMoveSecondPhaseSentLate(t *testing.T) {
	r := newRules(t)
	st, err := mons1914.CaseAdapter{Rules: r}.State([]string{"turn 2", "phase b1", "unit 1/NF 4401", "unit 4/RF 4001"})
	if err != nil {
		t.Fatal(err)
	}
	_, filed := submit(r, st, mons1914.BEF, "SEQUENCE move/move\nMOVE 4/RF 4001-4002\nMOVE 1/NF 4401-4402-4403-4404-4405", nil)
	out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	if out.State.Phase() != mons1914.PhaseBritish2 {
		t.Fatalf("after phase 1: %s", out.State.PhaseTitle())
	}
	for _, line := range []string{"MOVE 1/NF 4405-4406-4407-4507-4506", "MOVE 4/RF 4002-4003"} {
		cs, _ := submit(r, out.State, mons1914.BEF, line, nil)
		if len(cs) != 1 || !cs[0].OK {
			t.Errorf("second movement phase, %q: %+v", line, cs)
		}
	}
}
