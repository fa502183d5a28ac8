package mons1914

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// TestGrammarFoldsASCIIOnly: the words inside a Mons order match in any ASCII case
// only, as everywhere in Adjutant (issue 8): "ı" (dotless i) and "ſ" (long s) are
// letters of no keyword, where Unicode case folding reads them as I and S.
func TestGrammarFoldsASCIIOnly(t *testing.T) {
	sc, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"move none", true},
		{"move nоne", false}, // Cyrillic о
		{"deffire spread", true},
		{"deffire ſpread", false},    // long s
		{"deffire ſtrongest", false}, // long s
		{"bombard 2708 with III/FA18/5", true},
		{"bombard 2708 wıth III/FA18/5", false}, // dotless i
	} {
		it := sc.parseLine(orders.Line{Text: tc.line, Fields: strings.Fields(tc.line)})
		if got := it.err == nil; got != tc.ok {
			t.Errorf("%q parses: %v, want %v (%v)", tc.line, got, tc.ok, it.err)
		}
	}
}
