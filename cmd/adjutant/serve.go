package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// daemon is Adjutant on real mailboxes: IMAP intake into the desk, the desk's outbox out
// over SMTP, and the desk's clock for deadlines. Each part is its own loop; they meet only
// through the store, so a crash anywhere loses nothing (DESIGN.md invariant 2).
type daemon struct {
	cfg    *Config
	db     *store.DB
	desk   *adjudicator.Desk
	intake *mail.Intake
	sender *mail.Sender
	log    *slog.Logger
	wake   chan struct{}
	now    func() time.Time
	// control is the control socket's listener (control.go).
	control net.Listener
	// archivedAt is when the finished games were last looked at for archiving (archive.go).
	archivedAt time.Time
}

// newDaemon builds the daemon from a checked configuration.
func newDaemon(e *env, cfg *Config, log *slog.Logger) (*daemon, error) {
	if cfg.CompactAtStart {
		compactAtStart(cfg.Database, log) // before the store is opened (archive.go)
	}
	db, err := store.Open(cfg.Database)
	if err != nil {
		return nil, err
	}
	rs, err := rulesets.All()
	if err != nil {
		db.Close()
		return nil, err
	}
	now := e.now
	if now == nil {
		now = time.Now
	}
	key, err := store.LoadKey(cfg.Database + ".key")
	if err != nil {
		db.Close()
		return nil, err
	}
	d := &daemon{cfg: cfg, db: db, log: log, wake: make(chan struct{}, 1), now: now}
	d.desk = &adjudicator.Desk{Store: db, Rulesets: rs, Address: cfg.Address, Now: now, Rand: e.random, PasswordCost: e.cost, Log: log.With("part", "desk"),
		HostAddress: cfg.HostAddress, HostPassHash: cfg.HostPassword, PasswordKey: key, Club: cfg.Club.desk(), Beacon: cfg.Beacon.source()}
	if e.beacon != nil {
		d.desk.Beacon = e.beacon
	}
	// The socket is opened with the store's lock held, so that no other daemon of this
	// store is listening on it.
	if d.control, err = listenControl(cfg.socketPath()); err != nil {
		db.Close()
		return nil, err
	}
	d.intake = &mail.Intake{Config: cfg.imapConfig(), Handle: d.handle, HandleBatch: d.handleBatch, Log: log.With("part", "intake")}
	// The sent log lives next to the store, under the store's lock like the socket.
	sent, err := store.OpenSentLog(cfg.Database + ".sent")
	if err != nil {
		d.control.Close()
		db.Close()
		return nil, err
	}
	d.sender = &mail.Sender{Config: cfg.smtpConfig(), Store: db, Log: log.With("part", "sender"), Now: now, SentLog: sent,
		// The sender draws each mail's map picture from its stored view just before sending
		// it, outside the transaction that queued the mail.
		Render: mapimage.RenderEncoded}
	d.sender.Attach = recordAttach(e.ctx, d.desk) // a game's record, at its end
	return d, nil
}

// imapConfig is the intake's configuration; serve and config check share it.
func (c *Config) imapConfig() mail.IMAPConfig {
	return mail.IMAPConfig{
		Addr: net.JoinHostPort(c.IMAP.Host, strconv.Itoa(c.IMAP.Port)), Security: c.IMAP.Security,
		Username: c.IMAP.Username, Password: c.IMAP.Password, Mailbox: c.IMAP.Mailbox, MoveTo: c.IMAP.MoveTo,
		PollInterval: c.PollInterval.Duration, MaxSize: c.MaxMessageSize,
	}
}

// smtpConfig is the sender's configuration; serve and config check share it.
func (c *Config) smtpConfig() mail.SMTPConfig {
	return mail.SMTPConfig{Host: c.SMTP.Host, Port: c.SMTP.Port, Security: c.SMTP.Security,
		Username: c.SMTP.Username, Password: c.SMTP.Password, From: c.Address, NoVERP: c.SMTP.NoVERP}
}

// handle is the intake's handler: one message, one transaction (invariants 1 and 2).
func (d *daemon) handle(ctx context.Context, dl mail.Delivery) error {
	msg, err := adjudicator.ReadMessage(bytes.NewReader(dl.Raw), d.cfg.MaxMessageSize, dl.TooLarge, dl.Arrived)
	if err != nil {
		return fmt.Errorf("uid %d: %w", dl.UID, err)
	}
	outcome, err := d.desk.Handle(ctx, msg)
	if err != nil {
		return intakeError(err)
	}
	d.log.Info("mail handled", "uid", dl.UID, "outcome", outcome)
	d.afterCommit(1)
	d.poke()
	return nil
}

// handleBatch is the intake's group commit: the mails a pass fetched together are
// handled in one transaction (Desk.HandleBatch). A mail that cannot be read ends the
// group: those before it are handled, and its error stops the pass as handle's would.
func (d *daemon) handleBatch(ctx context.Context, dls []mail.Delivery) (int, error) {
	msgs := make([]adjudicator.Message, 0, len(dls))
	var readErr error
	for _, dl := range dls {
		msg, err := adjudicator.ReadMessage(bytes.NewReader(dl.Raw), d.cfg.MaxMessageSize, dl.TooLarge, dl.Arrived)
		if err != nil {
			readErr = fmt.Errorf("uid %d: %w", dl.UID, err)
			break
		}
		msgs = append(msgs, msg)
	}
	outcomes, err := d.desk.HandleBatch(ctx, msgs)
	for i, o := range outcomes {
		d.log.Info("mail handled", "uid", dls[i].UID, "outcome", o)
	}
	if len(outcomes) > 0 {
		d.afterCommit(len(outcomes))
		d.poke()
	}
	if err == nil {
		err = readErr
	}
	return len(outcomes), intakeError(err)
}

// intakeError tells the intake whether a mail's failure may pass (it stops the pass, to
// be retried) or not (the desk could not even set the mail aside: the intake skips it
// and goes on with the next mail).
func intakeError(err error) error {
	if err != nil && !adjudicator.Temporary(err) {
		return mail.Permanent(err)
	}
	return err
}

func (d *daemon) poke() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// tick processes deadlines on the daemon's clock: at start (so that phases that fell due
// while the daemon was down are resolved at once, with a note) and every TickInterval.
func (d *daemon) tick(ctx context.Context) {
	report, err := d.desk.Tick(ctx, d.now())
	if err != nil {
		d.log.Error("deadlines", "err", err)
	}
	for _, line := range report {
		d.log.Info("deadline", "action", line)
	}
	if len(report) > 0 {
		d.poke()
	}
}

// run runs until ctx is cancelled (SIGTERM): the intake finishes the message it is
// handling and flags it; the sender drops its connection, and a mail in flight goes again,
// with the same Message-ID, at the next start. Nothing else is fetched.
func (d *daemon) run(ctx context.Context) error {
	defer d.db.Close()
	defer d.control.Close() // removes the socket file
	defer d.sender.SentLog.Close()
	// Mails a crash left accepted but unmarked are marked before anything is sent.
	if err := d.sender.FoldSentLog(ctx); err != nil {
		return err
	}
	d.log.Info("adjutant serving", "address", d.cfg.Address, "imap", d.intake.Config.Addr, "smtp", d.cfg.SMTP.Host, "control", d.cfg.socketPath())
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(5)
	go func() {
		defer wg.Done()
		d.serveControl(ctx, d.control)
	}()
	go func() {
		defer wg.Done()
		releaseMapped(ctx, d.db.ReleaseMapped, mappedReleaseEvery, d.log.With("part", "memory"))
	}()
	go func() {
		defer wg.Done()
		errs <- d.sender.Run(ctx, d.wake)
	}()
	go func() {
		defer wg.Done()
		// The first tick runs beside the intake, not before it: a restart answers mail at
		// once while overdue phases are resolved.
		d.tick(ctx)
		d.archiveTick(ctx)
		// The start-up pass read every game's record (archiveTick): out of the resident
		// set at once, not at the next release.
		if err := d.db.ReleaseMapped(); err != nil {
			d.log.Warn("the store's mapped pages stay resident", "err", err)
		}
		t := time.NewTicker(d.cfg.TickInterval.Duration)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.tick(ctx)
				d.archiveTick(ctx)
				d.poke() // mails queued by other means (a host command) go out too
			}
		}
	}()
	go func() {
		defer wg.Done()
		errs <- d.intake.Run(ctx)
	}()
	wg.Wait()
	close(errs)
	var all []error
	for err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			all = append(all, err)
		}
	}
	d.log.Info("adjutant stopped")
	return errors.Join(all...)
}

func logLevel(s string) slog.Level {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return slog.LevelInfo
	}
	return l
}

func cmdServe(e *env, args []string) error {
	fs := newFlags(e, "serve")
	path := fs.String("config", "", "the configuration file (see adjutant config sample)")
	compact := fs.Bool("compact", false, "compact the database before serving (as compact_at_start)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *path == "" {
		return usageError("serve: --config is required")
	}
	cfg, err := LoadConfig(*path)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)}))
	cfg.CompactAtStart = cfg.CompactAtStart || *compact
	d, err := newDaemon(e, cfg, log)
	if err != nil {
		return err
	}
	sizeLimit, gcPercent := collectorSettings(os.Getenv)
	if gcPercent > 0 {
		debug.SetGCPercent(gcPercent)
	}
	if sizeLimit {
		ctx, cancel := context.WithCancel(e.ctx)
		defer cancel()
		go sizeMemoryLimit(ctx, cfg.MemoryLimitMiB<<20, log.With("part", "memory"))
	}
	return d.run(e.ctx)
}

func cmdConfig(e *env, args []string) error {
	if len(args) == 0 {
		return usageError("config: expected sample, check or hash-password")
	}
	switch args[0] {
	case "sample":
		fmt.Fprint(e.stdout, SampleConfig())
		return nil
	case "check":
		fs := newFlags(e, "config check")
		path := fs.String("config", "", "the configuration file")
		offline := fs.Bool("offline", false, "check the file only; do not log in to the mail servers")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if *path == "" {
			return usageError("config check: --config is required")
		}
		cfg, err := LoadConfig(*path)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s is valid\n", *path)
		if *offline {
			return nil
		}
		return checkLogins(e, cfg)
	case "hash-password":
		return hashPassword(e)
	}
	return usageError("config: expected sample, check or hash-password")
}

// hashPassword reads a password (the first line of standard input) and prints its
// bcrypt hash, for host_password_hash. The password is never printed.
func hashPassword(e *env) error {
	line, err := bufio.NewReader(io.LimitReader(e.stdin, 1024)).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return fmt.Errorf("read the password: %w", err)
	}
	pw := strings.TrimRight(line, "\r\n")
	if len(pw) < 8 {
		return usageError("config hash-password: give a password of 8 characters or more on standard input")
	}
	cost := e.cost
	if cost == 0 {
		cost = bcrypt.DefaultCost
	}
	hash, err := bcrypt.GenerateFromPassword([]byte(pw), cost)
	if err != nil {
		return fmt.Errorf("hash the password: %w", err)
	}
	fmt.Fprintf(e.stdout, "host_password_hash = %q\n", hash)
	return nil
}

// checkLogins logs in to the IMAP and the SMTP server as serve would, says for each
// whether it worked and, if not, why; it changes nothing on either server.
func checkLogins(e *env, cfg *Config) error {
	ctx, cancel := context.WithTimeout(e.ctx, time.Minute)
	defer cancel()
	var failed []string
	ic := cfg.imapConfig()
	res, err := mail.CheckIMAP(ctx, ic)
	if err != nil {
		failed = append(failed, "IMAP")
		fmt.Fprintf(e.stdout, "IMAP %s (%s): FAILED: %v\n", ic.Addr, cfg.IMAP.Security, err)
	} else {
		fmt.Fprintf(e.stdout, "IMAP %s (%s): logged in as %s; %s holds %d messages; IDLE %s\n",
			ic.Addr, cfg.IMAP.Security, cfg.IMAP.Username, cfg.IMAP.Mailbox, res.Messages, yesNo(res.Idle, "yes", "no (polling)"))
		if cfg.IMAP.MoveTo != "" {
			fmt.Fprintf(e.stdout, "  move_to %s %s\n", cfg.IMAP.MoveTo, yesNo(res.MoveToExists, "exists", "does not exist yet: serve creates it"))
		}
	}
	sc := cfg.smtpConfig()
	saddr := net.JoinHostPort(sc.Host, strconv.Itoa(sc.Port))
	if err := mail.CheckSMTP(ctx, sc); err != nil {
		failed = append(failed, "SMTP")
		fmt.Fprintf(e.stdout, "SMTP %s (%s): FAILED: %v\n", saddr, sc.Security, err)
	} else if sc.Username == "" {
		fmt.Fprintf(e.stdout, "SMTP %s (%s): connected; no login (smtp.username is empty)\n", saddr, sc.Security)
	} else {
		fmt.Fprintf(e.stdout, "SMTP %s (%s): logged in as %s\n", saddr, sc.Security, sc.Username)
	}
	if len(failed) > 0 {
		return fmt.Errorf("config check: the %s check failed (see above)", strings.Join(failed, " and the "))
	}
	return nil
}

func yesNo(b bool, yes, no string) string {
	if b {
		return yes
	}
	return no
}
