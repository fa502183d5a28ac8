package soldiers1918

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// TestGrammarFoldsASCIIOnly (issue 8): the words inside an order match in any ASCII case
// only: "ınf" (dotless i) is no INF, "ſetup" and "turn" with a long s no keyword.
func TestGrammarFoldsASCIIOnly(t *testing.T) {
	for _, tc := range []struct {
		line string
		ok   bool
	}{
		{"place 3801 2 inf 1 hmg", true},
		{"place 3801 2 ınf 1 hmg", false},
		{"plot turn 1 none", true},
		{"place 4900 4 uſmc", false}, // long s
		{"move 2 army 2300-2301", true},
		{"move 2 armу 2300-2301", false}, // Cyrillic у
		{"place 4900 4 marines", true},
		{"place 4900 4 marineſ", false},
	} {
		lines, _ := orders.Split(tc.line)
		b := parseBlocks(lines)
		if got := len(b) == 1 && b[0].err == nil; got != tc.ok {
			t.Errorf("%q parses: %v, want %v (%v)", tc.line, got, tc.ok, b[0].err)
		}
	}
}
