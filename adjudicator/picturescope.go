package adjudicator

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// Mover is a [Viewer] that can tell, from the states before and after an advance, what
// side saw happen on the map, for the picture of its results mail to draw: moves
// (arrows named [ArrowMove], [ArrowRetreat] or [ArrowAttack], from the hex a unit left to the hex it is in) and the hexes
// where units were lost. It tells nothing side may not see: an enemy unit's move only
// when side saw the unit where it was and sees it where it is.
type Mover interface {
	Moves(before, after State, side Side) (moves []mapview.Arrow, lost []hex.Hex)
}

// PictureNews is what the picture of side's results mail draws of an advance from
// before to after: the hexes whose content changed in side's view, and the moves and
// losses the ruleset tells ([Mover]). A nil before (a MAP reply) draws no news.
func PictureNews(v Viewer, before, after State, side Side) mapimage.News {
	if before == nil {
		return mapimage.News{}
	}
	was := v.MapView(before, side)
	news := mapimage.News{Before: &was}
	if m, ok := v.(Mover); ok {
		news.Moves, news.Lost = m.Moves(before, after, side)
	}
	return news
}

// The kinds of a [Mover]'s arrows: the picture draws and explains each.
const (
	ArrowMove    = mapimage.ArrowMove
	ArrowRetreat = mapimage.ArrowRetreat
	ArrowAttack  = mapimage.ArrowAttack
)
