package teaching

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Resolve implements rules.Ruleset.
func (r *Rules) Resolve(s rules.State, inputs []rules.Order, d dice.Source) (rules.Outcome, error) {
	st := s.(*State).clone()
	g := newGame(r, st)
	if ds, ok := d.(dice.DeckSource); ok {
		g.dealer = ds.Dealer()
	}
	var items []item
	for _, o := range inputs {
		// The desk says in the results when default orders were used; the events say
		// which steps they decided, and which the player's mail did.
		g.out.Consumed = append(g.out.Consumed, o.ID())
		if st.T > 0 && st.Revision >= 1 {
			g.source(o)
		}
		for i, text := range strings.Split(o.Text, "\n") {
			it, err := parse(orders.Line{No: i + 1, Text: text, Fields: strings.Fields(text)})
			if err != nil {
				return rules.Outcome{}, fmt.Errorf("stored order %q: %w", text, err)
			}
			items = append(items, it)
		}
	}
	var err error
	switch st.P {
	case PhaseGermanSetup:
		err = g.setup(German, items, PhaseAmericanSetup)
	case PhaseAmericanSetup:
		err = g.setup(American, items, PhaseAmerican)
		if err == nil {
			st.T = 1
		}
	case PhaseAmerican:
		g.americanTurn(items)
	case PhaseAmericanMove:
		g.americanMove(items)
	case PhaseAmericanWire:
		g.americanWire(items)
	case PhaseGerman:
		g.germanTurn(items)
	case PhaseGermanFire:
		g.germanFire(items)
	default:
		err = fmt.Errorf("nothing to resolve in phase %q", st.P)
	}
	if err == nil {
		err = g.err
	}
	if err != nil {
		return rules.Outcome{}, err
	}
	if st.Over() {
		g.finalReport()
	}
	g.out.State, g.out.Events = st, g.Events
	return g.out, nil
}

// source tells the player whose order o is which steps it decided, and whether it came
// from his mail or from the default for a silent side (HELP: PASS).
func (g *game) source(o rules.Order) {
	switch {
	case o.Kind == kindDefault:
		g.OwnerOnly(o.Side, "sequence", "%s: by default, no mail by the deadline: PASS.", g.st.PhaseTitle())
	case g.st.P != PhaseAmerican && g.st.P != PhaseGerman:
		// A step the player stopped before: played from the mail he sent after.
		g.OwnerOnly(o.Side, "sequence", "%s: from your mail, sent after the results.", g.st.PhaseTitle())
	}
}

// stopAfter returns the step after which the mail stops (STOP AFTER), "" for none.
func stopAfter(items []item) string {
	for _, it := range items {
		if it.Verb == "STOP" {
			return it.Stop
		}
	}
	return ""
}

// stopsAfter reports whether the turn goes no further after the step just played: the
// game has ended, or the mail stops there (STOP AFTER stop) and the game now waits for
// side's orders for phase next.
func (g *game) stopsAfter(items []item, stop string, side Side, next string) bool {
	if g.checkEnd() {
		return true
	}
	if stopAfter(items) == stop {
		g.waitFor(side, next)
		return true
	}
	return false
}

// waitFor ends a step the player stops after: the game waits for his next mail in
// phase next, and the results tell him so.
func (g *game) waitFor(side Side, next string) {
	g.st.P = next
	g.OwnerOnly(side, "sequence", "You stop here (STOP AFTER): send your orders for %s; without them by the deadline, PASS.", g.st.PhaseTitle())
}

func byVerb(items []item, verb string) []item {
	var out []item
	for _, it := range items {
		if it.Verb == verb {
			out = append(out, it)
		}
	}
	return out
}

func (g *game) setup(side Side, items []item, next string) error {
	st := g.st
	var ps []Placement
	if len(byVerb(items, "PLACE")) == 0 {
		for _, p := range g.r.sc.Mixes[st.Mix].Places {
			if p.Side == side {
				ps = append(ps, p)
			}
		}
	}
	for _, it := range byVerb(items, "PLACE") {
		ps = append(ps, it.placements(side)...)
	}
	if err := g.r.sc.checkSetup(ps); err != nil {
		return fmt.Errorf("set-up: %w", err)
	}
	var where []string
	for _, p := range ps {
		for range p.N {
			st.NextID++
			st.Units = append(st.Units, &Unit{ID: st.NextID, Kind: p.Kind, Hex: p.Hex})
		}
		where = append(where, fmt.Sprintf("%d %s in %s", p.N, p.Kind, p.Hex))
	}
	g.Event("set-up", "The %s set-up: %s.", sides.Name(side), strings.Join(where, ", "))
	if side == American {
		// Rule 1: "Treat all barbed wire adjacent to an American setup hex as cut, and
		// thus clear terrain." (Set-up hex: a hex where an American unit sets up.)
		var cut []string
		for _, p := range ps {
			for _, n := range g.r.sc.Map.Grid.Neighbours(p.Hex) {
				s, ok := g.r.sc.Map.Grid.Hexside(p.Hex, n)
				if !ok || !g.r.sc.Map.SideHas(p.Hex, n, "wire") {
					continue
				}
				if _, done := st.cut(s.String()); !done {
					st.Cuts = append(st.Cuts, Cut{Side: s.String(), Turn: 0})
					cut = append(cut, s.String())
				}
			}
		}
		if len(cut) > 0 {
			g.Event("set-up", "Barbed wire next to the American set-up hexes is treated as cut: %s.", strings.Join(cut, " "))
		}
	}
	st.P = next
	return nil
}

// artillery fires a side's explosion markers (rule 1).
func (g *game) artillery(side Side, shells []item) {
	st := g.st
	for _, it := range shells {
		purpose := fmt.Sprintf("the %s shell aimed at %s", orders.Upper(it.Shell), it.Hex)
		card, deal, ok := g.draw(side, purpose, "1")
		if !ok {
			continue
		}
		land := g.r.sc.Land(it.Hex, rankOf(card))
		where := fmt.Sprintf("%s turns %s: %s lands in %s", sides.Name(side), card, purpose, land)
		if rankOf(card) == "A" {
			where += " (the Ace: on target)"
		}
		if !g.r.sc.Map.OnMap(land) {
			g.cardEvent(deal, "1", "%s, off the map: no effect.", where)
			continue
		}
		if it.Shell == "smoke" {
			if !st.smoked(land) {
				st.Smoke = append(st.Smoke, land)
			}
			g.cardEvent(deal, "1", "%s: smoke (a white chip) in %s; it kills nothing.", where, land)
			continue
		}
		var killed []string
		for _, u := range st.live("", land) {
			killed = append(killed, unitWord(u))
			g.kill(u)
		}
		if len(killed) == 0 {
			g.cardEvent(deal, "1", "%s: nobody there.", where)
		} else {
			g.cardEvent(deal, "1", "%s: HE kills all units there: %s.", where, strings.Join(killed, ", "))
		}
		if g.checkEnd() {
			return
		}
	}
}

// kill kills a unit: Germans are removed, Americans flipped (rule 3).
func (g *game) kill(u *Unit) {
	u.Dead = true
	u.Chip = ChipNone
	if u.side() == German {
		st := g.st
		st.Units = slices.DeleteFunc(st.Units, func(v *Unit) bool { return v.ID == u.ID })
	}
}

// checkEnd ends the game when every German MG is dead (rulebook: "The game is over when
// all German MGs have been killed"), or when no live American is left (not printed: the
// game could not end otherwise).
func (g *game) checkEnd() bool {
	st := g.st
	switch {
	case st.Over():
		return true
	case st.liveCount("mg") == 0:
		st.End = "every German MG has been killed"
	case st.liveSide(American) == 0:
		st.End = "no live American unit is left (not printed: the game cannot end otherwise)"
	default:
		return false
	}
	st.P = PhaseOver
	g.Event("sequence", "The game is over: %s. American casualties: %d (the fewer, the more successful the attack).", st.End, st.casualties())
	return true
}

func (g *game) americanTurn(items []item) {
	st := g.st
	st.Shown = nil
	if st.opt(OptSmokeClears) && len(st.Smoke) > 0 {
		st.Smoke = nil
		g.Event("1", "The smoke clears (option %s, not printed).", OptSmokeClears)
	}
	g.artillery(American, byVerb(items, "SHELL"))
	if g.stopsAfter(items, StopArtillery, American, PhaseAmericanMove) {
		return
	}
	g.americanMove(items)
}

// americanMove plays steps 3 to 5 of the American turn: movement and hand to hand, then
// wire and chips unless the mail stops after hand to hand.
func (g *game) americanMove(items []item) {
	st := g.st
	// Movement (rule 3).
	moved, may := map[int]bool{}, g.r.mayMove(st)
	type done struct {
		it     item
		n      int
		err    error
		from   []*Unit
		chips  []string // the chips they had: an undone move gives them back
		undone hex.Hex  // the over-stacked hex that undid the move, if any
	}
	var moves []done
	for _, it := range byVerb(items, "MOVE") {
		chips := map[int]string{}
		for _, u := range st.Units {
			if !moved[u.ID] {
				chips[u.ID] = u.Chip
			}
		}
		n, err := g.r.move(st, it, moved, may)
		d := done{it: it, n: n, err: err}
		for _, u := range st.Units {
			if c, was := chips[u.ID]; was && moved[u.ID] {
				d.from, d.chips = append(d.from, u), append(d.chips, c)
			}
		}
		moves = append(moves, d)
	}
	// Rule 3: "may not stack more than 3 high at the end of movement": the last moves
	// into an over-stacked hex are undone (not printed: what to do instead).
	for changed := true; changed; {
		changed = false
		for _, h := range st.overstacked() {
			for i := len(moves) - 1; i >= 0 && !changed; i-- {
				m := moves[i]
				if m.it.Path[len(m.it.Path)-1] != h || len(m.from) == 0 {
					continue
				}
				for k, u := range m.from {
					u.Hex, u.Chip = m.it.Path[0], m.chips[k]
				}
				moves[i].from, moves[i].undone = nil, h
				changed = true
			}
		}
	}
	// What the German reads of a move is what happened: the units that moved, where
	// to. A move not carried out, undone, or the part of one not carried out (the
	// count asked for, why the others did not go) is the American's alone: at the
	// table the German sees units move, not what was meant (invariant 5).
	for _, m := range moves {
		to := m.it.Path[len(m.it.Path)-1]
		switch {
		case m.err != nil && m.n == 0:
			g.OwnerOnly(American, "3", "%s: not carried out: %v.", m.it.canonical(), m.err)
			continue
		case m.undone != hex.Hex{}:
			g.OwnerOnly(American, "3", "%s: undone, %s would hold more than %d live American units (rule 3); the units stay in %s.", m.it.canonical(), m.undone, MaxStack, m.it.Path[0])
			continue
		}
		done := m.it
		done.N = m.n
		own := fmt.Sprintf("%s: %d unit(s) moved to %s.", m.it.canonical(), m.n, to)
		if m.err != nil {
			own = fmt.Sprintf("%s: %d unit(s) moved to %s; %v.", m.it.canonical(), m.n, to, m.err)
		}
		g.ToEach("3", nil, American, own, fmt.Sprintf("%s: %d unit(s) moved to %s.", done.canonical(), m.n, to))
	}
	g.handToHand()
	if g.stopsAfter(items, StopHandToHand, American, PhaseAmericanWire) {
		return
	}
	g.americanWire(items)
}

// americanWire plays steps 4 and 5 of the American turn, wire and chips, and ends it.
func (g *game) americanWire(items []item) {
	st := g.st
	// Wire (rule 4).
	for _, it := range byVerb(items, "CUT") {
		if err := g.r.canCut(st, it.Side); err != nil {
			g.OwnerOnly(American, "4", "CUT %s: no marker placed: %v.", it.Side, err)
			continue
		}
		st.Cuts = append(st.Cuts, Cut{Side: it.Side.String(), Turn: st.T, Marker: true})
		g.Event("4", "Wire on %s cut (marker %d of %d): clear terrain from turn %d.", it.Side, st.markersUsed(), MaxMarkers, st.T+1)
	}
	// Chips (rule 5).
	chipped := map[int]bool{}
	for _, it := range byVerb(items, "CHIP") {
		n, err := chip(st, it, chipped)
		if err != nil && n == 0 {
			g.OwnerOnly(American, "5", "%s: no chip placed: %v.", it.canonical(), err)
			continue
		}
		// The chips placed are seen (rule 5); the count asked for beyond them is
		// the American's alone.
		done := it
		if it.N > 0 {
			done.N = n
		}
		own := fmt.Sprintf("%s: %d unit(s) chipped.", it.canonical(), n)
		if err != nil {
			own = fmt.Sprintf("%s: %d unit(s) chipped; %v.", it.canonical(), n, err)
		}
		g.ToEach("5", nil, American, own, fmt.Sprintf("%s: %d unit(s) chipped.", done.canonical(), n))
	}
	var kept []string
	keptN := map[string]int{}
	for _, u := range st.Units {
		if !u.Dead && u.side() == American && !chipped[u.ID] && u.Chip != ChipNone {
			k := fmt.Sprintf("%s %s", u.Hex, u.Chip)
			if keptN[k] == 0 {
				kept = append(kept, k)
			}
			keptN[k]++
		}
	}
	for i, k := range kept {
		kept[i] = fmt.Sprintf("%d in %s", keptN[k], k)
	}
	if len(kept) > 0 {
		g.Event("5", "Chips kept by default (no CHIP line chose these units, and they did not move): %s.", strings.Join(kept, ", "))
	}
	st.P = PhaseGerman
}

// handToHand resolves every German unit next to Americans (rule 3: "All German units
// adjacent to American units must be attacked"). Strength is counted as data/mix.txt
// says (reconstructed): each German unit is attacked by every live American unit next
// to it, one at a time in hex order.
func (g *game) handToHand() {
	st := g.st
	var germans []*Unit
	for _, u := range st.Units {
		if u.side() == German && !u.Dead {
			germans = append(germans, u)
		}
	}
	slices.SortFunc(germans, func(a, b *Unit) int { return hex.Compare(a.Hex, b.Hex) })
	for _, ger := range germans {
		attackers, a, gs := g.r.fight(st, ger)
		if len(attackers) == 0 {
			continue
		}
		head := fmt.Sprintf("Hand to hand at %s: %d American unit(s), strength %d, against the German %s, strength %d", ger.Hex, len(attackers), a, ger.Kind, gs)
		americansDie := false
		switch {
		case a < gs:
			g.Event("3", "%s: below 1 to 1, the Americans are killed.", head)
			americansDie = true
		case a > gs:
			g.Event("3", "%s: above 1 to 1, the German is killed.", head)
			g.kill(ger)
		default:
			card, deal, ok := g.draw(American, fmt.Sprintf("the hand to hand at %s", ger.Hex), "3")
			switch {
			case !ok:
				g.Event("3", "%s: 1 to 1, no card to turn: nobody is killed.", head)
			case red(card):
				g.cardEvent(deal, "3", "%s: 1 to 1, the American turns %s, red: the German is killed.", head, card)
				g.kill(ger)
			default:
				g.cardEvent(deal, "3", "%s: 1 to 1, the American turns %s, black: the Americans are killed.", head, card)
				americansDie = true
			}
		}
		if americansDie {
			for _, u := range attackers {
				g.kill(u)
			}
		}
		if g.checkEnd() {
			return
		}
	}
}

func (g *game) germanTurn(items []item) {
	st := g.st
	if st.T == 1 {
		g.Event("1", "Turn 1: no German artillery fire and no German rifle or MG fire on the first turn (rules 1, 2).")
	} else {
		g.artillery(German, byVerb(items, "SHELL"))
		if g.stopsAfter(items, StopArtillery, German, PhaseGermanFire) {
			return
		}
	}
	g.germanFire(items)
}

// germanFire plays step 2 of the German turn (none on turn 1) and ends the game turn.
func (g *game) germanFire(items []item) {
	st := g.st
	if st.T > 1 {
		fired := map[string]bool{}
		for _, it := range byVerb(items, "FIRE") {
			g.fire(it, fired)
		}
		if g.checkEnd() {
			return
		}
	}
	if (st.opt(OptTurns12) && st.T >= 12) || (st.opt(OptTurns24) && st.T >= 24) {
		st.End = fmt.Sprintf("the turn limit of %d is reached (an option, not printed)", st.T)
		st.P = PhaseOver
		g.Event("sequence", "The game is over: %s. American casualties: %d; German MGs still alive: %d.", st.End, st.casualties(), st.liveCount("mg"))
		return
	}
	st.T++
	st.P = PhaseAmerican
}

// fire resolves one FIRE order (rule 2), re-checked after the German artillery.
func (g *game) fire(it item, fired map[string]bool) {
	st := g.st
	points := 0
	var notes []string
	shot := it
	shot.From = nil
	for _, from := range it.From {
		if fired[from.String()] {
			notes = append(notes, fmt.Sprintf("%s fired already", from))
			continue
		}
		p, err := g.r.canFire(st, from, it.Hex)
		if err != nil {
			notes = append(notes, err.Error())
			continue
		}
		fired[from.String()] = true
		shot.From = append(shot.From, from)
		points += p
	}
	head := it.canonical()
	if len(notes) > 0 {
		head += " (" + strings.Join(notes, "; ") + ")"
	}
	targets := st.targets(it.Hex, it.Chip, it.Kind)
	if points == 0 || len(targets) == 0 {
		// Rule 2: fire is at units with a chip, by units that may fire; without
		// either there is no fire to see, and the order is the German's alone
		// (invariant 5).
		g.OwnerOnly(German, "2", "%s: no effect (%d point(s), %d target(s)).", head, points, len(targets))
		return
	}
	k := min(points/killCost[it.Chip], len(targets))
	for _, u := range targets[:k] {
		g.kill(u)
	}
	// The American sees the units that fired, not those named that could not.
	result := fmt.Sprintf("%d point(s) against %s-chip units, %d per kill: %d killed.", points, it.Chip, killCost[it.Chip], k)
	told := len(g.Events)
	g.ToEach("2", nil, German, head+": "+result, shot.canonical()+": "+result)
	rules.Aim(g.Events[told:], shot.From, it.Hex)
}

// finalReport shows both decks whole when the game ends.
func (g *game) finalReport() {
	for _, s := range []Side{American, German} {
		g.Event("1, 3", "%s", DeckReport(s, g.st.Decks[s]))
	}
}
