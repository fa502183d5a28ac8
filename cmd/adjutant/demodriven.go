package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/mail/devserver"
	"github.com/adjutant-pbem/adjutant/store"
)

// drivenDemo is a demo game played by mail or by pipe, its audit verified and its
// replay compared at the end. Its mails come from the ruleset's scripted players
// (rules.Bot), which may read the game as it stands (the teaching game's players answer
// what they see: cards decide where shells land and who wins a fight, so no mail can be
// written in advance) or play a script written in advance (Mons).
type drivenDemo struct {
	game    string
	create  []string // game new, without --db and --address
	players map[rules.Side]demoPlayer
	rs      rules.Ruleset
	bot     rules.Bot
	// saw, if set, is told of each state the bot answered with a mail.
	saw func(st rules.State)
}

// newDrivenDemo is the demo game named game of rs, played by rs's scripted players with
// the given addresses and passwords, created with the extra arguments of game new.
func newDrivenDemo(rs rules.Ruleset, game string, players map[rules.Side]demoPlayer, extra ...string) (*drivenDemo, error) {
	b, ok := rs.(rules.Botter)
	if !ok {
		return nil, fmt.Errorf("demo: ruleset %s has no scripted players", rs.Name())
	}
	create := append([]string{"game", "new", "--name", game, "--ruleset", rs.Name()}, extra...)
	for _, s := range rs.Sides() {
		create = append(create, "--player", string(s.ID)+"="+players[s.ID].addr)
	}
	for _, s := range rs.Sides() {
		create = append(create, "--password", string(s.ID)+"="+players[s.ID].pass)
	}
	return &drivenDemo{game: game, create: create, players: players, rs: rs, bot: b.Bot(game)}, nil
}

// demoPlayer is one scripted player: his address and game password.
type demoPlayer struct{ addr, pass string }

// maxDemoMails bounds a game the demo drives itself (the stopping style's), so that a
// ruleset that never ends fails the demo instead of hanging it.
const maxDemoMails = 400

// nextMail reads the game through read and asks the bot for the i-th mail.
func (g *drivenDemo) nextMail(i int, read func(func(store.Tx) error) error) (scripted, bool, error) {
	var st rules.State
	err := read(func(tx store.Tx) error {
		sg, err := tx.Game(g.game)
		if err != nil {
			return err
		}
		st, err = g.rs.Decode(sg.State)
		return err
	})
	if err != nil {
		return scripted{}, false, fmt.Errorf("demo: read %s: %w", g.game, err)
	}
	m, ok, err := g.bot.Next(i, st)
	if err != nil || !ok {
		return scripted{}, false, err
	}
	if g.saw != nil {
		g.saw(st)
	}
	return scriptedFor(g.game, g.players, m), true, nil
}

func (g *drivenDemo) play(e *env, o demoOpts) error {
	keep, pipe, out := o.keep, o.pipe, o.mailsOut(e)
	dir, err := os.MkdirTemp("", "adjutant-"+g.rs.Name()+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := keep
	if path == "" {
		path = filepath.Join(dir, "demo.db")
	}
	db := []string{"--db", path, "--address", sampleAddress}
	run := e.runSub
	if err := run(append(g.create, db...), nil, io.Discard); err != nil {
		return err
	}
	start := time.Now()
	n := 0
	if pipe {
		n, err = g.pipe(e, path, db, out, run)
	} else {
		n, err = g.mail(e, path, out)
	}
	if err != nil {
		return err
	}
	var sum bytes.Buffer
	for _, args := range [][]string{{"audit", "verify", "--game", g.game}, {"replay", "--game", g.game}} {
		if err := run(append(args, db...), nil, &sum); err != nil {
			return err
		}
	}
	// Each player checks every roll and card from his own mails alone.
	mails, err := outboxOf(e, path)
	if err != nil {
		return err
	}
	for _, side := range g.rs.Sides() {
		addr := g.players[side.ID].addr
		var subjects, bodies []string
		for _, m := range mails {
			if slices.Contains(m.To, addr) {
				subjects, bodies = append(subjects, m.Subject), append(bodies, m.Body)
			}
		}
		line, err := checkFromMails(g.game, addr, subjects, bodies)
		if err != nil {
			return err
		}
		sum.WriteString(line)
	}
	var paced []string
	if g.rs.Name() != teaching.Name { // the teaching demo plays both paces and tells them
		paced = append(paced, g.game)
	}
	account, err := demoFinish(e, path, o, paced...)
	if err != nil {
		return err
	}
	if s := stopStyleOf(g); s != nil {
		line, err := stopPace(e, s)
		if err != nil {
			return err
		}
		account += line
	}
	fmt.Fprintf(e.stdout, "%s%s\n%s demo complete in %s: %d mails.\n%s", account, strings.Repeat("=", 78), g.rs.Title(), time.Since(start).Round(time.Millisecond), n, sum.String())
	return nil
}

// pipe feeds each mail to adjutant handle and prints the outbox as it grows.
func (g *drivenDemo) pipe(e *env, path string, db []string, out io.Writer, run func([]string, []byte, io.Writer) error) (int, error) {
	printed := 0
	show := func() error {
		mails, err := outboxOf(e, path)
		if err != nil {
			return err
		}
		for _, m := range mails[printed:] {
			fmt.Fprintf(out, "%s\nTo: %s\nSubject: %s\n\n%s\n", strings.Repeat("=", 78), strings.Join(m.To, ", "), m.Subject, m.Body)
		}
		printed = len(mails)
		return nil
	}
	if err := show(); err != nil {
		return 0, err
	}
	read := func(fn func(store.Tx) error) error {
		st, err := store.Open(path)
		if err != nil {
			return err
		}
		defer st.Close()
		return st.Read(e.ctx, fn)
	}
	t0 := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i := 0; ; i++ {
		m, ok, err := g.nextMail(i, read)
		if err != nil || !ok {
			return printed, err
		}
		fmt.Fprintf(out, "%s\n>>> %s mails the game (adjutant handle):\n%s\n", strings.Repeat("#", 78), m.From, m.Body)
		raw := eml(m, sampleAddress, fmt.Sprintf("%s-%d@players.example", g.rs.Name(), i+1), t0.Add(time.Duration(i)*time.Hour))
		if err := run(append([]string{"handle"}, db...), raw, io.Discard); err != nil {
			return printed, err
		}
		if err := show(); err != nil {
			return printed, err
		}
	}
}

// mail plays over the embedded IMAP and SMTP servers with the daemon in between, each
// player waiting for the reply to each mail before the game is read again.
func (g *drivenDemo) mail(e *env, path string, out io.Writer) (int, error) {
	ctx, cancel := context.WithTimeout(e.ctx, 5*time.Minute)
	defer cancel()
	users := map[string]string{sampleAddress: "game-mailbox-password"}
	for _, p := range g.players {
		users[p.addr] = p.pass + "-mail"
	}
	srv, err := devserver.Start(devserver.Options{Users: users})
	if err != nil {
		return 0, err
	}
	defer srv.Close()
	d, stop, err := startDaemon(e, demoConfig(srv, path), e.stderr)
	if err != nil {
		return 0, err
	}
	fail := func(n int, err error) (int, error) {
		stop()
		return n, err
	}
	players := map[string]*player{}
	for _, p := range g.players {
		players[p.addr] = &player{addr: p.addr, password: p.pass + "-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	}
	read := func(fn func(store.Tx) error) error { return d.desk.Store.Read(ctx, fn) }
	n := 0
	seen := map[string][]received{}
	for i := 0; ; i++ {
		m, ok, err := g.nextMail(i, read)
		if err != nil {
			return fail(n, err)
		}
		if !ok {
			break
		}
		p := players[m.From]
		fmt.Fprintf(out, "%s\n>>> %s sends to %s over SMTP:\n%s\n", strings.Repeat("#", 78), m.From, sampleAddress, m.Body)
		id, err := p.send(ctx, sampleAddress, m.Subject, m.Body)
		if err != nil {
			return fail(n, err)
		}
		got, err := p.waitFor(ctx, out, func(r received) bool { return r.Env.InReplyTo == id })
		n += len(got)
		seen[m.From] = append(seen[m.From], got...)
		if err != nil {
			return fail(n, err)
		}
	}
	over := gameOver(g.game)
	for addr, p := range players {
		if slices.ContainsFunc(seen[addr], over) {
			continue
		}
		got, err := p.waitFor(ctx, out, over)
		n += len(got)
		if err != nil {
			return fail(n, err)
		}
	}
	if err := stop(); err != nil && !errors.Is(err, context.Canceled) {
		return n, fmt.Errorf("daemon: %w", err)
	}
	return n, nil
}

// runSub runs an adjutant command in this process as the demos drive it: stdin in,
// its output to w, and an error carrying its standard error when it fails.
func (e *env) runSub(args []string, stdin []byte, w io.Writer) error {
	var errb bytes.Buffer
	sub := *e
	sub.stdin, sub.stdout, sub.stderr = bytes.NewReader(stdin), w, &errb
	if code := runEnv(&sub, args); code != 0 {
		return fmt.Errorf("adjutant %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
	}
	return nil
}
