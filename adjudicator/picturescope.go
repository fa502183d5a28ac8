package adjudicator

import (
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/store"
)

// PictureNews is what the picture of side's results mail draws of an advance from
// before to after: the hexes whose content changed in side's view, and the moves and
// losses the ruleset tells ([Mover]). A nil before (a MAP reply) draws no news.
func PictureNews(v rules.Viewer, before, after rules.State, side rules.Side) mapimage.News {
	if before == nil {
		return mapimage.News{}
	}
	was := v.MapView(before, side)
	news := mapimage.News{Before: &was}
	if m, ok := v.(rules.Mover); ok {
		news.Moves, news.Lost = m.Moves(before, after, side)
	}
	return news
}

// pictures are the pictures of mapPictures: the map around the units with what
// changed drawn on it, and before it, when that map is drawn small (a wide part of
// the map), a close-up of what changed (mapimage.CloseUp).
func pictures(g store.Game, v rules.Viewer, before, st rules.State, p store.Player, heading string, aimed []mapview.Arrow) ([]store.Picture, error) {
	view := v.MapView(st, rules.Side(p.Side))
	news := PictureNews(v, before, st, rules.Side(p.Side))
	if before != nil {
		news.Moves = append(news.Moves, aimed...)
	}
	enc, near, worth, err := mapimage.Pictures(view, news)
	if err != nil {
		return nil, fmt.Errorf("pictures of the map of %s: %w", g.Name, err)
	}
	alt := "the units on the map and around them"
	if before != nil {
		alt = "the units and what changed since the last results"
	}
	name := fmt.Sprintf("%s-%s-turn%d", g.Name, p.Side, st.Turn())
	out := []store.Picture{{
		Name:   name + ".png",
		Alt:    fmt.Sprintf("The map of %s for %s, turn %d: %s.", g.Name, p.Side, st.Turn(), alt),
		Before: heading,
		View:   enc,
	}}
	if worth {
		out = append([]store.Picture{{
			Name:   name + "-changes.png",
			Alt:    fmt.Sprintf("What changed on the map of %s for %s since the last results, close up.", g.Name, p.Side),
			Before: heading,
			View:   near,
		}}, out...)
	}
	return out, nil
}

// eventArrows are the arrows of the events of steps that side may see (Event.Arrows):
// the fire and combat its results mail tells, for its picture to draw.
func eventArrows(steps []stepRecord, side rules.Side) []mapview.Arrow {
	var out []mapview.Arrow
	for _, s := range steps {
		for _, e := range s.Events {
			if e.VisibleTo(side) {
				out = append(out, e.Arrows...)
			}
		}
	}
	return out
}
