package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

const observerAddr = "joffre@gqg.example"

// clubMons plays issue 24's club game through send (one mail a call): a stranger's
// NEW mons1914, a second address's LIST and JOIN, a third's OBSERVE, then the whole
// Mons sample game, each player's first mail asking for the full map in every results
// mail (so that each results mail names every unit its side sees). It returns the
// game's name.
func clubMons(t *testing.T, send func(from, subject, body string), mails func() []outMailJSON) string {
	t.Helper()
	last := func(addr string) outMailJSON {
		t.Helper()
		all := mails()
		for i := len(all) - 1; i >= 0; i-- {
			if slices.Contains(all[i].To, addr) {
				return all[i]
			}
		}
		t.Fatalf("no mail to %s", addr)
		return outMailJSON{}
	}
	send(monsDE, "a game", "NEW mons1914 SIDE German\nPASSWORD "+monsPassDE+"\n")
	m := regexp.MustCompile(`You opened game (\S+) `).FindStringSubmatch(strings.Join(strings.Fields(last(monsDE).Body), " "))
	if m == nil {
		t.Fatalf("NEW answered:\n%s", last(monsDE).Body)
	}
	name := m[1]
	send(monsBEF, "list", "LIST\n")
	if l := last(monsBEF).Body; !strings.Contains(l, name+":") || !strings.Contains(l, "free side British") {
		t.Fatalf("LIST does not show %s:\n%s", name, l)
	}
	send(monsBEF, "join", "JOIN "+name+"\nPASSWORD "+monsPassBEF+"\n")
	for _, addr := range []string{monsDE, monsBEF} {
		invited := false
		for _, m := range mails() {
			invited = invited || (m.Kind == "invite" && slices.Contains(m.To, addr) && m.Game == name)
		}
		if !invited {
			t.Fatalf("%s got no invitation to %s", addr, name)
		}
	}
	send(observerAddr, "watch", "OBSERVE "+name+"\n")
	code := regexp.MustCompile(`OBSERVE \S+ ([0-9A-Z-]{19})`).FindStringSubmatch(strings.Join(strings.Fields(last(observerAddr).Body), " "))
	if code == nil {
		t.Fatalf("OBSERVE gave no code:\n%s", last(observerAddr).Body)
	}
	send(observerAddr, "watch", "OBSERVE "+name+" "+code[1]+"\n")
	if o := last(observerAddr).Body; !strings.Contains(o, "You observe game "+name) {
		t.Fatalf("OBSERVE answered:\n%s", o)
	}
	full := map[string]bool{}
	players := map[rules.Side]demoPlayer{mons1914.DE: {monsDE, monsPassDE}, mons1914.BEF: {monsBEF, monsPassBEF}}
	for _, m := range mons1914.Script(name) {
		s := scriptedFor(name, players, m)
		body := s.Body
		if !full[s.From] {
			full[s.From] = true
			body = strings.Replace(body, "\n", "\nSET MAP FULL\n", 1)
		}
		send(s.From, s.Subject, body)
	}
	return name
}

// checkObserved checks the observer's mails of a finished club game: one a results
// mail of each player since he began to observe; none names a unit that the results
// mail of either side of the same advance does not (Mons 6.6: units beneath the top of
// an enemy stack are hidden; entering stacks too), so that the observer learns nothing
// either side may not see at that moment.
func checkObserved(t *testing.T, all []outMailJSON) {
	t.Helper()
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	units := map[string]bool{}
	for _, c := range r.Scenario().Counters {
		units[c.ID] = true
	}
	token := regexp.MustCompile(`[A-Za-z0-9/]+`)
	named := func(s string) map[string]bool {
		out := map[string]bool{}
		for _, w := range token.FindAllString(s, -1) {
			if units[w] {
				out[w] = true
			}
		}
		return out
	}
	observed, results, after := 0, 0, false
	for i, m := range all {
		if slices.Contains(m.To, observerAddr) && m.Kind == "observe" {
			observed++
			// The results mails of the same advance are queued just before it.
			var sides []outMailJSON
			for j := i - 1; j >= 0 && len(sides) < 2; j-- {
				if all[j].Kind == "results" && all[j].Game == m.Game {
					sides = append(sides, all[j])
				}
			}
			if len(sides) != 2 {
				t.Fatalf("observer mail %d: not after two results mails", observed)
			}
			a, b := named(sides[0].Body), named(sides[1].Body)
			for u := range named(m.Body) {
				if !a[u] || !b[u] {
					t.Errorf("observer mail %d names %s, which the %s player was not shown:\n%s", observed, u,
						map[bool]string{true: sides[0].Side, false: sides[1].Side}[!a[u]], m.Body)
				}
			}
			if observed == 1 && len(named(m.Body)) == 0 {
				t.Errorf("the first observer mail names no unit at all:\n%s", m.Body)
			}
		}
		if m.Kind == "results" && m.Side == "de" && after {
			results++
		}
		after = after || (slices.Contains(m.To, observerAddr) && strings.Contains(m.Body, "You observe game"))
	}
	if observed == 0 || observed != results {
		t.Errorf("the observer got %d mails, the German %d results mails since", observed, results)
	}
}

// TestClubByPipe is issue 24's done-when through pipe mode (adjutant handle): a
// stranger's NEW mons1914 creates a game, a second address's LIST shows it and its
// JOIN starts it with both invitations, a third's OBSERVE makes it an observer who
// receives every results mail with nothing hidden from either side, HISTORY 1 resends
// turn 1's results, the audit verifies, and RATINGS shows both players.
func TestClubByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "club.db")
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	n := 0
	send := func(from, subject, body string) {
		t.Helper()
		n++
		raw := eml(scripted{From: from, Subject: subject, Body: body}, sampleAddress, fmt.Sprintf("club-%d@players.example", n), t0.Add(time.Duration(n)*time.Minute))
		if out := mustCLI(t, raw, "handle", "--db", db, "--address", sampleAddress); strings.Contains(out, "throttled") {
			t.Fatalf("mail %d from %s: %s", n, from, out)
		}
	}
	mails := func() []outMailJSON { return outbox(t, db) }
	name := clubMons(t, send, mails)
	all := mails()
	checkObserved(t, all)
	// At the end each player and the observer get the record of the game (issue 24),
	// after every other mail of it to them.
	for _, to := range []string{monsDE, monsBEF, observerAddr} {
		var last outMailJSON
		for _, m := range all {
			if m.Game == name && slices.Contains(m.To, to) {
				last = m
			}
		}
		if last.Kind != "record" {
			t.Errorf("the last mail of %s to %s is a %q mail, not the record of the game", name, to, last.Kind)
		}
	}

	before := len(all)
	send(monsDE, "history", "GAME "+name+"\nPASSWORD "+monsPassDE+"\nHISTORY 1\n")
	reply := mails()[before:]
	var turn1 string
	for _, m := range all {
		if m.Kind == "results" && m.Side == "de" && strings.Contains(m.Body, "Turn 1") {
			turn1 = m.Body
			break
		}
	}
	if len(reply) != 1 || turn1 == "" || !strings.Contains(reply[0].Body, strings.TrimRight(turn1, "\n")) {
		t.Errorf("HISTORY 1 does not resend turn 1's results (%d mails)", len(reply))
	}
	if out := mustCLI(t, nil, "audit", "verify", "--db", db, "--address", sampleAddress, "--game", name); !strings.Contains(out, "verified") {
		t.Errorf("audit verify: %s", out)
	}
	if out := mustCLI(t, nil, "replay", "--db", db, "--address", sampleAddress, "--game", name); !strings.Contains(out, "matches") {
		t.Errorf("replay: %s", out)
	}
	before = len(mails())
	send("someone@else.example", "ratings", "RATINGS\n")
	r := mails()[before:]
	if len(r) != 1 || !strings.Contains(r[0].Body, "kl***@erste-armee.example") || !strings.Contains(r[0].Body, "fr***@bef.example") {
		t.Errorf("RATINGS does not show both players:\n%v", r)
	}
}

// TestClubOverMail is TestClubByPipe over the embedded IMAP and SMTP servers with the
// daemon in between: each mail is sent over SMTP and its answer awaited over IMAP, and
// the observer reads over IMAP every mail the daemon queued for him.
func TestClubOverMail(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	users := map[string]string{sampleAddress: "game-mailbox-password"}
	for _, a := range []string{monsDE, monsBEF, observerAddr, "someone@else.example"} {
		users[a] = a + "-mail"
	}
	srv, err := devserver.Start(devserver.Options{Users: users})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	db := filepath.Join(t.TempDir(), "club.db")
	logs := &syncBuffer{}
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs, cost: 4}
	_, stop, err := startDaemon(e, demoConfig(srv, db), logs)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
			t.Errorf("daemon: %v", err)
		}
		if t.Failed() {
			t.Logf("daemon log:\n%s", logs)
		}
	}()
	players := map[string]*player{}
	for a := range users {
		players[a] = &player{addr: a, password: a + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	}
	got := map[string][]received{}
	send := func(from, subject, body string) {
		t.Helper()
		p := players[from]
		id, err := p.send(ctx, sampleAddress, subject, body)
		if err != nil {
			t.Fatal(err)
		}
		mails, err := p.waitFor(ctx, nil, func(r received) bool { return r.Env.InReplyTo == id })
		got[from] = append(got[from], mails...)
		if err != nil {
			t.Fatalf("waiting for the answer to %s's %q: %v", from, subject, err)
		}
	}
	mails := func() []outMailJSON { return outbox(t, db) } // through the daemon's control socket
	name := clubMons(t, send, mails)
	all := mails()
	checkObserved(t, all)
	want := 0
	for _, m := range all {
		if m.Kind == "observe" {
			want++
		}
	}
	// Everything queued for the observer reaches him; the last mail is the verdict.
	var observed []received
	for _, r := range got[observerAddr] {
		if strings.HasPrefix(r.Env.Subject, "["+name+"] Observing") {
			observed = append(observed, r)
		}
	}
	more, err := players[observerAddr].waitFor(ctx, nil, func(r received) bool {
		return strings.HasPrefix(r.Env.Text, "Game over: ")
	})
	if err != nil {
		t.Fatalf("the observer never got the verdict: %v", err)
	}
	for _, r := range more {
		if strings.HasPrefix(r.Env.Subject, "["+name+"] Observing") {
			observed = append(observed, r)
		}
	}
	for _, r := range observed {
		if !strings.Contains(string(r.Raw), "image/png") {
			t.Errorf("an observer mail carries no picture: %s", r.Env.Subject)
			break
		}
	}
	if len(observed) != want || want == 0 {
		t.Errorf("the observer read %d results mails over IMAP, the daemon queued %d", len(observed), want)
	}
	send("someone@else.example", "ratings", "RATINGS mons1914\n")
	if r := got["someone@else.example"]; len(r) != 1 || !strings.Contains(r[0].Env.Text, "kl***@erste-armee.example") || !strings.Contains(r[0].Env.Text, "fr***@bef.example") {
		t.Errorf("RATINGS over mail: %v", r)
	}
}

// TestClubConfig: the [club] table reaches the desk of adjutant handle: closed = true
// refuses NEW with a reason, allow lets only the addresses and domains it names; a
// bad table is refused with the key at fault.
func TestClubConfig(t *testing.T) {
	dir := t.TempDir()
	cases := []struct{ club, from, want string }{
		{"closed = true", monsDE, "does not let players open games by mail"},
		{`allow = ["bef.example"]`, monsDE, "lets only some addresses open games"},
		{`allow = ["bef.example"]`, monsBEF, "You opened game mons1914-1"},
	}
	for i, c := range cases {
		cfg := filepath.Join(dir, fmt.Sprintf("c%d.toml", i))
		db := filepath.Join(dir, fmt.Sprintf("c%d.db", i))
		if err := os.WriteFile(cfg, []byte(fmt.Sprintf("address = %q\ndatabase = %q\n[club]\n%s\n", sampleAddress, db, c.club)), 0o600); err != nil {
			t.Fatal(err)
		}
		raw := eml(scripted{From: c.from, Subject: "new", Body: "NEW mons1914\nPASSWORD pw-123456\n"}, sampleAddress, fmt.Sprintf("cfg-%d@x.example", i), time.Now())
		mustCLI(t, raw, "handle", "--config", cfg)
		got := outbox(t, db)
		if len(got) != 1 || !strings.Contains(strings.Join(strings.Fields(got[0].Body), " "), c.want) {
			t.Errorf("[club] %s, NEW from %s: want %q in %+v", c.club, c.from, c.want, got)
		}
	}
	cfg := filepath.Join(dir, "bad.toml")
	os.WriteFile(cfg, []byte(fmt.Sprintf("address = %q\ndatabase = %q\n[club]\nmax_open = -1\n", sampleAddress, filepath.Join(dir, "bad.db"))), 0o600)
	if code, _, errs := cli(t, nil, "handle", "--config", cfg); code == 0 || !strings.Contains(errs, "club.max_open") {
		t.Errorf("max_open = -1: exit %d, %s", code, errs)
	}
}
