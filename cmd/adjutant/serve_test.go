package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-message"

	"github.com/adjutant-pbem/adjutant/mail/devserver"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestMain lets a test run the command in a child process (the SIGKILL fault test): with
// ADJUTANT_TEST_MAIN=1 the test binary is adjutant itself.
func TestMain(m *testing.M) {
	if os.Getenv("ADJUTANT_TEST_MAIN") == "1" {
		main()
		return
	}
	os.Exit(m.Run())
}

// rig is the embedded servers, a sample game and its players, for the daemon's tests.
type rig struct {
	t      *testing.T
	srv    *devserver.Server
	db     string
	cfg    *Config
	us, de *player
	ctx    context.Context
	logs   *syncBuffer
}

// syncBuffer collects the daemon's logs from several goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func newRig(t *testing.T, gameFlags ...string) *rig {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	t.Cleanup(cancel)
	srv, err := demoServers()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	r := &rig{t: t, srv: srv, db: filepath.Join(t.TempDir(), "game.db"), ctx: ctx, logs: &syncBuffer{}}
	args := append([]string{"game", "new", "--db", r.db, "--address", sampleAddress, "--name", sampleGame,
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE, "--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}, gameFlags...)
	mustCLI(t, nil, args...)
	r.cfg = demoConfig(srv, r.db)
	r.us = &player{addr: sampleUS, password: samplePassUS + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	r.de = &player{addr: sampleDE, password: samplePassDE + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("daemon log:\n%s", r.logs)
		}
	})
	return r
}

// start runs the daemon in this process; now overrides its clock when non-nil.
func (r *rig) start(now func() time.Time) *daemon {
	r.t.Helper()
	e := &env{ctx: r.ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: r.logs, cost: 4, now: now}
	d, stop, err := startDaemon(e, r.cfg, r.logs)
	if err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		if err := stop(); err != nil {
			r.t.Errorf("daemon stopped with %v", err)
		}
	})
	return d
}

// replies waits until p has received a mail answering id, and returns all mails read.
func (r *rig) reply(p *player, id string) []received {
	r.t.Helper()
	got, err := p.waitFor(r.ctx, nil, func(m received) bool { return m.Env.InReplyTo == id })
	if err != nil {
		r.t.Fatalf("waiting for the reply to %s: %v", id, err)
	}
	return got
}

// settle waits until the game mailbox's INBOX is empty (every mail handled and moved).
func (r *rig) settle(wantProcessed int) {
	r.t.Helper()
	for {
		inbox, err1 := r.srv.Mailbox(sampleAddress, "INBOX")
		done, err2 := r.srv.Mailbox(sampleAddress, "Processed")
		if err1 == nil && err2 == nil && len(inbox) == 0 && len(done) >= wantProcessed {
			return
		}
		select {
		case <-r.ctx.Done():
			r.t.Fatalf("the game mailbox never settled: %d in INBOX, %d processed (want %d)", len(inbox), len(done), wantProcessed)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func ordersFor(pass, body string) string {
	return "GAME " + sampleGame + "\nPASSWORD " + pass + "\n" + body
}

// TestGameByMail plays the whole sample game over IMAP and SMTP: the demo itself.
func TestGameByMail(t *testing.T) {
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	res, err := playByMail(e, demoOpts{quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, addr := range []string{sampleUS, sampleDE} {
		mails := res.mails[addr]
		if len(mails) < 8 || !strings.HasPrefix(mails[len(mails)-1].Env.Text, "Game over: ") {
			t.Errorf("%s received %d mails, the last %q; want the whole game", addr, len(mails), mails[len(mails)-1].Env.Subject)
		}
		for _, m := range mails {
			auto := headerOf(m.Raw, "Auto-Submitted")
			if m.Env.InReplyTo != "" && auto != "auto-replied" || m.Env.InReplyTo == "" && auto != "auto-generated" {
				t.Errorf("%q: Auto-Submitted %q with In-Reply-To %q", m.Env.Subject, auto, m.Env.InReplyTo)
			}
			if headerOf(m.Raw, "X-Adjutant") == "" || m.Env.MessageID == "" {
				t.Errorf("%q lacks X-Adjutant or Message-ID", m.Env.Subject)
			}
		}
	}
	checkPictures(t, res.mails)
	if !strings.Contains(res.summary, "0 awaiting") || !strings.Contains(res.summary, "replay of sample matches") ||
		strings.Count(res.summary, "alone: ") != 4 {
		t.Errorf("summary: %s", res.summary)
	}
}

// checkPictures: in the demo match each game's first player sent SET PICTURE OFF and
// the other kept the default, so his results mails arrived with the map's picture
// (drawn by the daemon's sender from the stored view) inline in the HTML alternative
// of the unchanged text: a PNG of the whole map that the HTML shows by its Content-ID.
// The first player's results mails of that game are text alone.
func checkPictures(t *testing.T, mails map[string][]received) {
	t.Helper()
	with, without := 0, 0
	for addr, ms := range mails {
		for _, m := range ms {
			if !strings.Contains(m.Env.Text, "\n== Map ==\n") {
				continue
			}
			e, err := message.Read(bytes.NewReader(m.Raw))
			if err != nil {
				t.Fatalf("%s %q: %v", addr, m.Env.Subject, err)
			}
			typ, _, _ := e.Header.ContentType()
			if typ == "text/plain" {
				without++
				continue
			}
			with++
			var html string
			cids := map[string]bool{}
			e.Walk(func(_ []int, part *message.Entity, err error) error {
				if err != nil {
					return err
				}
				pt, _, _ := part.Header.ContentType()
				if strings.HasPrefix(pt, "multipart/") {
					return nil // its parts are walked next; reading it would consume them
				}
				body, _ := io.ReadAll(part.Body)
				switch pt {
				case "text/html":
					html = string(body)
				case "image/png":
					img, err := png.Decode(bytes.NewReader(body))
					if err != nil || img.Bounds().Dx() < 500 || img.Bounds().Dx() > 1280 || len(body) > 150<<10 {
						t.Errorf("%s %q: the picture (%d bytes) is no map: %v", addr, m.Env.Subject, len(body), err)
					}
					cids[strings.Trim(part.Header.Get("Content-Id"), "<>")] = true
				}
				return nil
			})
			// The map around the units, and a close-up of what changed when that map
			// is drawn small.
			if typ != "multipart/alternative" || len(cids) < 1 || len(cids) > 2 {
				t.Errorf("%s %q: %s with %d pictures, want multipart/alternative with one or two", addr, m.Env.Subject, typ, len(cids))
			}
			for cid := range cids {
				if !strings.Contains(html, `src=3D"cid:`+cid+`"`) && !strings.Contains(html, `src="cid:`+cid+`"`) {
					t.Errorf("%s %q: the HTML does not show picture %s", addr, m.Env.Subject, cid)
				}
			}
		}
	}
	if with == 0 || without == 0 {
		t.Errorf("%d results mails with a picture and %d without; want some of each", with, without)
	}
}

func headerOf(raw []byte, name string) string {
	for _, line := range strings.Split(string(raw), "\r\n") {
		if line == "" {
			break
		}
		if k, v, ok := strings.Cut(line, ":"); ok && strings.EqualFold(k, name) {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

// TestSameMessageTwice: a message delivered twice has one effect and one reply.
func TestSameMessageTwice(t *testing.T) {
	r := newRig(t)
	r.start(nil)
	raw := eml(scripted{From: sampleUS, Subject: "orders", Body: ordersFor(samplePassUS, "PLOT TURN 1 1911x3\n")}, sampleAddress, "twice@aef.example", time.Now())
	for i := 0; i < 2; i++ {
		if err := r.srv.Deliver(sampleAddress, raw); err != nil {
			t.Fatal(err)
		}
	}
	r.settle(2)
	r.reply(r.us, "twice@aef.example")
	time.Sleep(300 * time.Millisecond) // a second reply, if any, would come now
	more, _ := r.us.fetchNew(r.ctx)
	for _, m := range more {
		if m.Env.InReplyTo == "twice@aef.example" {
			t.Errorf("a second reply to the same message: %q", m.Env.Subject)
		}
	}
}

// TestIMAPDroppedDuringIdle: the daemon reconnects and nothing is lost.
func TestIMAPDroppedDuringIdle(t *testing.T) {
	r := newRig(t)
	r.start(nil)
	first, _ := r.us.send(r.ctx, sampleAddress, "orders", ordersFor(samplePassUS, "STATUS"))
	r.reply(r.us, first) // the daemon is connected and idling now
	if n := r.srv.DropIMAPConnections(); n == 0 {
		t.Fatal("no IMAP connection to drop")
	}
	id, err := r.us.send(r.ctx, sampleAddress, "orders", ordersFor(samplePassUS, "MAP"))
	if err != nil {
		t.Fatal(err)
	}
	got := r.reply(r.us, id)
	if last := got[len(got)-1]; !strings.Contains(last.Env.Text, "== MAP ==") {
		t.Errorf("reply after the drop: %s", last.Env.Text)
	}
}

// TestSMTPDownThenBack: replies queue while the SMTP server is down and every one arrives,
// once, when it is back.
func TestSMTPDownThenBack(t *testing.T) {
	r := newRig(t)
	r.srv.SetSMTPDown(true)
	d := r.start(nil)
	ids := []string{"down-1@aef.example", "down-2@aef.example"}
	for i, id := range ids {
		raw := eml(scripted{From: sampleUS, Subject: "orders", Body: ordersFor(samplePassUS, fmt.Sprintf("PLOT TURN %d NONE\n", i+1))}, sampleAddress, id, time.Now())
		if err := r.srv.Deliver(sampleAddress, raw); err != nil {
			t.Fatal(err)
		}
	}
	r.settle(2)
	// The replies wait in the outbox, retried with back-off.
	for {
		var waiting, tried int
		d.db.Read(r.ctx, func(tx store.Tx) error {
			mails, _ := tx.Outbox()
			for _, m := range mails {
				if !m.Sent {
					waiting++
					if m.Attempts > 0 {
						tried++
					}
				}
			}
			return nil
		})
		if tried > 0 && waiting >= 4 { // two invitations, two replies at least
			break
		}
		select {
		case <-r.ctx.Done():
			t.Fatalf("the outbox never retried: %d waiting, %d tried", waiting, tried)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if n := r.srv.Accepted(); n != 0 {
		t.Fatalf("%d mails accepted while the server was down", n)
	}
	r.srv.SetSMTPDown(false)
	answered := func(all []received, id string) bool {
		for _, m := range all {
			if m.Env.InReplyTo == id {
				return true
			}
		}
		return false
	}
	var all []received
	for !answered(all, ids[0]) || !answered(all, ids[1]) {
		got, err := r.us.waitFor(r.ctx, nil, func(received) bool { return true })
		if err != nil {
			t.Fatalf("replies after the SMTP server came back: %v", err)
		}
		all = append(all, got...)
	}
	time.Sleep(500 * time.Millisecond)
	more, _ := r.us.fetchNew(r.ctx)
	all = append(all, more...)
	seen := map[string]int{}
	for _, m := range all {
		seen[m.Env.MessageID]++
		if seen[m.Env.MessageID] > 1 {
			t.Errorf("mail %s (%q) arrived twice", m.Env.MessageID, m.Env.Subject)
		}
	}
	for _, id := range ids {
		n := 0
		for _, m := range all {
			if m.Env.InReplyTo == id {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d replies to %s, want 1", n, id)
		}
	}
}

// TestOversizeMessage is refused with a reply, unread.
func TestOversizeMessage(t *testing.T) {
	r := newRig(t)
	r.cfg.MaxMessageSize = 4096
	r.start(nil)
	id, err := r.us.send(r.ctx, sampleAddress, "big orders", ordersFor(samplePassUS, strings.Repeat("# padding padding padding\n", 400)+"PLOT TURN 1 1911x3\n"))
	if err != nil {
		t.Fatal(err)
	}
	got := r.reply(r.us, id)
	if last := got[len(got)-1]; !strings.Contains(last.Env.Text, "larger than this mailbox accepts") {
		t.Errorf("reply to an oversize mail:\n%s", last.Env.Text)
	}
}

// TestAutoResponderNoLoop: a player's mailbox answers every mail. A well-behaved
// responder gets nothing back; a naive one (no Auto-Submitted) is throttled, so the loop
// dies out.
func TestAutoResponderNoLoop(t *testing.T) {
	for _, naive := range []bool{false, true} {
		t.Run(fmt.Sprintf("naive=%v", naive), func(t *testing.T) {
			r := newRig(t)
			r.start(nil)
			received, answered := 0, 0
			quiet := time.Now()
			for time.Since(quiet) < 1500*time.Millisecond {
				got, err := r.us.fetchNew(r.ctx)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range got {
					received++
					quiet = time.Now()
					hdr := "Auto-Submitted: auto-replied\r\n"
					if naive {
						hdr = ""
					}
					raw := []byte(fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: Re: %s\r\nMessage-ID: <away-%d@aef.example>\r\nIn-Reply-To: <%s>\r\n%s\r\nI am away from my desk until Monday.\r\n",
						sampleUS, sampleAddress, m.Env.Subject, received, m.Env.MessageID, hdr))
					if err := r.us.sendRaw(r.ctx, sampleAddress, raw); err != nil {
						t.Fatal(err)
					}
					answered++
				}
				if received > 20 {
					t.Fatalf("mail loop: the US mailbox received %d mails", received)
				}
				time.Sleep(50 * time.Millisecond)
			}
			want := 1 // the invitation
			if naive {
				want += 4 // 3 refusals, one notice that refusals stop (issue 19), then throttled
			}
			if received != want {
				t.Errorf("the auto-responding mailbox received %d mails, want %d", received, want)
			}
		})
	}
}

// TestDownDaemonResolvesOverduePhase: started after a deadline passed, the daemon resolves
// the phase with the default orders and says it was down.
func TestDownDaemonResolvesOverduePhase(t *testing.T) {
	r := newRig(t, "--deadline", "1h", "--no-orders", "default")
	later := time.Now().Add(5 * time.Hour)
	r.start(func() time.Time { return later })
	got, err := r.de.waitFor(r.ctx, nil, func(m received) bool { return strings.Contains(m.Env.Text, "was not running") })
	if err != nil {
		t.Fatalf("no mail said the daemon was down: %v (%d mails)", err, len(got))
	}
	if last := got[len(got)-1]; !strings.Contains(last.Env.Text, "default orders were used") {
		t.Errorf("results after the overdue deadline:\n%s", last.Env.Text)
	}
}

// serveConfig runs `adjutant serve --config path` in this process until ctx ends, with
// its log in logs; wait waits for it to stop and gives its exit code.
func serveConfig(ctx context.Context, path string, logs io.Writer) (wait func() int) {
	done := make(chan int, 1)
	go func() {
		e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: logs, cost: 4}
		done <- runEnv(e, []string{"serve", "--config", path})
	}()
	return func() int { return <-done }
}

func writeConfig(t *testing.T, path string, c *Config) {
	t.Helper()
	text := fmt.Sprintf(`address = %q
database = %q
poll_interval = "1s"
tick_interval = "1s"
max_message_size = %d
log_level = "info"
[imap]
host = %q
port = %d
security = "none"
username = %q
password = %q
move_to = "Processed"
[smtp]
host = %q
port = %d
security = "none"
`, c.Address, c.Database, c.MaxMessageSize, c.IMAP.Host, c.IMAP.Port, c.IMAP.Username, c.IMAP.Password, c.SMTP.Host, c.SMTP.Port)
	if c.SMTP.Username != "" {
		text += fmt.Sprintf("username = %q\npassword = %q\n", c.SMTP.Username, c.SMTP.Password)
	}
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(path); err != nil {
		t.Fatal(err)
	}
}

// TestServeWrongIMAPPassword: `serve` with a wrong IMAP password says, at error level,
// that the login was refused, for which user at which server (never the password), and
// tries again after a back-off rather than giving up or hammering the server.
func TestServeWrongIMAPPassword(t *testing.T) {
	r := newRig(t)
	r.cfg.IMAP.Password = "not-the-mailbox-password"
	path := filepath.Join(t.TempDir(), "adjutant.toml")
	writeConfig(t, path, r.cfg)
	ctx, cancel := context.WithCancel(r.ctx)
	wait := serveConfig(ctx, path, r.logs)
	want := `level=ERROR msg="IMAP login refused for user ` + sampleAddress + ` at ` + r.srv.IMAPAddr() + `: NO [AUTHENTICATIONFAILED]`
	for strings.Count(r.logs.String(), want) < 2 {
		select {
		case <-r.ctx.Done():
			cancel()
			t.Fatalf("serve did not log twice %q:\n%s", want, r.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	cancel()
	if code := wait(); code != 0 {
		t.Errorf("serve exited %d after SIGTERM, want 0", code)
	}
	logs := r.logs.String()
	for _, attempt := range []string{"attempt=1 retry_in=1s", "attempt=2 retry_in=2s"} {
		if !strings.Contains(logs, attempt) {
			t.Errorf("the log lacks the back-off %q:\n%s", attempt, logs)
		}
	}
	if strings.Contains(logs, r.cfg.IMAP.Password) {
		t.Errorf("the log shows the password:\n%s", logs)
	}
}

// TestInvitationNamesTheServedMailbox: a game created with the daemon's configuration
// (`game new --config`) invites the players to write to the mailbox `serve` reads and
// sends from: the invitation's From and the address in its text are the same.
func TestInvitationNamesTheServedMailbox(t *testing.T) {
	const game = "game@club.example"
	srv, err := devserver.Start(devserver.Options{Users: map[string]string{game: "club-mailbox-password", sampleUS: "us-mail"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	cfg := demoConfig(srv, filepath.Join(dir, "games.db"))
	cfg.Address, cfg.IMAP.Username, cfg.IMAP.Password = game, game, "club-mailbox-password"
	path := filepath.Join(dir, "adjutant.toml")
	writeConfig(t, path, cfg)
	mustCLI(t, nil, "game", "new", "--config", path, "--name", sampleGame, "--player", "us="+sampleUS, "--player", "de="+sampleDE)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	logs := &syncBuffer{}
	wait := serveConfig(ctx, path, logs)
	us := &player{addr: sampleUS, password: "us-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	got, err := us.waitFor(ctx, nil, func(r received) bool { return strings.Contains(r.Env.Text, "You are invited") })
	cancel()
	wait()
	if err != nil {
		t.Fatalf("no invitation: %v\n%s", err, logs)
	}
	inv := got[len(got)-1]
	if from := headerOf(inv.Raw, "From"); !strings.Contains(from, game) {
		t.Errorf("the invitation comes from %q, want %s", from, game)
	}
	if !strings.Contains(inv.Env.Text, game) || strings.Contains(inv.Env.Text, "adjutant@localhost") {
		t.Errorf("the invitation does not send orders to %s:\n%s", game, inv.Env.Text)
	}
}
