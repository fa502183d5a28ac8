package main

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// checkRollsFromMails re-verifies every roll, seed, revealed plot and signed chain head
// of each game from the text of the mails each player received, in the order queued,
// with nothing else (issue 8: every roll checkable from the player's own mail). The
// store is read afterwards only to show that the mails gave every roll the audit holds.
func checkRollsFromMails(t *testing.T, mails []outMailJSON, flags []string, games ...string) {
	t.Helper()
	for _, game := range games {
		heads := map[string]map[uint64]string{}
		for _, player := range []string{sampleUS, sampleDE} {
			var bodies []string
			results := 0
			for _, m := range mails {
				if tag := gameTag.FindStringSubmatch(m.Subject); tag == nil || tag[1] != game || len(m.To) != 1 || m.To[0] != player {
					continue
				}
				bodies = append(bodies, m.Body)
				if m.Kind == "results" {
					results++
				}
			}
			got, err := adjudicator.CheckMails(game, bodies)
			if err != nil {
				t.Fatalf("%s, mails to %s: %v", game, player, err)
			}
			rolls := auditedRolls(t, game, flags)
			if got.Rolls != rolls || got.Verified != rolls || got.Unrevealed != 0 {
				t.Errorf("%s, mails to %s: %d rolls given, %d verified, %d unrevealed; the audit holds %d rolls", game, player, got.Rolls, got.Verified, got.Unrevealed, rolls)
			}
			if got.Seeds != 7 || got.Sealed != 12 || got.Signatures != results || results == 0 {
				t.Errorf("%s, mails to %s: %d seeds, %d sealed orders, %d signatures checked; want 7 seeds (turns 0-6), 12 plots, one signature for each of the %d results mails",
					game, player, got.Seeds, got.Sealed, got.Signatures, results)
			}
			heads[player] = got.Heads
		}
		// Comparing mails: both players hold the same signed head for every entry.
		for seq, h := range heads[sampleUS] {
			if heads[sampleDE][seq] != h {
				t.Errorf("%s: entry %d: the US was sent head %s, the German %s", game, seq, h, heads[sampleDE][seq])
			}
		}
		if len(heads[sampleUS]) == 0 || len(heads[sampleUS]) != len(heads[sampleDE]) {
			t.Errorf("%s: signed heads %d to the US, %d to the German", game, len(heads[sampleUS]), len(heads[sampleDE]))
		}
	}
}

// auditedRolls counts the rolls in a game's exported audit chain.
func auditedRolls(t *testing.T, game string, flags []string) int {
	t.Helper()
	var export struct {
		Entries []struct{ Kind string } `json:"entries"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, nil, append([]string{"audit", "export", "--game", game, "--format", "json"}, flags...)...)), &export); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range export.Entries {
		if e.Kind == "roll" || e.Kind == "shuffle" {
			n++
		}
	}
	return n
}

// TestSignedHeadsCatchRewrittenHistory: a host who rewrites the audit chain consistently
// (every hash recomputed, every roll still derivable) is caught by the chain heads the
// results mails carry and sign; audit export gives the key the invitation gave.
func TestSignedHeadsCatchRewrittenHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "game.db")
	flags := []string{"--db", db, "--address", sampleAddress}
	mustCLI(t, nil, append([]string{"game", "new", "--name", sampleGame, "--player", "us=" + sampleUS, "--player", "de=" + sampleDE,
		"--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}, flags...)...)
	for i, m := range sampleScript() {
		raw := eml(m, sampleAddress, fmt.Sprintf("signed-%d@players.example", i), time.Date(2026, 11, 22, 12, i, 0, 0, time.UTC))
		mustCLI(t, raw, append([]string{"handle"}, flags...)...)
	}
	mails := outbox(t, db)
	results := 0
	var inviteKey string
	for _, m := range mails {
		if m.Kind == "results" {
			results++
		}
		if m.Kind == "invite" && m.To[0] == sampleUS {
			inviteKey = regexp.MustCompile(`it is the key:\n  ([0-9a-f]{64})`).FindStringSubmatch(m.Body)[1]
		}
	}
	got := mustCLI(t, nil, append([]string{"audit", "verify", "--game", sampleGame}, flags...)...)
	if want := fmt.Sprintf("%d signed chain heads of results mails verified with the host key %s", results, inviteKey); !strings.Contains(got, want) {
		t.Errorf("audit verify = %q, want %q", got, want)
	}
	var export adjudicator.AuditExport
	if err := json.Unmarshal([]byte(mustCLI(t, nil, append([]string{"audit", "export", "--game", sampleGame}, flags...)...)), &export); err != nil {
		t.Fatal(err)
	}
	if export.HostKey != inviteKey || len(export.SignedHeads) == 0 {
		t.Fatalf("export: host key %s (invitation: %s), %d signed heads", export.HostKey, inviteKey, len(export.SignedHeads))
	}
	pub, _ := hex.DecodeString(export.HostKey)
	for _, h := range export.SignedHeads {
		sig, _ := hex.DecodeString(h.Signature)
		if !ed25519.Verify(pub, []byte(h.Statement), sig) || !strings.HasSuffix(h.Statement, fmt.Sprintf("|%d|%s", h.Seq, h.Head)) ||
			export.Entries[h.Seq-1].Hash != h.Head {
			t.Errorf("exported signed head %+v does not verify against the exported chain", h)
		}
	}

	// Anybody with the export verifies it without the store; a changed signature fails.
	exported := filepath.Join(t.TempDir(), "export.json")
	raw := mustCLI(t, nil, append([]string{"audit", "export", "--game", sampleGame}, flags...)...)
	if err := os.WriteFile(exported, []byte(raw), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := mustCLI(t, nil, "audit", "verify", "--export", exported); !strings.Contains(got, fmt.Sprintf("%d signed chain heads", len(export.SignedHeads))) {
		t.Errorf("audit verify --export = %q", got)
	}
	sig := export.SignedHeads[0].Signature
	forged := strings.Replace(raw, sig, strings.Repeat("0", len(sig)), 1)
	if err := os.WriteFile(exported, []byte(forged), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errs := cli(t, nil, "audit", "verify", "--export", exported); code != 1 || !strings.Contains(errs, "does not verify") {
		t.Errorf("audit verify --export with a forged signature: exit %d, %q", code, errs)
	}

	// The host rewrites history: the purpose of the first commitment, every hash after it
	// recomputed, so that the chain holds together and every roll still derives.
	rewriteChain(t, db, func(e *store.AuditEntry) { e.Purpose += " (rewritten)" })
	for _, cmd := range [][]string{{"audit", "verify"}, {"replay"}} {
		code, _, errs := cli(t, nil, append(append(cmd, "--game", sampleGame), flags...)...)
		if code != 1 || !strings.Contains(errs, "does not pass through") && !strings.Contains(errs, "no longer passes through") {
			t.Errorf("%s after a consistent rewrite of the chain: exit %d, %q; want the signed head that no longer matches", strings.Join(cmd, " "), code, errs)
		}
	}
}

// rewriteChain changes the first audit entry of the sample game with f and recomputes
// every hash of the chain, as a host rewriting history would.
func rewriteChain(t *testing.T, path string, f func(*store.AuditEntry)) {
	t.Helper()
	inGameRecords(t, path, 'a', func(r gameRecords) error {
		prev := ""
		return r.each(func(k, v []byte) error {
			e, err := store.DecodeAuditRecord(v)
			if err != nil {
				return err
			}
			if e.Seq == 1 {
				f(&e)
			}
			e.Prev = prev
			e.Hash = e.ComputeHash()
			prev = e.Hash
			return r.put(k, store.EncodeAuditRecord(e))
		})
	})
}

// gameRecords are the sample game's records of one kind in the bbolt file (the
// store's bucket game-records, keyed game NUL kind key: store/records.go).
type gameRecords struct {
	b      *bolt.Bucket
	prefix []byte
}

// each calls fn with each record's key and value, in order (its keys as put takes them).
func (r gameRecords) each(fn func(k, v []byte) error) error {
	var keys, vals [][]byte
	c := r.b.Cursor()
	for k, v := c.Seek(r.prefix); k != nil && bytes.HasPrefix(k, r.prefix); k, v = c.Next() {
		keys, vals = append(keys, bytes.Clone(k)), append(vals, bytes.Clone(v))
	}
	for i := range keys {
		if err := fn(keys[i], vals[i]); err != nil {
			return err
		}
	}
	return nil
}

func (r gameRecords) put(k, v []byte) error { return r.b.Put(k, v) }

// inGameRecords runs fn on the sample game's records of one kind ('a': its audit
// chain), writing to the bbolt file behind the store's back, as a host with the file
// could.
func inGameRecords(t *testing.T, path string, kind byte, fn func(gameRecords) error) {
	t.Helper()
	db, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		return fn(gameRecords{b: tx.Bucket([]byte("game-records")), prefix: []byte(sampleGame + "\x00" + string(kind))})
	}); err != nil {
		t.Fatal(err)
	}
}
