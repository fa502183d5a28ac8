package teaching_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

var _ conformance.Adapter = teaching.CaseAdapter{}

// TestConformance runs the adjudication cases in testdata/cases, one subtest per case
// (go test -run 'TestConformance/<case>').
func TestConformance(t *testing.T) {
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, teaching.CaseAdapter{Rules: newRules(t)}, cases)
}
