package adjudicator_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// TestDocsWorkedExample holds docs/dice.md to the truth: the worked check's mail text,
// read as a player's mail, verifies (roll, seed, plot and signature), and the outputs
// the page prints for the shell commands are the hashes in that text.
func TestDocsWorkedExample(t *testing.T) {
	raw, err := os.ReadFile("../docs/dice.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "## A worked check")
	j := strings.Index(doc, "```bash")
	if i < 0 || j < i {
		t.Fatal("docs/dice.md: no worked check")
	}
	// The quoted mail: the indented block between the heading and the commands.
	var mail []string
	for _, l := range strings.Split(doc[i:j], "\n") {
		if strings.HasPrefix(l, "    ") {
			mail = append(mail, l[4:])
		} else if l == "" && len(mail) > 0 {
			mail = append(mail, "")
		}
	}
	body := strings.Join(mail, "\n")
	hash := regexp.MustCompile(`[0-9a-f]{64}`)
	seedCommit := regexp.MustCompile(`its commitment:\n  ([0-9a-f]{64})`).FindStringSubmatch(body)
	plotCommit := regexp.MustCompile(`and the salt:\n  ([0-9a-f]{64})`).FindStringSubmatch(body)
	key := regexp.MustCompile(`Ed25519 key\n  ([0-9a-f]{64})`).FindStringSubmatch(body)
	if seedCommit == nil || plotCommit == nil || key == nil {
		t.Fatalf("the worked check lacks a seed, a plot or a key:\n%s", body)
	}
	// What the player had before: the invitation and the notice of the sealed plot.
	before := "Turn 0: seed drawn; SHA-256 of its 32 bytes:\n  " + seedCommit[1] +
		"\nEd25519 key; keep this mail, it is the key:\n  " + key[1] + "\n  commitment " + plotCommit[1] + "\n"
	got, err := adjudicator.CheckMails("sample", []string{before, body})
	if err != nil || got.Verified != 1 || got.Seeds != 1 || got.Sealed != 1 || got.Signatures != 1 {
		t.Fatalf("the worked check of docs/dice.md: %+v, %v; want one roll, seed, plot and signature verified", got, err)
	}
	// Every hash the commands print is one the mail shows (the commands of this worked
	// check: the beacon's has its own test, TestDocsBeaconExample).
	if k := strings.Index(doc[j+3:], "```"); k > 0 {
		doc = doc[:j+3+k]
	}
	for _, out := range regexp.MustCompile(`(?m)^# ([0-9a-f]{64})  -$`).FindAllStringSubmatch(doc[j:], -1) {
		if !strings.Contains(body, out[1]) {
			t.Errorf("docs/dice.md prints %s for a command, the mail does not show it", out[1])
		}
	}
	if n := len(hash.FindAllString(doc[j:], -1)); n < 6 {
		t.Errorf("the commands use %d hashes; the worked check has lost its values", n)
	}
}
