package soissons1918

import (
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Moves implements rules.Mover: the moves, retreats and losses the picture of a
// results mail draws. Both sides see every stack (5), so both see them all.
func (r *Rules) Moves(before, after rules.State, _ rules.Side) ([]mapview.Arrow, []hex.Hex) {
	was := map[string]*Unit{}
	b := before.(*State)
	for i := range b.Units {
		was[b.Units[i].ID] = &b.Units[i]
	}
	var moves []mapview.Arrow
	var lost []hex.Hex
	for _, u := range after.(*State).Units {
		w, ok := was[u.ID]
		if !ok || w.Where != OnMap {
			continue
		}
		from, err := hex.Parse(w.Hex)
		if err != nil {
			continue
		}
		if u.Where != OnMap || u.Losses > w.Losses || u.Remnant && !w.Remnant {
			lost = append(lost, from)
		}
		if to, err := hex.Parse(u.Hex); err == nil && u.Where == OnMap && to != from {
			kind := mapview.ArrowMove
			if u.Retreat && !w.Retreat {
				kind = mapview.ArrowRetreat
			}
			moves = append(moves, mapview.Arrow{From: from, To: to, Name: kind})
		}
	}
	slices.SortFunc(lost, hex.Compare)
	return moves, slices.Compact(lost)
}

var _ rules.Mover = (*Rules)(nil)
