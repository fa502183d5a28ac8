package soissons1918

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// TestGrammarFoldsASCIIOnly: the words inside a Soissons order match in any ASCII case
// only, as everywhere in Adjutant (issue 8): "ſ" (long s), "ı" (dotless i) and the
// Kelvin sign are letters of no keyword, where Unicode case folding would read them as
// S, I and K.
func TestGrammarFoldsASCIIOnly(t *testing.T) {
	sc, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"convert all", true},
		{"convert aLL", true},
		{"convert none", true},
		{"convert nonе", false}, // Cyrillic е
		{"lead default", true},
		{"lead defauLt", true},
		{"lead ᴅefault", false},
		{"tank t1 remove", true},
		{"tank t1 remoᴠe", false},
		{"attack 0904 with 1US", true},
		{"attack 0904 wıth 1US", false}, // dotless i
		{"assault 0904 with 1US", true},
		{"aſſault 0904 with 1US", false}, // long s
		{"cancel assault 2", true},
		{"cancel aſſault 2", false},
		{"cancel all", true},
		{"xresult default", true},
	} {
		it := sc.parseLine(orders.Line{Text: tc.line, Fields: strings.Fields(tc.line)})
		if got := it.err == nil; got != tc.ok {
			t.Errorf("%q parses: %v, want %v (%v)", tc.line, got, tc.ok, it.err)
		}
	}
}
