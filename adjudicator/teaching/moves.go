package teaching

import (
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Moves implements rules.Mover: the moves and the units flipped dead the picture
// of a results mail draws. Both sides see everything on the map.
func (r *Rules) Moves(before, after rules.State, _ rules.Side) ([]mapview.Arrow, []hex.Hex) {
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
			moves = append(moves, mapview.Arrow{From: w.Hex, To: u.Hex, Name: mapview.ArrowMove})
		}
	}
	slices.SortFunc(lost, hex.Compare)
	return moves, slices.Compact(lost)
}

var _ rules.Mover = (*Rules)(nil)
