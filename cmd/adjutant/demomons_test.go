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
	// The game's dice differ from run to run, and so do the mails: the median (about
	// 60) is held to issue 20's 100, the longest (about 250) to a margin above it.
	if g := readMaildirAtAGlance(t, dir); g.median > 100 || g.longest > 300 {
		t.Errorf("the mails to the players are %d lines long in the median and %d at most, want at most 100 and 300", g.median, g.longest)
	}
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
