// Package devserver is an embedded IMAP and SMTP server on loopback, for `adjutant demo`
// and for tests. It is never used by the production `serve` paths.
//
// Mail accepted over SMTP for a known address is delivered into that user's INBOX, as a
// real provider would do it: scripted players send over SMTP and read over IMAP, and the
// daemon reads the game mailbox over IMAP and sends over SMTP.
//
// The IMAP side is go-imap v2's imapserver with its in-memory backend (imapmemserver);
// the SMTP side is go-smtp. Every connection goes through a small wrapper that tracks it
// (so that Close and DropIMAPConnections can end it) and, for IMAP, adjusts the wire:
//
//   - imapserver advertises IDLE whenever IMAP4rev1 is on, whatever Options.Caps says,
//     and accepts the IDLE command unconditionally. With NoIdle the wrapper strips IDLE
//     from every CAPABILITY list and turns an IDLE command into an unknown command
//     (the client gets a tagged BAD), as on a server that lacks the extension.
//   - imapmemserver stores flags lower-cased and reports them so (`\seen`); the wrapper
//     restores the canonical case of the system flags (`\Seen`) in FLAGS lists, as
//     Dovecot and the big providers write them.
//
// Capabilities after login, by default: IMAP4rev2 IMAP4rev1 SASL-IR LITERAL- UNSELECT
// ENABLE IDLE UTF8=ACCEPT NAMESPACE UIDPLUS ESEARCH SEARCHRES LIST-EXTENDED LIST-STATUS
// MOVE STATUS=SIZE CHILDREN (before login: IMAP4rev2 IMAP4rev1 SASL-IR LITERAL-
// AUTH=PLAIN). IMAP4rev2 implies IDLE and MOVE, so NoIdle or NoMove also withdraw it and
// what it implies, leaving IMAP4rev1 SASL-IR LITERAL- UNSELECT ENABLE UTF8=ACCEPT
// NAMESPACE UIDPLUS ESEARCH plus IDLE (unless NoIdle) and MOVE (unless NoMove). SMTP
// offers PIPELINING 8BITMIME ENHANCEDSTATUSCODES CHUNKING, AUTH PLAIN, SIZE 10485760.
//
// The IMAP session also replaces imapmemserver's IDLE, which can miss an update that
// arrives just as IDLE starts (see imapSession.Idle).
package devserver

import (
	"bytes"
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
	"github.com/emersion/go-smtp"
)

// Errors returned by the Server's methods.
var (
	ErrClosed      = errors.New("devserver: server closed")
	ErrUnknownUser = errors.New("devserver: no such user")
)

// Options configure a Server.
type Options struct {
	Users  map[string]string // address -> password; the IMAP and SMTP login name is the full address
	NoIdle bool              // do not advertise IDLE (to test polling)
	NoMove bool              // do not advertise MOVE (to test the COPY+STORE+EXPUNGE fallback)
	Log    *slog.Logger      // nil: discard

	// Mailboxes are created for every user besides INBOX (e.g. "Processed"). By
	// default a user has INBOX only, like a fresh account at a provider; clients may
	// CREATE more.
	Mailboxes []string
}

// Message is one message of a mailbox, as Mailbox returns it.
type Message struct {
	UID          uint32
	Flags        []string // canonical case for system flags (`\Seen`), sorted
	Raw          []byte
	InternalDate time.Time // the arrival time (IMAP INTERNALDATE)
}

// Server is a running pair of IMAP and SMTP servers on 127.0.0.1.
type Server struct {
	opts     Options
	log      *slog.Logger
	accounts map[string]*account // by lower-cased address

	imap     *imapserver.Server
	smtp     *smtp.Server
	imapLn   *trackListener // TCP, for clients
	pipeLn   *trackListener // in-process pipes, for Mailbox
	smtpLn   *trackListener
	pipes    *pipeListener
	serveWG  sync.WaitGroup
	closeMu  sync.Mutex // serialises Close
	isClosed bool

	mu       sync.Mutex // guards the fields below
	closed   bool
	conns    map[*trackedConn]struct{}
	smtpDown bool
	rejected map[string]bool // lower-cased addresses
	accepted int
	queueID  uint64
	wake     chan struct{} // closed and replaced on every change to a mailbox
}

type account struct {
	addr     string // as given in Options.Users
	password string
	user     *imapmemserver.User
}

// Start starts both servers, each on 127.0.0.1 with a port chosen by the system.
func Start(opts Options) (*Server, error) {
	s := &Server{
		opts:     opts,
		log:      opts.Log,
		accounts: make(map[string]*account, len(opts.Users)),
		conns:    make(map[*trackedConn]struct{}),
		rejected: make(map[string]bool),
		wake:     make(chan struct{}),
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}

	mem := imapmemserver.New()
	for addr, password := range opts.Users {
		key := canonAddr(addr)
		if key == "" {
			return nil, errors.New("devserver: empty user address")
		}
		if _, dup := s.accounts[key]; dup {
			return nil, fmt.Errorf("devserver: user %q given twice", addr)
		}
		u := imapmemserver.NewUser(addr, password)
		for _, name := range append([]string{"INBOX"}, opts.Mailboxes...) {
			if strings.EqualFold(name, "INBOX") && name != "INBOX" {
				continue
			}
			if err := u.Create(name, nil); err != nil {
				return nil, fmt.Errorf("devserver: creating %s for %s: %w", name, addr, err)
			}
		}
		mem.AddUser(u)
		s.accounts[key] = &account{addr: addr, password: password, user: u}
	}

	s.imap = imapserver.New(&imapserver.Options{
		NewSession:   s.newIMAPSession,
		Caps:         s.imapCaps(),
		Logger:       logAdapter{s.log.With("server", "imap")},
		InsecureAuth: true, // loopback only
	})

	s.smtp = smtp.NewServer(smtpBackend{s})
	s.smtp.Domain = "localhost"
	s.smtp.AllowInsecureAuth = true // loopback only
	s.smtp.MaxMessageBytes = 10 << 20
	s.smtp.MaxRecipients = 100
	s.smtp.ReadTimeout = 5 * time.Minute
	s.smtp.WriteTimeout = time.Minute
	s.smtp.ErrorLog = logAdapter{s.log.With("server", "smtp")}

	imapTCP, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("devserver: IMAP listener: %w", err)
	}
	smtpTCP, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		imapTCP.Close()
		return nil, fmt.Errorf("devserver: SMTP listener: %w", err)
	}
	s.pipes = newPipeListener()
	s.imapLn = &trackListener{Listener: imapTCP, s: s, imap: true}
	s.pipeLn = &trackListener{Listener: s.pipes, s: s, imap: true, internal: true}
	s.smtpLn = &trackListener{Listener: smtpTCP, s: s}

	s.serve("imap", func() error { return s.imap.Serve(s.imapLn) })
	s.serve("imap-internal", func() error { return s.imap.Serve(s.pipeLn) })
	s.serve("smtp", func() error { return s.smtp.Serve(s.smtpLn) })

	s.log.Debug("devserver started", "imap", s.IMAPAddr(), "smtp", s.SMTPAddr(),
		"users", len(s.accounts), "idle", !opts.NoIdle, "move", !opts.NoMove)
	return s, nil
}

func (s *Server) serve(name string, f func() error) {
	s.serveWG.Add(1)
	go func() {
		defer s.serveWG.Done()
		err := f()
		s.mu.Lock()
		closed := s.closed
		s.mu.Unlock()
		if err != nil && !closed {
			s.log.Error("devserver listener stopped", "server", name, "err", err)
		}
	}()
}

// imapCaps is the capability set given to imapserver. IMAP4rev2 implies both IDLE and
// MOVE, so it is advertised only when neither is turned off.
func (s *Server) imapCaps() imap.CapSet {
	caps := imap.CapSet{
		imap.CapIMAP4rev1: {},
		imap.CapUIDPlus:   {},
		imap.CapNamespace: {},
		imap.CapESearch:   {},
	}
	if !s.opts.NoMove {
		caps[imap.CapMove] = struct{}{}
	}
	if !s.opts.NoIdle && !s.opts.NoMove {
		caps[imap.CapIMAP4rev2] = struct{}{}
	}
	return caps
}

// IMAPAddr is the IMAP server's address, "127.0.0.1:port".
func (s *Server) IMAPAddr() string { return s.imapLn.Addr().String() }

// SMTPAddr is the SMTP server's address, "127.0.0.1:port".
func (s *Server) SMTPAddr() string { return s.smtpLn.Addr().String() }

// Close stops both servers and closes every connection; it returns once their
// goroutines are gone (or after a few seconds if one is stuck). It is idempotent.
func (s *Server) Close() error {
	s.closeMu.Lock()
	defer s.closeMu.Unlock()
	if s.isClosed {
		return nil
	}
	s.isClosed = true

	s.mu.Lock()
	s.closed = true
	s.mu.Unlock()

	// Stop accepting: every Serve loop returns once its listener is closed.
	s.imapLn.Close()
	s.pipeLn.Close()
	s.smtpLn.Close()
	s.serveWG.Wait()

	// No connection can be registered any more (trackListener checks s.closed).
	s.mu.Lock()
	conns := make([]*trackedConn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	s.mu.Unlock()
	for _, c := range conns {
		c.forceClose()
	}

	deadline := time.Now().Add(5 * time.Second)
	ctx, cancel := context.WithDeadline(context.Background(), deadline)
	defer cancel()
	var err error
	// Shutdown waits for go-smtp's connection goroutines; their connections are closed.
	if e := s.smtp.Shutdown(ctx); e != nil && !errors.Is(e, net.ErrClosed) {
		err = fmt.Errorf("devserver: SMTP shutdown: %w", e)
	}
	// imapserver has no such wait: a connection is released when its serve loop closes it.
	for _, c := range conns {
		if !c.imap {
			continue
		}
		select {
		case <-c.released:
		case <-ctx.Done():
			if err == nil {
				err = errors.New("devserver: an IMAP connection did not stop")
			}
		}
	}
	s.log.Debug("devserver stopped")
	return err
}

// Deliver appends raw straight into to's INBOX with INTERNALDATE now, as a seeding
// shortcut past SMTP (no Received or Return-Path header is added, and Accepted does
// not count it).
func (s *Server) Deliver(to string, raw []byte) error {
	if s.isShut() {
		return ErrClosed
	}
	acct := s.account(to)
	if acct == nil {
		return fmt.Errorf("%w: %s", ErrUnknownUser, to)
	}
	_, err := s.appendInbox(acct, raw)
	return err
}

func (s *Server) appendInbox(acct *account, raw []byte) (imap.UID, error) {
	// A *bytes.Reader is an imap.LiteralReader; imapmemserver copies the bytes.
	data, err := acct.user.Append("INBOX", bytes.NewReader(raw), &imap.AppendOptions{Time: time.Now()})
	if err != nil {
		return 0, fmt.Errorf("devserver: delivering to %s: %w", acct.addr, err)
	}
	s.signal()
	return data.UID, nil
}

// changed returns a channel that is closed at the next signal.
func (s *Server) changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.wake
}

// signal wakes every idling IMAP session, to look at its mailbox's updates.
func (s *Server) signal() {
	s.mu.Lock()
	close(s.wake)
	s.wake = make(chan struct{})
	s.mu.Unlock()
}

// SetSMTPDown turns the SMTP service off or on. While it is down every new connection
// gets "421 service not available" and is closed, and sessions already open answer
// MAIL, RCPT and DATA with 421 (a temporary failure).
func (s *Server) SetSMTPDown(down bool) {
	s.mu.Lock()
	s.smtpDown = down
	s.mu.Unlock()
	s.log.Debug("devserver SMTP", "down", down)
}

func (s *Server) smtpIsDown() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.smtpDown
}

// RejectRecipient makes RCPT TO addr answer 550 5.1.1 (a permanent failure), or stops
// doing so.
func (s *Server) RejectRecipient(addr string, reject bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if reject {
		s.rejected[canonAddr(addr)] = true
	} else {
		delete(s.rejected, canonAddr(addr))
	}
}

func (s *Server) isRejected(addr string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.rejected[canonAddr(addr)]
}

// DropIMAPConnections closes every open client IMAP connection at once, as a network
// failure would, and returns how many it closed. The server keeps accepting new ones.
func (s *Server) DropIMAPConnections() int {
	s.mu.Lock()
	var drop []*trackedConn
	for c := range s.conns {
		if c.imap && !c.internal {
			drop = append(drop, c)
		}
	}
	s.mu.Unlock()
	n := 0
	for _, c := range drop {
		if c.forceClose() {
			n++
		}
	}
	s.log.Debug("devserver dropped IMAP connections", "n", n)
	return n
}

// Accepted is the number of messages accepted over SMTP so far; a message for several
// recipients counts once.
func (s *Server) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Mailbox returns the messages of a user's mailbox in UID order, with their flags. It
// reads them over an in-process IMAP session logged in as that user (EXAMINE and
// BODY.PEEK[], so nothing changes), which other clients do not see and
// DropIMAPConnections does not drop.
func (s *Server) Mailbox(addr, mailbox string) ([]Message, error) {
	acct := s.account(addr)
	if acct == nil {
		return nil, fmt.Errorf("%w: %s", ErrUnknownUser, addr)
	}
	conn, err := s.pipes.dial()
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	c := imapclient.New(conn, nil)
	defer c.Close()

	if err := c.Login(acct.addr, acct.password).Wait(); err != nil {
		return nil, fmt.Errorf("devserver: login as %s: %w", acct.addr, err)
	}
	sel, err := c.Select(mailbox, &imap.SelectOptions{ReadOnly: true}).Wait()
	if err != nil {
		return nil, fmt.Errorf("devserver: mailbox %q of %s: %w", mailbox, acct.addr, err)
	}
	var out []Message
	if sel.NumMessages > 0 {
		all := imap.UIDSet{imap.UIDRange{Start: 1, Stop: 0}} // 1:*
		bufs, err := c.Fetch(all, &imap.FetchOptions{
			UID:          true,
			Flags:        true,
			InternalDate: true,
			BodySection:  []*imap.FetchItemBodySection{{Peek: true}},
		}).Collect()
		if err != nil {
			return nil, fmt.Errorf("devserver: fetching %q of %s: %w", mailbox, acct.addr, err)
		}
		for _, b := range bufs {
			m := Message{UID: uint32(b.UID), InternalDate: b.InternalDate, Raw: []byte{}}
			for _, f := range b.Flags {
				m.Flags = append(m.Flags, canonicalFlag(string(f)))
			}
			sort.Strings(m.Flags)
			if len(b.BodySection) > 0 {
				m.Raw = b.BodySection[0].Bytes
			}
			out = append(out, m)
		}
		slices.SortFunc(out, func(a, b Message) int { return int(a.UID) - int(b.UID) })
	}
	if err := c.Logout().Wait(); err != nil {
		return nil, fmt.Errorf("devserver: logout: %w", err)
	}
	return out, nil
}

func (s *Server) account(addr string) *account {
	return s.accounts[canonAddr(addr)] // read-only after Start
}

// checkLogin checks a login name and password; it returns the account or nil.
func (s *Server) checkLogin(username, password string) *account {
	acct := s.account(username)
	if acct == nil {
		return nil
	}
	if subtle.ConstantTimeCompare([]byte(password), []byte(acct.password)) != 1 {
		return nil
	}
	return acct
}

func (s *Server) isShut() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

// register records a new connection; it refuses it once the server is closing.
func (s *Server) register(c *trackedConn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) unregister(c *trackedConn) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

// canonAddr is the lookup key of an address: trimmed, without angle brackets, lower case.
func canonAddr(addr string) string {
	addr = strings.TrimSpace(addr)
	addr = strings.TrimSuffix(strings.TrimPrefix(addr, "<"), ">")
	return strings.ToLower(addr)
}

// logAdapter gives the servers' Printf-style loggers to slog.
type logAdapter struct{ l *slog.Logger }

func (a logAdapter) Printf(format string, args ...any) {
	a.l.Warn(strings.TrimSpace(fmt.Sprintf(format, args...)))
}

func (a logAdapter) Println(args ...any) {
	a.l.Warn(strings.TrimSpace(fmt.Sprintln(args...)))
}
