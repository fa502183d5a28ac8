package mail_test

// Test fixtures of the outbox drain: a real SMTP server (go-smtp) on loopback that records
// what it accepts and can be told to misbehave, a temporary bbolt store, a settable clock.

import (
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"io"
	"log"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	gosmtp "github.com/emersion/go-smtp"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// smtpGot is one message the sink accepted.
type smtpGot struct {
	From string
	To   []string
	User string // the authenticated user, "" without AUTH
	TLS  bool
	Raw  []byte
}

// smtpSink is a go-smtp server on 127.0.0.1 recording every accepted message. Its knobs
// may be changed while it runs.
type smtpSink struct {
	t testing.TB

	// Set before start.
	startTLS    *tls.Config             // offer STARTTLS
	implicitTLS *tls.Config             // TLS from the first byte
	readTimeout time.Duration           // idle timeout (the server answers 421 and closes)
	wrap        func(net.Conn) net.Conn // watches each connection, when set

	ln   net.Listener // the port, held from start to cleanup
	addr string

	mu       sync.Mutex
	srv      *gosmtp.Server         // nil while stopped
	cur      *smtpChanListener      // where accepted connections go; nil while stopped
	users    map[string]string      // AUTH required when non-empty
	mechs    []string               // advertised AUTH mechanisms
	refuse   map[string]int         // recipient -> reply code to RCPT
	dataDrop func(n int) bool       // close the connection instead of answering the n-th DATA
	dropIf   string                 // close it instead of answering any DATA holding this
	got      []smtpGot              // accepted messages, in order
	sessions int                    // sessions started (EHLO)
	datas    int                    // DATA bodies read
	onData   func(n int, g smtpGot) // called (outside mu) for each accepted message
}

func newSMTPSink(t testing.TB, configure func(*smtpSink)) *smtpSink {
	t.Helper()
	k := &smtpSink{t: t, refuse: map[string]int{}}
	if configure != nil {
		configure(k)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("smtp sink: listen: %v", err)
	}
	k.ln, k.addr = ln, ln.Addr().String()
	go k.accept()
	k.restart()
	t.Cleanup(func() {
		k.stop()
		ln.Close()
	})
	return k
}

// accept owns the port for the whole test, so that a stopped server keeps it: no other
// program can take it meanwhile. While the server is stopped, connections are reset at
// once, as by a host whose SMTP daemon is down.
func (k *smtpSink) accept() {
	for {
		c, err := k.ln.Accept()
		if err != nil {
			return
		}
		if k.wrap != nil {
			c = k.wrap(c)
		}
		k.mu.Lock()
		cl := k.cur
		k.mu.Unlock()
		if cl == nil {
			if tc, ok := c.(*net.TCPConn); ok {
				tc.SetLinger(0)
			}
			c.Close()
			continue
		}
		select {
		case cl.ch <- c:
		case <-cl.done:
			c.Close()
		}
	}
}

// restart starts a fresh SMTP server on the sink's port.
func (k *smtpSink) restart() {
	cl := &smtpChanListener{ch: make(chan net.Conn), done: make(chan struct{}), addr: k.ln.Addr()}
	var ln net.Listener = cl
	if k.implicitTLS != nil {
		ln = tls.NewListener(ln, k.implicitTLS)
	}
	srv := gosmtp.NewServer(k)
	srv.Domain = "localhost"
	srv.AllowInsecureAuth = true
	srv.TLSConfig = k.startTLS
	srv.ReadTimeout = k.readTimeout
	srv.ErrorLog = log.New(io.Discard, "", 0)
	k.mu.Lock()
	k.srv, k.cur = srv, cl
	k.mu.Unlock()
	go srv.Serve(ln)
}

// stop closes the SMTP server and every connection; the port refuses service until restart.
func (k *smtpSink) stop() {
	k.mu.Lock()
	srv := k.srv
	k.srv, k.cur = nil, nil
	k.mu.Unlock()
	if srv != nil {
		srv.Close()
	}
}

// smtpChanListener hands the connections accepted on the sink's port to one server.
type smtpChanListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
	addr net.Addr
}

func (l *smtpChanListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *smtpChanListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *smtpChanListener) Addr() net.Addr { return l.addr }

func (k *smtpSink) address() string { return k.addr }

func (k *smtpSink) received() []smtpGot {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]smtpGot(nil), k.got...)
}

func (k *smtpSink) sessionCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.sessions
}

func (k *smtpSink) setRefuse(rcpt string, code int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if code == 0 {
		delete(k.refuse, rcpt)
	} else {
		k.refuse[rcpt] = code
	}
}

// NewSession implements gosmtp.Backend.
func (k *smtpSink) NewSession(c *gosmtp.Conn) (gosmtp.Session, error) {
	k.mu.Lock()
	k.sessions++
	k.mu.Unlock()
	return &smtpSinkSession{k: k, c: c}, nil
}

type smtpSinkSession struct {
	k    *smtpSink
	c    *gosmtp.Conn
	user string
	from string
	to   []string
}

func (s *smtpSinkSession) AuthMechanisms() []string {
	s.k.mu.Lock()
	defer s.k.mu.Unlock()
	return s.k.mechs
}

func (s *smtpSinkSession) Auth(mech string) (sasl.Server, error) {
	check := func(user, pass string) error {
		s.k.mu.Lock()
		want, ok := s.k.users[user]
		s.k.mu.Unlock()
		if !ok || pass != want {
			return gosmtp.ErrAuthFailed
		}
		s.user = user
		return nil
	}
	switch mech {
	case "PLAIN":
		return sasl.NewPlainServer(func(_, user, pass string) error { return check(user, pass) }), nil
	case "LOGIN":
		return &smtpSinkLogin{check: check}, nil
	}
	return nil, gosmtp.ErrAuthUnknownMechanism
}

func (s *smtpSinkSession) Mail(from string, _ *gosmtp.MailOptions) error {
	s.k.mu.Lock()
	needAuth := len(s.k.users) > 0
	s.k.mu.Unlock()
	if needAuth && s.user == "" {
		return gosmtp.ErrAuthRequired
	}
	s.from = from
	return nil
}

func (s *smtpSinkSession) Rcpt(to string, _ *gosmtp.RcptOptions) error {
	s.k.mu.Lock()
	code := s.k.refuse[to]
	s.k.mu.Unlock()
	if code != 0 {
		return &gosmtp.SMTPError{Code: code, EnhancedCode: gosmtp.EnhancedCode{code / 100, 1, 1}, Message: "no such mailbox here"}
	}
	s.to = append(s.to, to)
	return nil
}

func (s *smtpSinkSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.c.TLSConnectionState()
	g := smtpGot{From: s.from, To: append([]string(nil), s.to...), User: s.user, TLS: isTLS, Raw: raw}
	s.k.mu.Lock()
	s.k.datas++
	n := s.k.datas
	drop := (s.k.dataDrop != nil && s.k.dataDrop(n)) || (s.k.dropIf != "" && bytes.Contains(g.Raw, []byte(s.k.dropIf)))
	if !drop {
		s.k.got = append(s.k.got, g)
	}
	onData := s.k.onData
	s.k.mu.Unlock()
	if drop {
		s.c.Conn().Close() // no reply at all: the client cannot know whether it went
		return errors.New("connection dropped by the test")
	}
	if onData != nil {
		onData(n, g)
	}
	return nil
}

func (s *smtpSinkSession) Reset()        { s.from, s.to = "", nil }
func (s *smtpSinkSession) Logout() error { return nil }

// smtpSinkLogin is the server side of AUTH LOGIN (go-sasl has only the client side).
type smtpSinkLogin struct {
	check func(user, pass string) error
	step  int
	user  string
}

func (l *smtpSinkLogin) Next(resp []byte) ([]byte, bool, error) {
	switch l.step {
	case 0:
		l.step++
		if len(resp) == 0 {
			return []byte("Username:"), false, nil
		}
		fallthrough
	case 1:
		l.step = 2
		l.user = string(resp)
		return []byte("Password:"), false, nil
	default:
		return nil, true, l.check(l.user, string(resp))
	}
}

// smtpSelfSigned returns a TLS configuration with a fresh self-signed certificate for
// 127.0.0.1 and localhost.
func smtpSelfSigned(t testing.TB) *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{intakeCert(t)}, MinVersion: tls.VersionTLS12}
}

// sendClock is a settable clock for Sender.Now.
type sendClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSendClock() *sendClock {
	return &sendClock{t: time.Date(2025, 3, 21, 4, 40, 0, 0, time.UTC)}
}

func (c *sendClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *sendClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func sendOpenStore(t testing.TB) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "adjutant.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// sendEnqueue puts mails in the outbox, in order, and returns them with their Seq.
func sendEnqueue(t testing.TB, db store.Store, mails ...store.OutMail) []store.OutMail {
	t.Helper()
	out := make([]store.OutMail, 0, len(mails))
	err := db.Write(context.Background(), func(tx store.Tx) error {
		for _, m := range mails {
			m, err := tx.Enqueue(m)
			if err != nil {
				return err
			}
			out = append(out, m)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sendOutbox returns the outbox by Seq.
func sendOutbox(t testing.TB, db store.Store) map[uint64]store.OutMail {
	t.Helper()
	out := map[uint64]store.OutMail{}
	err := db.Read(context.Background(), func(tx store.Tx) error {
		all, err := tx.Outbox()
		for _, m := range all {
			out[m.Seq] = m
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// sendMail is an outbox mail for the tests.
func sendMail(id, to, game, body string) store.OutMail {
	return store.OutMail{
		MessageID: id, To: []string{to}, Subject: "Soldiers 1918: results of turn 3",
		Body: body, Game: game, Side: "us", Kind: "results",
		Queued: time.Date(2025, 3, 21, 4, 30, 0, 0, time.UTC),
	}
}

// newTestSender is a Sender towards the sink in plain text (loopback).
func newTestSender(t testing.TB, k *smtpSink, db store.Store, clock *sendClock, logw io.Writer) *mail.Sender {
	t.Helper()
	host, port, err := net.SplitHostPort(k.address())
	if err != nil {
		t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	s := &mail.Sender{
		Config: mail.SMTPConfig{
			Host: host, Port: p, Security: "none", From: "game@adjutant.example",
			HeloName: "adjutant.test", Timeout: 5 * time.Second,
		},
		Store:       db,
		MinBackoff:  time.Minute,
		MaxBackoff:  time.Hour,
		MaxAttempts: 3,
	}
	if clock != nil {
		s.Now = clock.Now
	}
	if logw != nil {
		s.Log = smtpTestLogger(logw)
	}
	return s
}

// sendFlakyStore is a store whose writes can be made to fail or to be slow.
type sendFlakyStore struct {
	store.Store
	failWrites atomic.Bool
	slowWrites atomic.Int64 // nanoseconds of delay before each write
}

var errSendFlaky = errors.New("disk on fire (test)")

func (f *sendFlakyStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	if d := time.Duration(f.slowWrites.Load()); d > 0 {
		time.Sleep(d)
	}
	if f.failWrites.Load() {
		return errSendFlaky
	}
	return f.Store.Write(ctx, fn)
}

// smtpLockedBuffer is a bytes.Buffer safe for a logger and a reader in two goroutines.
type smtpLockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *smtpLockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *smtpLockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
