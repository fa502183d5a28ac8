package teaching_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

func newRules(t testing.TB) *teaching.Rules {
	t.Helper()
	r, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// played is a whole game between the bots, as the desk would run it.
type played struct {
	final  rules.State
	events []rules.Event
	rolls  []dice.Roll
	deals  []dice.Deal // the shuffles at creation, then every card and reshuffle
	phases int
	waits  map[int]int // game turn: the steps at which the game waited for a mail
}

// playBots plays a game to its end with the bots' orders and a stream per phase from
// seed, checking every mail as the desk does.
func playBots(t *testing.T, r *teaching.Rules, opts rules.Options, seed dice.Seed) played {
	t.Helper()
	return playBotsAt(t, r, opts, seed, false)
}

// playBotsAt is playBots with bots that, with stop, stop to see every result they may
// see (BotOrdersAt).
func playBotsAt(t *testing.T, r *teaching.Rules, opts rules.Options, seed dice.Seed, stop bool) played {
	t.Helper()
	st, err := r.New(opts)
	if err != nil {
		t.Fatal(err)
	}
	p := played{waits: map[int]int{}}
	// The desk deals the decks from the game's deck seed when it creates the game.
	deckSeed := dice.Seed{0xde, seed[0]}
	dealer := dice.NewDealer(deckSeed, "g")
	if st, err = r.Deal(st, dealer); err != nil {
		t.Fatal(err)
	}
	p.deals = dealer.Deals()
	var filed []rules.Order
	for p.phases = 0; !st.Over(); p.phases++ {
		if p.phases > 400 {
			t.Fatalf("no end after %d phases: %s", p.phases, st.PhaseTitle())
		}
		for _, side := range r.Waiting(st, filed) {
			p.waits[st.Turn()]++
			text := r.BotOrdersAt(st, side, stop)
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
		stream := dice.NewStream(seed, dice.Context{Game: "g", Turn: st.Turn(), Phase: st.Phase(), OrdersDigest: fmt.Sprint(len(inputs))})
		dealer := dice.NewDealer(deckSeed, "g")
		src := dice.WithDealer(stream, dealer)
		for _, side := range []teaching.Side{teaching.American, teaching.German} {
			// Nothing a side is shown holds the sealed order of a deck.
			for _, text := range []string{r.Map(st, side), r.Status(st, side)} {
				if leak := sealedRun(st, text); leak != "" {
					t.Fatalf("%s: what the %s side sees holds the sealed run %q", st.PhaseTitle(), side, leak)
				}
			}
		}
		out, err := r.Resolve(st, inputs, src)
		if err != nil {
			t.Fatalf("%s: %v", st.PhaseTitle(), err)
		}
		if err := stream.Err(); err != nil {
			t.Fatal(err)
		}
		if err := dealer.Err(); err != nil {
			t.Fatal(err)
		}
		p.rolls = append(p.rolls, stream.Rolls()...)
		p.deals = append(p.deals, dealer.Deals()...)
		p.events = append(p.events, out.Events...)
		var keep []rules.Order
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
	r := newRules(t)
	for i := range 6 {
		var seed dice.Seed
		seed[0] = byte(i)
		p := playBots(t, r, rules.Options{teaching.OptTurns24: true}, seed)
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
		// Every random thing of the game is a card of a sealed deck, turned for a
		// stated purpose and rule (1 artillery, 3 hand to hand): no roll at all.
		if len(p.rolls) > 0 {
			t.Errorf("seed %d: %d rolls, want none: %+v", i, len(p.rolls), p.rolls[0])
		}
		cards := 0
		for _, d := range p.deals {
			if d.Kind == dice.KindCard {
				cards++
				if !strings.Contains(d.Purpose, " card for ") || (d.Rule != "1" && d.Rule != "3") || len(d.Cards) != 1 {
					t.Errorf("seed %d: card %+v is not turned for a stated purpose", i, d)
				}
			}
		}
		if cards == 0 {
			t.Errorf("seed %d: no card turned", i)
		}
		checkDeals(t, dice.Seed{0xde, seed[0]}, p.deals, p.final.(*teaching.State))
		if !strings.Contains(r.Status(p.final, teaching.American), "The game is over") {
			t.Errorf("seed %d: status does not say the game is over", i)
		}
	}
}

// sealedRun returns a run of three cards of a deck's sealed order not yet turned, as
// they would be written one after another, if text holds one; else "".
func sealedRun(st rules.State, text string) string {
	for _, dk := range st.(*teaching.State).Decks {
		rest := dk.Order[dk.Next:]
		for k := 0; k+3 <= len(rest); k++ {
			if run := strings.Join(rest[k:k+3], " "); strings.Contains(text, run) {
				return run
			}
		}
	}
	return ""
}

// checkDeals re-derives every deck from the deck seed and the shuffles' records alone,
// and checks every card turned against it and the final state's sealed order.
func checkDeals(t *testing.T, seed dice.Seed, deals []dice.Deal, final *teaching.State) {
	t.Helper()
	order := map[string][]string{}
	for _, d := range deals {
		switch d.Kind {
		case dice.KindDeckShuffle:
			order[d.Deck] = append(order[d.Deck], dice.DealOrder(seed, "g", d.Deck, d.Index, d.Purpose, d.Rule, d.Cards)...)
		case dice.KindCard:
			if d.Index >= len(order[d.Deck]) || order[d.Deck][d.Index] != d.Cards[0] {
				t.Fatalf("card %d of deck %s: %v turned, the seed does not give it (order %v)", d.Index, d.Deck, d.Cards, order[d.Deck])
			}
		}
	}
	for side, dk := range final.Decks {
		if got := order[string(side)]; strings.Join(got, " ") != strings.Join(dk.Order, " ") {
			t.Errorf("deck %s: re-derived %v, the state's sealed order %v", side, got, dk.Order)
		}
	}
}

// TestBotPace plays the same games with bots that send each turn in one mail and with
// bots that stop to see every result (STOP AFTER): the first wait twice a game turn
// (once on turn 1, where the German does nothing), the second at most five times (the
// American's artillery, movement and wire, the German's artillery and fire) and more
// often than the first, and both play every step to the game's end.
func TestBotPace(t *testing.T) {
	r := newRules(t)
	for i := range 3 {
		var seed dice.Seed
		seed[0] = byte(i)
		fast := playBotsAt(t, r, rules.Options{teaching.OptTurns24: true}, seed, false)
		slow := playBotsAt(t, r, rules.Options{teaching.OptTurns24: true}, seed, true)
		if !fast.final.Over() || !slow.final.Over() {
			t.Fatalf("seed %d: a game did not end", i)
		}
		for turn, n := range fast.waits {
			want := 2
			switch turn {
			case 0:
				want = 2 // the two set-ups
			case 1:
				want = 1
			}
			if n != want && turn != fast.final.Turn() {
				t.Errorf("seed %d, one mail a turn: turn %d waited %d times, want %d", i, turn, n, want)
			}
		}
		more, stops := 0, 0
		for turn, n := range slow.waits {
			if turn > 0 && n > 5 {
				t.Errorf("seed %d, stopping: turn %d waited %d times, more than 5", i, turn, n)
			}
			if n > fast.waits[turn] {
				more++
			}
		}
		for _, e := range slow.events {
			if strings.HasPrefix(e.Text, "You stop here (STOP AFTER)") {
				stops++
			}
		}
		if more == 0 || stops == 0 {
			t.Errorf("seed %d: the stopping bots waited longer in %d turns, stopped %d times", i, more, stops)
		}
		t.Logf("seed %d: waits per turn, one mail: %v; stopping: %v", i, fast.waits, slow.waits)
	}
}
