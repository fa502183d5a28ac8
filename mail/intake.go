package mail

// IMAP intake: step 1 and step 4 of "the flow of one message" (DESIGN.md).
//
// Delivery is at least once, effects are exactly once. A message is fetched
// with BODY.PEEK (never marking it \Seen), handed to the Handler, and only
// after the Handler has returned nil (its transaction committed) is it
// flagged \Seen and, if configured, moved away. A crash or a lost connection
// between the Handler's commit and the flag leaves the message unseen, so it
// is fetched and handed over again on the next pass; the Handler records the
// Message-ID in the same transaction as the effects and treats a message it
// has seen as a no-op (invariant 1), so the second delivery does nothing but
// get the message flagged. Nothing is flagged before it is handled
// (invariant 2).
//
// Order is the server's: unseen UIDs are handled in ascending order, and a
// Handler error stops the pass, so that a later message is never handled
// before an earlier one that failed. The Handler should therefore return an
// error only for failures that may go away (a store that cannot write); a
// message it refuses (unreadable, too large, bad orders) is an answer to
// commit, not an error. A failure of one message that no retry can mend is
// returned wrapped by [Permanent]: that message is left unseen and skipped
// until the next connection, and the pass goes on with the next one, so that
// one message never holds up the others.
//
// Implementation notes on go-imap v2.0.0-beta.8:
//   - The client has no contexts and no time limit on waiting for a
//     response, so every network step runs under imapConn.guard, which
//     closes the TCP connection when the step overruns its limit or, for
//     steps that may be abandoned, when the caller's context is cancelled.
//     The Handler, and the flagging and moving after it, are never
//     abandoned on cancellation.
//   - Client.Move without the MOVE capability pipelines COPY, STORE \Deleted
//     and EXPUNGE without waiting for COPY's answer: when the COPY fails the
//     message is expunged all the same, and lost. The fallback here waits
//     for COPY to succeed before deleting anything.

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
)

// IMAPConfig says which mailbox to watch.
type IMAPConfig struct {
	// Addr is the server's "host:port".
	Addr string
	// Security is "tls" (implicit TLS, the default when empty), "starttls",
	// or "none". "none" sends the password in the clear and is refused
	// unless the host is a loopback address (an IP literal or "localhost").
	Security string
	// Username and Password log in with LOGIN. The password is never logged.
	Username, Password string
	// Mailbox is the mailbox watched; default "INBOX".
	Mailbox string
	// MoveTo, if set, is where a message goes after it has been handled and
	// flagged \Seen; it is created if missing. "" leaves handled messages in
	// Mailbox, flagged \Seen.
	MoveTo string
	// PollInterval is how often to look for new mail when the server has no
	// IDLE (default 30s) and, with IDLE, how often to re-check anyway in case
	// a notification was lost (default 5m).
	PollInterval time.Duration
	// MaxSize is the largest message downloaded whole; default
	// DefaultMaxSize (1 MiB). Of a bigger message only the header is
	// fetched (itself cut at MaxSize) and the Delivery says TooLarge.
	MaxSize int64
	// TLSInsecureSkipVerify accepts any server certificate. For tests only.
	TLSInsecureSkipVerify bool
}

// ErrIMAPInsecure is returned for Security "none" towards a host that is not a
// loopback address.
var ErrIMAPInsecure = errors.New("mail: IMAP without TLS is allowed only to a loopback address")

const (
	imapDefaultPoll        = 30 * time.Second
	imapDefaultIdleRecheck = 5 * time.Minute
	imapDefaultMinBackoff  = time.Second
	imapDefaultMaxBackoff  = 5 * time.Minute

	// imapStepTimeout bounds one network step (connecting and logging in,
	// a search, a fetch of at most MaxSize, a flag, a move).
	imapStepTimeout = 2 * time.Minute
	// imapLogoutTimeout bounds the polite LOGOUT before closing.
	imapLogoutTimeout = 5 * time.Second
)

// Validate reports whether the configuration is usable (defaults aside).
func (c IMAPConfig) Validate() error {
	_, err := c.withDefaults()
	return err
}

// withDefaults validates c and fills in the defaults that do not depend on
// the server. PollInterval stays 0 when unset: its default depends on IDLE.
func (c IMAPConfig) withDefaults() (IMAPConfig, error) {
	host, port, err := net.SplitHostPort(c.Addr)
	if err != nil || host == "" || port == "" {
		return c, fmt.Errorf("mail: IMAP address %q: want host:port", c.Addr)
	}
	c.Security = strings.ToLower(strings.TrimSpace(c.Security))
	switch c.Security {
	case "":
		c.Security = "tls"
	case "tls", "starttls":
	case "none":
		if !imapLoopback(host) {
			return c, fmt.Errorf("%w: %s", ErrIMAPInsecure, host)
		}
	default:
		return c, fmt.Errorf("mail: IMAP security %q: want tls, starttls or none", c.Security)
	}
	if c.Username == "" {
		return c, errors.New("mail: IMAP username is empty")
	}
	if c.Mailbox == "" {
		c.Mailbox = "INBOX"
	}
	if c.MoveTo != "" && imapSameMailbox(c.MoveTo, c.Mailbox) {
		return c, fmt.Errorf("mail: IMAP move_to %q is the watched mailbox", c.MoveTo)
	}
	if c.PollInterval < 0 {
		return c, fmt.Errorf("mail: IMAP poll interval %v is negative", c.PollInterval)
	}
	if c.MaxSize <= 0 {
		c.MaxSize = DefaultMaxSize
	}
	return c, nil
}

// imapLoopback reports whether host is a loopback address. Names other than
// "localhost" are not resolved: a resolver is no proof of where the
// password goes.
func imapLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// imapSameMailbox compares mailbox names; INBOX is case-insensitive (RFC 3501
// 5.1).
func imapSameMailbox(a, b string) bool {
	if strings.EqualFold(a, "INBOX") || strings.EqualFold(b, "INBOX") {
		return strings.EqualFold(a, b)
	}
	return a == b
}

// Delivery is one message handed to the handler.
type Delivery struct {
	// UID is the message's UID in the watched mailbox.
	UID uint32
	// Arrived is the server's INTERNALDATE: arrival order is the server's,
	// never the sender's Date.
	Arrived time.Time
	// Size is the size the server gives (RFC822.SIZE).
	Size int64
	// Raw is the whole message; only its header when TooLarge.
	Raw []byte
	// TooLarge says the message is bigger than MaxSize and Raw holds only
	// its header.
	TooLarge bool
}

// Handler handles one delivery and must have committed its effects when it
// returns nil. An error leaves the message unflagged: it is fetched again on
// the next pass (the handler is idempotent by Message-ID). The context is
// not cancelled by shutdown (see Intake.Run).
type Handler func(ctx context.Context, d Delivery) error

// BatchHandler handles several deliveries in order, committing their effects
// together (group commit: one transaction, one fsync, for the lot). It returns
// how many of ds, from the first, are committed; with an error, ds[committed]
// is the delivery that failed and those after it were not handled. Like a
// Handler it is idempotent by Message-ID.
type BatchHandler func(ctx context.Context, ds []Delivery) (committed int, err error)

// Batches of the intake: a pass fetches the messages it found in groups (one FETCH
// each), hands each group to HandleBatch, and flags and moves what was committed with
// one STORE and one MOVE. A group holds an eighth of the messages still waiting, at
// least intakeBatchMin and at most intakeBatchMax, and intakeBatchBytes bytes: a large
// backlog goes in large groups (fewer commits, each an fsync), its last groups are
// small, so that the replies of the last mails are not held back behind a big commit.
// A mail alone in the mailbox is a group of one, handled as soon as it arrives.
const (
	intakeBatchMin   = 32
	intakeBatchMax   = 128
	intakeBatchBytes = 8 << 20
)

// Intake watches an IMAP mailbox and hands each new message to Handle. An
// Intake runs one Run or Once at a time.
type Intake struct {
	Config IMAPConfig
	Handle Handler
	// HandleBatch, when set, is used instead of Handle: the messages a pass finds
	// are handled in groups (see BatchHandler), so that a backlog costs one commit,
	// one FETCH, one STORE and one MOVE a group rather than a message.
	HandleBatch BatchHandler
	// Log receives one line per message (uid, size, outcome) and one per
	// connection event; never a message body or a password. Nil discards.
	Log *slog.Logger
	// MinBackoff and MaxBackoff bound the wait before reconnecting, or before
	// retrying after a Handler error; default 1s and 5m.
	MinBackoff, MaxBackoff time.Duration
}

// Run logs in, processes unseen mail, then waits with IDLE where the server
// advertises it (polling otherwise) and processes new mail as it arrives;
// after any connection loss it reconnects with back-off. A login the server
// refuses is logged at error level as a [LoginError] ("IMAP login refused for
// user U at host:port: ...") and retried with the same back-off. A Handler
// error stops the pass; the pass is retried after back-off.
//
// It returns nil when ctx is cancelled: the message being handled is
// finished and flagged first (the handler gets a context that shutdown does
// not cancel, so a transaction is never cut in half), then no more are
// fetched. It returns an error only for an unusable configuration.
func (in *Intake) Run(ctx context.Context) error {
	cfg, err := in.prepare()
	if err != nil {
		return err
	}
	log := in.logger()
	failures := 0
	for ctx.Err() == nil {
		err := in.serve(ctx, cfg, &failures)
		if ctx.Err() != nil {
			break
		}
		failures++
		wait := Backoff(failures, in.minBackoff(), in.maxBackoff())
		var refused *LoginError
		if errors.As(err, &refused) {
			// Not a passing network fault: the host must fix the configuration. Said at
			// error level, in words, and retried with the same back-off (a password
			// changed on the server side may come back).
			log.Error(refused.Error(), "attempt", failures, "retry_in", wait)
		} else {
			log.Warn("imap connection failed", "addr", cfg.Addr, "err", err, "attempt", failures, "retry_in", wait)
		}
		if !intakeSleep(ctx, wait, nil) {
			break
		}
	}
	return nil
}

// Once connects, processes every unseen message once, and logs out. For
// tests and `adjutant fetch`. It stops at the first Handler error and
// returns it (wrapped) with the number of messages handled before it. When
// ctx is cancelled it finishes and flags the message being handled, like Run,
// and returns ctx's error. Mail that arrives during the pass waits for the
// next call.
func (in *Intake) Once(ctx context.Context) (handled int, err error) {
	cfg, err := in.prepare()
	if err != nil {
		return 0, err
	}
	ic, err := in.connect(ctx, cfg)
	if err != nil {
		return 0, err
	}
	defer ic.close()
	return ic.pass(ctx)
}

func (in *Intake) prepare() (IMAPConfig, error) {
	if in.Handle == nil && in.HandleBatch == nil {
		return IMAPConfig{}, errors.New("mail: Intake.Handle is nil")
	}
	return in.Config.withDefaults()
}

func (in *Intake) logger() *slog.Logger {
	if in.Log == nil {
		return slog.New(slog.DiscardHandler)
	}
	return in.Log
}

func (in *Intake) minBackoff() time.Duration {
	if in.MinBackoff > 0 {
		return in.MinBackoff
	}
	return imapDefaultMinBackoff
}

func (in *Intake) maxBackoff() time.Duration {
	if in.MaxBackoff > 0 {
		return max(in.MaxBackoff, in.minBackoff())
	}
	return max(imapDefaultMaxBackoff, in.minBackoff())
}

// serve runs one connection: passes separated by waits, until the
// connection fails (the error is returned) or ctx is cancelled (nil).
// failures counts consecutive failures for the back-off; a clean pass
// resets it.
func (in *Intake) serve(ctx context.Context, cfg IMAPConfig, failures *int) error {
	ic, err := in.connect(ctx, cfg)
	if err != nil {
		return err
	}
	defer ic.close()
	for {
		_, err := ic.pass(ctx)
		if ctx.Err() != nil {
			return nil
		}
		var herr *intakeHandlerError
		switch {
		case errors.As(err, &herr):
			// Logged by pass. Keep the connection and retry the pass later.
			*failures++
			wait := Backoff(*failures, in.minBackoff(), in.maxBackoff())
			ic.log.Info("imap pass stopped; retrying", "uid", herr.uid, "retry_in", wait)
			if !intakeSleep(ctx, wait, ic.c.Closed()) {
				if ctx.Err() != nil {
					return nil
				}
				return errors.New("imap: connection closed")
			}
			continue
		case err != nil:
			return err
		}
		*failures = 0
		if err := ic.wait(ctx); err != nil {
			return err
		}
		if ctx.Err() != nil {
			return nil
		}
	}
}

// intakeSleep waits for d; false if ctx was cancelled or closed was closed
// first.
func intakeSleep(ctx context.Context, d time.Duration, closed <-chan struct{}) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	case <-closed:
		return false
	}
}

// Permanent marks a Handler's error as one that no retry of the same message
// can mend: the intake leaves the message unseen (nothing of it was
// committed), skips it until it connects again, and goes on with the next
// message instead of stopping the pass.
func Permanent(err error) error { return &permanentError{err} }

type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// intakeHandlerError is a Handler's error for one message.
type intakeHandlerError struct {
	uid uint32
	err error
}

func (e *intakeHandlerError) Error() string {
	return fmt.Sprintf("mail: handler failed for uid %d: %v", e.uid, e.err)
}

func (e *intakeHandlerError) Unwrap() error { return e.err }

// imapConn is one logged-in connection with the watched mailbox selected.
type imapConn struct {
	in  *Intake
	cfg IMAPConfig
	log *slog.Logger

	raw net.Conn // the TCP connection, closed to abort a step
	c   *imapclient.Client

	// newMail is signalled (never blocking) when the server reports a
	// message count (EXISTS), during IDLE or with any response.
	newMail chan struct{}

	idle, move, uidPlus bool // server capabilities
	swept               bool // the first pass, which also takes \Seen messages, is done
	// skipped are the messages whose Handler failed for good (Permanent) on this
	// connection: left unseen, tried again only on the next connection.
	skipped map[imap.UID]bool
}

// connect dials, logs in, makes sure MoveTo exists and selects the mailbox.
func (in *Intake) connect(ctx context.Context, cfg IMAPConfig) (*imapConn, error) {
	ic, err := in.login(ctx, cfg)
	if err != nil {
		return nil, err
	}
	err = ic.guard(ctx, imapStepTimeout, func() error {
		if cfg.MoveTo != "" {
			if err := ic.ensureMailbox(cfg.MoveTo); err != nil {
				return err
			}
		}
		if _, err := ic.c.Select(cfg.Mailbox, nil).Wait(); err != nil {
			return fmt.Errorf("select %q: %w", cfg.Mailbox, err)
		}
		return nil
	})
	if err != nil {
		ic.c.Close()
		ic.raw.Close()
		return nil, fmt.Errorf("imap: %w", err)
	}
	ic.log.Info("imap connected", "idle", ic.idle, "move", ic.move, "interval", ic.interval())
	return ic, nil
}

// login dials, says hello (TLS as configured) and logs in; no mailbox is selected yet.
// A refusal of the login by the server is a *LoginError.
func (in *Intake) login(ctx context.Context, cfg IMAPConfig) (*imapConn, error) {
	ic := &imapConn{
		in:      in,
		cfg:     cfg,
		log:     in.logger().With("addr", cfg.Addr, "mailbox", cfg.Mailbox),
		newMail: make(chan struct{}, 1),
	}
	host, _, _ := net.SplitHostPort(cfg.Addr)
	tlsConfig := &tls.Config{
		ServerName:         host,
		MinVersion:         tls.VersionTLS12,
		InsecureSkipVerify: cfg.TLSInsecureSkipVerify,
	}
	options := &imapclient.Options{
		TLSConfig: tlsConfig,
		UnilateralDataHandler: &imapclient.UnilateralDataHandler{
			Mailbox: func(data *imapclient.UnilateralDataMailbox) {
				if data.NumMessages != nil {
					ic.signal()
				}
			},
		},
	}

	dialer := net.Dialer{Timeout: imapStepTimeout}
	raw, err := dialer.DialContext(ctx, "tcp", cfg.Addr)
	if err != nil {
		return nil, fmt.Errorf("imap: dial: %w", err)
	}
	ic.raw = raw
	var refused *LoginError
	err = ic.guard(ctx, imapStepTimeout, func() error {
		switch cfg.Security {
		case "tls":
			tlsConfig.NextProtos = []string{"imap"}
			conn := tls.Client(raw, tlsConfig)
			if err := conn.Handshake(); err != nil {
				return fmt.Errorf("tls: %w", err)
			}
			ic.c = imapclient.New(conn, options)
		case "starttls":
			c, err := imapclient.NewStartTLS(raw, options)
			if err != nil {
				return fmt.Errorf("starttls: %w", err)
			}
			ic.c = c
		default:
			ic.c = imapclient.New(raw, options)
		}
		if err := ic.c.WaitGreeting(); err != nil {
			return fmt.Errorf("greeting: %w", err)
		}
		if err := ic.c.Login(cfg.Username, cfg.Password).Wait(); err != nil {
			var ierr *imap.Error
			if errors.As(err, &ierr) { // the server answered NO or BAD
				refused = &LoginError{Proto: "IMAP", User: cfg.Username, Addr: cfg.Addr, Err: err}
				return refused
			}
			return fmt.Errorf("login as %q: %w", cfg.Username, err)
		}
		caps := ic.c.Caps()
		if caps == nil {
			return errors.New("no capabilities")
		}
		ic.idle = caps.Has(imap.CapIdle)
		ic.move = caps.Has(imap.CapMove)
		ic.uidPlus = caps.Has(imap.CapUIDPlus)
		return nil
	})
	if err != nil {
		if ic.c != nil {
			ic.c.Close()
		}
		raw.Close()
		if refused != nil && errors.Is(err, refused) {
			return nil, refused
		}
		return nil, fmt.Errorf("imap: %w", err)
	}
	return ic, nil
}

// IMAPCheck is what [CheckIMAP] found on the server.
type IMAPCheck struct {
	Messages     uint32 // in the watched mailbox
	Idle, Move   bool   // capabilities the intake uses when present
	MoveToExists bool   // false: the intake creates MoveTo at its first connection
}

// CheckIMAP logs in as the intake would, looks at the watched mailbox and MoveTo, and logs
// out, changing nothing on the server. For `adjutant config check`. A refused login is a
// *LoginError.
func CheckIMAP(ctx context.Context, c IMAPConfig) (IMAPCheck, error) {
	var res IMAPCheck
	cfg, err := c.withDefaults()
	if err != nil {
		return res, err
	}
	in := &Intake{}
	ic, err := in.login(ctx, cfg)
	if err != nil {
		return res, err
	}
	defer ic.close()
	res.Idle, res.Move = ic.idle, ic.move
	err = ic.guard(ctx, imapStepTimeout, func() error {
		data, err := ic.c.Status(cfg.Mailbox, &imap.StatusOptions{NumMessages: true}).Wait()
		if err != nil {
			return fmt.Errorf("mailbox %q: %w", cfg.Mailbox, err)
		}
		if data.NumMessages != nil {
			res.Messages = *data.NumMessages
		}
		if cfg.MoveTo != "" {
			_, err := ic.c.Status(cfg.MoveTo, &imap.StatusOptions{NumMessages: true}).Wait()
			res.MoveToExists = err == nil
		}
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("imap: %w", err)
	}
	return res, nil
}

// ensureMailbox creates name unless it exists.
func (ic *imapConn) ensureMailbox(name string) error {
	if _, err := ic.c.Status(name, &imap.StatusOptions{NumMessages: true}).Wait(); err == nil {
		return nil
	}
	if err := ic.c.Create(name, nil).Wait(); err != nil {
		var ierr *imap.Error
		if errors.As(err, &ierr) && ierr.Code == imap.ResponseCodeAlreadyExists {
			return nil
		}
		return fmt.Errorf("create %q: %w", name, err)
	}
	ic.log.Info("imap mailbox created", "name", name)
	return nil
}

// signal records that the server reported new mail.
func (ic *imapConn) signal() {
	select {
	case ic.newMail <- struct{}{}:
	default:
	}
}

// interval is the time between passes without news from the server.
func (ic *imapConn) interval() time.Duration {
	switch {
	case ic.cfg.PollInterval > 0:
		return ic.cfg.PollInterval
	case ic.idle:
		return imapDefaultIdleRecheck
	}
	return imapDefaultPoll
}

// guard runs one network step. The connection is closed, which fails the
// step, when it takes longer than limit or when ctx is cancelled; the
// returned error then says so. Steps that must not be abandoned pass
// context.Background().
func (ic *imapConn) guard(ctx context.Context, limit time.Duration, step func() error) error {
	var expired atomic.Bool
	timer := time.AfterFunc(limit, func() {
		expired.Store(true)
		ic.raw.Close()
	})
	defer timer.Stop()
	stop := context.AfterFunc(ctx, func() { ic.raw.Close() })
	defer stop()
	err := step()
	switch {
	case err == nil:
		return nil
	case expired.Load():
		return fmt.Errorf("no answer within %v: %w", limit, err)
	case ctx.Err() != nil:
		return ctx.Err()
	}
	return err
}

// close logs out politely if the connection is still up, then closes it.
func (ic *imapConn) close() {
	select {
	case <-ic.c.Closed():
	default:
		ic.guard(context.Background(), imapLogoutTimeout, func() error { return ic.c.Logout().Wait() })
	}
	ic.c.Close()
}

// imapMeta is what a pass learns of a message before fetching it.
type imapMeta struct {
	uid     imap.UID
	size    int64
	arrived time.Time
}

// pass handles every message that is unseen (and not \Deleted) now, in UID
// order. It stops at the first Handler error (an *intakeHandlerError), and
// before the next message when ctx is cancelled (returning ctx's error).
func (ic *imapConn) pass(ctx context.Context) (handled int, err error) {
	// News from now on means another pass; this one sees all before it.
	select {
	case <-ic.newMail:
	default:
	}
	var uids []imap.UID
	// The first pass of a connection that moves handled mail also takes the messages
	// flagged \Seen but still here: a daemon that died between the flag and the move
	// left them. The desk answers "duplicate" for those it handled, and they are moved
	// now; one a person marked read without its being handled is handled, not lost.
	sweep := ic.cfg.MoveTo != "" && !ic.swept
	ic.swept = true
	err = ic.guard(ctx, imapStepTimeout, func() error {
		criteria := &imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen, imap.FlagDeleted}}
		if sweep {
			criteria.NotFlag = []imap.Flag{imap.FlagDeleted}
		}
		data, err := ic.c.UIDSearch(criteria, nil).Wait()
		if err != nil {
			return fmt.Errorf("search: %w", err)
		}
		uids = data.AllUIDs()
		return nil
	})
	if err != nil {
		return 0, err
	}
	uids = slices.DeleteFunc(uids, func(u imap.UID) bool { return ic.skipped[u] })
	if len(uids) == 0 {
		return 0, nil
	}
	slices.Sort(uids)

	metas := make(map[imap.UID]imapMeta, len(uids))
	err = ic.guard(ctx, imapStepTimeout, func() error {
		options := &imap.FetchOptions{UID: true, RFC822Size: true, InternalDate: true}
		msgs, err := ic.c.Fetch(imap.UIDSetNum(uids...), options).Collect()
		if err != nil {
			return fmt.Errorf("fetch sizes: %w", err)
		}
		for _, m := range msgs {
			metas[m.UID] = imapMeta{uid: m.UID, size: m.RFC822Size, arrived: m.InternalDate}
		}
		return nil
	})
	if err != nil {
		return 0, err
	}

	// While the handler works on one group, the next one is fetched and the last one
	// flagged and moved, on the same connection: the handler (the desk, one core) is
	// never kept waiting for the network between two groups (issue 23).
	var (
		fetching *groupFetch // the group after the one being handled
		flagging *groupFlag  // the flag and move of the last group handled
	)
	defer func() {
		fetching.wait()
		if ferr := flagging.wait(); ferr != nil && err == nil {
			err = ferr
		}
	}()
	for len(uids) > 0 || fetching != nil {
		if err := ctx.Err(); err != nil {
			return handled, err
		}
		var ds []*Delivery
		if fetching != nil {
			ds, err = fetching.wait()
			fetching = nil
		} else {
			group := ic.nextGroup(&uids, metas)
			if len(group) == 0 {
				continue // expunged by someone else since the search
			}
			fctx := ctx
			if flagging != nil {
				// Cancelling it would close the connection under that flag.
				fctx = context.WithoutCancel(ctx)
			}
			ds, err = ic.fetchGroup(fctx, group)
		}
		if err != nil {
			return handled, err
		}
		if len(uids) > 0 {
			fetching = ic.prefetch(ctx, ic.nextGroup(&uids, metas))
		}
		n, herr := ic.handleGroup(ctx, ds)
		handled += n
		// The last group's flags first: its failure ends the pass before this one's.
		if ferr := flagging.wait(); ferr != nil {
			flagging = nil
			if n > 0 {
				ic.log.Error("imap messages handled but not flagged; they will be fetched again", "uids", uidsOf(ds[:n]).String(),
					"outcome", "flag skipped")
			}
			return handled, ferr
		}
		flagging = nil
		if n > 0 {
			flagging = ic.flagGroup(ds[:n])
		}
		var perm *permanentError
		if errors.As(herr, &perm) && n < len(ds) {
			// This message alone failed for good: skip it, and hand over the rest of
			// its group (not handled yet) before the messages after the group, the one
			// being fetched included (fetched again).
			if ic.skipped == nil {
				ic.skipped = map[imap.UID]bool{}
			}
			ic.skipped[imap.UID(ds[n].UID)] = true
			rest := make([]imap.UID, 0, len(ds)-n-1+len(uids))
			for _, d := range ds[n+1:] {
				rest = append(rest, imap.UID(d.UID))
			}
			rest = append(rest, fetching.uids()...)
			fetching.wait()
			fetching = nil
			uids = append(rest, uids...)
			continue
		}
		if herr != nil {
			// Returned once those before it are flagged and moved.
			if ferr := flagging.wait(); ferr != nil {
				herr = errors.Join(herr, ferr)
			}
			flagging = nil
			return handled, herr
		}
	}
	return handled, nil
}

// groupFetch is a group being fetched in the background (prefetch).
type groupFetch struct {
	group []imapMeta
	done  chan struct{}
	ds    []*Delivery
	err   error
}

// prefetch starts fetching group while the caller handles the group before it. The
// fetch is not abandoned when ctx is cancelled (that would close the connection under
// the flag of the group being handled); only its step timeout bounds it. nil for an
// empty group.
func (ic *imapConn) prefetch(ctx context.Context, group []imapMeta) *groupFetch {
	if len(group) == 0 {
		return nil
	}
	f := &groupFetch{group: group, done: make(chan struct{})}
	go func() {
		defer close(f.done)
		f.ds, f.err = ic.fetchGroup(context.WithoutCancel(ctx), group)
	}()
	return f
}

// wait returns the fetched group; nil waits for nothing.
func (f *groupFetch) wait() ([]*Delivery, error) {
	if f == nil {
		return nil, nil
	}
	<-f.done
	return f.ds, f.err
}

// uids are the group's UIDs, in order.
func (f *groupFetch) uids() []imap.UID {
	if f == nil {
		return nil
	}
	out := make([]imap.UID, len(f.group))
	for i, m := range f.group {
		out[i] = m.uid
	}
	return out
}

// nextGroup takes the next group of messages off uids: in UID order, at most
// batchMax of them and intakeBatchBytes in all; a message larger than MaxSize
// (of which only the header is fetched) is a group of its own, and without a
// HandleBatch every message is.
func (ic *imapConn) nextGroup(uids *[]imap.UID, metas map[imap.UID]imapMeta) []imapMeta {
	var group []imapMeta
	var bytes int64
	most := ic.batchMax(len(*uids))
	for len(*uids) > 0 {
		meta, ok := metas[(*uids)[0]]
		if !ok {
			*uids = (*uids)[1:]
			continue
		}
		big := meta.size > ic.cfg.MaxSize
		if len(group) > 0 && (big || len(group) >= most || bytes+meta.size > intakeBatchBytes) {
			break
		}
		group = append(group, meta)
		bytes += meta.size
		*uids = (*uids)[1:]
		if big {
			break
		}
	}
	return group
}

// batchMax is the size of the next group when waiting messages wait.
func (ic *imapConn) batchMax(waiting int) int {
	if ic.in.HandleBatch == nil {
		return 1
	}
	return min(max(waiting/8, intakeBatchMin), intakeBatchMax)
}

// fetchGroup downloads a group: one message alone as fetch does, several with one
// FETCH of all their bodies. Messages the server no longer has are left out; one
// whose body turns out larger than MaxSize is fetched again, header only.
func (ic *imapConn) fetchGroup(ctx context.Context, group []imapMeta) ([]*Delivery, error) {
	if len(group) == 1 {
		d, err := ic.fetch(ctx, group[0], group[0].size > ic.cfg.MaxSize)
		if d == nil || err != nil {
			if err == nil {
				ic.log.Warn("imap message vanished before fetch", "uid", uint32(group[0].uid))
			}
			return nil, err
		}
		return []*Delivery{d}, nil
	}
	raws := make(map[imap.UID][]byte, len(group))
	var overflow []imap.UID
	limit := ic.cfg.MaxSize
	uids := make([]imap.UID, len(group))
	for i, m := range group {
		uids[i] = m.uid
	}
	err := ic.guard(ctx, imapStepTimeout, func() error {
		options := &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}
		cmd := ic.c.Fetch(imap.UIDSetNum(uids...), options)
		defer cmd.Close()
		for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
			var uid imap.UID
			var raw []byte
			found, over := false, false
			for item := msg.Next(); item != nil; item = msg.Next() {
				switch item := item.(type) {
				case imapclient.FetchItemDataUID:
					uid = item.UID
				case imapclient.FetchItemDataBodySection:
					if item.Literal == nil || found {
						continue
					}
					found = true
					if item.Literal.Size() > limit {
						over = true // RFC822.SIZE understated it
						continue
					}
					b, err := io.ReadAll(io.LimitReader(item.Literal, limit))
					if err != nil {
						return err
					}
					raw = b
				}
			}
			switch {
			case uid == 0 || !found:
			case over:
				overflow = append(overflow, uid)
			default:
				raws[uid] = raw
			}
		}
		if err := cmd.Close(); err != nil {
			return fmt.Errorf("fetch %d messages: %w", len(uids), err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	var ds []*Delivery
	for _, m := range group {
		if raw, ok := raws[m.uid]; ok {
			ds = append(ds, &Delivery{UID: uint32(m.uid), Arrived: m.arrived, Size: m.size, Raw: raw})
			continue
		}
		if slices.Contains(overflow, m.uid) {
			d, err := ic.fetch(ctx, m, true)
			if err != nil {
				return nil, err
			}
			if d != nil {
				ds = append(ds, d)
			}
			continue
		}
		ic.log.Warn("imap message vanished before fetch", "uid", uint32(m.uid))
	}
	return ds, nil
}

// fetch downloads one message with BODY.PEEK, or only its header when
// headerOnly. A nil Delivery means the server returned no such message.
func (ic *imapConn) fetch(ctx context.Context, meta imapMeta, headerOnly bool) (*Delivery, error) {
	section := &imap.FetchItemBodySection{Peek: true}
	if headerOnly {
		section.Specifier = imap.PartSpecifierHeader
	}
	var (
		raw      []byte
		found    bool
		overflow bool
	)
	limit := ic.cfg.MaxSize
	err := ic.guard(ctx, imapStepTimeout, func() error {
		options := &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{section}}
		cmd := ic.c.Fetch(imap.UIDSetNum(meta.uid), options)
		defer cmd.Close()
		for msg := cmd.Next(); msg != nil; msg = cmd.Next() {
			for item := msg.Next(); item != nil; item = msg.Next() {
				body, ok := item.(imapclient.FetchItemDataBodySection)
				if !ok || body.Literal == nil || found {
					continue
				}
				found = true
				if !headerOnly && body.Literal.Size() > limit {
					overflow = true // RFC822.SIZE understated it
					continue
				}
				// The header alone may be cut at the limit: ReadEnvelope
				// copes, and the Delivery says TooLarge.
				b, err := io.ReadAll(io.LimitReader(body.Literal, limit))
				if err != nil {
					return err
				}
				raw = b
			}
		}
		if err := cmd.Close(); err != nil {
			return fmt.Errorf("fetch uid %d: %w", meta.uid, err)
		}
		return nil
	})
	switch {
	case err != nil:
		return nil, err
	case !found:
		return nil, nil
	case overflow:
		return ic.fetch(ctx, meta, true)
	}
	return &Delivery{
		UID:      uint32(meta.uid),
		Arrived:  meta.arrived,
		Size:     meta.size,
		Raw:      raw,
		TooLarge: headerOnly,
	}, nil
}

// handleGroup hands ds to the handler (HandleBatch, or Handle for each) and returns
// how many were committed; a handler error is an *intakeHandlerError naming the
// message that failed. It is not abandoned when ctx is cancelled.
func (ic *imapConn) handleGroup(ctx context.Context, ds []*Delivery) (committed int, herr error) {
	if len(ds) == 0 {
		return 0, nil
	}
	ctx = context.WithoutCancel(ctx)
	start := time.Now()
	if ic.in.HandleBatch != nil {
		batch := make([]Delivery, len(ds))
		for i, d := range ds {
			batch[i] = *d
		}
		committed, herr = ic.in.HandleBatch(ctx, batch)
		committed = min(max(committed, 0), len(ds))
		if herr != nil && committed == len(ds) {
			committed-- // the handler said it failed: the last one is not flagged
		}
	} else {
		for _, d := range ds {
			if herr = ic.in.Handle(ctx, *d); herr != nil {
				break
			}
			committed++
		}
	}
	took := time.Since(start)
	for _, d := range ds[:committed] {
		ic.log.Info("imap message handled", "uid", d.UID, "size", d.Size, "too_large", d.TooLarge, "outcome", "committed", "took", took, "group", committed)
	}
	if herr != nil {
		d := ds[committed]
		if errors.As(herr, new(*permanentError)) {
			ic.log.Error("imap message not handled, for good; left unseen and skipped until the next connection", "uid", d.UID,
				"size", d.Size, "too_large", d.TooLarge, "outcome", "handler failed for good", "err", herr)
		} else {
			ic.log.Warn("imap message not handled; left unseen", "uid", d.UID, "size", d.Size, "too_large", d.TooLarge,
				"outcome", "handler error", "err", herr)
		}
		herr = &intakeHandlerError{uid: d.UID, err: herr}
	}
	return committed, herr
}

// groupFlag is the flag and move of a committed group, under way in the background.
type groupFlag struct {
	done chan struct{}
	err  error
}

// wait returns the flag's error, which ends the pass; nil waits for nothing.
func (f *groupFlag) wait() error {
	if f == nil {
		return nil
	}
	<-f.done
	return f.err
}

// flagGroup flags \Seen and moves done, whose handling has committed, with one STORE
// and one MOVE for the lot, in the background (never abandoned on cancellation). A move
// the server refuses leaves them here, flagged: not an error.
func (ic *imapConn) flagGroup(done []*Delivery) *groupFlag {
	f := &groupFlag{done: make(chan struct{})}
	set := uidsOf(done)
	go func() {
		defer close(f.done)
		err := ic.guard(context.Background(), imapStepTimeout, func() error {
			flags := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}
			return ic.c.Store(set, flags, nil).Close()
		})
		if err != nil {
			// Committed but not flagged: they come again and the Handler's
			// idempotency makes that a no-op.
			ic.log.Error("imap messages handled but not flagged; they will be fetched again", "uids", set.String(),
				"outcome", "flag failed", "err", err)
			f.err = fmt.Errorf("imap: flag uids %v: %w", set, err)
			return
		}
		if ic.cfg.MoveTo == "" {
			ic.log.Info("imap messages flagged", "uids", set.String(), "outcome", "flagged")
			return
		}
		err = ic.guard(context.Background(), imapStepTimeout, func() error { return ic.moveTo(set) })
		var ierr *imap.Error
		switch {
		case errors.As(err, &ierr):
			// Refused, not lost: they stay here, flagged \Seen.
			ic.log.Warn("imap messages handled but not moved", "uids", set.String(), "outcome", "move refused", "to", ic.cfg.MoveTo, "err", err)
		case err != nil:
			ic.log.Error("imap messages handled but not moved", "uids", set.String(), "outcome", "move failed", "to", ic.cfg.MoveTo, "err", err)
			f.err = fmt.Errorf("imap: move uids %v: %w", set, err)
		default:
			ic.log.Info("imap messages moved", "uids", set.String(), "outcome", "moved", "to", ic.cfg.MoveTo)
		}
	}()
	return f
}

// uidsOf is the UID set of ds.
func uidsOf(ds []*Delivery) imap.UIDSet {
	uids := make([]imap.UID, len(ds))
	for i, d := range ds {
		uids[i] = imap.UID(d.UID)
	}
	return imap.UIDSetNum(uids...)
}

// moveTo moves the messages of set to MoveTo: MOVE where the server has it,
// else COPY, and only once the copy is made, STORE \Deleted and EXPUNGE
// (UID EXPUNGE with UIDPLUS; without it, EXPUNGE also removes whatever else
// was flagged \Deleted in the mailbox).
func (ic *imapConn) moveTo(set imap.UIDSet) error {
	if ic.move {
		_, err := ic.c.Move(set, ic.cfg.MoveTo).Wait()
		return err
	}
	if _, err := ic.c.Copy(set, ic.cfg.MoveTo).Wait(); err != nil {
		return err
	}
	deleted := &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagDeleted}}
	if err := ic.c.Store(set, deleted, nil).Close(); err != nil {
		return err
	}
	if ic.uidPlus {
		return ic.c.UIDExpunge(set).Close()
	}
	return ic.c.Expunge().Close()
}

// wait returns when there may be new mail: the server said so, PollInterval
// passed, or ctx was cancelled (nil in all three cases); or with an error
// when the connection failed.
func (ic *imapConn) wait(ctx context.Context) error {
	timer := time.NewTimer(ic.interval())
	defer timer.Stop()
	if !ic.idle {
		select {
		case <-ctx.Done():
		case <-ic.newMail:
		case <-timer.C:
		case <-ic.c.Closed():
			return errors.New("imap: connection closed")
		}
		return nil
	}

	select {
	case <-ic.newMail: // arrived with the last responses of the pass
		return nil
	default:
	}
	var idle *imapclient.IdleCommand
	err := ic.guard(ctx, imapStepTimeout, func() error {
		var err error
		idle, err = ic.c.Idle()
		return err
	})
	var ierr *imap.Error
	switch {
	case errors.As(err, &ierr):
		ic.log.Warn("imap IDLE refused; polling instead", "err", err)
		ic.idle = false
		return nil
	case err != nil:
		return fmt.Errorf("imap: idle: %w", err)
	}
	var lost error
	select {
	case <-ctx.Done():
	case <-ic.newMail:
	case <-timer.C:
	case <-ic.c.Closed():
		lost = errors.New("imap: connection closed while idling")
	}
	err = ic.guard(context.Background(), imapStepTimeout, func() error {
		if err := idle.Close(); err != nil {
			return err
		}
		return idle.Wait()
	})
	if lost != nil {
		return lost
	}
	if err != nil {
		return fmt.Errorf("imap: end idle: %w", err)
	}
	return nil
}
