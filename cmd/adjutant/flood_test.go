package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestForgedFloodByPipe (issue 19): the daemon's commands keep the key of the password
// verifiers in a file beside the store, mode 0600; through `adjutant handle`, a
// password with a NUL and a mail whose base64 is damaged are refused as such, and a
// player's right password opens after a flood of mails forged From his address (the
// desk-level tests, TestForgedFloodRightPasswordOpens, show that the flood costs no
// bcrypt).
func TestForgedFloodByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "game.db")
	flags := []string{"--db", db, "--address", sampleAddress}
	mustCLI(t, nil, append([]string{"game", "new", "--name", sampleGame, "--ruleset", "soldiers1918",
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE, "--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}, flags...)...)
	info, err := os.Stat(db + ".key")
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v; want it beside the store, mode 0600", info, err)
	}
	n := 0
	handle := func(extraHeader, body string) string {
		t.Helper()
		n++
		raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: orders\r\nMessage-ID: <flood-%d@players.example>\r\nDate: Sat, 28 Nov 2026 06:00:00 +0000\r\n%s\r\n%s",
			sampleDE, sampleAddress, n, extraHeader, body)
		return strings.TrimSpace(mustCLI(t, []byte(raw), append([]string{"handle"}, flags...)...))
	}
	if got := handle("", fmt.Sprintf("GAME %s\r\nPASSWORD %s\x00\r\nSTATUS\r\n", sampleGame, samplePassDE)); got != "refused: bad-password" {
		t.Errorf("a password with a NUL: %q, want refused: bad-password", got)
	}
	if got := handle("Content-Transfer-Encoding: base64\r\n", "R0FNRSBn*TE=\r\n"); got != "refused: unreadable" {
		t.Errorf("damaged base64: %q, want refused: unreadable", got)
	}
	for i := range 15 {
		if got := handle("", fmt.Sprintf("GAME %s\r\nPASSWORD guess-%d\r\nSTATUS\r\n", sampleGame, i)); strings.HasPrefix(got, "handled") {
			t.Fatalf("forged mail %d: %q", i, got)
		}
	}
	if got := handle("", fmt.Sprintf("GAME %s\r\nPASSWORD %s\r\nSTATUS\r\n", sampleGame, samplePassDE)); !strings.HasPrefix(got, "handled") {
		t.Errorf("the right password after 15 forged mails: %q, want handled", got)
	}
}
