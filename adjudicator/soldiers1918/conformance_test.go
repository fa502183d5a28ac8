package soldiers1918_test

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

var _ conformance.Adapter = soldiers1918.CaseAdapter{}

func caseAdapter(t *testing.T) soldiers1918.CaseAdapter {
	t.Helper()
	r, err := soldiers1918.New()
	if err != nil {
		t.Fatal(err)
	}
	return soldiers1918.CaseAdapter{Rules: r}
}

// TestConformance runs the adjudication cases in testdata/cases, one subtest per case
// (go test -run 'TestConformance/<case>').
func TestConformance(t *testing.T) {
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, caseAdapter(t), cases)
}

func TestCaseAdapterState(t *testing.T) {
	a := caseAdapter(t)
	st, err := a.State([]string{
		"turn 2", "phase III", "quality 5", "cancelled", "option york",
		"unit de-inf 1911 2", "unit de-hmg 1911", "carnage us-army 1911", "unit usmc 3000 4",
	})
	if err != nil {
		t.Fatalf("State() error: %v", err)
	}
	got := a.Describe(st)
	want := []string{
		"cancelled", "carnage us-army 1911 1", "german-fs 4", "option york", "phase III", "quality 5",
		"turn 2", "unit de-hmg 1911 1", "unit de-inf 1911 2", "unit usmc 3000 4",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Describe() = %q, want %q", got, want)
	}
	// The empty state is the game before set-up, as Rules.New makes it.
	st, err = a.State(nil)
	if err != nil {
		t.Fatalf("State(nil) error: %v", err)
	}
	if got, want := a.Describe(st), []string{"german-fs 0", "phase setup-plots", "quality 0", "turn 0"}; !slices.Equal(got, want) {
		t.Errorf("Describe(empty) = %q, want %q", got, want)
	}
	st, err = a.State([]string{"turn 6", "phase over", "quality 6", "german-fs 3"})
	if err != nil {
		t.Fatalf("State() error: %v", err)
	}
	if got, want := a.Describe(st), []string{"german-fs 3", "over", "phase over", "quality 6", "turn 6"}; !slices.Equal(got, want) {
		t.Errorf("Describe(over) = %q, want %q", got, want)
	}
}

func TestCaseAdapterStateErrors(t *testing.T) {
	a := caseAdapter(t)
	tests := []struct {
		line []string
		want string
	}{
		{[]string{"turn 7"}, "turn is 0 (set-up) to 6"},
		{[]string{"turn one"}, "want turn <number>"},
		{[]string{"turn 1", "turn 2"}, "turn given twice"},
		{[]string{"phase XII"}, "want phase <setup-plots|"},
		{[]string{"phase I"}, "phase I needs a turn from 1 to 6"},
		{[]string{"turn 1", "phase setup-us"}, "phase setup-us is part of set-up, turn 0, not turn 1"},
		{[]string{"quality 7"}, "quality is the 3.4 roll"},
		{[]string{"option fog"}, "want option <name>, one of [york]"},
		{[]string{"unit tank 1911"}, `unit kind "tank"`},
		{[]string{"unit de-inf 1120"}, "hex 1120 is not on the map"},
		{[]string{"unit de-inf 19x1"}, "expected a 4-digit hex id"},
		{[]string{"carnage de-inf 1911 0"}, `count "0"`},
		{[]string{"unit de-inf 1911", "unit usmc 1911"}, "hex 1911 holds live units of both sides"},
		{[]string{"weather fine"}, "unknown state line"},
	}
	for _, tt := range tests {
		_, err := a.State(tt.line)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("State(%q) error = %v, want it to contain %q", tt.line, err, tt.want)
		}
	}
	// Carnage of one side may lie among live units of the other (2.6).
	if _, err := a.State([]string{"carnage de-inf 1911", "unit usmc 1911"}); err != nil {
		t.Errorf("State(carnage with enemy) error: %v", err)
	}
	if _, err := (soldiers1918.CaseAdapter{}).State(nil); err == nil {
		t.Error("State() without Rules: no error")
	}
}
