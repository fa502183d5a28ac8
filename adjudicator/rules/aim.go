package rules

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// Aim draws events on the picture of the results mails that tell them: on each of
// events, an arrow of fire or combat ([mapview.ArrowAttack]) from every hex of from to
// every hex of at, a hex aiming at itself left out. A ruleset passes the events that
// tell one fire or combat (one, or the owner's and the other side's versions of it),
// so that each side's picture shows what its mail says (Event.Arrows).
func Aim(events []Event, from []hex.Hex, at ...hex.Hex) {
	var arrows []mapview.Arrow
	seen := map[[2]hex.Hex]bool{}
	for _, f := range from {
		for _, t := range at {
			if f == t || seen[[2]hex.Hex{f, t}] {
				continue
			}
			seen[[2]hex.Hex{f, t}] = true
			arrows = append(arrows, mapview.Arrow{From: f, To: t, Name: mapview.ArrowAttack})
		}
	}
	for i := range events {
		events[i].Arrows = append(events[i].Arrows, arrows...)
	}
}
