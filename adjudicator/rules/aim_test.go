package rules

import (
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestAim: one attack arrow from each hex that fired to each hex aimed at, once, on
// every event given, none from a hex at itself.
func TestAim(t *testing.T) {
	a, b, c := hex.MustParse("0101"), hex.MustParse("0102"), hex.MustParse("0203")
	events := make([]Event, 3)
	Aim(events[1:], []hex.Hex{a, b, a, c}, c)
	want := []mapview.Arrow{{From: a, To: c, Name: mapview.ArrowAttack}, {From: b, To: c, Name: mapview.ArrowAttack}}
	if len(events[0].Arrows) != 0 || !slices.Equal(events[1].Arrows, want) || !slices.Equal(events[2].Arrows, want) {
		t.Errorf("Aim gave %v, want none on the first event and %v on the others", events, want)
	}
}
