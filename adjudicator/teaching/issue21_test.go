package teaching_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// TestIssue21CasesCatchTheirChange: each of issue 21's cases fails under the rules
// before issue 21 (revision 0, which games created then keep): a move legal once the
// turn's own shell has killed the German it passes (the sequence with rules 1 and 3),
// and STOP AFTER. The cases that start in a step a STOP AFTER left open, and the
// refusal of a move no shell can make legal, pin what needs no revision to tell apart.
func TestIssue21CasesCatchTheirChange(t *testing.T) {
	r, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.FailEarlier(t, teaching.CaseAdapter{Rules: r}, cases, "revision 0",
		"a-move-past-a-german-the-shell-kills-is-legal", "a-move-past-a-german-the-shell-misses-is-not-carried-out",
		"the-american-stops-after-his-artillery", "a-mail-that-stops-holds-no-later-step",
		"the-move-after-the-artillery-meets-the-position-it-left", "the-american-stops-after-hand-to-hand",
		"the-german-stops-after-his-artillery", "the-german-fires-after-seeing-his-artillery",
		"the-german-has-no-hand-to-hand-to-stop-after")
}
