package soldiers1918

import (
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Moves implements rules.Mover: the moves and the units turned to carnage (or
// gone) the picture of a results mail draws. Nothing on the map is hidden (6.5), so
// both sides see them all.
func (r *Rules) Moves(before, after rules.State, _ rules.Side) ([]mapview.Arrow, []hex.Hex) {
	now := map[int]Unit{}
	for _, u := range after.(*State).Units {
		now[u.ID] = u
	}
	var moves []mapview.Arrow
	var lost []hex.Hex
	for _, w := range before.(*State).Units {
		from, err := hex.Parse(w.Hex)
		if err != nil || w.Carnage {
			continue
		}
		u, ok := now[w.ID]
		switch {
		case !ok || u.Carnage:
			lost = append(lost, from)
		case u.Hex != w.Hex:
			if to, err := hex.Parse(u.Hex); err == nil {
				moves = append(moves, mapview.Arrow{From: from, To: to, Name: mapview.ArrowMove})
			}
		}
	}
	slices.SortFunc(lost, hex.Compare)
	return moves, slices.Compact(lost)
}

var _ rules.Mover = (*Rules)(nil)
