package teaching_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

func rules(t testing.TB) *teaching.Rules {
	t.Helper()
	r, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// played is a whole game between the bots, as the desk would run it.
type played struct {
	final  adjudicator.State
	events []adjudicator.Event
	rolls  []dice.Roll
	phases int
}

// playBots plays a game to its end with the bots' orders and a stream per phase from
// seed, checking every mail as the desk does.
func playBots(t *testing.T, r *teaching.Rules, opts adjudicator.Options, seed dice.Seed) played {
	t.Helper()
	st, err := r.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	var p played
	var filed []adjudicator.Order
	for p.phases = 0; !st.Over(); p.phases++ {
		if p.phases > 400 {
			t.Fatalf("no end after %d phases: %s", p.phases, st.PhaseTitle())
		}
		for _, side := range r.Waiting(st, filed) {
			text := r.BotOrders(st, side)
			lines, _ := orders.Split(text)
			for _, c := range r.Check(st, side, lines, filed) {
				if !c.OK {
					t.Fatalf("%s: bot order %q refused: %s\nmap:\n%s", st.PhaseTitle(), c.Line.Text, c.Reason, r.Map(st, side))
				}
				filed = append(filed, c.Orders...)
			}
		}
		if w := r.Waiting(st, filed); len(w) > 0 {
			t.Fatalf("%s: still waiting for %v", st.PhaseTitle(), w)
		}
		inputs := r.Inputs(st, filed)
		src := dice.NewStream(seed, dice.Context{Game: "g", Turn: st.Turn(), Phase: st.Phase(), OrdersDigest: fmt.Sprint(len(inputs))})
		out, err := r.Resolve(st, inputs, src)
		if err != nil {
			t.Fatalf("%s: %v", st.PhaseTitle(), err)
		}
		if err := src.Err(); err != nil {
			t.Fatal(err)
		}
		p.rolls = append(p.rolls, src.Rolls()...)
		p.events = append(p.events, out.Events...)
		var keep []adjudicator.Order
		for _, o := range filed {
			consumed := false
			for _, id := range out.Consumed {
				consumed = consumed || id == o.ID()
			}
			if !consumed {
				keep = append(keep, o)
			}
		}
		filed = keep
		st = out.State
	}
	p.final = st
	return p
}

// TestBotGames plays whole games to their end with several seeds.
func TestBotGames(t *testing.T) {
	r := rules(t)
	for i := range 6 {
		var seed dice.Seed
		seed[0] = byte(i)
		p := playBots(t, r, adjudicator.Options{teaching.OptTurns24: true}, seed)
		t.Logf("seed %d: %d phases, %s", i, p.phases, r.Status(p.final, teaching.American))
		over := 0
		for _, e := range p.events {
			if strings.HasPrefix(e.Text, "The game is over: ") {
				over++
			}
		}
		if over != 1 {
			t.Errorf("seed %d: %d events say the game is over, want 1", i, over)
		}
		// Every random number of the game is a card turned, audited with its purpose
		// and rule (1 artillery, 3 hand to hand).
		for _, roll := range p.rolls {
			if !strings.Contains(roll.Purpose, " card for ") || (roll.Rule != "1" && roll.Rule != "3") || roll.Count != 1 {
				t.Errorf("seed %d: roll %+v is not a card turned for a stated purpose", i, roll)
			}
		}
		if !strings.Contains(r.Status(p.final, teaching.American), "The game is over") {
			t.Errorf("seed %d: status does not say the game is over", i)
		}
	}
}
