package mons1914_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
)

// TestIssue21CasesCatchTheirChange: each of issue 21's cases fails under the rules
// before issue 21 (revision 0, which games created then keep, and which
// TestOldGamesReplay shows plays as the code did then): split stacks (9.6, 9.7, 8.4),
// losses a step from each (12.12), advance to different hexes (12.13), defensive fire
// unit by unit or declined (11.1, 11.2), the stack shown for a bombardment loss (10.9
// with 6.6), the other side told of a movement phase (6.6). The cases that pin what
// did not change (a loss that reveals nothing, a malformed count refused) are left out.
func TestIssue21CasesCatchTheirChange(t *testing.T) {
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.FailEarlier(t, mons1914.CaseAdapter{Rules: r}, cases, "revision 0",
		"move-9.6-resume-after-another-stack-refused", "move-9.6-halt-drop-a-unit-and-resume",
		"move-9.7-faster-units-go-on", "move-9.7-faster-unit-keeps-count-of-mp",
		"move-9.5-continuation-only-with-its-own-stack", "entry-8.4-9.7-cavalry-goes-on-after-column-entry",
		"melee-12.12-one-step-from-each-of-two-units", "melee-12.12-attacker-one-step-from-each",
		"melee-12.13-second-hex-each-to-its-own", "melee-12.13-second-hex-is-one-hex",
		"defensive-fire-11.2-unit-by-unit", "defensive-fire-11.1-declined",
		"defensive-fire-11.2-allotment-that-changes-nothing", "defensive-fire-11.2-allot-only-own-units",
		"bombard-10.9-stack-shown-to-the-player-who-apportions",
		"revision1-move-6.6-the-other-side-told-what-it-sees")
}
