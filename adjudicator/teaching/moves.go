package teaching

import (
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// Moves implements adjudicator.Mover: the moves and the units flipped dead the picture
// of a results mail draws. Both sides see everything on the map.
func (r *Rules) Moves(before, after adjudicator.State, _ adjudicator.Side) ([]mapview.Arrow, []hex.Hex) {
	now := map[int]*Unit{}
	for _, u := range after.(*State).Units {
		now[u.ID] = u
	}
	var moves []mapview.Arrow
	var lost []hex.Hex
	for _, w := range before.(*State).Units {
		if w.Dead {
			continue
		}
		u, ok := now[w.ID]
		switch {
		case !ok || u.Dead:
			lost = append(lost, w.Hex)
		case u.Hex != w.Hex:
			moves = append(moves, mapview.Arrow{From: w.Hex, To: u.Hex, Name: adjudicator.ArrowMove})
		}
	}
	slices.SortFunc(lost, hex.Compare)
	return moves, slices.Compact(lost)
}

var _ adjudicator.Mover = (*Rules)(nil)
