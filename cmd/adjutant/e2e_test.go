//go:build e2e

package main

// The end-to-end test against real mail servers: Dovecot (IMAP) and Postfix (SMTP,
// delivering into Dovecot over LMTP) on 127.0.0.1, set up by e2e/setup.sh. `make e2e`
// runs the setup and then this test with the addresses and passwords in the
// environment; .ci/run calls `make e2e`.
//
// The daemon runs as its own process (`adjutant serve --config FILE`, the binary built
// from this package), exactly as a host would run it; the two players are the scripted
// players of the demo, with real accounts on the servers.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// e2eSettings are what `make e2e` passes to the test.
type e2eSettings struct {
	imapAddr, smtpAddr, domain string
	gamePass, usPass, dePass   string
}

func e2eFromEnv(t *testing.T) e2eSettings {
	t.Helper()
	vars := []string{"ADJUTANT_E2E_IMAP", "ADJUTANT_E2E_SMTP", "ADJUTANT_E2E_DOMAIN",
		"ADJUTANT_E2E_GAME_PASSWORD", "ADJUTANT_E2E_US_PASSWORD", "ADJUTANT_E2E_DE_PASSWORD"}
	vals := map[string]string{}
	var missing []string
	for _, v := range vars {
		vals[v] = os.Getenv(v)
		if vals[v] == "" {
			missing = append(missing, v)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("the end-to-end test needs Dovecot and Postfix set up by cmd/adjutant/e2e/setup.sh "+
			"and their addresses and passwords in the environment (missing: %s): run it with `make e2e` "+
			"from the repository root, as root", strings.Join(missing, ", "))
	}
	return e2eSettings{
		imapAddr: vals["ADJUTANT_E2E_IMAP"], smtpAddr: vals["ADJUTANT_E2E_SMTP"], domain: vals["ADJUTANT_E2E_DOMAIN"],
		gamePass: vals["ADJUTANT_E2E_GAME_PASSWORD"], usPass: vals["ADJUTANT_E2E_US_PASSWORD"], dePass: vals["ADJUTANT_E2E_DE_PASSWORD"],
	}
}

// testLogWriter writes each line to the test log, with a prefix, and keeps the lines
// that match any of watch.
type testLogWriter struct {
	t       *testing.T
	prefix  string
	watch   []string
	mu      sync.Mutex
	buf     []byte
	matched []string
}

func (w *testLogWriter) line(l string) {
	w.t.Log(w.prefix + l)
	for _, s := range w.watch {
		if strings.Contains(l, s) {
			w.matched = append(w.matched, l)
			break
		}
	}
}

func (w *testLogWriter) watched() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.matched...)
}

func (w *testLogWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexByte(w.buf, '\n')
		if i < 0 {
			break
		}
		w.line(string(w.buf[:i]))
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

func (w *testLogWriter) flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.buf) > 0 {
		w.line(string(w.buf))
		w.buf = nil
	}
}

// imapSession logs in to an account, runs f, and logs out.
func imapSession(addr, user, pass string, f func(c *imapclient.Client) error) error {
	c, err := imapclient.DialInsecure(addr, nil)
	if err != nil {
		return fmt.Errorf("dial IMAP %s: %w", addr, err)
	}
	defer c.Close()
	if err := c.Login(user, pass).Wait(); err != nil {
		return fmt.Errorf("%s: login: %w", user, err)
	}
	if err := f(c); err != nil {
		return fmt.Errorf("%s: %w", user, err)
	}
	return c.Logout().Wait()
}

// emptyMailboxes deletes every message of the named mailboxes (those that exist), so
// that mail from an earlier run cannot answer this one's waits.
func emptyMailboxes(addr, user, pass string, mailboxes ...string) error {
	return imapSession(addr, user, pass, func(c *imapclient.Client) error {
		for _, mb := range mailboxes {
			sel, err := c.Select(mb, nil).Wait()
			if err != nil {
				continue // absent: nothing to empty
			}
			if sel.NumMessages == 0 {
				continue
			}
			var all imap.SeqSet
			all.AddRange(1, 0)
			if err := c.Store(all, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}, nil).Close(); err != nil {
				return fmt.Errorf("empty %s: %w", mb, err)
			}
			if err := c.Expunge().Close(); err != nil {
				return fmt.Errorf("empty %s: %w", mb, err)
			}
		}
		return nil
	})
}

// mailboxCounts returns the number of messages and of unseen messages of a mailbox.
func mailboxCounts(addr, user, pass, mailbox string) (messages, unseen uint32, err error) {
	err = imapSession(addr, user, pass, func(c *imapclient.Client) error {
		st, err := c.Status(mailbox, &imap.StatusOptions{NumMessages: true, NumUnseen: true}).Wait()
		if err != nil {
			return fmt.Errorf("status %s: %w", mailbox, err)
		}
		if st.NumMessages == nil || st.NumUnseen == nil {
			return fmt.Errorf("status %s: the server left out MESSAGES or UNSEEN", mailbox)
		}
		messages, unseen = *st.NumMessages, *st.NumUnseen
		return nil
	})
	return messages, unseen, err
}

func TestE2EDovecotPostfix(t *testing.T) {
	s := e2eFromEnv(t)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()

	gameAddr := "adjutant@" + s.domain
	usAddr, deAddr := "us@"+s.domain, "de@"+s.domain
	accounts := []struct{ addr, pass string }{{gameAddr, s.gamePass}, {usAddr, s.usPass}, {deAddr, s.dePass}}
	for _, a := range accounts {
		if err := emptyMailboxes(s.imapAddr, a.addr, a.pass, "INBOX", "Processed"); err != nil {
			t.Fatalf("prepare the mailboxes (is Dovecot running? run `make e2e`): %v", err)
		}
	}

	// The binary, as a host would install it.
	dir := t.TempDir()
	bin := filepath.Join(dir, "adjutant")
	build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	adjutant := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, bin, args...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	built := time.Now()

	db := filepath.Join(dir, "e2e.db")

	// The configuration file; the IMAP password comes from a file, as the sample
	// configuration recommends.
	host, port := splitAddr(s.imapAddr)
	shost, sport := splitAddr(s.smtpAddr)
	passFile := filepath.Join(dir, "imap-password")
	if err := os.WriteFile(passFile, []byte(s.gamePass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfgPath := filepath.Join(dir, "adjutant.toml")
	cfgText := fmt.Sprintf(`# Adjutant against the e2e Dovecot and Postfix (written by TestE2EDovecotPostfix).
address = %q
database = %q
poll_interval = "2s"
tick_interval = "5s"
log_level = "info"

[imap]
host = %q
port = %d
security = "none"
username = %q
password_file = %q
mailbox = "INBOX"
move_to = "Processed"

[smtp]
host = %q
port = %d
security = "none"
`, gameAddr, db, host, port, gameAddr, passFile, shost, sport)
	if err := os.WriteFile(cfgPath, []byte(cfgText), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadConfig(cfgPath); err != nil {
		t.Fatalf("the test's configuration is refused: %v", err)
	}
	if out, err := adjutant("config", "check", "--config", cfgPath); err != nil || !strings.Contains(out, "IMAP "+s.imapAddr+" (none): logged in as "+gameAddr) {
		t.Fatalf("adjutant config check: %v\n%s", err, out)
	}

	// The game, with the players' real addresses, created as the README says: from the
	// daemon's configuration, so that the invitations name the mailbox it serves.
	if out, err := adjutant("game", "new", "--config", cfgPath, "--name", sampleGame, "--ruleset", "soldiers1918",
		"--player", "us="+usAddr, "--player", "de="+deAddr, "--password", "us="+samplePassUS, "--password", "de="+samplePassDE); err != nil {
		t.Fatalf("adjutant game new: %v\n%s", err, out)
	}

	// The daemon, as its own process.
	// The daemon logs no error in a clean game, and uses IDLE, which Dovecot has.
	logw := &testLogWriter{t: t, prefix: "serve: ", watch: []string{"level=ERROR", "idle=false"}}
	daemon := exec.Command(bin, "serve", "--config", cfgPath)
	daemon.Stdout, daemon.Stderr = logw, logw
	if err := daemon.Start(); err != nil {
		t.Fatalf("start adjutant serve: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- daemon.Wait() }()
	running := true
	defer func() {
		if running {
			daemon.Process.Kill()
			<-exited
		}
		logw.flush()
	}()
	daemonDied := func() error {
		select {
		case err := <-exited:
			running = false
			return fmt.Errorf("adjutant serve exited early: %v", err)
		default:
			return nil
		}
	}

	players := map[string]*player{
		sampleUS: {addr: usAddr, password: s.usPass, imapAddr: s.imapAddr, smtpAddr: s.smtpAddr},
		sampleDE: {addr: deAddr, password: s.dePass, imapAddr: s.imapAddr, smtpAddr: s.smtpAddr},
	}
	inbox := map[*player][]received{} // everything each player has read, in order
	// await returns the first mail, already read or still to come, that satisfies ok.
	await := func(p *player, what string, limit time.Duration, ok func(received) bool) received {
		t.Helper()
		for _, r := range inbox[p] {
			if ok(r) {
				return r
			}
		}
		wctx, wcancel := context.WithTimeout(ctx, limit)
		defer wcancel()
		t0 := time.Now()
		got, err := p.waitFor(wctx, nil, ok)
		for _, r := range got {
			from := ""
			if r.Env != nil {
				from = r.Env.From
			}
			t.Logf("%-18s <- %-22s %q", p.addr, from, r.Env.Subject)
		}
		inbox[p] = append(inbox[p], got...)
		if err != nil {
			if derr := daemonDied(); derr != nil {
				err = errors.Join(err, derr)
			}
			t.Fatalf("%s waited %v for %s: %v", p.addr, time.Since(t0).Round(time.Millisecond), what, err)
		}
		for _, r := range got {
			if ok(r) {
				return r
			}
		}
		panic("unreachable")
	}
	textHas := func(s string) func(received) bool {
		return func(r received) bool { return strings.Contains(r.Env.Text, s) }
	}

	for _, k := range []string{sampleUS, sampleDE} {
		await(players[k], "the invitation", time.Minute, textHas("You are invited"))
	}
	invited := time.Now()
	script := sampleScript()
	for i, m := range script {
		p := players[m.From]
		if p == nil {
			t.Fatalf("script mail %d is from %s, who has no e2e account", i+1, m.From)
		}
		t0 := time.Now()
		id, err := p.send(ctx, gameAddr, m.Subject, m.Body)
		if err != nil {
			t.Fatalf("mail %d: %v", i+1, err)
		}
		t.Logf("%-18s -> %-22s %q <%s>", p.addr, gameAddr, m.Subject, id)
		reply := await(p, fmt.Sprintf("the reply to mail %d %q", i+1, m.Subject), time.Minute,
			func(r received) bool { return r.Env.InReplyTo == id })
		t.Logf("mail %d/%d answered in %v: %q", i+1, len(script), time.Since(t0).Round(time.Millisecond), reply.Env.Subject)
	}
	for _, k := range []string{sampleUS, sampleDE} {
		await(players[k], "the end of the game", time.Minute, func(r received) bool { return strings.HasPrefix(r.Env.Text, "Game over: ") })
	}
	played := time.Now()

	// SIGTERM: the daemon finishes what it is doing and exits 0.
	if err := daemon.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatalf("SIGTERM: %v", err)
	}
	select {
	case err := <-exited:
		running = false
		if err != nil {
			t.Fatalf("adjutant serve after SIGTERM: %v (want exit status 0)", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatalf("adjutant serve still running 10s after SIGTERM")
	}
	stopped := time.Now()
	logw.flush()
	for _, l := range logw.watched() {
		t.Errorf("adjutant serve logged: %s", l)
	}

	for _, args := range [][]string{{"audit", "verify", "--game", sampleGame}, {"replay", "--game", sampleGame}} {
		out, err := adjutant(append(args, "--db", db, "--address", gameAddr)...)
		if err != nil {
			t.Fatalf("adjutant %s: %v\n%s", strings.Join(args, " "), err, out)
		}
		t.Logf("adjutant %s:\n%s", strings.Join(args, " "), strings.TrimRight(out, "\n"))
	}

	// Every mail to the game was handled: none left unseen in its INBOX, every one of
	// the players' mails in Processed.
	n, unseen, err := mailboxCounts(s.imapAddr, gameAddr, s.gamePass, "INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if unseen != 0 {
		t.Errorf("the game mailbox's INBOX has %d unseen mails of %d after the game: the daemon left mail unhandled", unseen, n)
	}
	done, _, err := mailboxCounts(s.imapAddr, gameAddr, s.gamePass, "Processed")
	if err != nil {
		t.Fatal(err)
	}
	if int(done) < len(script) {
		t.Errorf("Processed holds %d mails; want at least the %d the players sent", done, len(script))
	}
	t.Logf("game mailbox: INBOX %d (unseen %d), Processed %d", n, unseen, done)

	// Every mail the players received came from the game, none was a bounce.
	total := 0
	for _, k := range []string{sampleUS, sampleDE} {
		p := players[k]
		for _, r := range inbox[p] {
			total++
			if r.Env == nil || !strings.EqualFold(r.Env.From, gameAddr) {
				from := ""
				if r.Env != nil {
					from = r.Env.From
				}
				t.Errorf("%s received %q from %q, not from the game", p.addr, r.Env.Subject, from)
			}
		}
	}
	t.Logf("timings: build %v, invitations %v, %d mails played %v, SIGTERM to exit %v, total %v; the players read %d mails",
		built.Sub(start).Round(time.Millisecond), invited.Sub(built).Round(time.Millisecond), len(script),
		played.Sub(invited).Round(time.Millisecond), stopped.Sub(played).Round(time.Millisecond),
		time.Since(start).Round(time.Millisecond), total)
}
