package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"runtime/debug"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
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

	// killAfter, when set from ADJUTANT_TEST_KILL_AFTER_COMMIT, makes the process SIGKILL
	// itself right after that many committed messages, before flagging them: the fault
	// test of invariant 2 uses it. Zero in production.
	killAfter int64
	committed atomic.Int64
}

// newDaemon builds the daemon from a checked configuration.
func newDaemon(e *env, cfg *Config, log *slog.Logger) (*daemon, error) {
	db, err := store.Open(cfg.Database)
	if err != nil {
		return nil, err
	}
	rs, err := rulesets()
	if err != nil {
		db.Close()
		return nil, err
	}
	now := e.now
	if now == nil {
		now = time.Now
	}
	d := &daemon{cfg: cfg, db: db, log: log, wake: make(chan struct{}, 1), now: now}
	d.desk = &adjudicator.Desk{Store: db, Rulesets: rs, Address: cfg.Address, Now: now, Rand: e.random, PasswordCost: e.cost, Log: log.With("part", "desk")}
	d.intake = &mail.Intake{
		Config: mail.IMAPConfig{
			Addr: net.JoinHostPort(cfg.IMAP.Host, strconv.Itoa(cfg.IMAP.Port)), Security: cfg.IMAP.Security,
			Username: cfg.IMAP.Username, Password: cfg.IMAP.Password, Mailbox: cfg.IMAP.Mailbox, MoveTo: cfg.IMAP.MoveTo,
			PollInterval: cfg.PollInterval.Duration, MaxSize: cfg.MaxMessageSize,
		},
		Handle: d.handle,
		Log:    log.With("part", "intake"),
	}
	d.sender = &mail.Sender{
		Config: mail.SMTPConfig{Host: cfg.SMTP.Host, Port: cfg.SMTP.Port, Security: cfg.SMTP.Security,
			Username: cfg.SMTP.Username, Password: cfg.SMTP.Password, From: cfg.Address},
		Store: db, Log: log.With("part", "sender"), Now: now,
	}
	if v := os.Getenv("ADJUTANT_TEST_KILL_AFTER_COMMIT"); v != "" {
		d.killAfter, _ = strconv.ParseInt(v, 10, 64)
	}
	return d, nil
}

// handle is the intake's handler: one message, one transaction (invariants 1 and 2).
func (d *daemon) handle(ctx context.Context, dl mail.Delivery) error {
	msg, err := readMessage(bytes.NewReader(dl.Raw), d.cfg.MaxMessageSize, dl.TooLarge, dl.Arrived)
	if err != nil {
		return fmt.Errorf("uid %d: %w", dl.UID, err)
	}
	outcome, err := d.desk.Handle(ctx, msg)
	if err != nil {
		return err
	}
	d.log.Info("mail handled", "uid", dl.UID, "outcome", outcome)
	if d.killAfter > 0 && d.committed.Add(1) >= d.killAfter {
		d.log.Warn("test hook: killing the daemon between commit and flag")
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal arrives
	}
	d.poke()
	return nil
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
	d.log.Info("adjutant serving", "address", d.cfg.Address, "imap", d.intake.Config.Addr, "smtp", d.cfg.SMTP.Host)
	d.tick(ctx)
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	wg.Add(3)
	go func() {
		defer wg.Done()
		errs <- d.sender.Run(ctx, d.wake)
	}()
	go func() {
		defer wg.Done()
		t := time.NewTicker(d.cfg.TickInterval.Duration)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				d.tick(ctx)
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
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(cfg.MemoryLimitMiB << 20)
	}
	d, err := newDaemon(e, cfg, log)
	if err != nil {
		return err
	}
	return d.run(e.ctx)
}

func cmdConfig(e *env, args []string) error {
	if len(args) == 0 {
		return usageError("config: expected sample or check")
	}
	switch args[0] {
	case "sample":
		fmt.Fprint(e.stdout, SampleConfig())
		return nil
	case "check":
		fs := newFlags(e, "config check")
		path := fs.String("config", "", "the configuration file")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if _, err := LoadConfig(*path); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s is valid\n", *path)
		return nil
	}
	return usageError("config: expected sample or check")
}
