// Command adjutant is the play-by-email adjudicator: one binary with subcommands.
//
//	adjutant demo                      play a sample game through pipe mode and print the mails
//	adjutant game new --db F ...       create a game and queue the invitations
//	adjutant serve --config FILE       the daemon: IMAP in, SMTP out, deadlines on its clock
//	adjutant config sample             an annotated sample configuration
//	adjutant handle --db F < msg.eml   handle one RFC 5322 message (procmail, .forward, Postfix pipe)
//	adjutant outbox --db F --json      print the queued mails
//	adjutant tick --db F [--now T]     process reminders and deadlines
//	adjutant audit verify|export ...   check or export a game's audit trail
//	adjutant replay --db F --game G    re-adjudicate a game and compare every result
//	adjutant map --db F --game G --side S   print a side's map
//
// The logic lives in the packages; this file only reads flags and prints.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// env carries what a subcommand needs from its caller; tests run it in-process.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	// now and random are overridable in tests; production uses the real ones.
	now    func() time.Time
	random io.Reader
	cost   int // bcrypt cost, 0 for the default
}

const usage = `usage: adjutant <command> [flags]

commands:
  demo                  play a sample Soldiers 1918 game through pipe mode, printing every mail
  game new              create a game: --db --ruleset --name --player side=ADDR ...
  serve                 run the daemon on real mailboxes: --config FILE
  config sample|check   print an annotated sample configuration, or check one: --config
  handle                handle one message from standard input: --db
  outbox                print the outbox: --db [--json] [--unsent]
  tick                  process reminders and deadlines: --db [--now RFC3339]
  audit verify          verify a game's audit chain: --db --game
  audit export          export it: --db --game --format csv|json
  replay                re-adjudicate a game and compare: --db --game
  map                   print a side's map: --db --game --side
  bench                 measure throughput, latency, adjudication, audit and memory (BENCHMARKS.md)
Run "adjutant <command> -h" for its flags.
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(&env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

func runEnv(e *env, args []string) int {
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage)
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "demo":
		err = cmdDemo(e, rest)
	case "game":
		if len(rest) == 0 || rest[0] != "new" {
			err = usageError("game: expected \"game new\"")
			break
		}
		err = cmdGameNew(e, rest[1:])
	case "handle":
		err = cmdHandle(e, rest)
	case "serve":
		err = cmdServe(e, rest)
	case "config":
		err = cmdConfig(e, rest)
	case "outbox":
		err = cmdOutbox(e, rest)
	case "tick":
		err = cmdTick(e, rest)
	case "audit":
		if len(rest) == 0 {
			err = usageError("audit: expected verify or export")
			break
		}
		switch rest[0] {
		case "verify":
			err = cmdAuditVerify(e, rest[1:])
		case "export":
			err = cmdAuditExport(e, rest[1:])
		default:
			err = usageError("audit: expected verify or export")
		}
	case "replay":
		err = cmdReplay(e, rest)
	case "map":
		err = cmdMap(e, rest)
	case "bench":
		err = cmdBench(e, rest)
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage)
		return 0
	default:
		err = usageError(fmt.Sprintf("unknown command %q", cmd))
	}
	var ue usageError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "adjutant: %s\n\n%s", ue, usage)
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 2
	default:
		fmt.Fprintf(e.stderr, "adjutant: %v\n", err)
		return 1
	}
}

type usageError string

func (u usageError) Error() string { return string(u) }

// common flags of the commands that open a store.
type common struct {
	db      string
	address string
}

func (c *common) register(fs *flag.FlagSet) {
	fs.StringVar(&c.db, "db", "", "the bbolt file of the games (required)")
	def := os.Getenv("ADJUTANT_ADDRESS")
	if def == "" {
		def = "adjutant@localhost"
	}
	fs.StringVar(&c.address, "address", def, "the game mailbox address, From of every mail (env ADJUTANT_ADDRESS)")
}

func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// rulesets lists every ruleset this binary adjudicates.
func rulesets() (map[string]adjudicator.Ruleset, error) {
	s, err := soldiers1918.New()
	if err != nil {
		return nil, err
	}
	so, err := soissons1918.New()
	if err != nil {
		return nil, err
	}
	return map[string]adjudicator.Ruleset{s.Name(): s, so.Name(): so}, nil
}

// open opens the store and builds the desk around it.
func (c *common) open(e *env) (*adjudicator.Desk, *store.DB, error) {
	if c.db == "" {
		return nil, nil, usageError("--db is required")
	}
	db, err := store.Open(c.db)
	if err != nil {
		return nil, nil, err
	}
	rs, err := rulesets()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	desk := &adjudicator.Desk{
		Store:        db,
		Rulesets:     rs,
		Address:      c.address,
		Now:          e.now,
		Rand:         e.random,
		PasswordCost: e.cost,
		Log:          slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
	return desk, db, nil
}

type pairs map[string]string

func (p pairs) String() string { return fmt.Sprint(map[string]string(p)) }
func (p pairs) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" || val == "" {
		return fmt.Errorf("%q: expected side=value", v)
	}
	p[strings.ToLower(k)] = val
	return nil
}

type list []string

func (l *list) String() string     { return strings.Join(*l, ",") }
func (l *list) Set(v string) error { *l = append(*l, v); return nil }

func cmdGameNew(e *env, args []string) error {
	fs := newFlags(e, "game new")
	var c common
	c.register(fs)
	ruleset := fs.String("ruleset", soldiers1918.Name, "the ruleset")
	name := fs.String("name", "", "the game's name (required)")
	players, passwords := pairs{}, pairs{}
	fs.Var(players, "player", "side=ADDRESS, once per side (required)")
	fs.Var(passwords, "password", "side=PASSWORD, optional; generated when missing")
	deadline := fs.Duration("deadline", 0, "deadline of each waiting phase, e.g. 48h (0: none)")
	grace := fs.Duration("grace", 0, "grace period after a deadline")
	noOrders := fs.String("no-orders", "wait", "at a deadline without orders: wait, or default (the ruleset's default orders)")
	var options list
	fs.Var(&options, "option", "an optional rule to play, e.g. york (repeatable)")
	matchOf := fs.String("match-of", "", "make this the second game of a match with that finished game: sides switched, same passwords (4.2)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *name == "" {
		return usageError("game new: --name is required")
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	ng := adjudicator.NewGame{Name: *name, Ruleset: *ruleset, Players: map[adjudicator.Side]string{}, Passwords: map[adjudicator.Side]string{},
		PhaseLength: *deadline, Grace: *grace, NoOrders: *noOrders, MatchOf: *matchOf}
	for k, v := range players {
		ng.Players[adjudicator.Side(k)] = v
	}
	for k, v := range passwords {
		ng.Passwords[adjudicator.Side(k)] = v
	}
	if len(options) > 0 {
		ng.Options = adjudicator.Options{}
		for _, o := range options {
			ng.Options[o] = true
		}
	}
	creds, err := desk.CreateGame(e.ctx, ng)
	if err != nil {
		return err
	}
	for _, cr := range creds {
		fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", cr.Side, cr.Address, cr.Password)
	}
	return nil
}

// toMessage turns a parsed envelope into the desk's message. IMAP intake and pipe mode
// share it, with the size refusal.
func toMessage(env *mail.Envelope, tooLarge bool, arrived time.Time) adjudicator.Message {
	return adjudicator.Message{
		ID: env.MessageID, From: env.From, Subject: env.Subject, Text: env.Text,
		InReplyTo: env.InReplyTo, References: env.References,
		Automated: env.Automated, AutomatedReason: env.AutomatedReason,
		OwnMail: env.XAdjutant != "", TooLarge: tooLarge, Arrived: arrived,
	}
}

// readMessage is the one path from a raw message to the desk's message, for pipe mode and
// for IMAP intake. truncated says the intake fetched only the header of a message over
// the size limit.
func readMessage(r io.Reader, maxSize int64, truncated bool, arrived time.Time) (adjudicator.Message, error) {
	env, err := mail.ReadEnvelope(r, maxSize)
	tooLarge := truncated || errors.Is(err, mail.ErrTooLarge)
	switch {
	case err != nil && env == nil:
		return adjudicator.Message{}, fmt.Errorf("read message: %w", err) // nothing consumed: try again
	case err != nil && !tooLarge:
		// It will never parse better: record it by its stable id, answer nobody.
		env.Automated, env.AutomatedReason = true, "unreadable"
	}
	return toMessage(env, tooLarge, arrived), nil
}

func cmdHandle(e *env, args []string) error {
	fs := newFlags(e, "handle")
	var c common
	c.register(fs)
	maxSize := fs.Int64("max-size", 1<<20, "largest message read, in bytes; larger ones are refused unread")
	if err := fs.Parse(args); err != nil {
		return err
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	msg, err := readMessage(e.stdin, *maxSize, false, time.Time{})
	if err != nil {
		return err
	}
	outcome, err := desk.Handle(e.ctx, msg)
	if err != nil {
		return err
	}
	fmt.Fprintln(e.stdout, outcome)
	return nil
}

// outMailJSON is the JSON shape of `adjutant outbox --json`.
type outMailJSON struct {
	To        []string `json:"to"`
	Subject   string   `json:"subject"`
	Body      string   `json:"body"`
	MessageID string   `json:"message_id"`
	InReplyTo string   `json:"in_reply_to"`
	Sent      bool     `json:"sent"`
	Game      string   `json:"game,omitempty"`
	Side      string   `json:"side,omitempty"`
	Kind      string   `json:"kind"`
}

func cmdOutbox(e *env, args []string) error {
	fs := newFlags(e, "outbox")
	var c common
	c.register(fs)
	asJSON := fs.Bool("json", false, "print a JSON array")
	unsent := fs.Bool("unsent", false, "only mails not yet sent")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if c.db == "" {
		return usageError("--db is required")
	}
	db, err := store.Open(c.db)
	if err != nil {
		return err
	}
	defer db.Close()
	var mails []store.OutMail
	if err := db.Read(e.ctx, func(tx store.Tx) error {
		var err error
		mails, err = tx.Outbox()
		return err
	}); err != nil {
		return err
	}
	out := []outMailJSON{}
	for _, m := range mails {
		if *unsent && m.Sent {
			continue
		}
		out = append(out, outMailJSON{To: m.To, Subject: m.Subject, Body: m.Body, MessageID: m.MessageID, InReplyTo: m.InReplyTo, Sent: m.Sent, Game: m.Game, Side: m.Side, Kind: m.Kind})
	}
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	for _, m := range out {
		fmt.Fprintf(e.stdout, "To: %s\nSubject: %s\nMessage-ID: <%s>\n", strings.Join(m.To, ", "), m.Subject, m.MessageID)
		if m.InReplyTo != "" {
			fmt.Fprintf(e.stdout, "In-Reply-To: <%s>\n", m.InReplyTo)
		}
		fmt.Fprintf(e.stdout, "\n%s\n%s\n", m.Body, strings.Repeat("=", 78))
	}
	return nil
}

func cmdTick(e *env, args []string) error {
	fs := newFlags(e, "tick")
	var c common
	c.register(fs)
	nowFlag := fs.String("now", "", "the time to process, RFC 3339 (default: now)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	now := time.Now()
	if e.now != nil {
		now = e.now()
	}
	if *nowFlag != "" {
		t, err := time.Parse(time.RFC3339, *nowFlag)
		if err != nil {
			return usageError(fmt.Sprintf("--now %q: expected RFC 3339 such as 2026-11-22T18:00:00Z", *nowFlag))
		}
		now = t
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	desk.Now = func() time.Time { return now }
	report, err := desk.Tick(e.ctx, now)
	for _, l := range report {
		fmt.Fprintln(e.stdout, l)
	}
	return err
}

// gameCommand parses the flags of a command about one game (--db, --address, --game and
// those flags adds), opens the store and runs fn with the desk.
func gameCommand(e *env, name string, args []string, flags func(*flag.FlagSet), fn func(desk *adjudicator.Desk, game string) error) error {
	fs := newFlags(e, name)
	var c common
	c.register(fs)
	game := fs.String("game", "", "the game's name (required)")
	if flags != nil {
		flags(fs)
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *game == "" {
		return usageError(name + ": --game is required")
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(desk, *game)
}

func cmdAuditVerify(e *env, args []string) error {
	return gameCommand(e, "audit verify", args, nil, func(desk *adjudicator.Desk, game string) error {
		rep, err := desk.VerifyAudit(e.ctx, game)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "audit of %s verified: %d entries, %d rolls, %d re-derived from revealed seeds, %d awaiting their seed's reveal\n",
			game, rep.Entries, rep.Rolls, rep.Verified, rep.Unrevealed)
		return nil
	})
}

func cmdAuditExport(e *env, args []string) error {
	var format *string
	return gameCommand(e, "audit export", args, func(fs *flag.FlagSet) {
		format = fs.String("format", "json", "csv or json")
	}, func(desk *adjudicator.Desk, game string) error {
		return desk.ExportAudit(e.ctx, game, *format, e.stdout)
	})
}

func cmdReplay(e *env, args []string) error {
	return gameCommand(e, "replay", args, nil, func(desk *adjudicator.Desk, game string) error {
		rep, err := desk.Replay(e.ctx, game)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "replay of %s matches: %d advances, %d phases, %d results mails identical\n", game, rep.Advances, rep.Phases, rep.Mails)
		return nil
	})
}

func cmdMap(e *env, args []string) error {
	var side *string
	return gameCommand(e, "map", args, func(fs *flag.FlagSet) {
		side = fs.String("side", "", "the side whose view to print")
	}, func(desk *adjudicator.Desk, game string) error {
		text, err := desk.MapFor(e.ctx, game, adjudicator.Side(*side))
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, text)
		return nil
	})
}
