package teaching

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// BotOrders writes a plausible mail of orders for side in the current phase, for the
// scripted players of the demo and for whole-game tests. It plays simply: the Americans
// go for the nearest German MG, cut the wire in their way, shell the MGs (smoke when
// Americans are near), and chip each stack by the fire the Germans could bring on it
// (black out of reach, blue under light fire, none under heavy fire: rule 2 lets the
// Germans fire only at chipped units); the Germans shell the largest American stacks
// and fire at whatever chipped unit each of their units can kill. It returns "" when
// side has nothing to send. It sends each turn in one mail (BotOrdersAt with stop
// false).
func (r *Rules) BotOrders(s rules.State, side Side) string {
	return r.BotOrdersAt(s, side, false)
}

// BotOrdersAt is BotOrders at a pace: with stop, the bot stops to see every result it
// may see before the next step (STOP AFTER ARTILLERY when it fires shells, STOP AFTER
// HAND TO HAND when its moves bring on hand to hand), and sends the rest of the turn
// in the following mails.
func (r *Rules) BotOrdersAt(s rules.State, side Side, stop bool) string {
	st := s.(*State)
	if actor(st) != side {
		return ""
	}
	switch st.P {
	case PhaseGermanSetup, PhaseAmericanSetup:
		return "SETUP DEFAULT\n"
	case PhaseAmerican, PhaseAmericanMove, PhaseAmericanWire:
		return r.botAmerican(st, stop)
	case PhaseGerman, PhaseGermanFire:
		return r.botGerman(st, stop)
	}
	return ""
}

// near reports whether a live unit of side is within d hexes of h.
func (r *Rules) near(st *State, side Side, h hex.Hex, d int) bool {
	for _, u := range st.Units {
		if !u.Dead && u.side() == side && r.sc.Map.Grid.Distance(u.Hex, h) <= d {
			return true
		}
	}
	return false
}

func (r *Rules) botAmerican(st *State, stop bool) string {
	var lines []string
	g := r.sc.Map.Grid
	var mgs []hex.Hex
	for _, u := range st.Units {
		if u.Kind == "mg" && !u.Dead {
			mgs = append(mgs, u.Hex)
		}
	}
	// HE on the MGs; smoke on those with Americans close by (HE could kill them, and
	// a unit with smoke in its hex may not fire, rule 2).
	for i, h := range mgs {
		switch {
		case st.P != PhaseAmerican: // fired already, before a stop
		case i >= MaxShells:
		case !r.near(st, American, h, 2):
			lines = append(lines, "SHELL HE "+h.String())
		case !st.smoked(h):
			lines = append(lines, "SHELL SMOKE "+h.String())
		}
	}
	if stop && len(lines) > 0 {
		return joinLines(append(lines, "STOP AFTER ARTILLERY"))
	}
	plan := st.clone()
	moved, may := map[int]bool{}, r.mayMove(plan)
	if st.P == PhaseAmericanWire {
		may = nil // movement is over
	}
	var hexes []hex.Hex
	for _, u := range plan.Units {
		if !u.Dead && u.side() == American && !slices.Contains(hexes, u.Hex) {
			hexes = append(hexes, u.Hex)
		}
	}
	slices.SortFunc(hexes, func(a, b hex.Hex) int { return hex.Compare(b, a) }) // the front first
	goal := func(h hex.Hex) int {
		best := 1 << 30
		for _, m := range mgs {
			best = min(best, g.Distance(h, m))
		}
		return best
	}
	for _, from := range hexes {
		for _, u := range plan.live(American, from) {
			if moved[u.ID] || !may[u.ID] {
				continue
			}
			step := func(a, b hex.Hex) bool {
				return plan.german(b) == nil && !r.wireBars(plan, a, b) && (a == from || !r.nextToGerman(plan, a))
			}
			reach := board.Reach(r.sc.Map, from, plan.allowance(u), func(a, b hex.Hex) (int, bool) { return 1, step(a, b) },
				func(h hex.Hex) bool { return r.nextToGerman(plan, h) })
			var dests []hex.Hex
			for h := range reach {
				if h != from && len(plan.live(American, h)) < MaxStack {
					dests = append(dests, h)
				}
			}
			slices.SortFunc(dests, func(a, b hex.Hex) int {
				if d := goal(a) - goal(b); d != 0 {
					return d
				}
				return hex.Compare(a, b)
			})
			if len(dests) == 0 || goal(dests[0]) >= goal(from) {
				continue
			}
			path, ok := board.Trace(r.sc.Map, from, func(h hex.Hex) bool { return h == dests[0] }, step)
			if !ok {
				continue
			}
			it := item{Verb: "MOVE", N: 1, Kind: u.Kind, Path: path}
			if u.Chip == ChipNone {
				it.Chip = "plain"
			} else {
				it.Chip = u.Chip
			}
			if _, err := r.move(plan, it, moved, may); err == nil {
				lines = append(lines, it.canonical())
			}
		}
	}
	if stop && st.P != PhaseAmericanWire && len(r.forecast(plan)) > 0 {
		return joinLines(append(lines, "STOP AFTER HAND TO HAND"))
	}
	// Cut every wire hexside next to a live American after the moves.
	used := plan.markersUsed()
	for _, u := range plan.Units {
		if u.Dead || u.side() != American {
			continue
		}
		for _, n := range g.Neighbours(u.Hex) {
			s, ok := g.Hexside(u.Hex, n)
			if !ok || used >= MaxMarkers || r.canCut(plan, s) != nil {
				continue
			}
			plan.Cuts = append(plan.Cuts, Cut{Side: s.String(), Turn: plan.T, Marker: true})
			lines = append(lines, "CUT "+s.String())
			used++
		}
	}
	// Chips by the fire the Germans could bring on each hex now: black where none can
	// reach, blue where up to 8 points can (two MGs: two losses at most), none elsewhere.
	var hexesAfter []hex.Hex
	for _, u := range plan.Units {
		if !u.Dead && u.side() == American && !slices.Contains(hexesAfter, u.Hex) {
			hexesAfter = append(hexesAfter, u.Hex)
		}
	}
	slices.SortFunc(hexesAfter, hex.Compare)
	for _, h := range hexesAfter {
		points := 0
		for _, g := range plan.Units {
			if g.side() == German && !g.Dead {
				if p, err := r.canFire(plan, g.Hex, h); err == nil {
					points += p
				}
			}
		}
		chip := "NONE"
		switch {
		case points == 0:
			chip = "BLACK"
		case points <= 8:
			chip = "BLUE"
		}
		lines = append(lines, "CHIP "+h.String()+" "+chip)
	}
	return joinLines(lines)
}

// joinLines writes a mail body, merging repeated one-unit MOVE lines into one with a
// count.
func joinLines(lines []string) string {
	if len(lines) == 0 {
		return "PASS\n"
	}
	var out []string
	n := 0
	for i, l := range lines {
		n++
		if i+1 < len(lines) && lines[i+1] == l && strings.HasPrefix(l, "MOVE 1 ") && n < MaxStack {
			continue
		}
		if n > 1 {
			l = fmt.Sprintf("MOVE %d %s", n, strings.TrimPrefix(l, "MOVE 1 "))
		}
		out = append(out, l)
		n = 0
	}
	return strings.Join(out, "\n") + "\n"
}

func (r *Rules) botGerman(st *State, stop bool) string {
	var lines []string
	type stack struct {
		h hex.Hex
		n int
	}
	var stacks []stack
	for _, u := range st.Units {
		if u.Dead || u.side() != American || slices.ContainsFunc(stacks, func(s stack) bool { return s.h == u.Hex }) {
			continue
		}
		stacks = append(stacks, stack{u.Hex, len(st.live(American, u.Hex))})
	}
	slices.SortFunc(stacks, func(a, b stack) int {
		if a.n != b.n {
			return b.n - a.n
		}
		return hex.Compare(a.h, b.h)
	})
	shells := 0
	for _, s := range stacks {
		if st.P == PhaseGerman && shells < MaxShells && !r.near(st, German, s.h, 2) {
			lines = append(lines, "SHELL HE "+s.h.String())
			shells++
		}
	}
	if stop && shells > 0 {
		return joinLines(append(lines, "STOP AFTER ARTILLERY"))
	}
	fired := map[string]bool{}
	for _, g := range st.Units {
		if g.side() != German || g.Dead {
			continue
		}
		for _, s := range stacks {
			done := false
			for _, chip := range []string{ChipBlack, ChipBlue} {
				it := item{Verb: "FIRE", From: []hex.Hex{g.Hex}, Hex: s.h, Chip: chip}
				if p, err := r.firePlan(st, it, map[string]bool{}); err == nil && p >= killCost[chip] && !fired[g.Hex.String()] {
					fired[g.Hex.String()] = true
					lines = append(lines, it.canonical())
					done = true
					break
				}
			}
			if done {
				break
			}
		}
	}
	return joinLines(lines)
}

// BotStops reports whether the players of Bot stop to see every result they may see on
// turn (STOP AFTER): the even turns; on the odd turns each sends his turn in one mail,
// so that one game shows both paces of play.
func BotStops(turn int) bool { return turn%2 == 0 }

// botMaxMails bounds a game of Bot, so that a game that never ends fails the demo or
// test that plays it instead of hanging it.
const botMaxMails = 400

// Bot implements rules.Botter: BotOrdersAt for the side the game waits for, at the
// pace of BotStops, until the game is over.
func (r *Rules) Bot(game string) rules.Bot { return &bot{r: r, game: game} }

var _ rules.Botter = (*Rules)(nil)

// bot is the scripted players of one game.
type bot struct {
	r    *Rules
	game string
}

// Next implements rules.Bot.
func (b *bot) Next(i int, st rules.State) (rules.BotMail, bool, error) {
	switch {
	case st.Over():
		return rules.BotMail{}, false, nil
	case i >= botMaxMails:
		return rules.BotMail{}, false, fmt.Errorf("teaching bot: %s has not ended after %d mails", b.game, botMaxMails)
	}
	for _, s := range b.r.Sides() {
		if body := b.r.BotOrdersAt(st, s.ID, BotStops(st.Turn())); body != "" {
			return rules.BotMail{Side: s.ID, Subject: fmt.Sprintf("[%s] %s", b.game, st.PhaseTitle()), Body: body}, true, nil
		}
	}
	return rules.BotMail{}, false, fmt.Errorf("teaching bot: %s waits for nobody in %s", b.game, st.PhaseTitle())
}
