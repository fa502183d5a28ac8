package devserver_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

const (
	game     = "game@adjutant.example"
	gamePass = "game-secret"
	us       = "pershing@aef.example"
	usPass   = "us-secret"
	de       = "gallwitz@heer.example"
	dePass   = "de-secret"
)

func users() map[string]string {
	return map[string]string{game: gamePass, us: usPass, de: dePass}
}

func start(t *testing.T, opts devserver.Options) *devserver.Server {
	t.Helper()
	if opts.Users == nil {
		opts.Users = users()
	}
	srv, err := devserver.Start(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return srv
}

// timeout bounds every blocking step of a test.
const timeout = 10 * time.Second

func dialIMAP(t *testing.T, srv *devserver.Server, user, pass string, opts *imapclient.Options) *imapclient.Client {
	t.Helper()
	c, err := imapclient.DialInsecure(srv.IMAPAddr(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Login(user, pass).Wait(); err != nil {
		t.Fatalf("IMAP login as %s: %v", user, err)
	}
	return c
}

func dialSMTP(t *testing.T, srv *devserver.Server) *smtp.Client {
	t.Helper()
	c, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	c.CommandTimeout = timeout
	c.SubmissionTimeout = timeout
	t.Cleanup(func() { c.Close() })
	if err := c.Hello("player.example"); err != nil {
		t.Fatal(err)
	}
	return c
}

func message(from, to, subject, body string) []byte {
	return fmt.Appendf(nil, "From: <%s>\r\nTo: <%s>\r\nSubject: %s\r\nMessage-ID: <%s@test.example>\r\nDate: %s\r\n\r\n%s\r\n",
		from, to, subject, strings.ReplaceAll(subject, " ", "-"), time.Now().Format(time.RFC1123Z), body)
}

// send submits one message over SMTP without authentication.
func send(t *testing.T, srv *devserver.Server, from string, to []string, raw []byte) error {
	t.Helper()
	c, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		return err
	}
	defer c.Close()
	c.CommandTimeout = timeout
	c.SubmissionTimeout = timeout
	if err := c.SendMail(from, to, bytes.NewReader(raw)); err != nil {
		return err
	}
	return c.Quit()
}

func smtpCode(err error) int {
	var e *smtp.SMTPError
	if errors.As(err, &e) {
		return e.Code
	}
	return 0
}

// eventually polls cond until it holds or the deadline passes.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func TestSMTPToIMAP(t *testing.T) {
	srv := start(t, devserver.Options{})
	before := time.Now().Add(-time.Second)
	for _, subj := range []string{"orders one", "orders two"} {
		if err := send(t, srv, us, []string{game}, message(us, game, subj, "PLOT TURN 1 4300x3")); err != nil {
			t.Fatalf("send %q: %v", subj, err)
		}
	}
	if n := srv.Accepted(); n != 2 {
		t.Errorf("Accepted = %d, want 2", n)
	}

	c := dialIMAP(t, srv, game, gamePass, nil)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	sd, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil {
		t.Fatal(err)
	}
	uids := sd.AllUIDs()
	if !slices.Equal(uids, []imap.UID{1, 2}) {
		t.Fatalf("unseen UIDs = %v, want [1 2]", uids)
	}
	msgs, err := c.Fetch(imap.UIDSetNum(uids...), &imap.FetchOptions{
		UID: true, Flags: true, InternalDate: true,
		BodySection: []*imap.FetchItemBodySection{{Peek: true}},
	}).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(msgs) != 2 {
		t.Fatalf("fetched %d messages, want 2", len(msgs))
	}
	for i, m := range msgs {
		if len(m.Flags) != 0 {
			t.Errorf("message %d flags = %v, want none", m.UID, m.Flags)
		}
		if m.InternalDate.Before(before) || m.InternalDate.After(time.Now().Add(time.Second)) {
			t.Errorf("message %d INTERNALDATE = %v, want about now", m.UID, m.InternalDate)
		}
		raw := string(m.FindBodySection(&imap.FetchItemBodySection{}))
		if !strings.HasPrefix(raw, "Return-Path: <"+us+">\r\nReceived: from player.example") &&
			!strings.HasPrefix(raw, "Return-Path: <"+us+">\r\nReceived: from localhost") {
			t.Errorf("message %d does not start with the trace fields:\n%s", m.UID, raw)
		}
		if !strings.Contains(raw, "for <"+game+">;") {
			t.Errorf("message %d: Received has no for clause:\n%s", m.UID, raw)
		}
		want := []string{"orders one", "orders two"}[i]
		if !strings.Contains(raw, "\r\nSubject: "+want+"\r\n") || !strings.HasSuffix(raw, "\r\n\r\nPLOT TURN 1 4300x3\r\n") {
			t.Errorf("message %d is not %q as sent:\n%s", m.UID, want, raw)
		}
	}

	// The peek left them unseen; a STORE answers with the canonical flag.
	sd, _ = c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if got := sd.AllUIDs(); len(got) != 2 {
		t.Fatalf("after BODY.PEEK, unseen = %v", got)
	}
	stored, err := c.Store(imap.UIDSetNum(1), &imap.StoreFlags{Op: imap.StoreFlagsAdd, Flags: []imap.Flag{imap.FlagSeen}}, nil).Collect()
	if err != nil {
		t.Fatal(err)
	}
	if len(stored) != 1 || !slices.Equal(stored[0].Flags, []imap.Flag{imap.FlagSeen}) {
		t.Errorf("STORE answered %+v, want FLAGS (\\Seen)", stored)
	}

	box, err := srv.Mailbox(game, "INBOX")
	if err != nil {
		t.Fatal(err)
	}
	if len(box) != 2 || box[0].UID != 1 || box[1].UID != 2 {
		t.Fatalf("Mailbox = %+v", box)
	}
	if !slices.Equal(box[0].Flags, []string{`\Seen`}) || len(box[1].Flags) != 0 {
		t.Errorf("Mailbox flags = %v, %v; want [\\Seen], []", box[0].Flags, box[1].Flags)
	}
	if box[0].InternalDate.IsZero() || !bytes.Contains(box[1].Raw, []byte("Subject: orders two")) {
		t.Errorf("Mailbox message 2 = %+v", box[1])
	}
}

func TestOneMessageManyRecipientsCountsOnce(t *testing.T) {
	srv := start(t, devserver.Options{})
	if err := send(t, srv, game, []string{us, de}, message(game, us, "results", "turn 1")); err != nil {
		t.Fatal(err)
	}
	if n := srv.Accepted(); n != 1 {
		t.Errorf("Accepted = %d, want 1", n)
	}
	for _, addr := range []string{us, de} {
		box, err := srv.Mailbox(addr, "INBOX")
		if err != nil {
			t.Fatal(err)
		}
		if len(box) != 1 || !bytes.Contains(box[0].Raw, []byte("for <"+addr+">")) {
			t.Errorf("%s INBOX = %+v", addr, box)
		}
	}
	if box, _ := srv.Mailbox(game, "INBOX"); len(box) != 0 {
		t.Errorf("the sender got its own mail: %d", len(box))
	}
}

func TestAuthPlain(t *testing.T) {
	srv := start(t, devserver.Options{})

	c := dialSMTP(t, srv)
	if ok, mechs := c.Extension("AUTH"); !ok || !strings.Contains(mechs, "PLAIN") {
		t.Fatalf("AUTH not advertised: %v %q", ok, mechs)
	}
	if err := c.Auth(sasl.NewPlainClient("", us, usPass)); err != nil {
		t.Fatalf("AUTH PLAIN with the right password: %v", err)
	}
	if err := c.SendMail(us, []string{game}, bytes.NewReader(message(us, game, "authed", "x"))); err != nil {
		t.Fatal(err)
	}
	box, err := srv.Mailbox(game, "INBOX")
	if err != nil || len(box) != 1 || !bytes.Contains(box[0].Raw, []byte("with ESMTPA")) {
		t.Errorf("authenticated mail: %v %+v", err, box)
	}

	for _, tc := range []struct{ user, pass string }{{us, "wrong"}, {"nobody@aef.example", usPass}, {us, ""}} {
		c := dialSMTP(t, srv)
		err := c.Auth(sasl.NewPlainClient("", tc.user, tc.pass))
		if code := smtpCode(err); code != 535 {
			t.Errorf("AUTH PLAIN %s/%q: %v (code %d), want 535", tc.user, tc.pass, err, code)
		}
	}

	// The IMAP login name is the full address, case-insensitively; the password is checked.
	ic, err := imapclient.DialInsecure(srv.IMAPAddr(), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ic.Close()
	if err := ic.Login(us, "wrong").Wait(); err == nil {
		t.Error("IMAP login with a wrong password succeeded")
	}
	if err := ic.Login(strings.ToUpper(us), usPass).Wait(); err != nil {
		t.Errorf("IMAP login: %v", err)
	}
}

func TestUnknownRecipient(t *testing.T) {
	srv := start(t, devserver.Options{})
	c := dialSMTP(t, srv)
	if err := c.Mail(us, nil); err != nil {
		t.Fatal(err)
	}
	err := c.Rcpt("nobody@adjutant.example", nil)
	var e *smtp.SMTPError
	if !errors.As(err, &e) || e.Code != 550 || e.EnhancedCode != (smtp.EnhancedCode{5, 1, 1}) {
		t.Fatalf("RCPT unknown: %v, want 550 5.1.1", err)
	}
	if err := send(t, srv, us, []string{"nobody@adjutant.example"}, message(us, game, "x", "x")); smtpCode(err) != 550 {
		t.Errorf("SendMail to an unknown address: %v", err)
	}
	if err := srv.Deliver("nobody@adjutant.example", []byte("x")); !errors.Is(err, devserver.ErrUnknownUser) {
		t.Errorf("Deliver to an unknown address: %v", err)
	}
	if _, err := srv.Mailbox("nobody@adjutant.example", "INBOX"); !errors.Is(err, devserver.ErrUnknownUser) {
		t.Errorf("Mailbox of an unknown address: %v", err)
	}
}

func TestRejectRecipient(t *testing.T) {
	srv := start(t, devserver.Options{})
	srv.RejectRecipient(de, true)

	c := dialSMTP(t, srv)
	if err := c.Mail(game, nil); err != nil {
		t.Fatal(err)
	}
	if err := c.Rcpt(us, nil); err != nil {
		t.Fatalf("RCPT %s: %v", us, err)
	}
	err := c.Rcpt(de, nil)
	var e *smtp.SMTPError
	if !errors.As(err, &e) || e.Code != 550 || e.EnhancedCode != (smtp.EnhancedCode{5, 1, 1}) || e.Temporary() {
		t.Fatalf("RCPT rejected: %v, want 550 5.1.1", err)
	}
	if err := c.Rcpt(game, nil); err != nil {
		t.Fatalf("RCPT %s after a rejection: %v", game, err)
	}
	w, err := c.Data()
	if err != nil {
		t.Fatal(err)
	}
	w.Write(message(game, us, "results", "x"))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	for addr, want := range map[string]int{us: 1, game: 1, de: 0} {
		if box, err := srv.Mailbox(addr, "INBOX"); err != nil || len(box) != want {
			t.Errorf("%s INBOX: %d messages (%v), want %d", addr, len(box), err, want)
		}
	}

	srv.RejectRecipient(de, false)
	if err := send(t, srv, game, []string{de}, message(game, de, "again", "x")); err != nil {
		t.Errorf("after RejectRecipient(false): %v", err)
	}
}

func TestSMTPDown(t *testing.T) {
	srv := start(t, devserver.Options{})

	open := dialSMTP(t, srv) // a session opened before the outage
	if err := open.Mail(us, nil); err != nil {
		t.Fatal(err)
	}
	if err := open.Rcpt(game, nil); err != nil {
		t.Fatal(err)
	}
	open2 := dialSMTP(t, srv)

	srv.SetSMTPDown(true)

	// go-smtp's Dial reads the greeting lazily: the 421 comes with the first command.
	down, err := smtp.Dial(srv.SMTPAddr())
	if err != nil {
		t.Fatal(err)
	}
	defer down.Close()
	err = down.Hello("player.example")
	var e *smtp.SMTPError
	if !errors.As(err, &e) || e.Code != 421 || !e.Temporary() {
		t.Errorf("new connection while down: %v, want 421", err)
	}
	if err := send(t, srv, us, []string{game}, message(us, game, "down", "x")); smtpCode(err)/100 != 4 {
		t.Errorf("SendMail while down: %v, want a 4xx", err)
	}
	// DATA in the open session: the server reads the message, then answers 421.
	w, err := open.Data()
	if err != nil {
		t.Fatal(err)
	}
	w.Write(message(us, game, "during", "x"))
	if err := w.Close(); smtpCode(err) != 421 {
		t.Errorf("DATA while down: %v, want 421", err)
	}
	if err := open2.Mail(us, nil); smtpCode(err) != 421 {
		t.Errorf("MAIL while down: %v, want 421", err)
	}
	if n := srv.Accepted(); n != 0 {
		t.Errorf("Accepted = %d while down", n)
	}
	if box, _ := srv.Mailbox(game, "INBOX"); len(box) != 0 {
		t.Errorf("%d messages delivered while down", len(box))
	}
	// Deliver is no SMTP: it still works.
	if err := srv.Deliver(game, message(us, game, "seed", "x")); err != nil {
		t.Errorf("Deliver while SMTP is down: %v", err)
	}

	srv.SetSMTPDown(false)
	if err := send(t, srv, us, []string{game}, message(us, game, "back", "x")); err != nil {
		t.Errorf("SendMail after the outage: %v", err)
	}
	if err := open2.SendMail(us, []string{game}, bytes.NewReader(message(us, game, "back2", "x"))); err != nil {
		t.Errorf("the session open during the outage, after it: %v", err)
	}
	if n := srv.Accepted(); n != 2 {
		t.Errorf("Accepted = %d, want 2", n)
	}
}

// idler is an IMAP client idling on INBOX that reports each EXISTS.
type idler struct {
	c      *imapclient.Client
	exists chan uint32
}

func newIdler(t *testing.T, srv *devserver.Server, user, pass string) *idler {
	t.Helper()
	i := &idler{exists: make(chan uint32, 16)}
	i.c = dialIMAP(t, srv, user, pass, &imapclient.Options{
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				if data.NumMessages != nil {
					i.exists <- *data.NumMessages
				}
			},
		},
	})
	if _, err := i.c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	return i
}

func TestIdleSeesSMTPDelivery(t *testing.T) {
	srv := start(t, devserver.Options{})
	i := newIdler(t, srv, game, gamePass)
	idle, err := i.c.Idle()
	if err != nil {
		t.Fatal(err)
	}
	if err := send(t, srv, us, []string{game}, message(us, game, "wake up", "x")); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-i.exists:
		if n != 1 {
			t.Errorf("EXISTS %d, want 1", n)
		}
	case <-time.After(timeout):
		t.Fatal("no EXISTS while idling")
	}
	if err := idle.Close(); err != nil {
		t.Fatal(err)
	}
	if err := idle.Wait(); err != nil {
		t.Fatal(err)
	}
	sd, err := i.c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil || !slices.Equal(sd.AllUIDs(), []imap.UID{1}) {
		t.Fatalf("after IDLE: %v %v", sd, err)
	}

	// Deliver wakes an idler too.
	idle, err = i.c.Idle()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.Deliver(game, message(us, game, "seeded", "x")); err != nil {
		t.Fatal(err)
	}
	select {
	case n := <-i.exists:
		if n != 2 {
			t.Errorf("EXISTS %d, want 2", n)
		}
	case <-time.After(timeout):
		t.Fatal("no EXISTS after Deliver")
	}
	idle.Close()
	if err := idle.Wait(); err != nil {
		t.Fatal(err)
	}
}

func TestDropIMAPConnections(t *testing.T) {
	srv := start(t, devserver.Options{})
	i := newIdler(t, srv, game, gamePass)
	idle, err := i.c.Idle()
	if err != nil {
		t.Fatal(err)
	}
	// Mailbox's own session is not a client connection.
	if _, err := srv.Mailbox(game, "INBOX"); err != nil {
		t.Fatal(err)
	}
	if n := srv.DropIMAPConnections(); n != 1 {
		t.Errorf("DropIMAPConnections = %d, want 1", n)
	}
	waited := make(chan error, 1)
	go func() { waited <- idle.Wait() }()
	select {
	case err := <-waited:
		if err == nil {
			t.Error("IDLE ended without an error after the drop")
		}
	case <-time.After(timeout):
		t.Fatal("IDLE still running after the drop")
	}
	select {
	case <-i.c.Closed():
	case <-time.After(timeout):
		t.Fatal("client connection still open after the drop")
	}
	if n := srv.DropIMAPConnections(); n != 0 {
		t.Errorf("second DropIMAPConnections = %d, want 0", n)
	}

	// The server goes on: a new client connects and sees mail.
	if err := send(t, srv, us, []string{game}, message(us, game, "after drop", "x")); err != nil {
		t.Fatal(err)
	}
	c := dialIMAP(t, srv, game, gamePass, nil)
	sel, err := c.Select("INBOX", nil).Wait()
	if err != nil || sel.NumMessages != 1 {
		t.Fatalf("after the drop: %v, %v", sel, err)
	}
}

// rawIMAP runs commands over a plain text connection and returns each one's tagged
// status line ("a2 BAD ...").
func rawIMAP(t *testing.T, srv *devserver.Server, cmds ...string) []string {
	t.Helper()
	conn, err := net.DialTimeout("tcp", srv.IMAPAddr(), timeout)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(timeout))
	r := bufio.NewReader(conn)
	if _, err := r.ReadString('\n'); err != nil { // greeting
		t.Fatal(err)
	}
	var out []string
	for i, cmd := range cmds {
		tag := fmt.Sprintf("a%d", i+1)
		fmt.Fprintf(conn, "%s %s\r\n", tag, cmd)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatalf("%s: %v", cmd, err)
			}
			if strings.HasPrefix(line, "+ ") { // IDLE accepted
				fmt.Fprintf(conn, "DONE\r\n")
				continue
			}
			if strings.HasPrefix(line, tag+" ") {
				out = append(out, strings.TrimSpace(line))
				break
			}
		}
	}
	return out
}

func capsAfterLogin(t *testing.T, srv *devserver.Server) imap.CapSet {
	t.Helper()
	c := dialIMAP(t, srv, game, gamePass, nil)
	caps, err := c.Capability().Wait()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(capList(caps), capList(c.Caps())) {
		t.Errorf("CAPABILITY %v differs from the login response's %v", capList(caps), capList(c.Caps()))
	}
	return caps
}

func capList(caps imap.CapSet) []string {
	var l []string
	for c := range caps {
		l = append(l, string(c))
	}
	slices.Sort(l)
	return l
}

func TestCapabilities(t *testing.T) {
	t.Run("default", func(t *testing.T) {
		srv := start(t, devserver.Options{})
		caps := capsAfterLogin(t, srv)
		for _, c := range []imap.Cap{imap.CapIMAP4rev1, imap.CapIMAP4rev2, imap.CapIdle, imap.CapMove, imap.CapUIDPlus} {
			if _, ok := caps[c]; !ok {
				t.Errorf("%s not advertised: %v", c, capList(caps))
			}
		}
		got := rawIMAP(t, srv, "LOGIN "+game+" "+gamePass, "SELECT INBOX", "IDLE", "UID MOVE 1 INBOX")
		if !strings.HasPrefix(got[2], "a3 OK") {
			t.Errorf("IDLE: %s", got[2])
		}
	})
	t.Run("NoIdle", func(t *testing.T) {
		srv := start(t, devserver.Options{NoIdle: true})
		caps := capsAfterLogin(t, srv)
		if caps.Has(imap.CapIdle) || caps.Has(imap.CapIMAP4rev2) {
			t.Errorf("IDLE advertised: %v", capList(caps))
		}
		if !caps.Has(imap.CapMove) {
			t.Errorf("MOVE not advertised: %v", capList(caps))
		}
		got := rawIMAP(t, srv, "LOGIN "+game+" "+gamePass, "SELECT INBOX", "IDLE", "NOOP")
		if !strings.HasPrefix(got[2], "a3 BAD") || !strings.HasPrefix(got[3], "a4 OK") {
			t.Errorf("IDLE on a server without it: %q", got)
		}
		c := dialIMAP(t, srv, game, gamePass, nil)
		if _, err := c.Select("INBOX", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		if idle, err := c.Idle(); err == nil {
			idle.Close()
			t.Error("imapclient IDLE succeeded on a server without IDLE")
		}
	})
	t.Run("NoMove", func(t *testing.T) {
		srv := start(t, devserver.Options{NoMove: true, Mailboxes: []string{"Processed"}})
		caps := capsAfterLogin(t, srv)
		if caps.Has(imap.CapMove) || caps.Has(imap.CapIMAP4rev2) {
			t.Errorf("MOVE advertised: %v", capList(caps))
		}
		if !caps.Has(imap.CapIdle) || !caps.Has(imap.CapUIDPlus) {
			t.Errorf("IDLE or UIDPLUS not advertised: %v", capList(caps))
		}
		for _, s := range []string{"one", "two"} {
			if err := srv.Deliver(game, message(us, game, s, "x")); err != nil {
				t.Fatal(err)
			}
		}
		got := rawIMAP(t, srv, "LOGIN "+game+" "+gamePass, "SELECT INBOX", "UID MOVE 1 Processed")
		if !strings.HasPrefix(got[2], "a3 BAD") {
			t.Errorf("UID MOVE on a server without it: %s", got[2])
		}
		// imapclient falls back to COPY + STORE + EXPUNGE.
		c := dialIMAP(t, srv, game, gamePass, nil)
		if _, err := c.Select("INBOX", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Move(imap.UIDSetNum(1), "Processed").Wait(); err != nil {
			t.Fatal(err)
		}
		inbox, _ := srv.Mailbox(game, "INBOX")
		done, _ := srv.Mailbox(game, "Processed")
		if len(inbox) != 1 || inbox[0].UID != 2 || len(done) != 1 || !bytes.Contains(done[0].Raw, []byte("Subject: one")) {
			t.Errorf("after the fallback move: INBOX %v, Processed %v", inbox, done)
		}
	})
	t.Run("MOVE", func(t *testing.T) {
		srv := start(t, devserver.Options{})
		if err := srv.Deliver(game, message(us, game, "one", "x")); err != nil {
			t.Fatal(err)
		}
		c := dialIMAP(t, srv, game, gamePass, nil)
		if err := c.Create("Processed", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Select("INBOX", nil).Wait(); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Move(imap.UIDSetNum(1), "Processed").Wait(); err != nil {
			t.Fatal(err)
		}
		inbox, _ := srv.Mailbox(game, "INBOX")
		done, err := srv.Mailbox(game, "Processed")
		if len(inbox) != 0 || len(done) != 1 || err != nil {
			t.Errorf("after MOVE: INBOX %v, Processed %v (%v)", inbox, done, err)
		}
	})
}

func TestDeliverAndMailbox(t *testing.T) {
	srv := start(t, devserver.Options{NoIdle: true})
	// Lines that look like IMAP responses inside a message must reach the client as
	// they are: the wire filters skip literals.
	raw := []byte("From: <x@y.example>\r\nSubject: tricky\r\n\r\n* CAPABILITY IMAP4rev1 IDLE\r\na1 OK [CAPABILITY IDLE] x\r\n* 1 FETCH (FLAGS (\\seen))\r\n{5}\r\nIDLE\r\n")
	if err := srv.Deliver(game, raw); err != nil {
		t.Fatal(err)
	}
	for range 2 { // the read leaves it unseen
		box, err := srv.Mailbox(game, "INBOX")
		if err != nil {
			t.Fatal(err)
		}
		if len(box) != 1 || !bytes.Equal(box[0].Raw, raw) || len(box[0].Flags) != 0 || box[0].InternalDate.IsZero() {
			t.Fatalf("Mailbox = %+v", box)
		}
	}
	c := dialIMAP(t, srv, game, gamePass, nil)
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		t.Fatal(err)
	}
	msgs, err := c.Fetch(imap.UIDSetNum(1), &imap.FetchOptions{BodySection: []*imap.FetchItemBodySection{{}}}).Collect()
	if err != nil || len(msgs) != 1 {
		t.Fatal(err)
	}
	if got := msgs[0].FindBodySection(&imap.FetchItemBodySection{}); !bytes.Equal(got, raw) {
		t.Errorf("fetched over IMAP:\n%q\nwant\n%q", got, raw)
	}
	box, _ := srv.Mailbox(game, "INBOX")
	if len(box) != 1 || !slices.Equal(box[0].Flags, []string{`\Seen`}) {
		t.Errorf("after a FETCH without PEEK: %+v", box)
	}

	if _, err := srv.Mailbox(game, "Nonexistent"); err == nil {
		t.Error("Mailbox of a missing mailbox: no error")
	}
	if box, err := srv.Mailbox(us, "INBOX"); err != nil || len(box) != 0 {
		t.Errorf("empty INBOX: %v, %v", box, err)
	}
}

func TestCloseIdempotentFreesPorts(t *testing.T) {
	base := runtime.NumGoroutine()
	srv, err := devserver.Start(devserver.Options{Users: users()})
	if err != nil {
		t.Fatal(err)
	}
	imapAddr, smtpAddr := srv.IMAPAddr(), srv.SMTPAddr()

	// Open connections of every kind: an idling IMAP client, an SMTP session mid-way.
	i := newIdler(t, srv, game, gamePass)
	idle, err := i.c.Idle()
	if err != nil {
		t.Fatal(err)
	}
	sc := dialSMTP(t, srv)
	if err := sc.Mail(us, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := srv.Mailbox(game, "INBOX"); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- srv.Close() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Close: %v", err)
		}
	case <-ctx.Done():
		t.Fatal("Close hangs")
	}
	if err := srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if err := idle.Wait(); err == nil {
		t.Error("IDLE survived Close")
	}
	if err := sc.Rcpt(game, nil); err == nil {
		t.Error("SMTP session survived Close")
	}
	if err := srv.Deliver(game, []byte("x")); !errors.Is(err, devserver.ErrClosed) {
		t.Errorf("Deliver after Close: %v", err)
	}
	if _, err := srv.Mailbox(game, "INBOX"); err == nil {
		t.Error("Mailbox after Close: no error")
	}
	for _, addr := range []string{imapAddr, smtpAddr} {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("port of %s not freed: %v", addr, err)
			continue
		}
		ln.Close()
	}

	i.c.Close()
	sc.Close()
	eventually(t, "goroutines to settle", func() bool { return runtime.NumGoroutine() <= base })
}

func TestStartRejectsDuplicateUsers(t *testing.T) {
	_, err := devserver.Start(devserver.Options{Users: map[string]string{"a@x.example": "1", "A@x.example": "2"}})
	if err == nil {
		t.Error("Start accepted two users differing in case only")
	}
}
