package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"
)

// TestHostByMailThroughPipe: the host's mail (HOST PASSWORD, then commands) fed to
// `adjutant handle` changes the game and is answered; a wrong host password gets the
// refusal any stranger gets, word for word, and nothing shows the password.
func TestHostByMailThroughPipe(t *testing.T) {
	const host, hostPW = "host@club.example", "club-host-password"
	dir := t.TempDir()
	db := filepath.Join(dir, "games.db")
	path := filepath.Join(dir, "adjutant.toml")
	hash, err := bcrypt.GenerateFromPassword([]byte(hostPW), 4)
	if err != nil {
		t.Fatal(err)
	}
	writeClubConfig(t, path, fmt.Sprintf("address = %q\ndatabase = %q\nhost_address = %q\nhost_password_hash = %q\n", sampleAddress, db, host, hash))
	t.Setenv("ADJUTANT_ADDRESS", "")
	mustCLI(t, nil, "game", "new", "--config", path, "--name", sampleGame, "--deadline", "48h",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+samplePassUS, "--password", "de="+samplePassDE)
	now := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var outputs strings.Builder
	handle := func(id, from, body string) outMailJSON {
		t.Helper()
		before := len(outbox(t, db))
		out := mustCLI(t, eml(scripted{From: from, Subject: "host", Body: body}, sampleAddress, id, now), "handle", "--config", path)
		outputs.WriteString(out)
		mails := outbox(t, db)
		var reply []outMailJSON
		for _, m := range mails[before:] {
			if m.InReplyTo == id {
				reply = append(reply, m)
			}
		}
		if len(reply) != 1 {
			t.Fatalf("%d replies to %s (%s)", len(reply), id, strings.TrimSpace(out))
		}
		return reply[0]
	}
	before := strings.TrimSpace(mustCLI(t, nil, "games", "--config", path))
	r := handle("host-1@club.example", host, "HOST PASSWORD "+hostPW+"\nEXTEND sample 1d\nGAMES\nPAUSE sample\n")
	if r.To[0] != host || !strings.Contains(r.Body, "line 2: EXTEND sample 1d") || !strings.Contains(r.Body, "== GAMES ==") || !strings.Contains(r.Body, "sample: paused") {
		t.Errorf("reply to the host:\n%s", r.Body)
	}
	after := mustCLI(t, nil, "games", "--config", path)
	if d0, d1 := deadlineIn(t, before), deadlineIn(t, after); d1.Sub(d0) != 24*time.Hour || !strings.Contains(after, "(paused: no deadline runs)") {
		t.Errorf("games after the host's mail:\n%s\nbefore:\n%s", after, before)
	}
	stranger := handle("stranger-1@elsewhere.example", "who@elsewhere.example", "GAME sample\nPASSWORD guess\nSTATUS\n")
	wrong := handle("host-2@club.example", host, "HOST PASSWORD not-the-host-password\nEND sample\n")
	if wrong.Body != stranger.Body || wrong.Subject != stranger.Subject {
		t.Errorf("a wrong host password is answered\n%s\nbut a stranger\n%s", wrong.Body, stranger.Body)
	}
	if strings.Contains(mustCLI(t, nil, "games", "--config", path), "over") {
		t.Error("a wrong host password ended the game")
	}
	for _, m := range outbox(t, db) {
		if strings.Contains(m.Body, hostPW) || strings.Contains(m.Body, "not-the-host-password") {
			t.Errorf("a mail to %v shows a host password", m.To)
		}
	}
	if strings.Contains(outputs.String(), hostPW) {
		t.Error("handle printed the host password")
	}
}

// writeClubConfig writes a configuration of the given top-level keys and mail servers
// that host commands never reach: no mail password is set or looked for.
func writeClubConfig(t *testing.T, path, top string) {
	t.Helper()
	text := top + `[imap]
host = "imap.club.example"
port = 993
security = "tls"
username = "game@club.example"
password_env = "ADJUTANT_TEST_UNSET_IMAP_PASSWORD"
[smtp]
host = "smtp.club.example"
port = 587
security = "starttls"
`
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
}

// deadlineIn reads the first deadline of `adjutant games`.
func deadlineIn(t *testing.T, games string) time.Time {
	t.Helper()
	_, rest, ok := strings.Cut(games, "deadline: ")
	line, _, _ := strings.Cut(rest, "\n")
	line, _, _ = strings.Cut(line, " (")
	d, err := time.Parse("Mon 2 Jan 2006 15:04 MST", line)
	if !ok || err != nil {
		t.Fatalf("no deadline in %q: %v", games, err)
	}
	return d
}

// TestHostCommandsOnTheFile runs each new host command on the file, without a daemon,
// and checks what it printed and mailed.
func TestHostCommandsOnTheFile(t *testing.T) {
	db := filepath.Join(t.TempDir(), "games.db")
	base := []string{"--db", db} // the mailbox: ADJUTANT_ADDRESS, since player has its own --address
	t.Setenv("ADJUTANT_ADDRESS", sampleAddress)
	run := func(args ...string) string { t.Helper(); return mustCLI(t, nil, append(args, base...)...) }
	run("game", "new", "--name", "g", "--deadline", "48h", "--player", "us="+sampleUS, "--player", "de="+sampleDE)
	// A deadline may be at most a year ahead: a month from now, at a fixed time of day.
	at := time.Now().UTC().AddDate(0, 1, 0).Truncate(24 * time.Hour).Add(15*time.Hour + 4*time.Minute + 5*time.Second)
	for _, tc := range []struct {
		args []string
		want string
		mail string // the subject of a mail it queued
	}{
		{[]string{"deadline", "--game", "g", "--at", at.Format(time.RFC3339)}, "g: deadline " + at.Format(time.RFC3339), "[g] Deadline: " + at.Format("Mon 2 Jan 2006 15:04 MST")},
		{[]string{"pause", "--game", "g"}, "g: paused", "[g] Game paused"},
		{[]string{"resume", "--game", "g"}, "g: resumed", "[g] Game resumed"},
		{[]string{"player", "--game", "g", "--side", "de", "--address", "new@regiment.example"}, "g: de now played from new@regiment.example", "[g] You play German"},
		{[]string{"game", "end", "--game", "g"}, "g: over (ended by the host)", "[g] Game over: ended by the host"},
	} {
		n := len(outbox(t, db))
		if out := run(tc.args...); strings.TrimSpace(out) != tc.want {
			t.Errorf("%v printed %q, want %q", tc.args, out, tc.want)
		}
		mails := outbox(t, db)[n:]
		if len(mails) == 0 || mails[0].Subject != tc.mail {
			t.Errorf("%v queued %+v, want %q", tc.args, mails, tc.mail)
		}
	}
	if code, _, errs := cli(t, nil, append([]string{"resend", "--game", "g", "--side", "us"}, base...)...); code != 1 || !strings.Contains(errs, "no results mail") {
		t.Errorf("resend without results: exit %d, %q", code, errs)
	}
	if code, _, errs := cli(t, nil, append([]string{"deadline", "--game", "g"}, base...)...); code != 2 || !strings.Contains(errs, "one of --extend and --at") {
		t.Errorf("deadline without --extend or --at: exit %d, %q", code, errs)
	}
	if out := run("games"); !strings.Contains(out, "g (soldiers1918): over: ended by the host") || !strings.Contains(out, "de: new@regiment.example") {
		t.Errorf("games:\n%s", out)
	}
}
