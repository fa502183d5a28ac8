package soissons1918_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// TestIssue21CasesCatchTheirChange: each of issue 21's cases fails under the rules
// before issue 21 (revision 0, which games created then keep, and which
// TestOldGamesReplay shows plays as the code did then): an isolated unit falling back
// through enemy ZOC (15.3, 13.1), an HQ alone retreating four hexes (10), Sudden Death
// ending the step at once (3.2), HQs as units (2.3.1 with 3.2, 3.3), tank groups at
// set-up (3.1), TANK REMOVE with the maneuver (9.4, 19.3), PASS for its own step
// (4.2), 16's three kinds of stack. The cases citing rules whose handling did not
// change (17.1.3, 17.5, 20.4.6) and the order check's wording of a refused mail
// (cancel_test.go) are left out.
func TestIssue21CasesCatchTheirChange(t *testing.T) {
	r, err := soissons1918.New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.FailEarlier(t, soissons1918.CaseAdapter{Rules: r}, cases, "revision 0",
		"fallback-15.3-isolated-through-enemy-zoc", "fallback-15.3-isolated-through-enemy-zoc-by-order",
		"move-10-hq-alone-retreats-through-threat-zones", "move-10-hq-alone-retreats-through-enemy-zoc",
		"victory-3.2-sudden-death-ends-the-step-at-once", "victory-3.2-sudden-death-by-an-hq",
		"control-3.3-an-hq-occupies", "victory-3.3-proximity-to-an-hq",
		"setup-3.1-tank-groups-any-division-or-none", "setup-3.1-one-tank-group-a-division",
		"move-9.4-tank-removed-with-the-maneuver", "sequence-4.2-pass-answers-its-own-step",
		"move-16-three-regiments-of-one-division", "move-16-six-sp-of-two-divisions", "move-16-six-sp")
}
