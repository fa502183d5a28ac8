package adjudicator

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"regexp"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

// Message is one inbound mail as plain text, however it arrived (pipe or IMAP).
type Message struct {
	ID              string // Message-ID without brackets, or a hash of the raw message
	From            string // bare address, lower case
	Subject         string
	Text            string
	InReplyTo       string
	References      []string
	Automated       bool // bounce, auto-reply, list mail: never answered
	AutomatedReason string
	OwnMail         bool // carries the daemon's own marker header
	TooLarge        bool // over the size limit: refused unread
	// BounceOf is the outbox number of the mail an automated message (a bounce) names
	// through its VERP address; 0 when none. BounceTag is that address's tag, which the
	// desk checks against the store's (store.Identity.ValidBounceTag); BounceFailed the
	// recipients the bounce's delivery status report says failed, one of which must be
	// the address the mail went to.
	BounceOf     uint64
	BounceTag    string
	BounceFailed []string
	// Unreadable says why no text could be found in the mail (MIME nested too deep,
	// broken boundaries, too many parts, no text part); "" when the text was read.
	Unreadable string
	Arrived    time.Time
	// Date is the sender's Date: header (zero when it had none): never the order of
	// arrival, only the check that a host mail is not an old one sent again (hostreplay.go).
	Date time.Time
}

// Desk is the game-agnostic adjudicator desk. The zero value is not usable; set Store,
// Rulesets and Address.
type Desk struct {
	Store    store.Store
	Rulesets map[string]rules.Ruleset
	// Address is the game mailbox: the From of every mail the desk sends.
	Address string
	// Now is the desk's clock (time.Now when nil). Rulesets never see it.
	Now func() time.Time
	// Rand supplies seeds, salts and generated passwords (crypto/rand when nil).
	Rand io.Reader
	Log  *slog.Logger
	// PasswordCost is the bcrypt cost (bcrypt.DefaultCost when 0).
	PasswordCost int
	// RefusalLimit refusals are sent to a player's address per RefusalWindow (default 3
	// per hour); an address that plays in no game it names gets one a day; and no more
	// than RefusalCap refusals go out per hour in all (default 30). Later ones are
	// dropped silently, so that nobody can make the desk send a mail per mail, nor use
	// it to send backscatter to forged senders.
	RefusalLimit  int
	RefusalWindow time.Duration
	RefusalCap    int
	// HostAddress is the game host's address and HostPassHash the bcrypt hash of the
	// host password: a mail from that address with a line HOST PASSWORD carries host
	// commands (host.go). Empty: no host by mail.
	HostAddress  string
	HostPassHash string
	// ResultsLayout is the layout of new results mails (LayoutGlance and the rest);
	// 0 is CurrentLayout. Games in progress keep theirs per advance in the journal.
	ResultsLayout int
	// PasswordKey keys the password verifiers kept in the store (verifier.go), which
	// recognise a right password without bcrypt however many wrong ones came before
	// it. The daemon reads it from a file beside the store (store.LoadKey), never from
	// the store. Nil: no verifier is made or read, and passwords are checked by bcrypt
	// within the hourly budget of MaxFailedChecks failures a player.
	PasswordKey []byte
	// Club is what the host lets players do by mail besides playing: open games, join
	// them, observe them (club.go). The zero value lets anyone open a few games.
	Club Club
	// Beacon names and fetches the public randomness rounds of games played with
	// `--dice beacon` (beacondice.go). Nil: no such game can be created, and those in
	// progress wait.
	Beacon BeaconSource

	passwords    passwordCache
	maps         mapMemo
	statuses     mapMemo // the rulesets' statuses, as maps (mapmemo.go); sized by statusMemoSize
	keys         keyMemo
	bcryptChecks atomic.Int64 // for tests: how many checks reached bcrypt
}

// Outcome words returned by Handle, also stored with the processed message id.
const (
	Handled    = "handled"
	Duplicate  = "duplicate"
	Ignored    = "ignored"
	Refused    = "refused"
	Throttled  = "throttled"
	maxGameLen = 32
)

func (d *Desk) now() time.Time {
	if d.Now != nil {
		return d.Now().UTC()
	}
	return time.Now().UTC()
}

func (d *Desk) rand() io.Reader {
	if d.Rand != nil {
		return d.Rand
	}
	return rand.Reader
}

func (d *Desk) log() *slog.Logger {
	if d.Log != nil {
		return d.Log
	}
	return slog.New(slog.DiscardHandler)
}

func (d *Desk) ruleset(name string) (rules.Ruleset, error) {
	rs, ok := d.Rulesets[name]
	if !ok {
		names := make([]string, 0, len(d.Rulesets))
		for n := range d.Rulesets {
			names = append(names, n)
		}
		sort.Strings(names)
		return nil, fmt.Errorf("unknown ruleset %q (the rulesets are %s)", name, strings.Join(names, ", "))
	}
	return rs, nil
}

func (d *Desk) randomHex(n int) (string, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(d.rand(), b); err != nil {
		return "", fmt.Errorf("draw random bytes: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// Handle handles one inbound message: exactly one effect per message id (invariant 1),
// every effect and every reply in one transaction (invariant 2). It returns what was done.
// A failure that no retry of the same mail can mend (a bug it sets off, in the rules or
// the desk) sets the message aside (setAside) and is an outcome, not an error, so that
// one mail cannot stop the mailbox; an error means a failure that may pass ([Temporary]:
// the store locked, the disk full, a lost connection, ctx cancelled), and nothing was
// committed: the message is to be handled again later.
func (d *Desk) Handle(ctx context.Context, m Message) (string, error) {
	m, err := d.intake(m)
	if err != nil {
		return "", err
	}
	// The password check (bcrypt, tens of ms) runs before the write transaction, so that
	// the store's single writer (which the sender's "mark sent" also waits for) is never
	// held while it runs.
	pre, err := d.safePrecheck(ctx, m)
	if err != nil && !Temporary(err) {
		return d.setAside(ctx, m, "", err)
	}
	if err != nil {
		return "", fmt.Errorf("handle message %s: %w", m.ID, err)
	}
	var outcome, game string
	err = d.Store.Write(ctx, func(tx store.Tx) (err error) {
		outcome, game, err = d.handleIn(ctx, tx, m, pre)
		return err
	})
	if err != nil && !Temporary(err) {
		return d.setAside(ctx, m, game, err)
	}
	if err != nil {
		return "", fmt.Errorf("handle message %s: %w", m.ID, err)
	}
	d.log().Info("message handled", "id", m.ID, "from", m.From, "outcome", outcome)
	return outcome, nil
}

// HandleBatch handles messages in order as Handle does, all in one transaction: a
// backlog then costs one commit (one fsync) a batch instead of one a message, and the
// effects are the same as handling them one by one, since each message's handling sees
// the writes of those before it. If anything fails, nothing of the batch is committed
// and the messages are handled again one by one, so that a failure is one message's
// alone (set aside, or returned with the outcomes of those before it).
func (d *Desk) HandleBatch(ctx context.Context, ms []Message) ([]string, error) {
	if len(ms) <= 1 {
		return d.handleEach(ctx, ms)
	}
	batch := make([]Message, len(ms))
	pres := make([]passwordVerdict, len(ms))
	var err error
	for i, m := range ms {
		if batch[i], err = d.intake(m); err != nil {
			break
		}
		if pres[i], err = d.precheck(ctx, batch[i]); err != nil {
			break
		}
	}
	outcomes := make([]string, len(ms))
	if err == nil {
		err = d.Store.Write(ctx, func(tx store.Tx) error {
			for i, m := range batch {
				o, _, err := d.handleIn(ctx, tx, m, pres[i])
				if err != nil {
					return err
				}
				outcomes[i] = o
			}
			return nil
		})
	}
	if err == nil {
		for i, m := range batch {
			d.log().Info("message handled", "id", m.ID, "from", m.From, "outcome", outcomes[i], "batch", len(batch))
		}
		return outcomes, nil
	}
	d.log().Warn("batch not committed; handling its messages one by one", "batch", len(ms), "cause", errorKind(err))
	return d.handleEach(ctx, ms)
}

// handleEach handles messages one by one, stopping at the first error (a temporary one:
// Handle sets the others aside).
func (d *Desk) handleEach(ctx context.Context, ms []Message) ([]string, error) {
	var outcomes []string
	for _, m := range ms {
		o, err := d.Handle(ctx, m)
		if err != nil {
			return outcomes, err
		}
		outcomes = append(outcomes, o)
	}
	return outcomes, nil
}

// safePrecheck is precheck with a panic turned into an error, so that a bug in reading
// one mail sets that mail aside instead of stopping the daemon.
func (d *Desk) safePrecheck(ctx context.Context, m Message) (v passwordVerdict, err error) {
	defer func() {
		if r := recover(); r != nil {
			v, err = passwordVerdict{}, fmt.Errorf("panic: %v", r)
		}
	}()
	return d.precheck(ctx, m)
}

// intake checks and normalises a message before it is handled.
func (d *Desk) intake(m Message) (Message, error) {
	if m.ID == "" {
		return m, errors.New("handle message: empty message id")
	}
	if m.Arrived.IsZero() {
		m.Arrived = d.now()
	}
	m.From = strings.ToLower(strings.TrimSpace(m.From))
	return m, nil
}

// handleIn is the handling of one message inside a write transaction: the duplicate
// check, the effects, and the processed mark. game names the game it concerned, if any.
func (d *Desk) handleIn(ctx context.Context, tx store.Tx, m Message, pre passwordVerdict) (outcome, game string, err error) {
	var h *handling
	defer func() {
		// A ruleset that panics is a bug in the rules, not in this mail: recover, so
		// that the transaction rolls back and the message can be set aside.
		if r := recover(); r != nil {
			err = fmt.Errorf("%w: panic: %v", ErrAdjudication, r)
		}
		if h != nil {
			game = h.game.Name
		}
	}()
	done, err := tx.Processed(m.ID)
	if err != nil {
		return "", "", err
	}
	if done {
		return Duplicate, "", nil
	}
	h = &handling{desk: d, tx: &gameTx{Tx: tx}, msg: m, now: d.now(), pre: pre}
	outcome, err = h.run(ctx)
	if err != nil {
		return "", "", err
	}
	return outcome, "", tx.MarkProcessed(m.ID, store.Processed{At: h.now, Game: h.game.Name, Outcome: outcome})
}

// ErrAdjudication marks a failure of a ruleset (an error or a panic while checking or
// resolving): a bug in the rules, which no retry of the same mail can mend.
var ErrAdjudication = errors.New("adjudication failed")

// Temporary reports whether err is a failure that may pass if the same message is
// handled again later: the store locked by another process, closed, or at its size
// limit ([store.Temporary]); a full disk or quota; a lost or refused connection or a
// timeout (a [net.Error], an errno of the network); ctx cancelled or past its deadline.
// Every other error is the message's own, or a bug it sets off: retrying it would stop
// the mailbox at that message for ever.
func Temporary(err error) bool {
	if err == nil {
		return false
	}
	var ne net.Error
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded),
		store.Temporary(err), errors.As(err, &ne):
		return true
	}
	for _, errno := range temporaryErrnos {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}

// temporaryErrnos are the system errors of a full disk, of I/O that may be retried,
// and of a lost connection.
var temporaryErrnos = []error{
	syscall.ENOSPC, syscall.EDQUOT, syscall.EIO, syscall.EROFS, syscall.EAGAIN, syscall.EINTR, syscall.ENOMEM,
	syscall.EMFILE, syscall.ENFILE, syscall.ECONNRESET, syscall.ECONNREFUSED, syscall.ECONNABORTED, syscall.EPIPE,
	syscall.ETIMEDOUT, syscall.EHOSTUNREACH, syscall.ENETUNREACH, syscall.ENETDOWN, syscall.ESTALE,
}

// setAside records a message whose handling failed for good as processed, changing
// nothing else, and tells its sender, so that one bad mail (or a bug it sets off) cannot
// hold up the mailbox. The host finds it in the log at error level and in the message's
// processed record, whose outcome says "failed:" and what failed; neither holds a
// ruleset's error text or anything written in the mail (a password, an order that may
// be sealed).
func (d *Desk) setAside(ctx context.Context, m Message, game string, cause error) (string, error) {
	kind, detail, outcome := errorKind(cause), "", "failed: adjudication error"
	if !errors.Is(cause, ErrAdjudication) {
		detail = scrubError(cause, m)
		outcome = "failed: " + kind + ": " + detail
	}
	d.log().Error("message set aside; game unchanged", "id", m.ID, "from", m.From, "game", game, "cause", kind, "err", detail)
	reply := !m.Automated && !m.OwnMail && m.From != "" && !strings.EqualFold(m.From, d.Address)
	write := func(reply bool) error {
		return d.Store.Write(ctx, func(tx store.Tx) error {
			h := &handling{desk: d, tx: tx, msg: m, now: d.now()}
			if reply {
				body, err := render("refusal.txt", map[string]any{"Address": d.Address,
					"Text": "Adjutant could not handle your mail because of an internal error. Nothing was changed and your orders were not filed; the host has been told. Please send them again later."})
				if err != nil {
					return err
				}
				if _, err := h.enqueue([]string{m.From}, game, "", "failed", replySubject(m.Subject), body, true); err != nil {
					return err
				}
			}
			return tx.MarkProcessed(m.ID, store.Processed{At: h.now, Game: game, Outcome: outcome})
		})
	}
	err := write(reply)
	if err != nil && reply && !Temporary(err) {
		// The reply itself cannot be queued (the bug may be in it): the message is set
		// aside all the same, unanswered, so that it stops nothing.
		d.log().Error("message set aside without a reply", "id", m.ID, "err", scrubError(err, m))
		err = write(false)
	}
	if err != nil {
		return "", fmt.Errorf("set aside message %s: %w", m.ID, err)
	}
	return outcome, nil
}

// errorKind names a failure for the log and the processed record, without a
// ruleset's details (which may quote sealed orders).
func errorKind(err error) string {
	switch {
	case strings.Contains(err.Error(), "panic:") && errors.Is(err, ErrAdjudication):
		return "panic in the ruleset"
	case errors.Is(err, ErrAdjudication):
		return "error from the ruleset"
	case strings.Contains(err.Error(), "panic:"):
		return "panic in the desk"
	}
	return "internal error"
}

// maxErrorDetail bounds the error text the host is shown of a mail set aside.
const maxErrorDetail = 300

// scrubError is err's text for the host without any word of the mail's text or subject
// (a password or an order it may quote), one line, cut to maxErrorDetail bytes.
func scrubError(err error, m Message) string {
	text := strings.Join(strings.Fields(err.Error()), " ")
	words := append(strings.Fields(m.Text), strings.Fields(m.Subject)...)
	sort.Slice(words, func(i, j int) bool { return len(words[i]) > len(words[j]) })
	for _, w := range words {
		if len(w) >= 3 {
			text = strings.ReplaceAll(text, w, "...")
		}
	}
	if len(text) > maxErrorDetail {
		text = strings.ToValidUTF8(text[:maxErrorDetail], "") + "..."
	}
	return text
}

// handling is the work of one message inside its transaction.
type handling struct {
	desk *Desk
	tx   store.Tx
	msg  Message
	now  time.Time
	game store.Game
	pre  passwordVerdict
	// player says the sender plays in the game the mail names, for the refusal limits.
	player bool
	// signReply: the reply to the mail is an order check, signed as it is queued
	// (ordersign.go).
	signReply bool
	// secrets masks the passwords msg holds in every mail it causes (secrets.go).
	secrets *scrubber
	// known are the game states decoded for the first lines of its mails (glance.go),
	// with their stored form.
	known []knownState
}

// passwordVerdict is a password check made before the write transaction: the hash it
// was checked against, the result, and the game whose player it was ("" for the host).
type passwordVerdict struct {
	hash string
	ok   bool
	game string
	// chosen is the bcrypt hash of the password of a club mail's NEW or JOIN (club.go),
	// made here so that bcrypt does not run inside the write transaction.
	chosen string
	// read is the mail as precheck read it, which the write transaction reads on from.
	read *mailReading
}

// mailReading is a mail's text read once: its lines (orders.Split), the lines Split set
// aside (quoted, signatures), and the desk's commands among them (readCommands).
type mailReading struct {
	lines   []orders.Line
	ignored []orders.Ignored
	cmd     deskCommands
}

// readMail reads text once for the whole handling of its mail.
func readMail(text string) *mailReading {
	lines, ignored := orders.Split(text)
	return &mailReading{lines: lines, ignored: ignored, cmd: readCommands(lines)}
}

// precheck checks the password of m against the player it names, in a read
// transaction and outside any write. The verdict carries the mail as read.
func (d *Desk) precheck(ctx context.Context, m Message) (passwordVerdict, error) {
	r := readMail(m.Text)
	v, err := d.precheckRead(ctx, m, r)
	v.read = r
	return v, err
}

func (d *Desk) precheckRead(ctx context.Context, m Message, r *mailReading) (passwordVerdict, error) {
	if m.Automated || m.OwnMail || m.TooLarge || m.Unreadable != "" || m.From == "" {
		// Refused unread: no password is checked, so none is counted as wrong.
		return passwordVerdict{}, nil
	}
	lines := r.lines
	if pw, ok := d.isHostMail(m.From, lines); ok {
		if d.HostPassHash == "" {
			return passwordVerdict{}, nil
		}
		var v string
		if len(d.PasswordKey) > 0 {
			err := d.Store.Read(ctx, func(tx store.Tx) (err error) {
				v, err = tx.Verifier(hostVerifierName)
				return err
			})
			if err != nil {
				return passwordVerdict{}, fmt.Errorf("read the host password's verifier: %w", err)
			}
		}
		return passwordVerdict{hash: d.HostPassHash, ok: d.checkVerified(d.HostPassHash, v, pw)}, nil
	}
	if d.isClubMail(lines, m.Subject) {
		return d.clubPrecheck(ctx, m, lines) // club.go
	}
	cmd := r.cmd
	name := cmd.game
	if name == "" {
		name = gameFromSubject(m.Subject)
	}
	if name == "" || cmd.password == "" {
		return passwordVerdict{}, nil
	}
	if hash, ok := d.passwords.opened(d, name, m.From, cmd.password); ok {
		// This password opened this game for this sender before: no need to read the
		// game (the transaction still compares hash with the player's).
		return passwordVerdict{hash: hash, ok: true, game: name}, nil
	}
	var player store.Player
	var found bool
	var verifier string
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		if done, err := tx.Processed(m.ID); err != nil || done {
			return err
		}
		g, err := tx.Game(name)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		} else if err != nil {
			return err
		}
		if player, found = findPlayer(g, m.From); found {
			verifier, err = tx.Verifier(verifierName(name, player.Side))
		}
		return err
	})
	if err != nil || !found {
		return passwordVerdict{}, err
	}
	v := passwordVerdict{hash: player.PassHash, ok: d.checkVerified(player.PassHash, verifier, cmd.password), game: name}
	if v.ok {
		d.passwords.rememberOpened(d, name, m.From, cmd.password, player.PassHash)
	}
	return v, nil
}

// passwordOK is the password check inside the transaction: the verdict made before it,
// unless the player's password changed in between. A right password leaves a current
// verifier in the store, for the player of an older store, or of a new key.
func (h *handling) passwordOK(p store.Player, password string) bool {
	name := ""
	if h.pre.game != "" {
		name = verifierName(h.pre.game, p.Side)
	}
	return h.verifiedOK(name, p.PassHash, password)
}

// verifiedOK is passwordOK for the password of hash whose verifier is kept under name
// (none when "").
func (h *handling) verifiedOK(name, hash, password string) bool {
	var ok bool
	if h.pre.hash != "" && h.pre.hash == hash {
		ok = h.pre.ok
	} else {
		var v string
		if name != "" && len(h.desk.PasswordKey) > 0 {
			v, _ = h.tx.Verifier(name) // none read: checked by bcrypt, as without a key
		}
		ok = h.desk.checkVerified(hash, v, password)
	}
	if ok && name != "" {
		h.keepVerifier(name, hash, password)
	}
	return ok
}

// keepVerifier stores the verifier of a password just found right, unless the store
// has it already (nearly always: nothing is written then).
func (h *handling) keepVerifier(name, hash, password string) {
	v := h.desk.verifier(hash, password)
	if v == "" {
		return
	}
	if cur, err := h.tx.Verifier(name); err == nil && cur == v {
		return
	}
	if err := h.tx.PutVerifier(name, v); err != nil {
		// Not fatal: the next right password is checked by bcrypt and tries again.
		h.desk.log().Warn("password verifier not kept", "err", err)
	}
}

var (
	subjectGame = regexp.MustCompile(`\[([A-Za-z0-9_.-]{1,32})\]`)
	subjectWord = regexp.MustCompile(`(?i)\bgame\s+([A-Za-z0-9_.-]{1,32})\b`)
	validGame   = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)
)

// deskCommands are the commands the desk itself reads; every other line is an order line
// for the ruleset.
type deskCommands struct {
	game, password, side         string
	help, status, showMap, rolls bool
	mapLayers                    []string      // MAP ZOC: what the map is to show besides (MapLayerer)
	helpDice                     bool          // HELP DICE: how to check the dice (DiceHelp)
	mapMode                      string        // from SET MAP: "full", "changes" or "none"
	picture                      string        // from SET PICTURE: "on" or "off"
	requests                     []orders.Line // ABSENT UNTIL and RESIGN (requests.go)
	orderLines                   []orders.Line
	deskLines                    []orders.Line
	badDesk                      []rules.Checked // desk commands written wrong
	// history is set by HISTORY, with the turn it names ("" for the last results);
	// summary by SUMMARY; allow are the ALLOW lines' arguments (history.go, observe.go).
	history, historyTurn string
	summary              bool
	allow                [][]string
}

// deskKeywords are the first words of the desk's own commands.
var deskKeywords = []string{"GAME", "PASSWORD", "SIDE", "HELP", "STATUS", "MAP", "ROLLS", "SET", "ABSENT", "RESIGN", "HISTORY", "SUMMARY", "ALLOW", "DICE"}

// MapModes are the choices of SET MAP, with what each puts in a results mail.
var MapModes = map[string]string{
	"full":    "the whole map in every results mail",
	"changes": "only the strips of the map where something changed (the default)",
	"none":    "no map in results mails; send MAP when you want it",
}

func readCommands(lines []orders.Line) deskCommands {
	var c deskCommands
	for _, l := range lines {
		arg := ""
		if len(l.Fields) > 1 {
			arg = l.Fields[1]
		}
		// "Password: secret" and "Game: verdun" are read as people write them.
		switch strings.TrimSuffix(l.Keyword(), ":") {
		case "GAME":
			c.game = arg
		case "PASSWORD":
			c.password = l.Rest(1)
			l.Text = "PASSWORD ********" // never echoed
		case "SIDE":
			c.side = strings.ToLower(arg)
		case "HELP":
			if isDiceHelp(arg) {
				c.helpDice = true
			} else {
				c.help = true
			}
		case "STATUS":
			c.status = true
		case "MAP":
			c.showMap = true
			for _, f := range l.Fields[1:] {
				c.mapLayers = append(c.mapLayers, orders.Upper(f))
			}
		case "ROLLS":
			c.rolls = true
		case "HISTORY":
			c.history, c.historyTurn = "yes", arg
			if len(l.Fields) > 2 {
				c.history = ""
				c.badDesk = append(c.badDesk, rules.Checked{Line: l, Reason: "expected HISTORY, or HISTORY and a turn's number", Rule: "HELP"})
				continue
			}
		case "SUMMARY":
			c.summary = true
		case "ALLOW":
			c.allow = append(c.allow, l.Fields[1:])
		case "SET":
			if l.Is("SET", "PICTURE") {
				c.picture = strings.ToLower(l.Rest(2))
				if len(l.Fields) != 3 || (c.picture != "on" && c.picture != "off") {
					c.picture = ""
					c.badDesk = append(c.badDesk, rules.Checked{Line: l, Reason: "expected SET PICTURE ON or SET PICTURE OFF", Rule: "HELP"})
					continue
				}
				break
			}
			mode := strings.ToLower(l.Rest(2))
			if _, ok := MapModes[mode]; !l.Is("SET", "MAP") || len(l.Fields) != 3 || !ok {
				c.badDesk = append(c.badDesk, rules.Checked{Line: l, Reason: "expected SET MAP FULL, SET MAP CHANGES or SET MAP NONE", Rule: "HELP"})
				continue
			}
			c.mapMode = mode
		case "ABSENT", "RESIGN", "DICE":
			c.requests = append(c.requests, l)
			continue
		default:
			c.orderLines = append(c.orderLines, l)
			continue
		}
		c.deskLines = append(c.deskLines, l)
	}
	return c
}

func gameFromSubject(subject string) string {
	if m := subjectGame.FindStringSubmatch(subject); m != nil {
		return m[1]
	}
	if m := subjectWord.FindStringSubmatch(subject); m != nil {
		return m[1]
	}
	return ""
}

func (h *handling) run(ctx context.Context) (string, error) {
	d, m := h.desk, h.msg
	switch {
	case m.Automated && m.BounceOf != 0:
		return h.bounce()
	case m.Automated:
		d.log().Info("not answering automated mail", "id", m.ID, "reason", m.AutomatedReason)
		return Ignored + ": automated (" + m.AutomatedReason + ")", nil
	case m.OwnMail || strings.EqualFold(m.From, d.Address):
		return Ignored + ": our own mail", nil
	case m.From == "":
		return Ignored + ": no sender address", nil
	}
	if m.TooLarge {
		return h.refuse("too-large", "Your mail was larger than this mailbox accepts, so it was not read. Nothing was changed. Send your orders as plain text, without attachments.")
	}
	if m.Unreadable != "" {
		return h.refuse("unreadable", "Adjutant could not read your mail: "+m.Unreadable+". Nothing was changed. Send your orders again as plain text in the body of the mail, without attachments.")
	}
	r := h.pre.read
	if r == nil {
		r = readMail(m.Text)
	}
	lines, ignored := r.lines, r.ignored
	if pw, ok := d.isHostMail(m.From, lines); ok {
		return h.hostMail(pw, lines, ignored)
	}
	if d.isClubMail(lines, m.Subject) {
		return h.clubMail(ctx, lines) // club.go: NEW, LIST, JOIN, OBSERVE, RATINGS, ...
	}
	cmd := r.cmd
	if !validPassword(cmd.password) {
		return h.refuse("bad-password", badPassword)
	}
	name := cmd.game
	if name == "" {
		name = gameFromSubject(m.Subject)
	}
	if name == "" {
		if cmd.help || cmd.helpDice {
			return h.refuse("help", generalHelp(d))
		}
		return h.refuse("no-game", "Adjutant could not tell which game your mail is for. Put a line GAME <name> (and PASSWORD <password>) at the top of your orders. Nothing was changed. Send HELP for how to write orders.")
	}
	g, err := h.tx.Game(name)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	player, ok := findPlayer(g, m.From)
	h.player = ok && err == nil
	if err != nil || !ok || !sideMatches(d, g, cmd.side, player.Side) || !h.passwordOK(player, cmd.password) {
		// One answer for every failure, so that it tells a stranger nothing about the game.
		return h.refuse("refused", authRefusal)
	}
	h.game = g
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return "", err
	}
	// Only now, with the ruleset's keywords known, can closing text be told from orders.
	kept, closing := orders.ClosingText(lines, append(rs.Keywords(), deskKeywords...))
	if len(closing) > 0 {
		cmd = readCommands(kept) // the commands without the closing text's lines
	}
	// The lines Split and ClosingText set aside, in the order of the mail, a quoted block
	// or a run of closing text as one.
	return h.submit(ctx, rs, player, cmd, orders.Runs(append(ignored, closing...), kept))
}

// sideMatches reports whether a mail's SIDE line, if any, names the player's side, by
// id or by name.
func sideMatches(d *Desk, g store.Game, written, side string) bool {
	if written == "" {
		return true
	}
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return false
	}
	s, err := findSide(rs, written)
	return err == nil && string(s) == side
}

const authRefusal = "Adjutant could not accept your mail: the game name, your address and your password must match a game you play. Nothing was changed. Send HELP for how to write orders."

// badPassword answers a PASSWORD line that holds a control character, or a character
// the mail could not decode: no password holds one, so it is refused unchecked (and
// counted nowhere), with what a password may hold.
const badPassword = "Adjutant could not accept your mail: its PASSWORD line holds a control character or a character that could not be decoded, which no password holds. A password is the one from your invitation: letters, digits and punctuation, written as it is. Nothing was changed. Send HELP for how to write orders."

func findPlayer(g store.Game, addr string) (store.Player, bool) {
	for _, p := range g.Players {
		if strings.EqualFold(p.Address, addr) {
			return p, true
		}
	}
	return store.Player{}, false
}

// checkPassword checks a player's password without a verifier.
func (d *Desk) checkPassword(p store.Player, password string) bool {
	return d.checkVerified(p.PassHash, "", password)
}

// checkVerified checks password against the bcrypt hash, through the verifier v when
// it is current (verifier.go): then the answer costs an HMAC, right or wrong, and
// counts nothing. Without a current verifier, bcrypt decides within the budget of
// MaxFailedChecks failures a player and hour.
func (d *Desk) checkVerified(hash, v, password string) bool {
	if password == "" || hash == "" || !validPassword(password) {
		return false
	}
	if d.verifierCurrent(v, hash) {
		return d.verifies(v, hash, password)
	}
	if d.passwords.known(d, hash, password) {
		return true
	}
	now := d.now()
	if !d.passwords.mayCheck(hash, now) {
		// A flood of guesses for this player: no more bcrypt for him this hour, so that
		// the flood cannot take the CPU other players' mail needs. A password already
		// accepted since the daemon started (above) still opens.
		return false
	}
	d.bcryptChecks.Add(1)
	if bcrypt.CompareHashAndPassword([]byte(hash), []byte(password)) != nil {
		d.passwords.failed(hash, now)
		return false
	}
	d.passwords.remember(d, hash, password)
	return true
}

// passwordCache remembers successful password checks for the life of the process, so
// that bcrypt (58 ms at its default cost) is paid once per player and daemon start, not
// per mail. It keeps HMACs under a random per-process key, never a password; a failed
// check is never cached, so guessing stays as slow as bcrypt makes it.
//
// It also counts each player's failed checks: after MaxFailedChecks in an hour, his
// password is not checked until the hour is over (the mail gets the refusal any wrong
// password gets), so that a flood of guesses costs bcrypt a few times an hour, not once
// a mail.
type passwordCache struct {
	mu    sync.Mutex
	key   []byte
	ok    map[[32]byte]bool
	fails map[string]failWindow // by password hash
	// opens is, for a game, a sender and a password that opened it (by their HMAC),
	// the hash it was checked against.
	opens map[[32]byte]string
}

// failWindow counts a player's failed checks since start.
type failWindow struct {
	start time.Time
	n     int
}

const (
	passwordCacheSize = 10000
	// MaxFailedChecks is how many wrong passwords per player and hour are checked.
	MaxFailedChecks = 10
	failWindowLen   = time.Hour
)

// mayCheck reports whether the player with this hash may have his password checked.
func (c *passwordCache) mayCheck(hash string, now time.Time) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	w, ok := c.fails[hash]
	return !ok || now.Sub(w.start) >= failWindowLen || w.n < MaxFailedChecks
}

// failed counts a failed check.
func (c *passwordCache) failed(hash string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fails == nil || len(c.fails) >= passwordCacheSize {
		c.fails = map[string]failWindow{}
	}
	w := c.fails[hash]
	if now.Sub(w.start) >= failWindowLen {
		w = failWindow{start: now}
	}
	w.n++
	c.fails[hash] = w
}

func (c *passwordCache) entry(d *Desk, hash, password string) ([32]byte, bool) {
	if c.key == nil {
		key := make([]byte, 32)
		if _, err := io.ReadFull(d.rand(), key); err != nil {
			return [32]byte{}, false
		}
		c.key, c.ok = key, map[[32]byte]bool{}
	}
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(hash))
	mac.Write([]byte{0})
	mac.Write([]byte(password))
	var e [32]byte
	copy(e[:], mac.Sum(nil))
	return e, true
}

func (c *passwordCache) known(d *Desk, hash, password string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entry(d, hash, password)
	return ok && c.ok[e]
}

// opened returns the hash a password opened game for from with, if it did.
func (c *passwordCache) opened(d *Desk, game, from, password string) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entry(d, "opened\x00"+game+"\x00"+from, password)
	hash, found := c.opens[e]
	return hash, ok && found
}

func (c *passwordCache) rememberOpened(d *Desk, game, from, password, hash string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entry(d, "opened\x00"+game+"\x00"+from, password)
	if !ok {
		return
	}
	if c.opens == nil || len(c.opens) >= passwordCacheSize {
		c.opens = map[[32]byte]string{}
	}
	c.opens[e] = hash
}

func (c *passwordCache) remember(d *Desk, hash, password string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entry(d, hash, password)
	if !ok {
		return
	}
	if len(c.ok) >= passwordCacheSize {
		clear(c.ok)
	}
	c.ok[e] = true
}

func (d *Desk) hashPassword(password string) (string, error) {
	cost := d.PasswordCost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	b, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		return "", fmt.Errorf("hash password: %w", err)
	}
	return string(b), nil
}

// refuse answers an unauthenticated sender (a refusal, or general help), within the
// limits of [Desk.RefusalLimit].
//
// An address that plays in some game (or the host's) is a registered one: it gets the
// player's limit whatever the refusal (an unreadable mail, no game named, a wrong
// password), and is not counted against the hourly cap of all refusals, so that
// neither a stranger's flood nor mails forged in a player's name can silence the
// answers a real player needs. When the limit first stops the answers to a registered
// address in a window, the address is told once, so that a player whose address is
// forged learns of it and that his own mails are still accepted.
func (h *handling) refuse(kind, text string) (string, error) {
	outcome := Refused + ": " + kind
	if kind == "help" {
		outcome = Handled + ": help"
	}
	d := h.desk
	limit, window := d.RefusalLimit, d.RefusalWindow
	if limit == 0 {
		limit = 3
	}
	if window == 0 {
		window = time.Hour
	}
	return h.answer(kind, text, budget{key: h.msg.From, limit: limit, window: window, stranger: 1, tell: true}, outcome)
}

// budget is how many answers an address gets: limit per window when it plays in a
// game (or is the host), stranger a day when not, counted under key. tell: a player
// is told once a window that his answers stop.
type budget struct {
	key             string
	limit, stranger int
	window          time.Duration
	tell            bool
}

// answer is refuse for any answer to a mail that may come from a stranger (club.go's
// too), within b and the hourly cap of all answers to strangers; outcome is what the
// mail's handling is recorded as when the answer is sent.
func (h *handling) answer(kind, text string, b budget, outcome string) (string, error) {
	d := h.desk
	limit, window := b.limit, b.window
	registered, err := h.registered()
	if err != nil {
		return "", err
	}
	if !registered {
		limit, window = b.stranger, 24*time.Hour // a stranger, or a forged sender
	}
	capacity := d.RefusalCap
	if capacity == 0 {
		capacity = 30
	}
	n, within, err := h.count(b.key, limit, window)
	if err != nil {
		return "", err
	}
	if !within {
		if registered && b.tell && n == limit+1 {
			return h.tellThrottled(n, window)
		}
		d.log().Warn("refusal throttled", "from", h.msg.From)
		return Throttled, nil
	}
	if !registered {
		if _, within, err = h.count(allRefusals, capacity, time.Hour); err != nil {
			return "", err
		} else if !within {
			d.log().Warn("refusal dropped: the hourly cap of all refusals is reached", "from", h.msg.From, "cap", capacity)
			return Throttled, nil
		}
	}
	body, err := render("refusal.txt", map[string]any{"Text": text, "Address": d.Address})
	if err != nil {
		return "", err
	}
	if _, err := h.enqueue([]string{h.msg.From}, "", "", kind, replySubject(h.msg.Subject), body, true); err != nil {
		return "", err
	}
	return outcome, nil
}

// registered reports whether the sender plays in some game, or is the host.
func (h *handling) registered() (bool, error) {
	d := h.desk
	if h.player || (d.HostAddress != "" && strings.EqualFold(h.msg.From, d.HostAddress)) {
		return true, nil
	}
	plays, err := h.tx.Plays(h.msg.From)
	if err != nil {
		return false, fmt.Errorf("look up sender: %w", err)
	}
	if !plays {
		return h.clubMember() // club.go: he holds an open game or observes one
	}
	return plays, nil
}

// tellThrottled tells a registered address, once a window, that its refusals stop: the
// n-th mail refused this window is the one that is not answered with its refusal.
func (h *handling) tellThrottled(n int, window time.Duration) (string, error) {
	d := h.desk
	d.log().Warn("refusals throttled; the address is told once", "from", h.msg.From, "refused", n)
	text := fmt.Sprintf("Adjutant has refused %d mails from your address since %s (a wrong password, "+
		"no game named, or a mail it could not read), and answers no more of them until %s. "+
		"If you did not send them, someone is sending mail in your name: Adjutant acts only on "+
		"mails with your password, and your own mails with the right password are still "+
		"accepted and answered as usual. Nothing was changed.",
		n, h.windowStart().Format("15:04 MST"), h.windowStart().Add(window).Format("15:04 MST"))
	body, err := render("refusal.txt", map[string]any{"Text": text, "Address": d.Address})
	if err != nil {
		return "", err
	}
	if _, err := h.enqueue([]string{h.msg.From}, "", "", "throttled", "Adjutant: mails refused from your address", body, false); err != nil {
		return "", err
	}
	return Throttled + ": sender told", nil
}

// windowStart is when the refusal window of the sender started.
func (h *handling) windowStart() time.Time {
	th, err := h.tx.Throttle(h.msg.From)
	if err != nil || th.WindowStart.IsZero() {
		return h.now
	}
	return th.WindowStart
}

// allRefusals is the throttle key that counts every refusal to an unregistered
// address, whoever it went to. It is no address, since it has no "@".
const allRefusals = "*all refusals*"

// count counts one more refusal under key and reports how many there were in this
// window and whether that is within limit.
func (h *handling) count(key string, limit int, window time.Duration) (int, bool, error) {
	th, err := h.tx.Throttle(key)
	if err != nil {
		return 0, false, err
	}
	if h.now.Sub(th.WindowStart) >= window {
		th = store.Throttle{WindowStart: h.now}
	}
	th.Count++
	if err := h.tx.PutThrottle(key, th); err != nil {
		return 0, false, err
	}
	return th.Count, th.Count <= limit, nil
}

// maxSubject is the longest subject Adjutant writes, in runes: far below the 998
// characters of a header line (RFC 5322 2.1.1), whatever a stranger's subject was.
const maxSubject = 120

// replySubject is the subject of an answer to a mail with the given subject.
func replySubject(subject string) string {
	subject = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(subject), "Re: "))
	if subject == "" {
		return "Adjutant: your mail"
	}
	if r := []rune(subject); len(r) > maxSubject {
		subject = string(r[:maxSubject]) + "..."
	}
	return "Re: " + subject
}

// enqueue puts one mail in the outbox with a stable Message-ID derived from its cause.
func (h *handling) enqueue(to []string, game, side, kind, subject, body string, reply bool, redact ...string) (store.OutMail, error) {
	return h.enqueuePictures(to, game, side, kind, subject, body, reply, nil, redact...)
}

// enqueuePictures is enqueue for a mail that carries pictures after its text.
func (h *handling) enqueuePictures(to []string, game, side, kind, subject, body string, reply bool, pictures []store.Picture, redact ...string) (store.OutMail, error) {
	if game != "" && h.desk.layout() >= LayoutGlance {
		// Every mail of a game to one of its players has the game's subject and starts
		// with what is due from him (What a player reads, DESIGN.md).
		g, err := h.tx.Game(game)
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			return store.OutMail{}, err
		}
		if err == nil && toPlayer(g, side, to) {
			rs, err := h.desk.ruleset(g.Ruleset)
			if err != nil {
				return store.OutMail{}, err
			}
			head, err := h.playerHead(rs, g, rules.Side(side))
			if err != nil {
				return store.OutMail{}, err
			}
			subject, body = PlayerSubject(g.Name, rs, rules.Side(side)), head+"\n\n"+body
		}
	}
	body = h.scrubBody(kind, body)
	if reply && h.signReply {
		// Signed as the player receives it: first lines and masks included.
		var err error
		if body, err = h.desk.signOrderCheck(h.tx, game, side, h.now, body); err != nil {
			return store.OutMail{}, err
		}
	}
	m := store.OutMail{
		Pictures:    pictures,
		Redact:      redact,
		MessageID:   h.desk.messageID(h.msg.ID, kind, side, to),
		To:          to,
		Subject:     h.scrub(subject),
		Body:        body,
		Game:        game,
		Side:        side,
		Kind:        kind,
		Queued:      h.now,
		AutoReplied: reply,
	}
	root := threadOf(h.game, side, to)
	switch {
	case reply:
		m.InReplyTo = h.msg.ID
		m.References = threadRefs(root, append(append([]string(nil), h.msg.References...), h.msg.ID)...)
	case root != m.MessageID:
		m.References = threadRefs(root)
	}
	return h.tx.Enqueue(m)
}

// threadOf returns the root of the thread of the game's mails to side at to: the
// player's invitation, or "" when the mail is to nobody of the game.
func threadOf(g store.Game, side string, to []string) string {
	for _, p := range g.Players {
		if p.Side == side && len(to) == 1 && strings.EqualFold(p.Address, to[0]) {
			return p.Thread
		}
	}
	return ""
}

// threadRefs lists a mail's References: the thread's root first, then ids, each once.
func threadRefs(root string, ids ...string) []string {
	var out []string
	seen := map[string]bool{"": true}
	for _, id := range append([]string{root}, ids...) {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// messageID derives a stable Message-ID from the cause of a mail, so that a retried
// transaction or a resent mail carries the same id (invariant 2).
//
// The store's identity is part of the hash: two installations that create a game of
// the same name for the same player would otherwise send different invitations with one
// Message-ID, and a mail provider that drops duplicates would drop the second.
func (d *Desk) messageID(cause, kind, side string, to []string) string {
	sum := sha256.Sum256([]byte(d.Store.Identity().ID + "\x00" + cause + "\x00" + kind + "\x00" + side + "\x00" + strings.Join(to, ",")))
	domain := "adjutant.invalid"
	if _, dom, ok := strings.Cut(d.Address, "@"); ok && dom != "" {
		domain = dom
	}
	return "adjutant-" + hex.EncodeToString(sum[:12]) + "@" + domain
}

func render(name string, data any) (string, error) { return templates.Render(name, data) }

func sideName(rs rules.Ruleset, side rules.Side) string { return rules.Sides(rs.Sides()).Name(side) }

func sortedSides(rs rules.Ruleset, sides []rules.Side) []string {
	names := make([]string, 0, len(sides))
	for _, s := range sides {
		names = append(names, sideName(rs, s))
	}
	sort.Strings(names)
	return names
}
