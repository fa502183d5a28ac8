package mail_test

// The intake's tests run go-imap's own server (imapserver + imapmemserver) on
// loopback and talk real IMAP to it. The listener is wrapped so that a test
// can drop every connection, count the IDLE and UID SEARCH commands the
// intake sends, and (the server cannot be told not to) hide IDLE from the
// capabilities it advertises.

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"

	"github.com/adjutant-pbem/adjutant/mail"
)

const (
	intakeUser     = "game@example.org"
	intakePassword = "s3cret-mailbox-pw"
)

var (
	intakeCapsRev2    = imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapIMAP4rev2: {}}             // IDLE, MOVE, UIDPLUS
	intakeCapsRev1    = imap.CapSet{imap.CapIMAP4rev1: {}}                                    // IDLE, no MOVE
	intakeCapsMove    = imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapMove: {}}                  // IDLE, MOVE
	intakeCapsUIDPlus = imap.CapSet{imap.CapIMAP4rev1: {}, imap.CapUIDPlus: {}}               // no MOVE, UID EXPUNGE
	intakeEpoch       = time.Date(2024, time.March, 4, 9, 30, 0, 0, time.FixedZone("", 3600)) // whole seconds: INTERNALDATE has no fraction
)

// intakeCtx bounds a test.
func intakeCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	t.Cleanup(cancel)
	return ctx
}

type intakeServerOptions struct {
	caps     imap.CapSet
	noIdle   bool        // hide IDLE from the advertised capabilities
	tls      *tls.Config // implicit TLS on the listener
	startTLS *tls.Config // offer STARTTLS
}

type intakeServer struct {
	addr string
	user *imapmemserver.User
	ln   *intakeListener
	tls  bool
}

func startIntakeServer(t *testing.T, o intakeServerOptions) *intakeServer {
	t.Helper()
	mem := imapmemserver.New()
	user := imapmemserver.NewUser(intakeUser, intakePassword)
	if err := user.Create("INBOX", nil); err != nil {
		t.Fatalf("Create(INBOX) = %v", err)
	}
	mem.AddUser(user)
	srv := imapserver.New(&imapserver.Options{
		NewSession: func(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
			return mem.NewSession(), nil, nil
		},
		Caps:         o.caps,
		TLSConfig:    o.startTLS,
		InsecureAuth: true,
		Logger:       log.New(io.Discard, "", 0), // dropped connections are expected
	})
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("Listen() = %v", err)
	}
	il := &intakeListener{Listener: raw, noIdle: o.noIdle}
	var ln net.Listener = il
	if o.tls != nil {
		ln = tls.NewListener(il, o.tls)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		srv.Serve(ln)
	}()
	t.Cleanup(func() {
		srv.Close()
		<-done
	})
	return &intakeServer{addr: raw.Addr().String(), user: user, ln: il, tls: o.tls != nil}
}

// append adds a message as delivered at the given time and returns its UID.
func (s *intakeServer) append(t *testing.T, raw []byte, at time.Time) uint32 {
	t.Helper()
	data, err := s.user.Append("INBOX", bytes.NewReader(raw), &imap.AppendOptions{Time: at})
	if err != nil {
		t.Fatalf("Append() = %v", err)
	}
	return uint32(data.UID)
}

// seen reads, over a separate IMAP connection, which messages a mailbox
// holds: UID → whether it is flagged \Seen.
func (s *intakeServer) seen(t *testing.T, mailbox string) map[uint32]bool {
	t.Helper()
	var (
		c   *imapclient.Client
		err error
	)
	if s.tls {
		c, err = imapclient.DialTLS(s.addr, &imapclient.Options{TLSConfig: &tls.Config{InsecureSkipVerify: true}})
	} else {
		c, err = imapclient.DialInsecure(s.addr, nil)
	}
	if err != nil {
		t.Fatalf("inspect: dial: %v", err)
	}
	defer c.Close()
	if err := c.Login(intakeUser, intakePassword).Wait(); err != nil {
		t.Fatalf("inspect: Login() = %v", err)
	}
	sel, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		t.Fatalf("inspect: Select(%q) = %v", mailbox, err)
	}
	got := map[uint32]bool{}
	if sel.NumMessages == 0 {
		return got
	}
	var all imap.SeqSet
	all.AddRange(1, 0)
	msgs, err := c.Fetch(all, &imap.FetchOptions{UID: true, Flags: true}).Collect()
	if err != nil {
		t.Fatalf("inspect: Fetch() = %v", err)
	}
	for _, m := range msgs {
		seen := false
		for _, f := range m.Flags {
			seen = seen || f == imap.FlagSeen
		}
		got[uint32(m.UID)] = seen
	}
	c.Logout().Wait()
	return got
}

// intakeListener tracks the server's connections so that a test can drop
// them, and watches what the intake sends.
type intakeListener struct {
	net.Listener
	noIdle bool

	idles    atomic.Int32 // IDLE commands received
	searches atomic.Int32 // UID SEARCH commands received
	fetches  atomic.Int32 // UID FETCH commands received
	accepted atomic.Int32
	// slowStore holds each STORE command back a little, so that a flag
	// that shutdown could abandon would be abandoned.
	slowStore atomic.Bool

	mu    sync.Mutex
	conns []net.Conn
}

func (l *intakeListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.accepted.Add(1)
	ic := &intakeServerConn{Conn: c, l: l}
	l.mu.Lock()
	l.conns = append(l.conns, ic)
	l.mu.Unlock()
	return ic, nil
}

// drop closes every connection the server has accepted, as a network
// failure would.
func (l *intakeListener) drop() {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, c := range l.conns {
		c.Close()
	}
	l.conns = nil
}

type intakeServerConn struct {
	net.Conn
	l *intakeListener
}

func (c *intakeServerConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.l.idles.Add(int32(bytes.Count(p[:n], []byte(" IDLE\r\n"))))
	c.l.searches.Add(int32(bytes.Count(p[:n], []byte(" UID SEARCH "))))
	c.l.fetches.Add(int32(bytes.Count(p[:n], []byte(" UID FETCH "))))
	if c.l.slowStore.Load() && bytes.Contains(p[:n], []byte(" UID STORE ")) {
		time.Sleep(30 * time.Millisecond)
	}
	return n, err
}

func (c *intakeServerConn) Write(p []byte) (int, error) {
	if c.l.noIdle && bytes.Contains(p, []byte("CAPABILITY")) {
		// Same length, so that the counts stay right. A capability
		// response is written and flushed whole.
		q := bytes.ReplaceAll(p, []byte(" IDLE"), []byte(" XIDL"))
		if _, err := c.Conn.Write(q); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	return c.Conn.Write(p)
}

// intakeUntil waits for cond, polling briefly, within ctx.
func intakeUntil(t *testing.T, ctx context.Context, what string, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(2 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-tick.C:
		}
	}
}

// intakeMessage is a small order mail. Its Date is deliberately earlier for
// later messages: arrival order is the server's.
func intakeMessage(n int, body string) []byte {
	date := intakeEpoch.Add(-time.Duration(n) * time.Hour).Format(time.RFC1123Z)
	return fmt.Appendf(nil, "From: Player %[1]d <p%[1]d@example.org>\r\n"+
		"To: %[2]s\r\nSubject: orders %[1]d\r\nDate: %[3]s\r\n"+
		"Message-ID: <msg-%[1]d@example.org>\r\n\r\n%[4]s\r\n", n, intakeUser, date, body)
}

// intakeRecorder is a Handler that records what it is given.
type intakeRecorder struct {
	mu   sync.Mutex
	got  []mail.Delivery
	ch   chan mail.Delivery
	fail func(d mail.Delivery) error // may be nil
}

func newIntakeRecorder() *intakeRecorder {
	return &intakeRecorder{ch: make(chan mail.Delivery, 64)}
}

func (r *intakeRecorder) handle(_ context.Context, d mail.Delivery) error {
	if r.fail != nil {
		if err := r.fail(d); err != nil {
			return err
		}
	}
	r.mu.Lock()
	r.got = append(r.got, d)
	r.mu.Unlock()
	r.ch <- d
	return nil
}

func (r *intakeRecorder) deliveries() []mail.Delivery {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]mail.Delivery(nil), r.got...)
}

// next waits for the next handled delivery.
func (r *intakeRecorder) next(t *testing.T, ctx context.Context) mail.Delivery {
	t.Helper()
	select {
	case d := <-r.ch:
		return d
	case <-ctx.Done():
		t.Fatalf("timed out waiting for a delivery (have %d)", len(r.deliveries()))
		return mail.Delivery{}
	}
}

func (r *intakeRecorder) uids() []uint32 {
	var uids []uint32
	for _, d := range r.deliveries() {
		uids = append(uids, d.UID)
	}
	return uids
}

func newIntake(s *intakeServer, h mail.Handler) *mail.Intake {
	sec := "none"
	if s.tls {
		sec = "tls"
	}
	return &mail.Intake{
		Config: mail.IMAPConfig{
			Addr: s.addr, Security: sec, Username: intakeUser, Password: intakePassword,
			TLSInsecureSkipVerify: true,
		},
		Handle:     h,
		MinBackoff: 5 * time.Millisecond,
		MaxBackoff: 50 * time.Millisecond,
	}
}

// runIntake starts in.Run and returns a function that cancels it and checks
// that it returns nil promptly.
func runIntake(t *testing.T, ctx context.Context, in *mail.Intake) (stop func()) {
	t.Helper()
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()
	var once sync.Once
	stop = func() {
		t.Helper()
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run() = %v, want nil after cancel", err)
				}
			case <-time.After(5 * time.Second):
				t.Fatalf("Run() did not return after cancel")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func intakeWantSeen(t *testing.T, got map[uint32]bool, want map[uint32]bool) {
	t.Helper()
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("mailbox (uid:seen) = %v, want %v", got, want)
	}
}

func TestIntakeOnce(t *testing.T) {
	for _, tc := range []struct {
		name   string
		caps   imap.CapSet
		moveTo string
	}{
		{"flag only", intakeCapsRev2, ""},
		{"move IMAP4rev2", intakeCapsRev2, "Processed"},
		{"move with MOVE", intakeCapsMove, "Processed"},
		{"move without MOVE", intakeCapsRev1, "Processed"},
		{"move without MOVE with UIDPLUS", intakeCapsUIDPlus, "Done/Orders"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := intakeCtx(t)
			s := startIntakeServer(t, intakeServerOptions{caps: tc.caps})
			var raws [][]byte
			var uids []uint32
			for i := range 3 {
				raw := intakeMessage(i+1, fmt.Sprintf("BODY-MARKER-%d\r\nMOVE 2301-2302", i+1))
				raws = append(raws, raw)
				uids = append(uids, s.append(t, raw, intakeEpoch.Add(time.Duration(i)*time.Minute)))
			}
			rec := newIntakeRecorder()
			in := newIntake(s, rec.handle)
			in.Config.MoveTo = tc.moveTo
			var logs bytes.Buffer
			in.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))

			n, err := in.Once(ctx)
			if err != nil || n != 3 {
				t.Fatalf("Once() = %d, %v, want 3, nil", n, err)
			}
			got := rec.deliveries()
			if len(got) != 3 {
				t.Fatalf("handled %d messages, want 3", len(got))
			}
			for i, d := range got {
				if d.UID != uids[i] {
					t.Errorf("delivery %d: UID %d, want %d (UID order)", i, d.UID, uids[i])
				}
				if want := intakeEpoch.Add(time.Duration(i) * time.Minute); !d.Arrived.Equal(want) {
					t.Errorf("delivery %d: Arrived %v, want INTERNALDATE %v", i, d.Arrived, want)
				}
				if !bytes.Equal(d.Raw, raws[i]) || d.Size != int64(len(raws[i])) || d.TooLarge {
					t.Errorf("delivery %d: Size %d TooLarge %v Raw %q, want the whole message (%d bytes)", i, d.Size, d.TooLarge, d.Raw, len(raws[i]))
				}
				env, err := mail.ReadEnvelope(bytes.NewReader(d.Raw), 0)
				if err != nil || env.MessageID != fmt.Sprintf("msg-%d@example.org", i+1) {
					t.Errorf("delivery %d: ReadEnvelope() = %+v, %v", i, env, err)
				}
			}

			all := map[uint32]bool{uids[0]: true, uids[1]: true, uids[2]: true}
			if tc.moveTo == "" {
				intakeWantSeen(t, s.seen(t, "INBOX"), all)
			} else {
				intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{})
				moved := s.seen(t, tc.moveTo)
				if len(moved) != 3 {
					t.Errorf("%s holds %v, want 3 messages", tc.moveTo, moved)
				}
				for uid, seen := range moved {
					if !seen {
						t.Errorf("%s: uid %d not \\Seen", tc.moveTo, uid)
					}
				}
			}

			// A second pass finds nothing.
			if n, err := in.Once(ctx); err != nil || n != 0 {
				t.Errorf("second Once() = %d, %v, want 0, nil", n, err)
			}

			out := logs.String()
			for _, secret := range []string{intakePassword, "BODY-MARKER", "2301-2302"} {
				if strings.Contains(out, secret) {
					t.Errorf("log contains %q:\n%s", secret, out)
				}
			}
			if !strings.Contains(out, "uid=1 ") || !strings.Contains(out, "outcome=") {
				t.Errorf("log lacks uid and outcome:\n%s", out)
			}
		})
	}
}

// TestIntakeOnceMoveRefused: when the copy to MoveTo fails, the message must
// stay where it is. (go-imap's own Move fallback pipelines COPY, STORE
// \Deleted and EXPUNGE and would lose it.)
func TestIntakeOnceMoveRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		caps imap.CapSet
	}{
		{"MOVE", intakeCapsMove},
		{"COPY fallback", intakeCapsRev1},
		{"COPY fallback with UIDPLUS", intakeCapsUIDPlus},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := intakeCtx(t)
			s := startIntakeServer(t, intakeServerOptions{caps: tc.caps})
			uid := s.append(t, intakeMessage(1, "hold"), intakeEpoch)
			rec := newIntakeRecorder()
			rec.fail = func(mail.Delivery) error {
				// The mailbox vanishes after the intake made sure of it.
				if err := s.user.Delete("Processed"); err != nil {
					t.Errorf("Delete(Processed) = %v", err)
				}
				return nil
			}
			in := newIntake(s, rec.handle)
			in.Config.MoveTo = "Processed"
			if n, err := in.Once(ctx); err != nil || n != 1 {
				t.Fatalf("Once() = %d, %v, want 1, nil", n, err)
			}
			intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: true})
		})
	}
}

func TestIntakeOnceHandlerError(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	var uids []uint32
	for i := range 3 {
		uids = append(uids, s.append(t, intakeMessage(i+1, "orders"), intakeEpoch.Add(time.Duration(i)*time.Second)))
	}
	errStore := errors.New("store is full")
	rec := newIntakeRecorder()
	rec.fail = func(d mail.Delivery) error {
		if d.UID == uids[1] {
			return errStore
		}
		return nil
	}
	in := newIntake(s, rec.handle)

	n, err := in.Once(ctx)
	if n != 1 || !errors.Is(err, errStore) {
		t.Fatalf("Once() = %d, %v, want 1, %v", n, err, errStore)
	}
	if got := fmt.Sprint(rec.uids()); got != fmt.Sprint(uids[:1]) {
		t.Errorf("handled %s, want %v", got, uids[:1])
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uids[0]: true, uids[1]: false, uids[2]: false})

	rec.fail = nil
	if n, err := in.Once(ctx); n != 2 || err != nil {
		t.Fatalf("second Once() = %d, %v, want 2, nil", n, err)
	}
	if got := fmt.Sprint(rec.uids()); got != fmt.Sprint(uids) {
		t.Errorf("handled %s, want %v", got, uids)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uids[0]: true, uids[1]: true, uids[2]: true})
}

// TestIntakeRunHandlerErrorRetried: Run retries a failed message after
// back-off, and handles no later message before it.
func TestIntakeRunHandlerErrorRetried(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	var uids []uint32
	for i := range 3 {
		uids = append(uids, s.append(t, intakeMessage(i+1, "orders"), intakeEpoch))
	}
	var attempts atomic.Int32
	rec := newIntakeRecorder()
	rec.fail = func(d mail.Delivery) error {
		if d.UID == uids[1] && attempts.Add(1) <= 2 {
			return errors.New("transient")
		}
		return nil
	}
	in := newIntake(s, rec.handle)
	in.Config.PollInterval = time.Hour // retries come from the back-off, not the poll
	stop := runIntake(t, ctx, in)
	for range 3 {
		rec.next(t, ctx)
	}
	stop()
	if got := fmt.Sprint(rec.uids()); got != fmt.Sprint(uids) {
		t.Errorf("handled %s, want %v", got, uids)
	}
	if got := attempts.Load(); got != 3 {
		t.Errorf("uid %d tried %d times, want 3", uids[1], got)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uids[0]: true, uids[1]: true, uids[2]: true})
}

func TestIntakeOnceTooLarge(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	small := intakeMessage(1, "small")
	big := intakeMessage(2, strings.Repeat("BIG-BODY-LINE 4300x3\r\n", 100))
	header := big[:bytes.Index(big, []byte("\r\n\r\n"))+4]
	smallUID := s.append(t, small, intakeEpoch)
	bigUID := s.append(t, big, intakeEpoch.Add(time.Second))

	rec := newIntakeRecorder()
	in := newIntake(s, rec.handle)
	in.Config.MaxSize = 1024
	if len(small) > 1024 || len(big) <= 1024 || len(header) > 1024 {
		t.Fatalf("bad fixture sizes: %d, %d, %d", len(small), len(big), len(header))
	}
	if n, err := in.Once(ctx); n != 2 || err != nil {
		t.Fatalf("Once() = %d, %v, want 2, nil", n, err)
	}
	got := rec.deliveries()
	if len(got) != 2 {
		t.Fatalf("handled %d, want 2", len(got))
	}
	if d := got[0]; d.UID != smallUID || d.TooLarge || !bytes.Equal(d.Raw, small) {
		t.Errorf("small: UID %d TooLarge %v Raw %q", d.UID, d.TooLarge, d.Raw)
	}
	if d := got[1]; d.UID != bigUID || !d.TooLarge || d.Size != int64(len(big)) || !bytes.Equal(d.Raw, header) {
		t.Errorf("big: UID %d TooLarge %v Size %d Raw %q, want TooLarge, size %d, the header only", d.UID, d.TooLarge, d.Size, d.Raw, len(big))
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{smallUID: true, bigUID: true})

	// A header larger than MaxSize is cut at MaxSize.
	s.append(t, big, intakeEpoch.Add(2*time.Second))
	in.Config.MaxSize = 64
	if n, err := in.Once(ctx); n != 1 || err != nil {
		t.Fatalf("Once() = %d, %v, want 1, nil", n, err)
	}
	if d := rec.deliveries()[2]; !d.TooLarge || !bytes.Equal(d.Raw, big[:64]) {
		t.Errorf("cut header: TooLarge %v Raw %q, want %q", d.TooLarge, d.Raw, big[:64])
	}
}

// TestIntakeRunIdle: with IDLE, a message appended while the intake idles is
// handled at once, although the poll interval is an hour.
func TestIntakeRunIdle(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	rec := newIntakeRecorder()
	in := newIntake(s, rec.handle)
	in.Config.PollInterval = time.Hour
	stop := runIntake(t, ctx, in)

	intakeUntil(t, ctx, "IDLE", func() bool { return s.ln.idles.Load() >= 1 })
	start := time.Now()
	uid := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	if d := rec.next(t, ctx); d.UID != uid {
		t.Errorf("handled UID %d, want %d", d.UID, uid)
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("handled after %v", took)
	}
	intakeUntil(t, ctx, "IDLE again", func() bool { return s.ln.idles.Load() >= 2 })
	stop()
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: true})
}

// TestIntakeRunPoll: without IDLE the intake polls.
func TestIntakeRunPoll(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev1, noIdle: true})
	rec := newIntakeRecorder()
	in := newIntake(s, rec.handle)
	in.Config.PollInterval = 20 * time.Millisecond
	stop := runIntake(t, ctx, in)

	intakeUntil(t, ctx, "first search", func() bool { return s.ln.searches.Load() >= 1 })
	uid := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	if d := rec.next(t, ctx); d.UID != uid {
		t.Errorf("handled UID %d, want %d", d.UID, uid)
	}
	searches := s.ln.searches.Load()
	intakeUntil(t, ctx, "more polls", func() bool { return s.ln.searches.Load() >= searches+2 })
	stop()
	if n := s.ln.idles.Load(); n != 0 {
		t.Errorf("intake sent IDLE %d times to a server without IDLE", n)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: true})
}

// TestIntakeRunReconnect: the connection drops while idling; the intake
// reconnects and handles what arrived meanwhile, each message exactly once.
func TestIntakeRunReconnect(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	rec := newIntakeRecorder()
	in := newIntake(s, rec.handle)
	in.Config.PollInterval = time.Hour
	stop := runIntake(t, ctx, in)

	intakeUntil(t, ctx, "IDLE", func() bool { return s.ln.idles.Load() >= 1 })
	uid1 := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	rec.next(t, ctx)
	intakeUntil(t, ctx, "IDLE after the first message", func() bool { return s.ln.idles.Load() >= 2 })

	s.ln.drop()
	uid2 := s.append(t, intakeMessage(2, "orders"), intakeEpoch.Add(time.Second))
	uid3 := s.append(t, intakeMessage(3, "orders"), intakeEpoch.Add(2*time.Second))
	rec.next(t, ctx)
	rec.next(t, ctx)
	intakeUntil(t, ctx, "IDLE after reconnecting", func() bool { return s.ln.idles.Load() >= 3 })
	stop()

	if got, want := fmt.Sprint(rec.uids()), fmt.Sprint([]uint32{uid1, uid2, uid3}); got != want {
		t.Errorf("handled %s, want %s", got, want)
	}
	if n := s.ln.accepted.Load(); n < 2 {
		t.Errorf("%d connections, want a reconnection", n)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid1: true, uid2: true, uid3: true})
}

// TestIntakeRunDropInPass: the connection drops after the handler committed
// and before the flag. The message comes again; the handler (idempotent by
// Message-ID) sees it twice and its effect happens once.
func TestIntakeRunDropInPass(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	uid := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	var mu sync.Mutex
	calls := map[string]int{}
	effects := 0
	handled := make(chan struct{}, 8)
	in := newIntake(s, func(_ context.Context, d mail.Delivery) error {
		env, err := mail.ReadEnvelope(bytes.NewReader(d.Raw), 0)
		if err != nil {
			return err
		}
		mu.Lock()
		calls[env.MessageID]++
		first := calls[env.MessageID] == 1
		if first {
			effects++ // "committed"
		}
		mu.Unlock()
		if first {
			s.ln.drop() // the flag cannot reach the server
		}
		handled <- struct{}{}
		return nil
	})
	in.Config.PollInterval = time.Hour
	stop := runIntake(t, ctx, in)
	for range 2 {
		select {
		case <-handled:
		case <-ctx.Done():
			t.Fatalf("timed out: calls %v", calls)
		}
	}
	intakeUntil(t, ctx, "IDLE after the redelivery", func() bool { return s.ln.idles.Load() >= 1 })
	stop()
	mu.Lock()
	defer mu.Unlock()
	if calls["msg-1@example.org"] != 2 || effects != 1 {
		t.Errorf("calls %v, effects %d; want 2 calls, 1 effect", calls, effects)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: true})
}

// TestIntakeRunShutdown: cancelling Run lets the message being handled
// finish, with an uncancelled context, and be flagged; no more are fetched.
func TestIntakeRunShutdown(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	uid1 := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	uid2 := s.append(t, intakeMessage(2, "orders"), intakeEpoch.Add(time.Second))
	s.ln.slowStore.Store(true)

	entered := make(chan struct{})
	release := make(chan struct{})
	var handlerCtxErr error
	var calls atomic.Int32
	in := newIntake(s, func(hctx context.Context, d mail.Delivery) error {
		calls.Add(1)
		if d.UID == uid1 {
			close(entered)
			<-release
			handlerCtxErr = hctx.Err()
		}
		return nil
	})
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- in.Run(runCtx) }()

	select {
	case <-entered:
	case <-ctx.Done():
		t.Fatal("handler not called")
	}
	cancel()
	select {
	case err := <-done:
		t.Fatalf("Run() = %v while the handler was running", err)
	case <-time.After(20 * time.Millisecond):
	}
	close(release)
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run() = %v, want nil", err)
		}
	case <-ctx.Done():
		t.Fatal("Run() did not return after cancel")
	}
	if handlerCtxErr != nil {
		t.Errorf("handler context: %v, want not cancelled", handlerCtxErr)
	}
	if n := calls.Load(); n != 1 {
		t.Errorf("handler called %d times, want 1", n)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid1: true, uid2: false})
}

func TestIntakeRunCancelWhileIdle(t *testing.T) {
	ctx := intakeCtx(t)
	for _, tc := range []struct {
		name   string
		o      intakeServerOptions
		events func(*intakeListener) int32
	}{
		{"idle", intakeServerOptions{caps: intakeCapsRev2}, func(l *intakeListener) int32 { return l.idles.Load() }},
		{"poll", intakeServerOptions{caps: intakeCapsRev1, noIdle: true}, func(l *intakeListener) int32 { return l.searches.Load() }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startIntakeServer(t, tc.o)
			in := newIntake(s, newIntakeRecorder().handle)
			in.Config.PollInterval = time.Hour
			stop := runIntake(t, ctx, in)
			intakeUntil(t, ctx, "waiting", func() bool { return tc.events(s.ln) >= 1 })
			start := time.Now()
			stop()
			if took := time.Since(start); took > time.Second {
				t.Errorf("Run() took %v to return", took)
			}
		})
	}
}

func TestIntakeSecurity(t *testing.T) {
	ctx := intakeCtx(t)
	handler := func(context.Context, mail.Delivery) error { return nil }
	for _, addr := range []string{"192.0.2.1:143", "imap.example.org:143", "[2001:db8::1]:143", "localhost.example.org:143"} {
		in := &mail.Intake{Config: mail.IMAPConfig{Addr: addr, Security: "none", Username: "u", Password: "p"}, Handle: handler}
		if _, err := in.Once(ctx); !errors.Is(err, mail.ErrIMAPInsecure) {
			t.Errorf("Once() with none to %s = %v, want ErrIMAPInsecure", addr, err)
		}
		if err := in.Run(ctx); !errors.Is(err, mail.ErrIMAPInsecure) {
			t.Errorf("Run() with none to %s = %v, want ErrIMAPInsecure", addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:143", "127.8.9.10:143", "[::1]:143", "localhost:143", "LOCALHOST:143"} {
		c := mail.IMAPConfig{Addr: addr, Security: "none", Username: "u"}
		if err := c.Validate(); err != nil {
			t.Errorf("Validate() with none to %s = %v, want nil", addr, err)
		}
	}
	for _, c := range []mail.IMAPConfig{
		{Addr: "imap.example.org", Username: "u"},
		{Addr: "imap.example.org:993", Security: "ssl", Username: "u"},
		{Addr: "imap.example.org:993"},
		{Addr: "imap.example.org:993", Username: "u", MoveTo: "inbox"},
		{Addr: "imap.example.org:993", Username: "u", Mailbox: "Orders", MoveTo: "Orders"},
		{Addr: "imap.example.org:993", Username: "u", PollInterval: -time.Second},
	} {
		if err := c.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", c)
		}
	}
	if err := (mail.IMAPConfig{Addr: "imap.example.org:993", Username: "u"}).Validate(); err != nil {
		t.Errorf("Validate() of a tls config = %v", err)
	}
	if _, err := (&mail.Intake{Config: mail.IMAPConfig{Addr: "127.0.0.1:1", Security: "none", Username: "u"}}).Once(ctx); err == nil {
		t.Errorf("Once() without a handler = nil, want an error")
	}
}

func TestIntakeLoginRefused(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	uid := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
	in := newIntake(s, newIntakeRecorder().handle)
	in.Config.Password = "wrong-password-xyz"
	_, err := in.Once(ctx)
	if err == nil {
		t.Fatal("Once() with a wrong password = nil, want an error")
	}
	if strings.Contains(err.Error(), "wrong-password-xyz") {
		t.Errorf("error reveals the password: %v", err)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: false})
}

func TestIntakeTLS(t *testing.T) {
	ctx := intakeCtx(t)
	cert := intakeCert(t)
	serverTLS := &tls.Config{Certificates: []tls.Certificate{cert}}
	for _, tc := range []struct {
		security string
		o        intakeServerOptions
	}{
		{"tls", intakeServerOptions{caps: intakeCapsRev2, tls: serverTLS}},
		{"starttls", intakeServerOptions{caps: intakeCapsRev1, startTLS: serverTLS}},
	} {
		t.Run(tc.security, func(t *testing.T) {
			s := startIntakeServer(t, tc.o)
			uid := s.append(t, intakeMessage(1, "orders"), intakeEpoch)
			rec := newIntakeRecorder()
			in := newIntake(s, rec.handle)
			in.Config.Security = tc.security

			// The certificate is checked unless told otherwise.
			in.Config.TLSInsecureSkipVerify = false
			var cerr *tls.CertificateVerificationError
			if _, err := in.Once(ctx); !errors.As(err, &cerr) {
				t.Errorf("Once() with an unknown certificate = %v, want a verification error", err)
			}

			in.Config.TLSInsecureSkipVerify = true
			if n, err := in.Once(ctx); n != 1 || err != nil {
				t.Fatalf("Once() = %d, %v, want 1, nil", n, err)
			}
			intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uid: true})
		})
	}
}

// intakeCert makes a self-signed certificate for 127.0.0.1 and localhost, for the IMAP
// and the SMTP tests alike.
func intakeCert(t testing.TB) tls.Certificate {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "adjutant test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
}

// TestIntakeSweepsSeenNotMoved (issue 9): a message flagged \Seen but still in the
// mailbox (the daemon died between the flag and the move) goes through the handler again
// at the next start, which knows it (a duplicate), and is moved then.
func TestIntakeSweepsSeenNotMoved(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsMove})
	data, err := s.user.Append("INBOX", bytes.NewReader(intakeMessage(1, "STATUS")), &imap.AppendOptions{Time: intakeEpoch, Flags: []imap.Flag{imap.FlagSeen}})
	if err != nil {
		t.Fatal(err)
	}
	unseen := s.append(t, intakeMessage(2, "MAP"), intakeEpoch.Add(time.Minute))
	rec := newIntakeRecorder()
	in := newIntake(s, rec.handle)
	in.Config.MoveTo = "Processed"
	if n, err := in.Once(ctx); err != nil || n != 2 {
		t.Fatalf("Once() = %d, %v; want both messages handed over", n, err)
	}
	if got := rec.uids(); fmt.Sprint(got) != fmt.Sprint([]uint32{uint32(data.UID), unseen}) {
		t.Errorf("handed over %v, want the seen one then the new one", got)
	}
	intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{})
	if moved := s.seen(t, "Processed"); len(moved) != 2 {
		t.Errorf("Processed holds %v, want both", moved)
	}
	// Without MoveTo a \Seen message is where handled mail stays: never handed again.
	s2 := startIntakeServer(t, intakeServerOptions{caps: intakeCapsMove})
	if _, err := s2.user.Append("INBOX", bytes.NewReader(intakeMessage(3, "STATUS")), &imap.AppendOptions{Time: intakeEpoch, Flags: []imap.Flag{imap.FlagSeen}}); err != nil {
		t.Fatal(err)
	}
	rec2 := newIntakeRecorder()
	if n, err := newIntake(s2, rec2.handle).Once(ctx); err != nil || n != 0 {
		t.Errorf("without MoveTo: Once() = %d, %v; want 0", n, err)
	}
}
