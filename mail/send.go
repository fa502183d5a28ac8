package mail

// The outbox drain: DESIGN.md "The flow of one message", step 5.
//
// The desk writes every mail it wants sent into the store's outbox in the same transaction
// as the effects that caused it (invariant 2). The Sender reads the due mails, sends them
// over SMTP with go-mail, and marks each one Sent in its own small transaction right after
// the server accepted it. No network I/O ever happens inside a transaction, so a crash
// between acceptance and marking can only cause the mail to be sent again, with the same
// Message-ID, which makes the duplicate recognisable; it can never lose a mail.
//
// Failures are sorted in three kinds:
//
//   - the server refuses one mail (a 4xx or 5xx reply to RCPT, DATA or the end of DATA):
//     that mail gets Attempts+1, LastError and NextAttempt = now + Backoff(Attempts), and
//     the pass goes on with the next mail. The MaxAttempts-th permanent refusal (5xx; the
//     temporary ones do not count) marks the mail Failed: given up, kept in the outbox,
//     never Sent.
//   - the connection or the session fails (server down, TLS or AUTH failure, 421, a
//     refused MAIL FROM, which concerns the game mailbox and not one mail, an I/O error or
//     a timeout): the pass ends; the mail being sent and every due mail after it keep
//     their place and get the back-off. These are retried for ever.
//   - the mail cannot be built (no recipient, an invalid address or Message-ID): it can
//     never be sent, so it is marked Failed at once.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	netmail "net/mail"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	gomail "github.com/wneessen/go-mail"
	gosmtp "github.com/wneessen/go-mail/smtp"

	"github.com/adjutant-pbem/adjutant/store"
)

// Defaults of [Sender] and [SMTPConfig].
const (
	DefaultSMTPTimeout     = 30 * time.Second
	DefaultSendMinBackoff  = 30 * time.Second
	DefaultSendMaxBackoff  = time.Hour
	DefaultSendMaxAttempts = 8
)

// sendMaxReferences bounds the References header of a reply: the first id of the thread
// and the most recent ones are kept (RFC 5322 3.6.4 allows trimming a long chain).
const sendMaxReferences = 20

// SMTPConfig says how to reach the submission server.
type SMTPConfig struct {
	Host string
	// Port; 0 means the usual port of Security: 465 for tls, 587 for starttls, 25 for none.
	Port int
	// Security is "tls" (implicit TLS), "starttls" (mandatory: a server that does not
	// offer STARTTLS is refused), or "none" (plain text: refused unless Host is a loopback
	// address).
	Security string
	// Username turns on AUTH when non-empty: PLAIN, or LOGIN if that is all the server
	// offers. A server offering neither (or no AUTH at all) is refused.
	Username string
	Password string
	// From is the game mailbox address, From and envelope sender of every mail.
	From string
	// NoVERP sends every mail with From as its envelope sender. By default each mail's
	// envelope sender is From with "+b-<outbox number>-<tag>" added to its local part
	// (VERP, see [VERP]), so that a bounce, which goes to the envelope sender, says which
	// mail and player it is about, in a way nobody else can forge. Turn it off only for
	// a mailbox that does not receive plus-addressed mail (Postfix and Dovecot do with
	// recipient_delimiter = +); then no bounce marks a player.
	NoVERP bool
	// FromName is the display name of From ("Adjutant" when empty), so that players'
	// mail clients show who wrote.
	FromName string
	// HeloName is the name given in EHLO; empty means the host name of this machine.
	HeloName string
	// Timeout bounds each network step (dial and greeting, and each mail); 0 means 30s.
	Timeout time.Duration
	// TLSInsecureSkipVerify is for tests against self-signed loopback servers only.
	TLSInsecureSkipVerify bool
}

// Validate checks the configuration without any network I/O.
func (c SMTPConfig) Validate() error {
	if c.Host == "" {
		return errors.New("smtp: host is required")
	}
	if strings.ContainsAny(c.Host, " \t\r\n/") {
		return fmt.Errorf("smtp: host %q is not a host name or address", c.Host)
	}
	if c.Port < 0 || c.Port > 65535 {
		return fmt.Errorf("smtp: port %d: expected 1 to 65535 (or 0 for the default)", c.Port)
	}
	switch c.Security {
	case "tls", "starttls":
	case "none":
		if !smtpIsLoopback(c.Host) {
			return fmt.Errorf("smtp: security %q (plain text) is refused for %s, which is not a loopback address: use \"tls\" or \"starttls\"", c.Security, c.Host)
		}
	default:
		return fmt.Errorf("smtp: security %q: expected tls, starttls or none", c.Security)
	}
	if c.From == "" {
		return errors.New("smtp: from (the game mailbox address) is required")
	}
	if _, err := netmail.ParseAddress(c.From); err != nil {
		return fmt.Errorf("smtp: from %q: %w", c.From, err)
	}
	if c.Timeout < 0 {
		return fmt.Errorf("smtp: timeout %v is negative", c.Timeout)
	}
	if strings.ContainsAny(c.HeloName, " \t\r\n") {
		return fmt.Errorf("smtp: helo name %q contains blanks", c.HeloName)
	}
	return nil
}

func (c SMTPConfig) port() int {
	if c.Port != 0 {
		return c.Port
	}
	switch c.Security {
	case "tls":
		return 465
	case "starttls":
		return 587
	}
	return 25
}

func (c SMTPConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultSMTPTimeout
}

// smtpIsLoopback says whether host is "localhost" or a loopback IP address. Names are not
// resolved: what a name resolves to can change behind the daemon's back.
func smtpIsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	return ip != nil && ip.IsLoopback()
}

// Attachment is a file a mail carries (Sender.Attach).
type Attachment struct {
	Name string // file name, e.g. "verdun-record-us.zip"
	Type string // media type, e.g. "application/zip"
	Data []byte
}

// Sender drains the outbox.
//
// One Sender drains one store: DrainOnce calls on the same Sender are serialised, but two
// Senders (or two processes) on the same outbox would send the same mails twice.
type Sender struct {
	Config SMTPConfig
	Store  store.Store
	Log    *slog.Logger     // nil: discard
	Now    func() time.Time // nil: time.Now
	// MinBackoff and MaxBackoff bound the wait before a retry (see [Backoff]).
	MinBackoff time.Duration // default 30s
	MaxBackoff time.Duration // default 1h
	// MaxAttempts: a mail refused permanently (5xx) this many times is marked Failed;
	// default 8. Temporary failures (4xx, connection errors) are retried for ever with
	// back-off and do not count towards it.
	MaxAttempts int
	// SentLog, when set, is where a mail the server accepted is noted at once (a
	// write without fsync); the marks are committed to Store after each round, in
	// short transactions beside the sending, and a log left by a crash is committed
	// before anything is sent (see store.SentLog). Nil: each accepted mail is marked
	// sent in its own transaction.
	SentLog *store.SentLog
	// Render draws a mail's picture from its view (store.Picture.View) when the mail is
	// built, just before it is sent, outside any transaction; the daemon gives it the
	// map renderer (adjudicator/mapimage.RenderEncoded). It must give the same bytes for
	// the same view, so that a mail sent again is the same mail. nil, or a view it
	// cannot draw, sends the mail without that picture: the text is the whole mail.
	Render func(view []byte) ([]byte, error)
	// Attach gives the files a mail carries besides its text (a game's record, at its
	// end), made just before it is sent, outside any transaction; the daemon gives it
	// the desk's record builder. It must give the same bytes for the same mail. nil, or
	// an error (logged), sends the mail without them: its text says how to get them.
	Attach func(m store.OutMail) ([]Attachment, error)

	mu sync.Mutex // one pass at a time

	// kept is the connection of the last pass, kept open for the next one for up to
	// smtpKeepAlive (a burst of mail makes many short passes; dialling, EHLO and AUTH
	// each time cost round trips). Guarded by mu.
	kept      *smtpConn
	keptTimer *time.Timer
}

// smtpKeepAlive is how long the connection of a pass is kept for the next one: well
// under the idle timeouts of common servers (Postfix 300 s, go-smtp's default none).
const smtpKeepAlive = 20 * time.Second

// takeConn returns the kept connection, rebound to this pass's context, or a new one.
// Call with mu held.
func (s *Sender) takeConn(ctx context.Context) (*smtpConn, error) {
	if s.keptTimer != nil {
		s.keptTimer.Stop()
		s.keptTimer = nil
	}
	if sc := s.kept; sc != nil {
		s.kept = nil
		if sc.c != nil {
			sc.rebind(ctx)
			return sc, nil
		}
		sc.close()
	}
	return s.newSMTPConn(ctx)
}

// keepConn keeps conn for the next pass, or closes it when the pass was cancelled or the
// session is down; a kept connection is closed politely after smtpKeepAlive. Call with
// mu held.
func (s *Sender) keepConn(ctx context.Context, conn *smtpConn) {
	if ctx.Err() != nil || conn.c == nil {
		conn.close()
		return
	}
	s.kept = conn
	s.keptTimer = time.AfterFunc(smtpKeepAlive, func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.kept == conn {
			conn.close()
			s.kept = nil
		}
	})
}

// closeKept closes the kept connection, if any (QUIT when it can).
func (s *Sender) closeKept() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keptTimer != nil {
		s.keptTimer.Stop()
		s.keptTimer = nil
	}
	if s.kept != nil {
		s.kept.close()
		s.kept = nil
	}
}

// foldChunk is how many sent marks one transaction commits: a fold of a whole
// backlog's marks in one transaction held the store's write lock for 40 s (issue 23),
// with the intake waiting behind it.
const foldChunk = 256

// FoldSentLog commits the marks of SentLog to the store, in transactions of foldChunk
// marks, and empties it. DrainOnce calls it before a pass and after each round of it; a
// daemon calls it once at start. A crash in the middle leaves the log whole: folding a
// mark again changes nothing.
func (s *Sender) FoldSentLog(ctx context.Context) error {
	if s.SentLog == nil {
		return nil
	}
	marks, err := s.SentLog.Marks()
	if err != nil || len(marks) == 0 {
		return err
	}
	n := 0
	for chunk := range slices.Chunk(marks, foldChunk) {
		err = s.Store.Write(ctx, func(tx store.Tx) error {
			k, err := store.FoldSentMarks(tx, chunk)
			n += k
			return err
		})
		if err != nil {
			return fmt.Errorf("mark %d mails sent: %w", len(marks), err)
		}
	}
	s.log().Debug("sent marks committed", "marks", len(marks), "marked", n)
	return s.SentLog.Reset()
}

func (s *Sender) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s *Sender) log() *slog.Logger {
	if s.Log != nil {
		return s.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (s *Sender) minBackoff() time.Duration {
	if s.MinBackoff > 0 {
		return s.MinBackoff
	}
	return DefaultSendMinBackoff
}

func (s *Sender) maxBackoff() time.Duration {
	m := s.MaxBackoff
	if m <= 0 {
		m = DefaultSendMaxBackoff
	}
	return max(m, s.minBackoff())
}

func (s *Sender) maxAttempts() int {
	if s.MaxAttempts > 0 {
		return s.MaxAttempts
	}
	return DefaultSendMaxAttempts
}

// Build returns the message exactly as it is sent (exported for tests and for
// `adjutant outbox --eml`). The same OutMail always gives the same bytes: Date is the
// time the mail was queued (the time of the build only when Queued is zero) and the
// Message-ID is the stored one, so that a retry or a resend is recognisably the same mail.
// A mail with pictures is the text and its HTML alternative with the pictures inline
// (picture.go), each drawn here by Render from its view.
func (s *Sender) Build(m store.OutMail) (*gomail.Msg, error) {
	id := sendTrimID(m.MessageID)
	if !sendValidID(id) {
		return nil, fmt.Errorf("build mail %d: invalid Message-ID %q", m.Seq, m.MessageID)
	}
	if len(m.To) == 0 {
		return nil, fmt.Errorf("build %s: no recipient", id)
	}
	msg := gomail.NewMsg(gomail.WithNoDefaultUserAgent())
	from := s.Config.From
	if a, err := netmail.ParseAddress(from); err == nil && a.Name == "" {
		name := s.Config.FromName
		if name == "" {
			name = "Adjutant"
		}
		from = (&netmail.Address{Name: name, Address: a.Address}).String()
	}
	if err := msg.From(from); err != nil {
		return nil, fmt.Errorf("build %s: from %q: %w", id, s.Config.From, err)
	}
	if env := s.envelopeSender(m); env != "" {
		if err := msg.EnvelopeFrom(env); err != nil {
			return nil, fmt.Errorf("build %s: envelope sender %q: %w", id, env, err)
		}
	}
	if err := msg.To(m.To...); err != nil {
		return nil, fmt.Errorf("build %s: to %v: %w", id, m.To, err)
	}
	msg.Subject(m.Subject)
	msg.SetMessageIDWithValue(id)
	date := m.Queued
	if date.IsZero() {
		date = s.now()
	}
	msg.SetDateWithValue(date)
	if irt := sendTrimID(m.InReplyTo); sendValidID(irt) {
		msg.SetGenHeader(gomail.HeaderInReplyTo, "<"+irt+">")
	}
	if refs := sendReferences(m.References); len(refs) > 0 {
		// One value: go-mail joins several values with ", ", References wants blanks.
		msg.SetGenHeader(gomail.HeaderReferences, strings.Join(refs, " "))
	}
	// RFC 3834, so that auto-responders do not answer; X-Auto-Response-Suppress for
	// Exchange, which does not look at Auto-Submitted (bounces are not suppressed).
	if m.AutoReplied {
		msg.SetGenHeader("Auto-Submitted", "auto-replied")
	} else {
		msg.SetGenHeader("Auto-Submitted", "auto-generated")
	}
	msg.SetGenHeader(gomail.HeaderXAutoResponseSuppress, "OOF, AutoReply")
	// The daemon recognises its own mail by this header and never answers it (invariant 7).
	game := m.Game
	if game == "" {
		game = "desk"
	}
	msg.SetGenHeader("X-Adjutant", game)
	msg.SetBodyString(gomail.TypeTextPlain, m.Body)
	if pics := s.pictures(id, m); len(pics) > 0 {
		addPictures(msg, id, m, pics)
	}
	if s.Attach != nil {
		files, err := s.Attach(m)
		if err != nil {
			s.log().Warn("mail attachment left out: it cannot be made", "message_id", id, "err", err)
		}
		for _, f := range files {
			msg.AttachReadSeeker(f.Name, bytes.NewReader(f.Data), gomail.WithFileContentType(gomail.ContentType(f.Type)))
		}
	}
	return msg, nil
}

// sendTrimID removes blanks and one pair of angle brackets around a message id.
func sendTrimID(id string) string {
	id = strings.TrimSpace(id)
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		id = id[1 : len(id)-1]
	}
	return id
}

// sendValidID accepts a message id that can go into a header as it is: printable ASCII
// without blanks or angle brackets, not longer than a header line allows.
func sendValidID(id string) bool {
	if id == "" || len(id) > 900 {
		return false
	}
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c > '~' || c == '<' || c == '>' {
			return false
		}
	}
	return true
}

// sendReferences returns the valid ids of refs in brackets, the first one and the most
// recent ones when there are more than sendMaxReferences. Invalid ids (they come from
// players' mail) are dropped rather than holding the reply back.
func sendReferences(refs []string) []string {
	var out []string
	for _, r := range refs {
		if r = sendTrimID(r); sendValidID(r) {
			out = append(out, "<"+r+">")
		}
	}
	if len(out) > sendMaxReferences {
		out = append(out[:1], out[len(out)-sendMaxReferences+1:]...)
	}
	return out
}

// sendRoundSize is how many mails a pass sends between two looks at the outbox: after
// each round its sent marks are committed (one short transaction, so that the intake
// is never kept waiting behind a whole backlog's marks) and the mails queued meanwhile
// join the pass ahead of the backlog (issue 23: 20,000 invitations sent in one go kept
// every answer to a player waiting half a minute, then the marks held the store's
// lock 40 s more).
const sendRoundSize = 200

// passQueue is what a pass has still to send, read from the outbox a round at a time
// (issue 23: a pass that read its whole backlog's heads at once held 20,000 of them,
// and copied them at every round): the backlog it began with, the pending mails up to
// end, read on from after the mail backlog; and the mails queued since it began, read
// on from after the mail fresh.
type passQueue struct {
	s                   *Sender
	backlog, end, fresh uint64
	backlogDone         bool
}

// newPassQueue starts a pass at the outbox as it is now.
func (s *Sender) newPassQueue(ctx context.Context) (*passQueue, error) {
	q := &passQueue{s: s}
	err := s.Store.Read(ctx, func(tx store.Tx) (err error) {
		q.end, err = store.LastPending(tx)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	q.fresh = q.end
	return q, nil
}

// next reads the next round of the pass, the mails due at now in outbox order: the
// mails queued since the pass began first (so that a player's answer does not wait
// behind a backlog: a host's new games' invitations, a restart's unsent mail), then
// the backlog's next ones. An empty round ends the pass.
func (q *passQueue) next(ctx context.Context, now time.Time) ([]store.OutMail, error) {
	var round []store.OutMail
	err := q.s.Store.Read(ctx, func(tx store.Tx) error {
		// read takes pages after *from (up to upTo) until the round is full or none is
		// left, keeping the due mails.
		read := func(from *uint64, upTo uint64) (bool, error) {
			for len(round) < sendRoundSize {
				page, last, err := store.PendingPage(tx, *from, upTo, sendRoundSize-len(round))
				if err != nil || len(page) == 0 {
					return len(page) == 0, err
				}
				*from = last
				for _, m := range page {
					if !m.Sent && !m.Failed && !m.NextAttempt.After(now) {
						round = append(round, m)
					}
				}
			}
			return false, nil
		}
		if _, err := read(&q.fresh, 0); err != nil {
			return err
		}
		if q.backlogDone || q.end == 0 {
			return nil
		}
		done, err := read(&q.backlog, q.end)
		q.backlogDone = done
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("read outbox: %w", err)
	}
	slices.SortFunc(round, func(a, b store.OutMail) int { return cmp.Compare(a.Seq, b.Seq) })
	return round, nil
}

// rest reads every mail the pass has still to send, due at now: those a failed
// connection holds back.
func (q *passQueue) rest(ctx context.Context, now time.Time) ([]store.OutMail, error) {
	var all []store.OutMail
	for {
		round, err := q.next(ctx, now)
		if err != nil || len(round) == 0 {
			return all, err
		}
		all = append(all, round...)
	}
}

// DrainOnce sends every unsent, not failed mail whose NextAttempt has come, in outbox
// order, over one SMTP connection (reconnecting once when it dropped while idle), and
// returns how many were sent and how many failed this pass. A mail "failed this pass" when
// it was due and not sent: refused (it gets a back-off, or is given up), or held back by a
// connection failure. A pass goes in rounds of sendRoundSize mails: after each, the
// round's sent marks are committed beside the sending (the pass does not wait for
// them before the next round, only at its end), and mails queued meanwhile join the
// pass; when more are due than a round holds, the newly queued ones go first.
//
// The error is nil when the pass went through every due mail, refusals of single mails
// included; it is set when the configuration is invalid, when the connection or the session
// failed (the remaining mails got their back-off), when the store failed, or when ctx was
// cancelled (the remaining mails are left as they were). Nothing is dialled when no mail
// is due.
func (s *Sender) DrainOnce(ctx context.Context) (sent, failed int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.Config.Validate(); err != nil {
		return 0, 0, err
	}
	if s.Store == nil {
		return 0, 0, errors.New("mail: Sender has no Store")
	}
	// Marks a crash left in the log first: the mails they name are not sent again.
	if err := s.FoldSentLog(ctx); err != nil {
		return 0, 0, err
	}
	queue, err := s.newPassQueue(ctx)
	if err != nil {
		return 0, 0, err
	}
	round, err := queue.next(ctx, s.now())
	if err != nil || len(round) == 0 {
		return 0, 0, err
	}
	conn, err := s.takeConn(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer s.keepConn(ctx, conn)
	// The pass's sent marks are committed beside the sending, round by round, by a
	// folder of their own: the sender never waits for the store's write lock (held by
	// the intake's group, a second or more in a burst) between two rounds. The pass
	// ends when they are all committed.
	folder := s.startFolder(ctx)
	defer func() {
		if ferr := folder.finish(); ferr != nil {
			s.log().Error("accepted mails noted but not yet marked sent; marked at the next pass", "err", ferr)
			err = errors.Join(err, ferr)
		}
	}()
	var dropped error // the last session that dropped under a mail, reported at the end
	for len(round) > 0 {
		n, f, drop, rerr := s.sendRound(ctx, conn, round, queue, folder)
		sent, failed = sent+n, failed+f
		if drop != nil {
			dropped = drop
		}
		folder.roundDone()
		if rerr != nil {
			return sent, failed, rerr
		}
		if round, err = queue.next(ctx, s.now()); err != nil {
			return sent, failed, err
		}
	}
	return sent, failed, dropped
}

// sentFolder commits a pass's sent marks (noted in the SentLog as each mail was
// accepted) to the store in the background, in transactions of at most foldChunk
// marks: all the marks of the rounds done since its last fold, however many rounds that
// is while it waited for the write lock.
type sentFolder struct {
	s     *Sender
	ctx   context.Context
	mu    sync.Mutex
	marks []store.SentMark // noted, not yet committed
	wake  chan struct{}
	stop  chan struct{}
	done  chan struct{}
	err   error // the first failed fold; the log keeps every mark then
}

// startFolder starts the pass's folder; nil (which folds nothing) without a SentLog.
// Its transactions are not cancelled with ctx: the server has the mails.
func (s *Sender) startFolder(ctx context.Context) *sentFolder {
	if s.SentLog == nil {
		return nil
	}
	f := &sentFolder{s: s, ctx: context.WithoutCancel(ctx), wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{})}
	go f.run()
	return f
}

// add hands over a mark noted in the SentLog.
func (f *sentFolder) add(m store.SentMark) {
	f.mu.Lock()
	f.marks = append(f.marks, m)
	f.mu.Unlock()
}

// roundDone asks for the marks handed over so far to be committed.
func (f *sentFolder) roundDone() {
	if f == nil {
		return
	}
	select {
	case f.wake <- struct{}{}:
	default:
	}
}

func (f *sentFolder) run() {
	defer close(f.done)
	for {
		select {
		case <-f.wake:
			f.fold()
		case <-f.stop:
			f.fold()
			return
		}
	}
}

// fold commits the marks handed over so far; after a failure it commits nothing more.
func (f *sentFolder) fold() {
	f.mu.Lock()
	marks := f.marks
	f.marks = nil
	f.mu.Unlock()
	if f.err != nil || len(marks) == 0 {
		return
	}
	n := 0
	for chunk := range slices.Chunk(marks, foldChunk) {
		err := f.s.Store.Write(f.ctx, func(tx store.Tx) error {
			k, err := store.FoldSentMarks(tx, chunk)
			n += k
			return err
		})
		if err != nil {
			f.err = fmt.Errorf("mark %d mails sent: %w", len(marks), err)
			return
		}
	}
	f.s.log().Debug("sent marks committed", "marks", len(marks), "marked", n)
}

// finish commits the marks left and, when every fold went through, empties the
// SentLog (every mark in it was handed over: the pass began with it empty). After a
// failure the log is left whole, for the next pass to fold.
func (f *sentFolder) finish() error {
	if f == nil {
		return nil
	}
	close(f.stop)
	<-f.done
	if f.err != nil {
		return f.err
	}
	return f.s.SentLog.Reset()
}

// sendRound sends one round of a pass over conn; later are the pass's mails after it,
// held back with the round's rest when the connection fails. dropped is the last session
// that dropped under a mail (the round went on); err ends the pass.
func (s *Sender) sendRound(ctx context.Context, conn *smtpConn, due []store.OutMail, later *passQueue, folder *sentFolder) (sent, failed int, dropped, err error) {
	log := s.log()
	built := s.buildAhead(ctx, due)
	defer built.stop()
	for i, m := range due {
		if err := ctx.Err(); err != nil {
			return sent, failed, dropped, err
		}
		attempt := m.Attempts + 1
		msg, err := built.next(ctx)
		if err != nil && ctx.Err() != nil {
			return sent, failed, dropped, ctx.Err()
		}
		if _, ok := errors.AsType[*readError](err); ok {
			return sent, failed, dropped, err
		}
		if err != nil {
			failed++
			m.Attempts, m.Failed, m.LastError = attempt, true, err.Error()
			log.Error("mail cannot be built; given up", sendLogAttrs(m, attempt, err)...)
			if werr := s.sendPut(ctx, m); werr != nil {
				return sent, failed, dropped, werr
			}
			continue
		}

		outcome, serr := conn.send(msg)
		switch outcome {
		case sendAccepted:
			sent++
			m.Sent, m.SentAt, m.Attempts = true, s.now(), attempt
			m.LastError, m.NextAttempt = "", time.Time{}
			if folder != nil {
				// Noted at once, committed with the others after the round.
				if lerr := s.SentLog.Append(m.Seq, m.SentAt); lerr == nil {
					folder.add(store.SentMark{Seq: m.Seq, At: m.SentAt})
					log.Info("mail sent", sendLogAttrs(m, attempt, nil)...)
					continue
				} else {
					log.Warn("sent log failed; marking this mail sent on its own", "err", lerr)
				}
			}
			// The server has the mail: record it even if shutdown began meanwhile.
			if werr := s.sendPut(context.WithoutCancel(ctx), m); werr != nil {
				log.Error("mail accepted but not marked sent: it may be sent again, with the same Message-ID",
					sendLogAttrs(m, attempt, werr)...)
				return sent, failed, dropped, fmt.Errorf("mark %s sent: %w", m.MessageID, werr)
			}
			log.Info("mail sent", sendLogAttrs(m, attempt, nil)...)

		case sendCancelled:
			// Left as it was: it is tried again, with the same Message-ID, next time.
			return sent, failed, dropped, fmt.Errorf("send %s to %v: %w", m.MessageID, m.To, ctx.Err())

		case sendRefusedTemp, sendRefusedPerm:
			failed++
			serr = fmt.Errorf("send %s to %v: %w", m.MessageID, m.To, serr)
			m = s.sendRetry(m, serr)
			if outcome == sendRefusedPerm {
				m.Refusals++
			}
			if outcome == sendRefusedPerm && m.Refusals >= s.maxAttempts() {
				m.Failed = true
				log.Error("mail refused permanently; given up", sendLogAttrs(m, attempt, serr)...)
			} else {
				log.Warn("mail refused; will retry", append(sendLogAttrs(m, attempt, serr), "next_attempt", m.NextAttempt)...)
			}
			if werr := s.sendPut(ctx, m); werr != nil {
				return sent, failed, dropped, werr
			}

		case sendDropped:
			// Counted against this mail alone, and the pass goes on with the others on a
			// new connection (a real outage shows at that dial, and ends the pass): one mail
			// the server drops the connection for never holds the others up, and is given
			// up after as many drops as refusals.
			failed++
			serr = fmt.Errorf("send %s to %v: connection dropped while sending: %w", m.MessageID, m.To, serr)
			m = s.sendRetry(m, serr)
			m.Drops++
			if m.Drops >= s.maxAttempts() {
				m.Failed = true
				log.Error("the server dropped the connection every time this mail was sent; given up", sendLogAttrs(m, attempt, serr)...)
			} else {
				log.Warn("connection dropped while sending; will retry this mail later", append(sendLogAttrs(m, attempt, serr), "next_attempt", m.NextAttempt)...)
			}
			if werr := s.sendPut(ctx, m); werr != nil {
				return sent, failed, dropped, werr
			}
			dropped = serr

		case sendConnLost:
			after, lerr := later.rest(ctx, s.now())
			if lerr != nil {
				log.Warn("mails after the connection failed not held back: they are tried at the next pass", "err", lerr)
			}
			rest := append(slices.Clone(due[i:]), after...)
			failed += len(rest)
			var refused *LoginError
			if errors.As(serr, &refused) {
				// The host must fix the configuration: said in words, at error level.
				log.Error(refused.Error()+"; remaining mails held back", "held_back", len(rest), "attempt", attempt)
			} else {
				log.Warn("smtp connection failed; pass ended, remaining mails held back",
					append(sendLogAttrs(m, attempt, fmt.Errorf("send %s to %v: %w", m.MessageID, m.To, serr)), "held_back", len(rest))...)
			}
			serr = fmt.Errorf("send %s to %v: %w", m.MessageID, m.To, serr)
			held := make([]store.OutMail, len(rest))
			for j, r := range rest {
				held[j] = s.sendRetry(r, serr)
				log.Debug("mail held back", append(sendLogAttrs(r, r.Attempts+1, nil), "next_attempt", held[j].NextAttempt)...)
			}
			if werr := s.sendPut(ctx, held...); werr != nil {
				return sent, failed, dropped, errors.Join(serr, werr)
			}
			return sent, failed, dropped, serr
		}
	}
	return sent, failed, dropped, nil
}

// sendRetry returns m after one more failed try: Attempts+1, LastError, and NextAttempt
// after the back-off.
func (s *Sender) sendRetry(m store.OutMail, err error) store.OutMail {
	m.Attempts++
	m.LastError = err.Error()
	m.NextAttempt = s.now().Add(Backoff(m.Attempts, s.minBackoff(), s.maxBackoff()))
	return m
}

// sendPut writes the delivery records of mails (heads) back to the outbox in one
// transaction.
func (s *Sender) sendPut(ctx context.Context, mails ...store.OutMail) error {
	err := s.Store.Write(ctx, func(tx store.Tx) error {
		for _, m := range mails {
			if err := tx.PutDelivery(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("update outbox: %w", err)
	}
	return nil
}

// sendLogAttrs are the attributes of a log line about one mail: never its body (nor its
// subject, which may say more than the logs should).
func sendLogAttrs(m store.OutMail, attempt int, err error) []any {
	a := []any{"message_id", m.MessageID, "to", m.To, "attempt", attempt, "seq", m.Seq, "kind", m.Kind}
	if m.Game != "" {
		a = append(a, "game", m.Game)
	}
	if err != nil {
		a = append(a, "err", err)
	}
	return a
}

// Run drains at start, whenever wake receives, and when the earliest NextAttempt comes,
// until ctx is done; it then returns nil. A pass that ended with an error is followed by at
// least MinBackoff of quiet (unless wake receives). Run returns an error at once only when
// the configuration is invalid.
func (s *Sender) Run(ctx context.Context, wake <-chan struct{}) error {
	if err := s.Config.Validate(); err != nil {
		return err
	}
	if s.Store == nil {
		return errors.New("mail: Sender has no Store")
	}
	log := s.log()
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	defer s.closeKept()
	for {
		sent, failed, err := s.DrainOnce(ctx)
		if ctx.Err() != nil {
			return nil
		}
		switch {
		case err != nil:
			log.Warn("outbox pass ended early", "sent", sent, "failed", failed, "err", err)
		case sent+failed > 0:
			log.Info("outbox pass", "sent", sent, "failed", failed)
		}

		wait, pending, nerr := s.sendNextWait(ctx)
		if nerr != nil {
			if ctx.Err() != nil {
				return nil
			}
			log.Error("outbox", "err", nerr)
			err = nerr
		}
		if err != nil {
			pending, wait = true, max(wait, s.minBackoff())
		}
		var tick <-chan time.Time
		if pending {
			timer.Reset(max(wait, 0))
			tick = timer.C
		}
		select {
		case <-ctx.Done():
			return nil
		case <-wake:
		case <-tick:
		}
		timer.Stop()
	}
}

// sendNextWait returns how long until the earliest unsent, not failed mail is due, and
// whether there is one.
func (s *Sender) sendNextWait(ctx context.Context) (time.Duration, bool, error) {
	var next time.Time
	pending := false
	err := s.Store.Read(ctx, func(tx store.Tx) error {
		// A page at a time: a backlog's heads are not held at once.
		for after := uint64(0); ; {
			page, last, err := store.PendingPage(tx, after, 0, sendRoundSize)
			if err != nil || len(page) == 0 {
				return err
			}
			after = last
			for _, m := range page {
				if m.Sent || m.Failed {
					continue
				}
				if !pending || m.NextAttempt.Before(next) {
					next, pending = m.NextAttempt, true
				}
			}
		}
	})
	if err != nil {
		return 0, false, fmt.Errorf("read outbox: %w", err)
	}
	if !pending {
		return 0, false, nil
	}
	return next.Sub(s.now()), true, nil
}

// sendOutcome is what became of one mail on the wire.
type sendOutcome int

const (
	sendAccepted    sendOutcome = iota // the server took it
	sendRefusedTemp                    // 4xx for this mail
	sendRefusedPerm                    // 5xx for this mail
	sendConnLost                       // connection or session failure: end the pass
	sendDropped                        // the session dropped while this mail was sent
	sendCancelled                      // ctx is done
)

// smtpConn is one pass's SMTP connection: dialled when the first mail needs it, dialled
// again when it dropped while idle, closed when the context is cancelled (which interrupts
// any network step at once).
type smtpConn struct {
	ctx    context.Context
	cfg    SMTPConfig
	addr   string
	tls    *tls.Config
	client *gomail.Client

	c    *gosmtp.Client // nil: not connected
	raw  net.Conn       // the TCP (or implicit TLS) connection under c
	stop func() bool    // unregisters the close-on-cancel of raw
	used bool           // a mail went through c (accepted or refused by the server)
	auth *smtpAuth      // nil: no AUTH configured
	buf  bytes.Buffer   // the content of the mail being sent (pipelined)
}

func (s *Sender) newSMTPConn(ctx context.Context) (*smtpConn, error) {
	cfg := s.Config
	sc := &smtpConn{
		ctx:  ctx,
		cfg:  cfg,
		addr: net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.port())),
		tls: &tls.Config{
			ServerName:         cfg.Host,
			MinVersion:         tls.VersionTLS12,
			InsecureSkipVerify: cfg.TLSInsecureSkipVerify, //nolint:gosec // tests against loopback only, documented
		},
	}
	opts := []gomail.Option{
		gomail.WithPort(cfg.port()),
		gomail.WithTimeout(cfg.timeout()),
		gomail.WithTLSConfig(sc.tls),
		gomail.WithDialContextFunc(sc.dial),
		gomail.WithoutRset(), // the transaction ends with the reply to DATA; RSET would cost a round trip
		// No NOOP before every mail either (a round trip each): a connection the server
		// closed while idle shows at MAIL FROM instead, and send dials again (below).
		gomail.WithoutNoop(),
	}
	if cfg.Security == "starttls" {
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	} else {
		// "tls": the dial function does the TLS; "none": loopback plain text.
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	}
	if cfg.HeloName != "" {
		opts = append(opts, gomail.WithHELO(cfg.HeloName))
	}
	if cfg.Username != "" {
		sc.auth = &smtpAuth{user: cfg.Username, pass: cfg.Password, host: cfg.Host, plainText: cfg.Security == "none"}
		opts = append(opts, gomail.WithSMTPAuthCustom(sc.auth))
	}
	client, err := gomail.NewClient(cfg.Host, opts...)
	if err != nil {
		return nil, fmt.Errorf("smtp client for %s: %w", sc.addr, err)
	}
	sc.client = client
	return sc, nil
}

// dial is go-mail's dial function: TCP, or TLS for "tls", closed as soon as the pass's
// context is cancelled.
func (sc *smtpConn) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d := &net.Dialer{}
	var conn net.Conn
	var err error
	if sc.cfg.Security == "tls" {
		conn, err = (&tls.Dialer{NetDialer: d, Config: sc.tls}).DialContext(ctx, network, addr)
	} else {
		conn, err = d.DialContext(ctx, network, addr)
	}
	if err != nil {
		return nil, err
	}
	sc.raw = conn
	sc.stop = context.AfterFunc(sc.ctx, func() { conn.Close() })
	return conn, nil
}

func (sc *smtpConn) connect() error {
	if sc.auth != nil {
		sc.auth.started = false
	}
	c, err := sc.client.DialToSMTPClientWithContext(sc.ctx)
	if err != nil {
		sc.drop() // go-mail leaves the connection open when EHLO, STARTTLS or AUTH fail
		if sc.auth != nil && sc.auth.started && sc.ctx.Err() == nil {
			// EHLO and STARTTLS went through: the login is what failed.
			return &LoginError{Proto: "SMTP", User: sc.cfg.Username, Addr: sc.addr, Err: err}
		}
		return fmt.Errorf("connect to %s (%s): %w", sc.addr, sc.cfg.Security, err)
	}
	sc.c, sc.used = c, false
	return nil
}

// rebind gives a kept connection to a new pass: its context, and the close-on-cancel
// of the raw connection moved to it.
func (sc *smtpConn) rebind(ctx context.Context) {
	sc.ctx = ctx
	if sc.stop != nil {
		sc.stop()
	}
	if raw := sc.raw; raw != nil {
		sc.stop = context.AfterFunc(ctx, func() { raw.Close() })
	}
}

// drop closes the connection without a word to the server.
func (sc *smtpConn) drop() {
	if sc.stop != nil {
		sc.stop()
		sc.stop = nil
	}
	if sc.raw != nil {
		sc.raw.Close()
		sc.raw = nil
	}
	sc.c = nil
}

// close ends the session politely (QUIT) unless the context is done, then drops it.
func (sc *smtpConn) close() {
	if sc.c != nil && sc.ctx.Err() == nil {
		_ = sc.client.CloseWithSMTPClient(sc.c)
	}
	sc.drop()
}

// send sends one message and says what became of it.
func (sc *smtpConn) send(msg *gomail.Msg) (sendOutcome, error) {
	for try := 0; ; try++ {
		if sc.c == nil {
			if err := sc.connect(); err != nil {
				if sc.ctx.Err() != nil {
					return sendCancelled, sc.ctx.Err()
				}
				return sendConnLost, err
			}
		}
		var err error
		delivered := false
		if env, ok := sc.pipelinable(msg); ok {
			delivered, err = sc.sendPipelined(msg, env)
		} else {
			err = sc.client.SendWithSMTPClient(sc.c, msg)
			delivered = msg.IsDelivered()
		}
		if err == nil || delivered {
			sc.used = true
			if err != nil {
				sc.drop() // accepted, but the session is in doubt afterwards
			}
			return sendAccepted, nil
		}
		if sc.ctx.Err() != nil {
			sc.drop()
			return sendCancelled, sc.ctx.Err()
		}
		outcome := smtpClassify(err)
		if outcome != sendConnLost {
			sc.used = true
			return outcome, err
		}
		// A connection the server closed between two mails fails its next command,
		// MAIL FROM (or go-mail's connection check), without a reply or with the 421
		// the server said as it closed.
		idle := smtpAtMailFrom(err)
		reused := sc.used
		sc.drop()
		if idle && reused && try == 0 {
			// The server closed the connection between two mails (an idle timeout): dial
			// once more. A fresh connection that fails at once is a real failure.
			continue
		}
		if midData(err) {
			// The session was up and went down, without a reply, while this mail's content
			// was on the wire: this mail may be what the server will not take (a header
			// line too long).
			return sendDropped, err
		}
		return sendConnLost, err
	}
}

// smtpEnvelope is what a pipelined transaction sends before the content: the
// addresses in angle brackets, as go-mail gives them.
type smtpEnvelope struct {
	from string
	rcpt string
}

// pipelinable says whether msg goes in one pipelined transaction (RFC 2920) and with
// which envelope: when the server offers PIPELINING and 8BITMIME (go-mail's path
// refuses unencoded content without it) and the mail has one recipient, as every mail
// of the desk has. The other mails go through go-mail's transaction, a round trip a
// command.
func (sc *smtpConn) pipelinable(msg *gomail.Msg) (smtpEnvelope, bool) {
	if ok, _ := sc.c.Extension("PIPELINING"); !ok {
		return smtpEnvelope{}, false
	}
	if ok, _ := sc.c.Extension("8BITMIME"); !ok {
		return smtpEnvelope{}, false
	}
	from, err := msg.GetSender(false)
	if err != nil {
		return smtpEnvelope{}, false
	}
	rcpts, err := msg.GetRecipients()
	if err != nil || len(rcpts) != 1 {
		return smtpEnvelope{}, false
	}
	if strings.ContainsAny(from, "\r\n") || strings.ContainsAny(rcpts[0], "\r\n") {
		return smtpEnvelope{}, false // go-mail's path refuses it, with its reason
	}
	return smtpEnvelope{from: from, rcpt: rcpts[0]}, true
}

// writeDotted writes data as the content of DATA (RFC 5321 4.5.2) byte for byte as
// textproto's DotWriter does (the same states: a bare LF becomes CRLF, a dot at the
// start of a line is doubled, then the closing dot line), but a run of plain bytes at
// a time instead of a byte; and flushes it.
func writeDotted(w *bufio.Writer, data []byte) error {
	const (
		begin     = iota // nothing written yet
		beginLine        // after a line's end
		inLine
		afterCR
	)
	state := begin
	for i := 0; i < len(data); {
		switch state {
		case begin, beginLine:
			if data[i] == '.' {
				w.WriteByte('.')
			}
		case afterCR:
			// The byte after a CR is written as it is, whatever it is.
			state = inLine
			if data[i] == '\n' {
				state = beginLine
			}
			w.WriteByte(data[i])
			i++
			continue
		}
		state = inLine
		j := bytes.IndexAny(data[i:], "\r\n")
		if j < 0 {
			w.Write(data[i:])
			break
		}
		w.Write(data[i : i+j])
		if data[i+j] == '\r' {
			w.WriteByte('\r')
			state = afterCR
		} else {
			w.WriteString("\r\n")
			state = beginLine
		}
		i += j + 1
	}
	switch state {
	case begin, inLine:
		w.WriteString("\r\n.\r\n")
	case afterCR:
		w.WriteString("\n.\r\n")
	case beginLine:
		w.WriteString(".\r\n")
	}
	return w.Flush()
}

// smtpStepError is the failure of one step of a pipelined transaction: the server's
// reply (code 0: none, the connection failed) to MAIL, RCPT, DATA or the content.
type smtpStepError struct {
	step string // "mail", "rcpt", "data" or "content"
	code int
	err  error
}

func (e *smtpStepError) Error() string {
	return fmt.Sprintf("smtp %s: %v", strings.ToUpper(e.step), e.err)
}

func (e *smtpStepError) Unwrap() error { return e.err }

// smtpReply reads one reply and says how a step went: a code other than want's
// class, or no reply at all, is its error.
func (sc *smtpConn) smtpReply(step string, want int) error {
	code, _, err := sc.c.Text.ReadResponse(want)
	if err == nil {
		return nil
	}
	if code == 0 {
		var terr *textproto.Error
		if errors.As(err, &terr) {
			code = terr.Code
		}
	}
	return &smtpStepError{step: step, code: code, err: err}
}

// sendPipelined sends msg in one pipelined transaction (RFC 2920): MAIL FROM, RCPT TO
// and DATA written at once, their replies read together, then the content: two round
// trips a mail where go-mail's transaction takes four. Every reply is read whatever the
// ones before it said, so that the session stays in step; after a refusal the
// transaction is reset (RSET). delivered says the server accepted the content.
func (sc *smtpConn) sendPipelined(msg *gomail.Msg, env smtpEnvelope) (delivered bool, err error) {
	if err := sc.c.UpdateDeadline(sc.cfg.timeout()); err != nil {
		return false, &smtpStepError{step: "mail", err: err}
	}
	// The content first, into memory: a mail that cannot be written is not begun.
	sc.buf.Reset()
	if _, err := msg.WriteTo(&sc.buf); err != nil {
		// As when go-mail fails to write it in DATA: counted against this mail alone.
		return false, &smtpStepError{step: "content", err: fmt.Errorf("write the mail: %w", err)}
	}
	w := sc.c.Text.W
	params := " BODY=8BITMIME"
	if ok, _ := sc.c.Extension("SMTPUTF8"); ok {
		params += " SMTPUTF8"
	}
	fmt.Fprintf(w, "MAIL FROM:%s%s\r\nRCPT TO:%s\r\nDATA\r\n", env.from, params, env.rcpt)
	if err := w.Flush(); err != nil {
		return false, &smtpStepError{step: "mail", err: err}
	}
	// No reply, or 421 (the server closes the channel): the session is gone, and what
	// the other replies would say does not matter.
	gone := func(err error) bool {
		se, ok := err.(*smtpStepError)
		return ok && (se.code == 0 || se.code == 421)
	}
	mailErr := sc.smtpReply("mail", 250)
	if gone(mailErr) {
		return false, mailErr
	}
	rcptErr := sc.smtpReply("rcpt", 25)
	if gone(rcptErr) {
		return false, rcptErr
	}
	dataErr := sc.smtpReply("data", 354)
	if gone(dataErr) {
		return false, dataErr
	}
	refused := cmp.Or(mailErr, rcptErr)
	if dataErr == nil && refused != nil {
		// The server took DATA with no recipient it accepted: the content cannot be
		// withheld but by closing the session.
		sc.drop()
		return false, refused
	}
	if refused = cmp.Or(refused, dataErr); refused != nil {
		// Reset the transaction the refusal left open (MAIL accepted, say).
		if id, err := sc.c.Text.Cmd("RSET"); err == nil {
			sc.c.Text.StartResponse(id)
			_, _, err = sc.c.Text.ReadResponse(250)
			sc.c.Text.EndResponse(id)
			if err != nil {
				sc.drop()
			}
		} else {
			sc.drop()
		}
		return false, refused
	}
	if err := writeDotted(sc.c.Text.W, sc.buf.Bytes()); err != nil {
		return false, &smtpStepError{step: "content", err: err}
	}
	if err := sc.smtpReply("content", 250); err != nil {
		return false, err
	}
	return true, nil
}

// VERP returns the envelope sender of outbox mail seq signed with tag (the store's
// [store.Identity.BounceTag] of the mail): from with "+b-<seq>-<tag>" added to its local
// part ("adjutant+b-42-0123456789abcdef@example.org"), or "" when from is no plain
// address or there is no tag. The tag is what makes a bounce believable: the outbox
// number alone is sequential, and anybody could mail a bounce naming it.
func VERP(from string, seq uint64, tag string) string {
	a, err := netmail.ParseAddress(from)
	if err != nil || seq == 0 || tag == "" {
		return ""
	}
	local, domain, ok := strings.Cut(a.Address, "@")
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s+b-%d-%s@%s", local, seq, tag, domain)
}

// envelopeSender is the VERP address m is sent from, or "" for the plain From (NoVERP,
// or a sender without a store to sign with).
func (s *Sender) envelopeSender(m store.OutMail) string {
	if s.Config.NoVERP || s.Store == nil {
		return ""
	}
	return VERP(s.Config.From, m.Seq, s.Store.Identity().BounceTag(m.Seq, m.MessageID))
}

// midData reports whether err is the session ending without an SMTP reply while a mail's
// content was being sent (DATA, the content, or its closing dot).
func midData(err error) bool {
	var ste *smtpStepError
	if errors.As(err, &ste) {
		return ste.code == 0 && (ste.step == "data" || ste.step == "content")
	}
	var se *gomail.SendError
	if !errors.As(err, &se) || se.ErrorCode() != 0 {
		return false
	}
	switch se.Reason {
	case gomail.ErrSMTPData, gomail.ErrSMTPDataClose, gomail.ErrWriteContent:
		return true
	}
	return false
}

// smtpAtMailFrom reports whether err is the session failing at a mail's first command
// without a reply or with 421: what a connection the server closed while idle does.
func smtpAtMailFrom(err error) bool {
	var ste *smtpStepError
	if errors.As(err, &ste) {
		return ste.step == "mail" && (ste.code == 0 || ste.code == 421)
	}
	var se *gomail.SendError
	return errors.As(err, &se) && (se.ErrorCode() == 0 || se.ErrorCode() == 421) &&
		(se.Reason == gomail.ErrConnCheck || se.Reason == gomail.ErrSMTPMailFrom)
}

// smtpClassify sorts a send error. The reply code is the server's; no code at all
// means the connection itself failed.
func smtpClassify(err error) sendOutcome {
	var ste *smtpStepError
	if errors.As(err, &ste) {
		if ste.step == "mail" {
			// MAIL FROM names the game mailbox, the same for every mail: a refusal is
			// about the session (authentication, the sender address), not this mail.
			return sendConnLost
		}
		return smtpClassifyCode(ste.code)
	}
	var se *gomail.SendError
	if !errors.As(err, &se) {
		return sendConnLost
	}
	switch se.Reason {
	case gomail.ErrConnCheck:
		return sendConnLost
	case gomail.ErrSMTPMailFrom:
		// MAIL FROM names the game mailbox, the same for every mail: a refusal is about the
		// session (authentication, the sender address), not this mail. Giving mails up for
		// it would lose them.
		return sendConnLost
	case gomail.ErrGetSender, gomail.ErrGetRcpts, gomail.ErrNoUnencoded:
		return sendRefusedPerm
	}
	return smtpClassifyCode(se.ErrorCode())
}

// smtpClassifyCode sorts a reply code to a mail's RCPT, DATA or content.
func smtpClassifyCode(code int) sendOutcome {
	switch {
	case code == 421: // service not available, closing the channel
		return sendConnLost
	case code >= 500 && code < 600:
		return sendRefusedPerm
	case code >= 400 && code < 500:
		return sendRefusedTemp
	}
	return sendConnLost
}

// smtpAuth authenticates with PLAIN, or with LOGIN when the server offers only that.
type smtpAuth struct {
	user, pass, host string
	plainText        bool // Security "none": loopback, so credentials may go unencrypted
	next             gosmtp.Auth
	started          bool // AUTH was sent: a failure from here on is the server's refusal
}

func (a *smtpAuth) Start(info *gosmtp.ServerInfo) (string, []byte, error) {
	switch {
	case slices.ContainsFunc(info.Auth, func(m string) bool { return strings.EqualFold(m, "PLAIN") }):
		a.next = gosmtp.PlainAuth("", a.user, a.pass, a.host, a.plainText)
	case slices.ContainsFunc(info.Auth, func(m string) bool { return strings.EqualFold(m, "LOGIN") }):
		a.next = gosmtp.LoginAuth(a.user, a.pass, a.host, a.plainText)
	case len(info.Auth) == 0:
		return "", nil, errors.New("smtp: a username is configured but the server offers no AUTH")
	default:
		return "", nil, fmt.Errorf("smtp: the server offers AUTH %s, neither PLAIN nor LOGIN", strings.Join(info.Auth, " "))
	}
	mech, resp, err := a.next.Start(info)
	a.started = err == nil
	return mech, resp, err
}

func (a *smtpAuth) Next(fromServer []byte, more bool) ([]byte, error) {
	return a.next.Next(fromServer, more)
}

// CheckSMTP connects to the submission server as the sender would (TLS as configured),
// logs in when a Username is set, and says QUIT, sending nothing. For `adjutant config
// check`. A refused login is a *LoginError.
func CheckSMTP(ctx context.Context, c SMTPConfig) error {
	if err := c.Validate(); err != nil {
		return err
	}
	sc, err := (&Sender{Config: c}).newSMTPConn(ctx)
	if err != nil {
		return err
	}
	if err := sc.connect(); err != nil {
		return err
	}
	sc.close()
	return nil
}
