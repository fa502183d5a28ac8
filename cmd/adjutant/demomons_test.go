package main

import (
	"strings"
	"testing"
)

// TestDemoMonsPipe plays the Mons sample game through pipe mode: every scripted mail is
// accepted (a refusal would stall the game), the game reaches its verdict, and the audit
// and the replay agree.
func TestDemoMonsPipe(t *testing.T) {
	dir := t.TempDir()
	out := mustCLI(t, nil, "demo", "--ruleset", "mons1914", "--pipe", "--verbose", "--maildir", dir)
	// The mails it wrote are read at a glance by TestDemosAtAGlance.
	for _, want := range []string{"\nGame over: ", "End of Game Turn 14 (4.3)", "audit of mons verified", "replay of mons matches"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q", want)
		}
	}
	if strings.Contains(out, "REFUSED") {
		t.Error("a scripted mail was refused: the script no longer fits the rules")
	}
	// Mail text stays within 78 columns, but for a hash, which the desk never breaks.
	mails, _, _ := strings.Cut(out, "demo complete in")
	for i, l := range strings.Split(mails, "\n") {
		long := false
		for _, w := range strings.Fields(l) {
			long = long || len(w) >= 64
		}
		if len(l) > 78 && !long {
			t.Errorf("line %d is %d columns: %q", i+1, len(l), l)
			break
		}
	}
}
