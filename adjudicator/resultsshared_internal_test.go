package adjudicator

import (
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestResultsSharedSameMails: the results mails of an advance rendered with the memo
// the sides share are the mails each side's rendering alone gives, in every layout and
// map mode, with events, rolls and a map told to both sides and some to one only; and
// what both sides are told is made once (one event line an event, one dice section
// and one map section for both).
func TestResultsSharedSameMails(t *testing.T) {
	rs, err := soldiers1918.New()
	if err != nil {
		t.Fatal(err)
	}
	st, err := rs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := rs.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	roll := func(i, v int) *dice.Roll {
		return &dice.Roll{Index: i, Kind: "roll", Purpose: "12.2 bombardment of 4300", Rule: "12.2", Count: 1, Sides: 6, Values: []int{v}, Result: v}
	}
	steps := []stepRecord{
		{Title: "Turn 1, Phase I", Turn: 1, Phase: "1.I", Digest: "d1", Events: []rules.Event{
			{Rule: "12.2", Text: "Bombardment of 4300 at 2:1: one German infantry unit is eliminated.", Roll: roll(0, 5)},
			{Rule: "12.2", Text: "Only the Germans hear this.", To: []rules.Side{soldiers1918.DE}, Roll: roll(1, 2)},
			{Rule: "3.4", Text: "Nothing rolled, every side told."},
		}},
		{Title: "Turn 1, Phase II", Turn: 1, Phase: "1.II", Digest: "d2", Events: []rules.Event{
			{Rule: "5.2", Text: "Only the Americans hear this.", To: []rules.Side{soldiers1918.US}},
		}},
	}
	memo := &mapMemo{}
	maps := func(after bool, side rules.Side) string { return memo.render(rs, st, digestOf(raw), side) }
	status := func(side rules.Side) string { return rs.Status(st, side) }
	g := store.Game{Name: "g1", Ruleset: rs.Name()}
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	sides := []rules.Side{soldiers1918.US, soldiers1918.DE}
	for _, layout := range []int{0, LayoutCompact, LayoutGlance, CurrentLayout} {
		for _, mode := range []string{"changes", "full", "none"} {
			shared := &resultsShared{}
			for _, side := range sides {
				alone, err := renderResults(g, rs, maps, status, st, side, mode, &batch{steps: steps}, now, layout)
				if err != nil {
					t.Fatal(err)
				}
				with, err := renderResults(g, rs, maps, status, st, side, mode, &batch{steps: steps, shared: shared}, now, layout)
				if err != nil {
					t.Fatal(err)
				}
				if with != alone {
					t.Fatalf("layout %d, SET MAP %s, %s: the mail with the shared memo differs from the mail alone:\n%s\nwant\n%s", layout, mode, side, with, alone)
				}
			}
			if len(shared.events) != 4 || len(shared.dices) != 2 {
				t.Errorf("layout %d, SET MAP %s: %d event lines and %d dice sections made for two sides, want 4 (one an event) and 2 (the sides see different rolls)", layout, mode, len(shared.events), len(shared.dices))
			}
			wantMaps := 1 // SET MAP NONE: no map section to make
			if mode == "none" {
				wantMaps = 0
			}
			if len(shared.maps) != wantMaps {
				t.Errorf("layout %d, SET MAP %s: %d map sections made for two sides shown one map, want %d", layout, mode, len(shared.maps), wantMaps)
			}
		}
	}
}

func renderResults(g store.Game, rs rules.Ruleset, maps mapRenderer, status statusRenderer, st rules.State, side rules.Side, mode string, b *batch, now time.Time, layout int) (string, error) {
	subject, body, err := resultsMail(g, rs, maps, status, st, side, mode, b, nil, now, "", layout)
	return subject + "\n" + body, err
}
