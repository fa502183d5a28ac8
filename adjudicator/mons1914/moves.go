package mons1914

import (
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Moves implements rules.Mover: the moves and losses the picture of side's
// results mail draws. Side sees its own units' moves and losses; of the enemy's (6.6),
// the moves of a unit it saw on top of its stack before and sees on top after, and
// units eliminated (the dead pile is known to both sides, 4.5).
func (r *Rules) Moves(before, after rules.State, side rules.Side) ([]mapview.Arrow, []hex.Hex) {
	b, a := newGame(r.sc, before.(*State)), newGame(r.sc, after.(*State))
	// seen reports whether side sees u of g in its hex: its own, or the top of the
	// enemy's stack.
	seen := func(g *game, u *Unit) bool {
		c := g.counter(u)
		if c == nil {
			return false
		}
		if c.Side == side {
			return true
		}
		h, err := hex.Parse(u.Hex)
		return err == nil && g.top(h, g.at(h, c.Side)).ID == u.ID
	}
	was := map[string]*Unit{}
	for i := range b.st.Units {
		was[b.st.Units[i].ID] = &b.st.Units[i]
	}
	var moves []mapview.Arrow
	var lost []hex.Hex
	for i := range a.st.Units {
		u := &a.st.Units[i]
		w, ok := was[u.ID]
		if !ok || w.Status != OnMap {
			continue
		}
		from, err := hex.Parse(w.Hex)
		if err != nil {
			continue
		}
		switch {
		case u.Status == OnMap && u.Hex != w.Hex:
			to, err := hex.Parse(u.Hex)
			if err == nil && seen(b, w) && seen(a, u) {
				moves = append(moves, mapview.Arrow{From: from, To: to, Name: mapview.ArrowMove})
			}
		case u.Status == Dead:
			lost = append(lost, from)
		case u.Status == OnMap && u.Steps < w.Steps && a.counter(u).Side == side:
			lost = append(lost, from)
		}
	}
	slices.SortFunc(lost, hex.Compare)
	return moves, slices.Compact(lost)
}

var _ rules.Mover = (*Rules)(nil)
