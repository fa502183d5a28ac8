package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

// mailGame is the outcome of a game played over mail.
type mailGame struct {
	mails     map[string][]received // by player address, in arrival order
	delivered int
	summary   string
	account   string // the short account of the game and where its mails are
	elapsed   time.Duration
	db        string
}

// demoServers starts the embedded servers with the game mailbox and both players.
func demoServers() (*devserver.Server, error) {
	return devserver.Start(devserver.Options{Users: map[string]string{
		sampleAddress: "game-mailbox-password",
		sampleUS:      samplePassUS + "-mail",
		sampleDE:      samplePassDE + "-mail",
	}})
}

// demoConfig is the daemon's configuration against the embedded servers.
func demoConfig(srv *devserver.Server, db string) *Config {
	host, port := splitAddr(srv.IMAPAddr())
	shost, sport := splitAddr(srv.SMTPAddr())
	c := &Config{
		Address: sampleAddress, Database: db,
		PollInterval: Duration{time.Second}, TickInterval: Duration{time.Second}, LogLevel: "warn",
		IMAP: IMAPSection{Host: host, Port: port, Security: "none", Username: sampleAddress, Password: "game-mailbox-password", MoveTo: "Processed"},
		SMTP: SMTPSection{Host: shost, Port: sport, Security: "none"},
	}
	if err := c.check(); err != nil {
		panic(fmt.Sprintf("demo config: %v", err)) // built here, always valid
	}
	return c
}

func splitAddr(addr string) (string, int) {
	i := strings.LastIndexByte(addr, ':')
	var port int
	fmt.Sscanf(addr[i+1:], "%d", &port)
	return addr[:i], port
}

// startDaemon runs the daemon in this process until the returned stop is called.
func startDaemon(e *env, cfg *Config, logw io.Writer) (*daemon, func() error, error) {
	log := slog.New(slog.NewTextHandler(logw, &slog.HandlerOptions{Level: logLevel(cfg.LogLevel)}))
	d, err := newDaemon(e, cfg, log)
	if err != nil {
		return nil, nil, err
	}
	d.sender.MinBackoff = 200 * time.Millisecond
	d.sender.MaxBackoff = 2 * time.Second
	d.intake.MinBackoff = 100 * time.Millisecond
	ctx, cancel := context.WithCancel(e.ctx)
	done := make(chan error, 1)
	go func() { done <- d.run(ctx) }()
	return d, func() error { cancel(); return <-done }, nil
}

// gameOver tells the results mail of game that says, on its first line, that the game
// is over.
func gameOver(game string) func(received) bool {
	return func(r received) bool {
		// The results mail, not an order check sent after the last advance.
		return strings.Contains(r.Env.Subject, "["+game+"]") && strings.HasPrefix(r.Env.Text, "Game over: ") && strings.Contains(r.Env.Text, "\n== Map ==\n")
	}
}

// invitationTo tells the invitation to game.
func invitationTo(game string) func(received) bool {
	return func(r received) bool {
		return strings.Contains(r.Env.Subject, "["+game+"]") && strings.Contains(r.Env.Text, "You are invited to play game "+game+":")
	}
}

// playByMail plays the sample game between two scripted players over the embedded IMAP
// and SMTP servers, with the daemon in between, printing each mail as it is delivered.
func playByMail(e *env, o demoOpts) (*mailGame, error) {
	keep, out := o.keep, o.mailsOut(e)
	start := time.Now()
	ctx, cancel := context.WithTimeout(e.ctx, 3*time.Minute)
	defer cancel()
	dir, err := os.MkdirTemp("", "adjutant-demo-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	db := keep
	if db == "" {
		db = filepath.Join(dir, "demo.db")
	}
	srv, err := demoServers()
	if err != nil {
		return nil, err
	}
	defer srv.Close()
	fmt.Fprintf(out, "Embedded mail servers: IMAP %s, SMTP %s\n", srv.IMAPAddr(), srv.SMTPAddr())

	sub := *e
	var discard bytes.Buffer
	sub.stdout, sub.stderr = &discard, &discard
	if code := runEnv(&sub, []string{"game", "new", "--db", db, "--address", sampleAddress, "--name", sampleGame, "--ruleset", "soldiers1918",
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE, "--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}); code != 0 {
		return nil, fmt.Errorf("create the sample game: %s", discard.String())
	}
	cfg := demoConfig(srv, db)
	d, stop, err := startDaemon(e, cfg, e.stderr)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			stop()
		}
	}()

	players := map[string]*player{
		sampleUS: {addr: sampleUS, password: samplePassUS + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()},
		sampleDE: {addr: sampleDE, password: samplePassDE + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()},
	}
	res := &mailGame{mails: map[string][]received{}, db: db}
	collect := func(addr string, got []received) {
		res.mails[addr] = append(res.mails[addr], got...)
		res.delivered += len(got)
	}
	// The match (4.2): the sample game, then the return game with the sides switched.
	for n, g := range sampleMatch() {
		if n > 0 {
			fmt.Fprintf(out, "%s\n>>> The host creates %s, the return game of the match (4.2).\n", strings.Repeat("#", 78), g.name)
			if _, err := d.desk.CreateGame(ctx, adjudicator.NewGame{Name: g.name, Ruleset: "soldiers1918", MatchOf: sampleGame}); err != nil {
				return res, err
			}
			d.poke()
		}
		for addr, p := range players {
			got, err := p.waitFor(ctx, out, invitationTo(g.name))
			collect(addr, got)
			if err != nil {
				return res, err
			}
		}
		for _, m := range g.mails {
			p := players[m.From]
			fmt.Fprintf(out, "%s\n>>> %s sends to %s over SMTP:\n%s\n", strings.Repeat("#", 78), m.From, sampleAddress, m.Body)
			id, err := p.send(ctx, sampleAddress, m.Subject, m.Body)
			if err != nil {
				return res, err
			}
			got, err := p.waitFor(ctx, out, func(r received) bool { return r.Env.InReplyTo == id })
			collect(m.From, got)
			if err != nil {
				return res, err
			}
		}
		over := gameOver(g.name)
		for addr, p := range players {
			if slices.ContainsFunc(res.mails[addr], over) {
				continue
			}
			got, err := p.waitFor(ctx, out, over)
			collect(addr, got)
			if err != nil {
				return res, err
			}
		}
	}
	stopped = true
	if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
		return res, fmt.Errorf("daemon: %w", err)
	}
	var sum bytes.Buffer
	for _, args := range [][]string{{"audit", "verify", "--game", sampleGame}, {"replay", "--game", sampleGame},
		{"audit", "verify", "--game", sampleReturn}, {"replay", "--game", sampleReturn}} {
		sub := *e
		sub.stdout, sub.stderr = &sum, &sum
		if code := runEnv(&sub, append(args, "--db", db, "--address", sampleAddress)); code != 0 {
			return res, fmt.Errorf("adjutant %s: %s", strings.Join(args, " "), sum.String())
		}
	}
	checked, err := checkPlayersMails([]string{sampleGame, sampleReturn}, res.mails)
	if err != nil {
		return res, err
	}
	res.summary = sum.String() + checked
	res.elapsed = time.Since(start)
	if res.account, err = demoFinish(e, db, o, sampleGame, sampleReturn); err != nil {
		return res, err
	}
	pace, err := soldiersStopPace(e)
	if err != nil {
		return res, err
	}
	res.account += pace
	return res, nil
}
