package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// TestDemoBeacon: `demo --pipe --dice beacon` plays the match with every roll bound to
// a recorded quicknet round, audit verify and each player's mails verify every round
// and roll, and a changed byte of any round's signature in the archive fails audit
// verify, the chain re-hashed or not.
func TestDemoBeacon(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "demo.db")
	out := mustCLI(t, nil, "demo", "--ruleset", "soldiers1918", "--pipe", "--dice", "beacon", "--quiet", "--db", db)
	rounds := regexp.MustCompile(`(?m)^(\d+) drand quicknet rounds verified with the chain's public key; every roll re-derived with its round$`).FindAllStringSubmatch(out, -1)
	if len(rounds) != 2 {
		t.Fatalf("audit verify of both games should count the rounds:\n%s", out)
	}
	for _, m := range rounds {
		if n, _ := strconv.Atoi(m[1]); n < 10 {
			t.Errorf("%s rounds", m[1])
		}
	}
	if got := regexp.MustCompile(`(?m)^sample(?:-return)? from the \d+ mails to \S+ alone: \d+ rolls, the beacon rounds of [1-9]\d* phases`).FindAllString(out, -1); len(got) != 4 {
		t.Fatalf("each player's mails should verify the beacon rounds: %d lines\n%s", len(got), out)
	}

	export := filepath.Join(dir, "sample.json")
	raw := mustCLI(t, nil, "audit", "export", "--db", db, "--game", sampleGame, "--format", "json")
	if err := os.WriteFile(export, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, nil, "audit", "verify", "--export", export)
	var x adjudicator.AuditExport
	if err := json.Unmarshal([]byte(raw), &x); err != nil {
		t.Fatal(err)
	}
	changed := 0
	for i, e := range x.Entries {
		if e.Kind != "beacon" {
			continue
		}
		changed++
		for _, rehash := range []bool{false, true} {
			bad := x
			bad.Entries = append(bad.Entries[:0:0], x.Entries...)
			sig := []byte(e.Value)
			sig[i%len(sig)] ^= 0x01 // a hex digit to its neighbour: one byte of the signature changed
			if sig[i%len(sig)] > 'f' || (sig[i%len(sig)] > '9' && sig[i%len(sig)] < 'a') {
				sig[i%len(sig)] = '0'
			}
			bad.Entries[i].Value = string(sig)
			if rehash {
				for j := i; j < len(bad.Entries); j++ {
					if j > 0 {
						bad.Entries[j].Prev = bad.Entries[j-1].Hash
					}
					bad.Entries[j].Hash = bad.Entries[j].ComputeHash()
				}
			}
			var buf bytes.Buffer
			if err := json.NewEncoder(&buf).Encode(bad); err != nil {
				t.Fatal(err)
			}
			if _, err := adjudicator.VerifyExport(&buf); err == nil {
				t.Errorf("entry #%d: signature %s changed (re-hashed %v): verified", e.Seq, bad.Entries[i].Value, rehash)
			} else if rehash && !strings.Contains(err.Error(), "beacon") && !strings.Contains(err.Error(), "signature") {
				t.Errorf("entry #%d: %v, not the round's signature", e.Seq, err)
			}
			if changed == 1 && rehash {
				// Once through the command, as a player runs it.
				if err := os.WriteFile(export, buf.Bytes(), 0o600); err != nil {
					t.Fatal(err)
				}
				if code, _, _ := cli(t, nil, "audit", "verify", "--export", export); code == 0 {
					t.Error("audit verify --export passed a changed round signature")
				}
			}
		}
	}
	if changed < 10 {
		t.Fatalf("%d beacon entries", changed)
	}
	checkMailsCommand(t, dir, db)
}

// checkMailsCommand: a player's saved mails of the beacon demo check with `adjutant
// checkmails`, and a changed byte of a round's signature in one of them fails it.
func checkMailsCommand(t *testing.T, dir, db string) {
	t.Helper()
	var files []string
	tampered := ""
	for i, m := range outbox(t, db) {
		if m.Game != sampleGame || len(m.To) != 1 || m.To[0] != sampleUS {
			continue
		}
		name := filepath.Join(dir, fmt.Sprintf("%04d.txt", i))
		if err := os.WriteFile(name, []byte(m.Body), 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, name)
		if tampered == "" && strings.Contains(m.Body, "  beacon: drand quicknet round ") {
			tampered = name
		}
	}
	args := append([]string{"checkmails", "--game", sampleGame}, files...)
	out := mustCLI(t, nil, args...)
	if !strings.Contains(out, "drand quicknet rounds of") || strings.Contains(out, "await") {
		t.Fatalf("checkmails:\n%s", out)
	}
	script := func() (string, error) {
		out, err := exec.Command("python3", append([]string{"../../docs/checkdice.py"}, files...)...).CombinedOutput()
		return string(out), err
	}
	if out, err := script(); err != nil || strings.Contains(out, "BAD") || !strings.Contains(out, "ok   turn 1 phase") {
		t.Fatalf("docs/checkdice.py on the beacon game: %v\n%s", err, out)
	}
	raw, err := os.ReadFile(tampered)
	if err != nil {
		t.Fatal(err)
	}
	at := strings.Index(string(raw), "signature (the two lines joined):\n  ") + len("signature (the two lines joined):\n  ") + 10
	if raw[at] == '0' {
		raw[at] = '1'
	} else {
		raw[at] = '0'
	}
	if err := os.WriteFile(tampered, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, nil, args...); code == 0 || !strings.Contains(errs, "signature") {
		t.Fatalf("a changed round signature: exit %d, %s", code, errs)
	}
	// The script cannot check a signature, but a changed one changes its randomness and
	// so the rolls: one byte of every round's signature changed, some roll of the ~100
	// of the game differs (that a d6 keeps its face is 1 in 6, for each roll).
	sigLine := regexp.MustCompile(`(signature \(the two lines joined\):\n  [0-9a-f]{12})([0-9a-f])`)
	for _, name := range files {
		raw, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		raw = sigLine.ReplaceAllFunc(raw, func(m []byte) []byte {
			c := m[len(m)-1]
			if c == '0' {
				c = '1'
			} else {
				c = '0'
			}
			return append(m[:len(m)-1:len(m)-1], c)
		})
		if err := os.WriteFile(name, raw, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := script(); err == nil || !strings.Contains(out, "BAD") {
		t.Fatalf("docs/checkdice.py with a changed round signature: %v\n%s", err, out)
	}
}
