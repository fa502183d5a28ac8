package teaching

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// This file holds the rules that both the order check (on a copy of the state, before
// any card is turned) and the resolution use, so that what the check accepts is what
// the resolution does.

// game is a state being worked on with the rules: the resolution of one phase (the
// order check works on a copy of the state with the functions below, not a game).
type game struct {
	rules.Log
	r  *Rules
	st *State
	// dealer deals the sealed decks (nil when the source holds none: turning a card is
	// then an error); err is the first error met.
	dealer *dice.Dealer
	err    error
	out    rules.Outcome
}

// newGame works on st with the rules.
func newGame(r *Rules, st *State) *game {
	return &game{Log: rules.Log{State: st, Sides: sides}, r: r, st: st}
}

// cardEvent is an event that turned a card: it carries the card's record, so that the
// results mail gives it.
func (g *game) cardEvent(deal *dice.Deal, rule, format string, args ...any) {
	g.Tell(rule, nil, nil, format, args...).Deal = deal
}

// draw turns the next card of side's deck, telling any reshuffle in an event of rule.
func (g *game) draw(side Side, purpose, rule string) (string, *dice.Deal, bool) {
	card, deals, ok, evs, err := g.st.draw(side, g.dealer, purpose, rule)
	if err != nil && g.err == nil {
		g.err = err
	}
	for i, e := range evs {
		ev := g.Tell(rule, nil, nil, "%s", e)
		if i == 0 && len(deals) == 2 {
			ev.Deal = deals[0] // the reshuffle
		}
	}
	if !ok {
		return "", nil, false
	}
	return card, deals[len(deals)-1], true
}

// MaxShells is the explosion markers a side has each turn (rule 1: "Both sides have 3
// explosion markers").
const MaxShells = 3

// MaxMarkers is the wire-cutting markers of the game (rule 4: "there are 27 of them").
const MaxMarkers = 27

// MaxStack is the American stacking limit (rules 1 and 3).
const MaxStack = 3

// Range is the longest rifle and MG fire (rule 2: "Range to target is up to 10 hexes").
const Range = 10

// firePoints is what one unit fires (rule 2: "An infantry unit may fire with 1 point
// ... An MG may fire with 4 points").
var firePoints = map[string]int{"inf": 1, "mg": 4}

// killCost is the points that kill one unit with a chip (rule 2: "It takes 1 point to
// kill 1 unit with a black chip on it. It takes 3 points to kill 1 unit with a blue
// chip on it.").
var killCost = map[string]int{ChipBlack: 1, ChipBlue: 3}

// allowance is how far an American unit may move this turn (rule 3: "On the first turn
// only, all American units may move up to 3 hexes. On every following turn, American
// units without chips on them may move up to 1 hex. A blue chip allows movement up to 2
// hexes, while a black chip allows movement up to 3 hexes.").
func (st *State) allowance(u *Unit) int {
	if st.T == 1 {
		return 3
	}
	switch u.Chip {
	case ChipBlack:
		return 3
	case ChipBlue:
		return 2
	}
	return 1
}

// mayMove reports which American units may move this turn (rule 3: "American Army
// units in a hex that is not next to a hex occupied by other live American units may
// not move that turn ... American Marine units do not have this restriction"). It is
// judged once, when movement begins.
func (r *Rules) mayMove(st *State) map[int]bool {
	ok := map[int]bool{}
	for _, u := range st.Units {
		if u.Dead || u.side() != American {
			continue
		}
		if u.Kind == "marine" {
			ok[u.ID] = true
			continue
		}
		for _, n := range r.sc.Map.Grid.Neighbours(u.Hex) {
			if len(st.live(American, n)) > 0 {
				ok[u.ID] = true
				break
			}
		}
	}
	return ok
}

// wireBars reports whether uncut wire lies between a and b this turn (rule 4: "Uncut
// barbed wire may not be crossed ... On every following turn, treat the marked hexside
// as clear terrain").
func (r *Rules) wireBars(st *State, a, b hex.Hex) bool {
	// The shipped map first: the state's cuts only open a hexside it bars, and most
	// steps cross no wire.
	if _, ok, _ := r.sc.TEC.Step(r.sc.Map, "american", a, b); ok {
		return false
	}
	_, ok, _ := r.sc.TEC.Step(r.cutMap(st, st.T-1), "american", a, b)
	return !ok
}

// cutMap is the shipped map with the wire cut up to turn last (set-up is turn 0) as
// "cut" hexsides, marked as game state: the map a move is judged on (tec.txt: cut
// wire negates wire) and the map drawn.
func (r *Rules) cutMap(st *State, last int) *board.Map {
	cuts := map[hex.Hexside]board.Fact{}
	for _, c := range st.Cuts {
		if s, err := hex.ParseHexside(c.Side); err == nil && c.Turn <= last {
			cuts[s] = board.Fact{File: "state", Source: fmt.Sprintf("game state, cut in turn %d", c.Turn)}
		}
	}
	if len(cuts) == 0 {
		return r.sc.Map
	}
	return r.sc.Map.WithSides("cut", cuts)
}

// nextToGerman reports whether h is next to a live German unit.
func (r *Rules) nextToGerman(st *State, h hex.Hex) bool {
	for _, n := range r.sc.Map.Grid.Neighbours(h) {
		if st.german(n) != nil {
			return true
		}
	}
	return false
}

// moveCost is what moving along path costs on the kit's terrain effects table (tec.txt;
// rule 3: "may move up to" a number of hexes, a hex a step), in MP, on the map with the
// wire cut before this turn, and the same in hexes when the table refuses a step (uncut
// wire): the rule's own checks (checkPath) then say why, in its words. The path's hexes
// are known to be on the map and adjacent only after those checks, which come after
// the allowance's, as the rule's messages always have.
func (r *Rules) moveCost(st *State, path []hex.Hex) (mp int, kit bool) {
	cost, err := r.sc.TEC.PathCost(r.cutMap(st, st.T-1), "american", path)
	if err != nil {
		return len(path) - 1, false
	}
	return (cost + r.sc.TEC.Scale - 1) / r.sc.TEC.Scale, true
}

// checkPath checks each step of a path by rules 3 and 4 (the allowance is move's).
func (r *Rules) checkPath(st *State, path []hex.Hex) error {
	for i := 1; i < len(path); i++ {
		a, b := path[i-1], path[i]
		switch {
		case !r.sc.Map.OnMap(b):
			return fmt.Errorf("%s is not on the map", b)
		case !r.sc.Map.Grid.Adjacent(a, b):
			return fmt.Errorf("%s is not next to %s", b, a)
		case st.german(b) != nil:
			return fmt.Errorf("%s holds a German unit: Americans stop next to Germans and fight hand to hand (rule 3)", b)
		case r.wireBars(st, a, b):
			return fmt.Errorf("uncut barbed wire on %s/%s may not be crossed (rule 4)", a, b)
		case i < len(path)-1 && r.nextToGerman(st, b):
			return fmt.Errorf("%s is next to a German unit: units must stop there and may not slide by (rule 3)", b)
		}
	}
	return nil
}

// move carries out one MOVE order: it picks the units and moves them. moved holds the
// units that already moved this turn, may the units allowed to move (rule 3). It
// returns how many units moved; fewer than asked is an error, after moving those that
// could.
func (r *Rules) move(st *State, it item, moved, may map[int]bool) (int, error) {
	from := it.Path[0]
	steps := len(it.Path) - 1
	cost, _ := r.moveCost(st, it.Path)
	var pick []*Unit
	why := ""
	for _, u := range st.live(American, from) {
		switch {
		case len(pick) == it.N:
		case moved[u.ID]:
			why = "units already moved this turn"
		case it.Kind != "" && u.Kind != it.Kind:
		case it.Chip == "plain" && u.Chip != ChipNone, it.Chip != "" && it.Chip != "plain" && u.Chip != it.Chip:
		case !may[u.ID]:
			why = "Army units not next to a hex with other live Americans may not move (rule 3)"
		case st.allowance(u) < cost && cost == steps:
			why = fmt.Sprintf("units whose chip allows fewer than %d hexes (rule 3)", steps)
		case st.allowance(u) < cost:
			why = fmt.Sprintf("units whose chip allows fewer than the %d MP the path costs (rule 3, tec.txt)", cost)
		default:
			pick = append(pick, u)
		}
	}
	if len(pick) > 0 {
		if err := r.checkPath(st, it.Path); err != nil {
			return 0, err
		}
	}
	for _, u := range pick {
		u.Hex = it.Path[len(it.Path)-1]
		u.Chip = ChipNone // rule 3: "Remove chips when units move."
		moved[u.ID] = true
	}
	if len(pick) < it.N {
		desc := strings.Join(strings.Fields(it.Kind+" "+it.Chip+" units"), " ")
		msg := fmt.Sprintf("%s has %d %s that may move %d hex(es), not %d", from, len(pick), desc, steps, it.N)
		if why != "" {
			msg += "; not counted: " + why
		}
		return len(pick), errors.New(msg)
	}
	return len(pick), nil
}

// overstacked lists the hexes with more than 3 live American units.
func (st *State) overstacked() []hex.Hex {
	count := map[hex.Hex]int{}
	var out []hex.Hex
	for _, u := range st.Units {
		if !u.Dead && u.side() == American {
			count[u.Hex]++
			if count[u.Hex] == MaxStack+1 {
				out = append(out, u.Hex)
			}
		}
	}
	slices.SortFunc(out, hex.Compare)
	return out
}

// canCut checks a CUT order: wire on the hexside, not cut, a live American in one of
// its hexes (rule 4: "any American unit in a hex with one or more barbed wire hexsides
// may cut one or more of them by placing a white cardboard marker on each"), and a
// marker left.
func (r *Rules) canCut(st *State, s hex.Hexside) error {
	switch {
	case !r.sc.Map.Grid.Adjacent(s.A, s.B):
		return fmt.Errorf("%s is not a hexside: the hexes are not next to each other", s)
	case !r.sc.Map.SideHas(s.A, s.B, "wire"):
		return fmt.Errorf("there is no barbed wire on %s (rule 4)", s)
	}
	if _, ok := st.cut(s.String()); ok {
		return fmt.Errorf("the wire on %s is already cut", s)
	}
	if st.markersUsed() >= MaxMarkers {
		return fmt.Errorf("all %d wire markers are placed (rule 4)", MaxMarkers)
	}
	if len(st.live(American, s.A)) == 0 && len(st.live(American, s.B)) == 0 {
		return fmt.Errorf("no live American unit is in %s or %s after movement (rule 4)", s.A, s.B)
	}
	return nil
}

// chip places chips (rule 5) and returns how many units got one. Units a CHIP line of
// this turn has chipped already (done) are left alone, so that CHIP 0610 BLUE 1 then
// CHIP 0610 NONE 1 chip two different units.
func chip(st *State, it item, done map[int]bool) (int, error) {
	n := 0
	for _, u := range st.live(American, it.Hex) {
		if (it.Kind != "" && u.Kind != it.Kind) || done[u.ID] {
			continue
		}
		if it.N > 0 && n == it.N {
			break
		}
		u.Chip = it.Chip
		done[u.ID] = true
		n++
	}
	if n == 0 {
		return 0, fmt.Errorf("no live American %sunit is in %s after movement", map[bool]string{true: it.Kind + " ", false: ""}[it.Kind != ""], it.Hex)
	}
	if it.N > n {
		return n, fmt.Errorf("only %d such unit(s) in %s after movement", n, it.Hex)
	}
	return n, nil
}

// fight counts a hand-to-hand combat against German unit g (rule 3; strength counted
// as data/mix.txt says, reconstructed): every live American unit next to it attacks.
func (r *Rules) fight(st *State, g *Unit) (attackers []*Unit, a, gs int) {
	for _, n := range r.sc.Map.Grid.Neighbours(g.Hex) {
		attackers = append(attackers, st.live(American, n)...)
	}
	for _, u := range attackers {
		a += r.sc.Strength[u.Kind]
	}
	return attackers, a, r.sc.Strength[g.Kind]
}

// forecast says how the hand-to-hand combats would go if movement ended as planned:
// the order check's answer for a card not yet turned.
func (r *Rules) forecast(st *State) []string {
	var out []string
	for _, g := range st.Units {
		if g.side() != German || g.Dead {
			continue
		}
		attackers, a, gs := r.fight(st, g)
		if len(attackers) == 0 {
			continue
		}
		what := "above 1 to 1: the German is killed"
		switch {
		case a < gs:
			what = "below 1 to 1: the Americans next to it are killed"
		case a == gs:
			what = "1 to 1: you turn a card, red kills the German, black the Americans next to it"
		}
		out = append(out, fmt.Sprintf("hand to hand at %s (German %s, strength %d) against %d American unit(s), strength %d, %s", g.Hex, g.Kind, gs, len(attackers), a, what))
	}
	return out
}

// y2 is a hex's height on the sheet in half hexes, growing to the south.
func (r *Rules) y2(h hex.Hex) int {
	shifted := h.Col&1 == 1
	if r.sc.Map.Grid.Parity == hex.EvenColumnsShifted {
		shifted = !shifted
	}
	y := 2 * h.Row
	if shifted {
		y++
	}
	return y
}

// inArc reports whether target lies in an MG's fire arc (rule 2: "An MG may fire with 4
// points along an arc of the 3 hexes on its north side"): the three north hexsides of a
// flat-topped hex span the half plane north of its centre, so the arc is every hex whose
// centre lies north of the MG's (reconstructed: the printed chart is missing).
func (r *Rules) inArc(mg, target hex.Hex) bool { return r.y2(target) < r.y2(mg) }

// canFire checks one German unit's fire at a hex (rule 2).
func (r *Rules) canFire(st *State, from, at hex.Hex) (int, error) {
	g := st.german(from)
	if g == nil {
		return 0, fmt.Errorf("no live German unit is in %s", from)
	}
	if st.smoked(from) {
		return 0, fmt.Errorf("%s has smoke in it: a unit with a white chip in its hex may not fire (rule 2)", from)
	}
	if st.smoked(at) {
		return 0, fmt.Errorf("%s has smoke in it: rifles and MGs may not fire into it (rule 2)", at)
	}
	if d := r.sc.Map.Grid.Distance(from, at); d > Range {
		return 0, fmt.Errorf("%s is %d hexes from %s; range is up to %d (rule 2)", at, d, from, Range)
	}
	if g.Kind == "mg" && !r.inArc(from, at) {
		return 0, fmt.Errorf("%s is not in the north arc of the MG in %s (rule 2)", at, from)
	}
	if ok, by := r.sc.Map.Grid.LineOfSight(from, at, st.smoked); !ok {
		return 0, fmt.Errorf("the fire from %s would pass through the smoke in %s (rule 2)", from, by)
	}
	return firePoints[g.Kind], nil
}

// targets returns the live American units in h with the chip, of the kind when one is
// given, in the order they are killed: the kind the firer names, or else Marines first
// (the default HELP states: they may always move, rule 3), then by id.
func (st *State) targets(h hex.Hex, chip, kind string) []*Unit {
	var out []*Unit
	for _, u := range st.live(American, h) {
		if u.Chip == chip && (kind == "" || u.Kind == kind) {
			out = append(out, u)
		}
	}
	slices.SortStableFunc(out, func(a, b *Unit) int {
		if a.Kind != b.Kind && a.Kind == "marine" {
			return -1
		}
		if a.Kind != b.Kind && b.Kind == "marine" {
			return 1
		}
		return 0
	})
	return out
}

// describe lists the units in a hex in words.
func (st *State) describe(h hex.Hex) string {
	var parts []string
	count := map[string]int{}
	var keys []string
	for _, u := range st.Units {
		if u.Hex != h {
			continue
		}
		k := unitWord(u)
		if count[k] == 0 {
			keys = append(keys, k)
		}
		count[k]++
	}
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
	}
	if len(parts) == 0 {
		return "nobody"
	}
	return strings.Join(parts, ", ")
}

func unitWord(u *Unit) string {
	w := map[string]string{"inf": "German infantry", "mg": "German MG", "army": "Army", "marine": "Marine"}[u.Kind]
	switch {
	case u.Dead:
		return w + " (dead)"
	case u.Chip != "":
		return w + " (" + u.Chip + " chip)"
	}
	return w
}
