package soissons1918_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

var _ conformance.Adapter = soissons1918.CaseAdapter{}

// TestConformance runs the adjudication cases in testdata/cases, one subtest per case
// (go test -run 'TestConformance/<case>').
func TestConformance(t *testing.T) {
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, soissons1918.CaseAdapter{Rules: newRules(t)}, cases)
}
