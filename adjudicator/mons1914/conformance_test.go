package mons1914_test

import (
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
)

var _ conformance.Adapter = mons1914.CaseAdapter{}

// TestConformance runs the adjudication cases in testdata/cases, one subtest per case
// (go test -run 'TestConformance/<case>').
func TestConformance(t *testing.T) {
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/cases"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	conformance.Run(t, mons1914.CaseAdapter{Rules: r}, cases)
}
