package soissons1918_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// TestHQUnitCasesCatchTheirChange: each case of testdata/cases/hqunits.txt written for
// HQs counting as units (2.3.1, issue 21) fails under revision 0, the rules before
// the change, so each is shown to catch what it was written for.
func TestHQUnitCasesCatchTheirChange(t *testing.T) {
	r, err := soissons1918.New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "hqunits.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.FailEarlier(t, soissons1918.CaseAdapter{Rules: r}, cases, "revision 0",
		"turn-11.1-no-bonus-next-to-an-enemy-hq", "pursuit-19.7-still-next-to-an-enemy-hq",
		"fallback-19.6-never-next-to-an-enemy-hq", "bombard-17.2.1-non-phasing-next-to-a-friendly-hq", "bombard-17.2.2-non-phasing-next-to-a-friendly-hq",
		"bombard-17.7-adjacent-to-a-friendly-hq", "move-15.1-an-enemy-hq-on-the-line",
		"move-14-a-friendly-hq-negates-the-threat-zone", "command-12.1.2-an-enemy-hq-blocks", "setup-3.1-prepare-next-to-a-german-hq")
}
