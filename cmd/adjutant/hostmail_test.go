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
	path, db, handleAs := hostClub(t, host, hostPW)
	var outputs strings.Builder
	handle := func(id, from, body string) outMailJSON {
		t.Helper()
		reply, out := handleAs(id, from, "host", body, time.Now())
		outputs.WriteString(out)
		return reply
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

// hostClub creates the sample game in a store whose configuration takes host mail from
// host with the password hostPW. handle feeds a mail dated date to `adjutant handle`
// and returns the one reply to it and what handle printed. A host mail's Date must be
// within a day of its arrival, which pipe mode takes from the clock: date is near now.
func hostClub(t *testing.T, host, hostPW string) (path, db string, handle func(id, from, subject, body string, date time.Time) (outMailJSON, string)) {
	dir := t.TempDir()
	db = filepath.Join(dir, "games.db")
	path = filepath.Join(dir, "adjutant.toml")
	hash, err := bcrypt.GenerateFromPassword([]byte(hostPW), 4)
	if err != nil {
		t.Fatal(err)
	}
	writeClubConfig(t, path, fmt.Sprintf("address = %q\ndatabase = %q\nhost_address = %q\nhost_password_hash = %q\n", sampleAddress, db, host, hash))
	t.Setenv("ADJUTANT_ADDRESS", "")
	mustCLI(t, nil, "game", "new", "--config", path, "--name", sampleGame, "--deadline", "48h",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+samplePassUS, "--password", "de="+samplePassDE)
	handle = func(id, from, subject, body string, date time.Time) (outMailJSON, string) {
		t.Helper()
		before := len(outbox(t, db))
		out := mustCLI(t, eml(scripted{From: from, Subject: subject, Body: body}, sampleAddress, id, date), "handle", "--config", path)
		var reply []outMailJSON
		for _, m := range outbox(t, db)[before:] {
			if m.InReplyTo == id {
				reply = append(reply, m)
			}
		}
		if len(reply) != 1 {
			t.Fatalf("%d replies to %s (%s)", len(reply), id, strings.TrimSpace(out))
		}
		return reply[0], out
	}
	return path, db, handle
}

// TestHostMailOnceThroughPipe: the host's mail fed to `handle` again with a new
// Message-ID does not extend the deadline a second time, nor does one dated two days
// ago; the host is told why. The host password, written in the subject and as the
// argument of EXTEND, is in no stored mail and nothing handle printed.
func TestHostMailOnceThroughPipe(t *testing.T) {
	const host, hostPW = "host@club.example", "Host-Secret-Pw-42"
	path, db, handle := hostClub(t, host, hostPW)
	before := deadlineIn(t, mustCLI(t, nil, "games", "--config", path))
	date := time.Now().Add(-time.Minute)
	body := "HOST PASSWORD " + hostPW + "\nEXTEND sample 1d\nEXTEND sample " + hostPW + "\n"
	var printed strings.Builder
	first, out := handle("host-1@club.example", host, "extend "+hostPW, body, date)
	printed.WriteString(out)
	again, out := handle("host-1-resent@club.example", host, "extend "+hostPW, body, date)
	printed.WriteString(out)
	old, out := handle("host-2@club.example", host, "extend", "HOST PASSWORD "+hostPW+"\nEXTEND sample 1d\n", date.Add(-48*time.Hour))
	printed.WriteString(out)
	if after := deadlineIn(t, mustCLI(t, nil, "games", "--config", path)); after.Sub(before) != 24*time.Hour {
		t.Errorf("the deadline moved by %v, want 24h once", after.Sub(before))
	}
	if !strings.Contains(first.Body, "line 2: EXTEND sample 1d") || !strings.Contains(flat(again.Body), "were handled already") || !strings.Contains(flat(old.Body), "more than a day apart") {
		t.Errorf("replies:\n%s\n---\n%s\n---\n%s", first.Body, again.Body, old.Body)
	}
	for _, m := range outbox(t, db) {
		if strings.Contains(m.Subject+m.Body, hostPW) {
			t.Errorf("the mail to %v shows the host password:\nSubject: %s\n%s", m.To, m.Subject, m.Body)
		}
	}
	if strings.Contains(printed.String(), hostPW) {
		t.Error("handle printed the host password")
	}
}

// flat is s with its runs of white space one space: a wrapped mail read as one line.
func flat(s string) string { return strings.Join(strings.Fields(s), " ") }

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
		mail string // what the first mail it queued says, under the game's subject
	}{
		{[]string{"deadline", "--game", "g", "--at", at.Format(time.RFC3339)}, "g: deadline " + at.Format(time.RFC3339), "the host has set the deadline to " + at.Format("Mon 2 Jan 2006 15:04 MST")},
		{[]string{"pause", "--game", "g"}, "g: paused", "the host has paused the game"},
		{[]string{"resume", "--game", "g"}, "g: resumed", "the host has resumed the game"},
		{[]string{"player", "--game", "g", "--side", "de", "--address", "new@regiment.example"}, "g: de now played from new@regiment.example", "You now play German in game g"},
		{[]string{"game", "end", "--game", "g"}, "g: over (ended by the host)", "Game over: ended by the host"},
	} {
		n := len(outbox(t, db))
		if out := run(tc.args...); strings.TrimSpace(out) != tc.want {
			t.Errorf("%v printed %q, want %q", tc.args, out, tc.want)
		}
		mails := outbox(t, db)[n:]
		if len(mails) == 0 || !strings.HasPrefix(mails[0].Subject, "[g] Soldiers: Decision in the Trenches, 1918: ") || !strings.Contains(flat(mails[0].Body), tc.mail) {
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

// TestHiddenResignThroughPipe: an HTML-only mail whose RESIGN lines the reader cannot
// see (display:none, white on white, font-size 0, a <style> class) is answered for
// what it shows (STATUS) and the game goes on; a visible RESIGN only asks for the code.
func TestHiddenResignThroughPipe(t *testing.T) {
	path, db, _ := hostClub(t, "host@club.example", "club-host-password")
	html := func(id, body string) string {
		t.Helper()
		raw := "From: " + sampleUS + "\r\nTo: " + sampleAddress + "\r\nSubject: [" + sampleGame + "] orders\r\nDate: " +
			time.Now().Format(time.RFC1123Z) + "\r\nMessage-ID: <" + id + ">\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
			"<html><head><style>.q { display: none }</style></head><body><div>GAME " + sampleGame + "</div><div>PASSWORD " + samplePassUS + "</div>" + body + "</body></html>\r\n"
		before := len(outbox(t, db))
		mustCLI(t, []byte(raw), "handle", "--config", path)
		var got []string
		for _, m := range outbox(t, db)[before:] {
			got = append(got, m.Subject+"\n"+m.Body)
		}
		return strings.Join(got, "\n====\n")
	}
	mails := html("hidden-1@aef.example", `<div style="display:none">RESIGN</div><p><span style="color:#ffffff">RESIGN</span></p>`+
		`<div style="font-size:0">RESIGN</div><div class="q">RESIGN</div><div>STATUS</div>`)
	if strings.Contains(mails, "RESIGN") || !strings.Contains(mails, "line 3: STATUS") {
		t.Errorf("the hidden RESIGN lines were read:\n%s", mails)
	}
	mails = html("visible-1@aef.example", `<div>RESIGN</div>`)
	if !strings.Contains(mails, "NOT DONE YET") {
		t.Errorf("a visible RESIGN does not ask for its code:\n%s", mails)
	}
	if games := mustCLI(t, nil, "games", "--config", path); strings.Contains(games, "over") {
		t.Errorf("the game ended:\n%s", games)
	}
}
