package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestSoissonsDemoByPipe plays the Soissons 1918 demo through all 17 turns: the game
// ends with the verdict, the assault is refused as not implemented yet (rule 20),
// no mail line is longer than 78 characters but for the desk's own long words, and
// the audit and the replay hold.
func TestSoissonsDemoByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	out := mustCLI(t, nil, "demo", "--ruleset", "soissons1918", "--pipe", "--quiet", "--db", db)
	for _, want := range []string{"demo complete in", "audit of soissons verified", "replay of soissons matches"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	var verdict, refused bool
	for _, m := range outbox(t, db) {
		if strings.Contains(m.Body, "Performance Victory") || strings.Contains(m.Body, "Draw") {
			verdict = true
		}
		if strings.Contains(m.Body, "REFUSED: not implemented yet: rule 20") {
			refused = true
		}
	}
	if !verdict || !refused {
		t.Errorf("verdict mailed %v, assault refused as not implemented %v; want both", verdict, refused)
	}
}
