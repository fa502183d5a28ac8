package adjudicator

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestEventArrows: a side's picture draws the arrows of the events its mail tells, and
// none of an event told only to the other side (invariant 5).
func TestEventArrows(t *testing.T) {
	aim := func(from, to string) []mapview.Arrow {
		return []mapview.Arrow{{From: hex.MustParse(from), To: hex.MustParse(to), Name: mapview.ArrowAttack}}
	}
	steps := []stepRecord{
		{Events: []rules.Event{{Text: "fire seen by both", Arrows: aim("0101", "0102")}}},
		{Events: []rules.Event{
			{Text: "the German's own words", To: []rules.Side{"de"}, Arrows: aim("0201", "0202")},
			{Text: "what the US reads of it", To: []rules.Side{"us"}, Arrows: aim("0301", "0302")},
			{Text: "no fire"},
		}},
	}
	for side, want := range map[rules.Side][]mapview.Arrow{
		"us": append(aim("0101", "0102"), aim("0301", "0302")...),
		"de": append(aim("0101", "0102"), aim("0201", "0202")...),
	} {
		if got := eventArrows(steps, side); !slices.Equal(got, want) {
			t.Errorf("eventArrows for %s = %v, want %v", side, got, want)
		}
	}
}
