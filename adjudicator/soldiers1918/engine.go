package soldiers1918

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// game is a state being worked on with the rules: the resolution of one phase, or the
// order check's trial of a move or a fire on a copy of the state.
type game struct {
	rules.Log
	r     *Rules
	st    *State
	d     dice.Source
	out   rules.Outcome
	moved map[int]bool // units moved this phase (9.1)
	// arrivals numbers the moves of this phase, by unit: the latest mover has the highest.
	arrivals map[int]int
}

// newGame works on st with the rules and the dice d (nil in the order check).
func newGame(r *Rules, st *State, d dice.Source) *game {
	return &game{Log: rules.Log{State: st, Sides: sides}, r: r, st: st, d: d}
}

// ownerOnly is an event about an order of side that was not carried out: told to side
// alone (Revision 1), since it says what he meant to do, which the other side sees only
// when it happens; to both in a game of revision 0.
func (g *game) ownerOnly(side rules.Side, rule, format string, args ...any) {
	if g.st.Revision < 1 {
		g.Event(rule, format, args...)
		return
	}
	g.OwnerOnly(side, rule, format, args...)
}

// otherOnly is ownerOnly's counterpart: the event the other side of side is told
// instead. It is not told in a game of revision 0, whose ownerOnly events both sides see.
func (g *game) otherOnly(side rules.Side, rule, format string, args ...any) {
	if g.st.Revision < 1 {
		return
	}
	g.OtherOnly(side, rule, format, args...)
}
