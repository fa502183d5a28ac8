// Command adjutant is the play-by-email adjudicator: one binary with subcommands.
//
//	adjutant demo [--pipe]             play the sample match over the embedded IMAP and SMTP
//	                                   servers (or through pipe mode) and print every mail
//	adjutant rulesets                  list the games this binary adjudicates: sides, options
//	adjutant game new --config F ...   create a game and queue the invitations
//	adjutant serve --config F          the daemon: IMAP in, SMTP out, deadlines on its clock
//	adjutant config sample|check       an annotated sample configuration; check one and log in
//	adjutant handle --config F < m.eml handle one RFC 5322 message (procmail, .forward, Postfix pipe)
//	adjutant outbox --config F --json  print the queued mails
//	adjutant tick --config F [--now T] process reminders and deadlines
//	adjutant audit verify|export ...   check or export a game's audit trail (or check an export)
//	adjutant replay --config F --game G   re-adjudicate a game and compare every result
//	adjutant map --config F --game G --side S   print a side's map
//	  (--png FILE: write it as a PNG picture instead)
//	adjutant games | deadline | pause | resume | player | game end | resend   run games
//
// Every command that opens the store takes --config (the daemon's file: its address and
// database) or --db and --address. While `serve` holds the store, the host commands run
// in the daemon through its control socket (control.go). The logic lives in the
// packages; this file only reads flags and prints.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
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
	// beacon, when set, is the beacon of every desk the command builds (the demo's local
	// relay); otherwise the configuration's [beacon].
	beacon adjudicator.BeaconSource
	cost   int // bcrypt cost, 0 for the default
	// args is the whole command line, which a host command sends to the daemon's
	// control socket when a daemon holds the store.
	args []string
	// served is set when the command runs inside the daemon, for a host command that
	// came through the control socket: it works on the daemon's desk and store.
	served *served
}

// usage is the text of "adjutant help", with the rulesets this binary adjudicates as
// rulesets.All() registers them.
func usage() string {
	list := "(the rulesets could not be loaded)"
	if rs, err := rulesets.All(); err == nil {
		list = rulesetSummary(rs)
	}
	return strings.Replace(usageText, "{{rulesets}}", list, 1)
}

const usageText = `usage: adjutant <command> [flags]

commands:
  demo            play the sample Soldiers 1918 match (two games, 4.2): two
                  scripted players mail the daemon over embedded IMAP and SMTP
                  servers on 127.0.0.1, every mail printed; --pipe plays the
                  same match through pipe mode (adjutant handle) instead;
                  --ruleset R plays a game of another ruleset
  rulesets        list the rulesets: title, rulebook, side ids, options
  game new        create a game: --config FILE --name N --player side=ADDR ...
                  [--ruleset R] [--deadline 48h] [--absence-limit 336h]
                  [--observers open|ask|no]
  game end        end a game, every player told: --config FILE --game G
  games           list the games: phase, deadline, whom each awaits
  deadline        move a game's deadline: --config FILE --game G
                  --extend 24h | --at 2026-12-01T18:00:00Z
  pause, resume   stop or restart a game's deadlines: --config FILE --game G
  player          give a side a new address, which gets a mail: --config FILE
                  --game G --side S --address A [--password P]
  resend          mail a player his last results again: --config FILE
                  --game G --side S
  serve           run the daemon on real mailboxes: --config FILE
  config sample   print an annotated sample configuration
  config check    check a configuration and log in to its IMAP and SMTP
                  servers: --config FILE [--offline]
  config hash-password   read the host password on standard input and
                  print its host_password_hash
  handle          handle one message from standard input: --config FILE;
                  exit 0 once it is handled and its reply queued (whatever
                  the orders said; a mail that sets off an internal error is
                  answered and set aside), 2 on a wrong command line, 75
                  (EX_TEMPFAIL: the MTA keeps the mail and retries) when it
                  could not be handled now, e.g. the disk is full, 70 when it
                  can never be handled (returned to its sender); while
                  serve runs, the daemon handles it (control socket)
  outbox          print the outbox: --config FILE [--json] [--unsent]
  tick            process reminders and deadlines: --config FILE [--now T]
  audit verify    verify a game's audit chain and the signed chain heads of
                  its results mails: --config FILE --game G; or an exported
                  archive alone: --export FILE
  audit export    export it: --config FILE --game G --format csv|json (json:
                  with the host's public key and the signed heads)
  replay          re-adjudicate a game and compare: --config FILE --game G
  checkmails      what a player runs: check every roll, seed, sealed
                  order, signature and beacon round of one game from his
                  saved mails alone: --game G MAIL...
  map             print a side's map: --config FILE --game G --side S
  bench           measure throughput, latency, adjudication, audit and memory

The commands that open the store take --config, the daemon's file (its
address and database), or else --db FILE and --address ADDR (default
$ADJUTANT_ADDRESS, else adjutant@localhost). While serve runs, the host
commands (game, games, deadline, pause, resume, player, resend, outbox,
tick, audit, replay, map) go to it through its control socket (the
config's control_socket, else the database file name with .sock added);
otherwise they open the file. "adjutant <command> -h" lists a command's
flags.

rulesets (game new --ruleset R, with --player ID=ADDR for each side id;
"adjutant rulesets" tells more of each):
{{rulesets}}
`

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runEnv(&env{ctx: ctx, stdin: stdin, stdout: stdout, stderr: stderr}, args)
}

func runEnv(e *env, args []string) int {
	e.args = args
	if len(args) == 0 {
		fmt.Fprint(e.stderr, usage())
		return 2
	}
	var err error
	switch cmd, rest := args[0], args[1:]; cmd {
	case "demo":
		err = cmdDemo(e, rest)
	case "game":
		switch {
		case len(rest) > 0 && rest[0] == "new":
			err = cmdGameNew(e, rest[1:])
		case len(rest) > 0 && rest[0] == "end":
			err = cmdGameEnd(e, rest[1:])
		default:
			err = usageError("game: expected \"game new\" or \"game end\"")
		}
	case "handle":
		err = cmdHandle(e, rest)
		var failed deskFailure
		if errors.As(err, &failed) && !adjudicator.Temporary(err) {
			// The desk could not even set the mail aside, and no retry would mend it:
			// EX_SOFTWARE, so that the mail system returns it to its sender with this
			// error instead of retrying it for days in front of every later mail.
			fmt.Fprintf(e.stderr, "adjutant: %v (exit %d: the mail cannot be handled and is returned)\n", err, exitSoftware)
			return exitSoftware
		}
		if err != nil && !errors.As(err, new(usageError)) && !errors.Is(err, flag.ErrHelp) && !errors.As(err, new(exitCode)) {
			// EX_TEMPFAIL: Postfix, procmail and .forward keep the mail and try again,
			// where any other code bounces the player's orders.
			fmt.Fprintf(e.stderr, "adjutant: %v (exit %d: the mail is kept and tried again)\n", err, exitTempFail)
			return exitTempFail
		}
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
	case "checkmails":
		err = cmdCheckMails(e, rest)
	case "map":
		err = cmdMap(e, rest)
	case "games":
		err = cmdGames(e, rest)
	case "deadline":
		err = cmdDeadline(e, rest)
	case "pause", "resume":
		err = cmdPause(e, cmd, rest)
	case "player":
		err = cmdPlayer(e, rest)
	case "resend":
		err = cmdResend(e, rest)
	case "bench":
		err = cmdBench(e, rest)
	case "rulesets":
		err = cmdRulesets(e, rest)
	case "help", "-h", "--help":
		fmt.Fprint(e.stdout, usage())
		return 0
	default:
		err = usageError(fmt.Sprintf("unknown command %q", cmd))
	}
	var ue usageError
	var ec exitCode
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ec):
		return int(ec) // a command run by the daemon, its output written

	case errors.As(err, &ue):
		fmt.Fprintf(e.stderr, "adjutant: %s\n\n%s", ue, usage())
		return 2
	case errors.Is(err, flag.ErrHelp):
		return 2
	default:
		fmt.Fprintf(e.stderr, "adjutant: %v\n", err)
		return 1
	}
}

// exitTempFail is sysexits.h's EX_TEMPFAIL, the exit code of `adjutant handle` when it
// could not handle the message for a reason that may pass (the store is locked by a
// running daemon, the disk is full, the file cannot be opened).
const exitTempFail = 75

// exitSoftware is sysexits.h's EX_SOFTWARE, the exit code of `adjutant handle` when the
// desk failed on the message for good and could not even set it aside (Desk.Handle sets
// aside, answered, every message it fails on for good; this is the failure of that).
const exitSoftware = 70

// deskFailure is an error of Desk.Handle itself, as opposed to reading the message or
// opening the store: only it may be a failure for good (see exitSoftware).
type deskFailure struct{ err error }

func (f deskFailure) Error() string { return f.err.Error() }
func (f deskFailure) Unwrap() error { return f.err }

type usageError string

func (u usageError) Error() string { return string(u) }

// common flags of the commands that open a store. The game mailbox address and the bbolt
// file are the ones `serve` uses when --config names its file: the address is written
// into every invitation ("send your orders to ..."), so a game created with one address
// and served from another would send players to a mailbox nobody reads.
type common struct {
	db      string
	address string
	config  string
	fs      *flag.FlagSet
	// Settled by resolve: the control socket of a daemon serving db, and the host's
	// address and password hash for host commands by mail.
	socket       string
	hostAddress  string
	hostPassHash string
	club         adjudicator.Club         // the config's [club]; the zero value without --config
	beacon       adjudicator.BeaconSource // the configuration's [beacon]
	resolved     bool
	addressTaken bool // the command's --address is not the game mailbox's
}

// defaultAddress is the game mailbox address of pipe mode when neither --config,
// --address nor ADJUTANT_ADDRESS gives one.
const defaultAddress = "adjutant@localhost"

func (c *common) register(fs *flag.FlagSet) {
	c.fs = fs
	fs.StringVar(&c.config, "config", "", "the daemon's configuration file: its address and database are used (see adjutant config sample)")
	fs.StringVar(&c.db, "db", "", "the bbolt file of the games (required without --config)")
	if fs.Lookup("address") != nil {
		// The command's own --address (adjutant player: the player's new address): the
		// game mailbox then comes from --config, ADJUTANT_ADDRESS or the default.
		c.addressTaken = true
		return
	}
	fs.StringVar(&c.address, "address", "", "the game mailbox address, From of every mail (env ADJUTANT_ADDRESS; default "+defaultAddress+"; with --config, the file's address)")
}

// resolve settles the address and the bbolt file after the flags were parsed: from the
// configuration file when there is one (refusing a --db, --address or ADJUTANT_ADDRESS
// that says otherwise), else from the flags, the environment and the default.
func (c *common) resolve() error {
	if c.resolved {
		return nil
	}
	c.resolved = true
	set := map[string]bool{}
	c.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if c.addressTaken {
		delete(set, "address")
	}
	envAddr := os.Getenv("ADJUTANT_ADDRESS")
	if c.config == "" {
		switch {
		case set["address"]:
		case envAddr != "":
			c.address = envAddr
		default:
			c.address = defaultAddress
		}
		if c.db == "" {
			return usageError("--db (or --config) is required")
		}
		c.socket = c.db + ".sock"
		return nil
	}
	cfg, err := loadStoreConfig(c.config)
	if err != nil {
		return err
	}
	given, from := c.address, "--address"
	if !set["address"] {
		given, from = envAddr, "ADJUTANT_ADDRESS"
	}
	if given != "" && !strings.EqualFold(given, cfg.Address) {
		return fmt.Errorf("%s %s disagrees with address %s in %s: invitations would name one mailbox and serve would send from the other; drop %s or change the file",
			from, given, cfg.Address, c.config, from)
	}
	if set["db"] && !samePath(c.db, cfg.Database) {
		return fmt.Errorf("--db %s disagrees with database %s in %s: drop --db or change the file", c.db, cfg.Database, c.config)
	}
	c.address, c.db = cfg.Address, cfg.Database
	c.socket, c.hostAddress, c.hostPassHash = cfg.socketPath(), cfg.HostAddress, cfg.HostPassword
	c.club = cfg.Club.desk()
	c.beacon = cfg.Beacon.source()
	return nil
}

// samePath says whether two file names name the same file, as far as their text goes.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	bb, err2 := filepath.Abs(b)
	return err1 == nil && err2 == nil && aa == bb
}

func newFlags(e *env, name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	return fs
}

// openStore settles the settings (see resolve) and opens the store.
func (c *common) openStore() (*store.DB, error) {
	if err := c.resolve(); err != nil {
		return nil, err
	}
	return store.Open(c.db)
}

// open opens the store and builds the desk around it.
func (c *common) open(e *env) (*adjudicator.Desk, *store.DB, error) {
	db, err := c.openStore()
	if err != nil {
		return nil, nil, err
	}
	rs, err := rulesets.All()
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	key, err := store.LoadKey(c.db + ".key")
	if err != nil {
		db.Close()
		return nil, nil, err
	}
	desk := &adjudicator.Desk{
		PasswordKey:  key,
		Store:        db,
		Rulesets:     rs,
		Address:      c.address,
		Now:          e.now,
		Rand:         e.random,
		PasswordCost: e.cost,
		Log:          slog.New(slog.NewTextHandler(e.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		HostAddress:  c.hostAddress,
		HostPassHash: c.hostPassHash,
		Club:         c.club,
		Beacon:       c.beacon,
	}
	if e.beacon != nil {
		desk.Beacon = e.beacon
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
	var (
		ruleset, name, noOrders, matchOf, diceMode *string
		deadline, grace, absence                   *time.Duration
		players, passwords                         = pairs{}, pairs{}
		options                                    list
		observers                                  *string
	)
	flags := func(fs *flag.FlagSet) {
		ruleset = fs.String("ruleset", soldiers1918.Name, "the ruleset; --player gives an address for each of its side ids:\n"+registered(rulesetSummary)+"\n")
		name = fs.String("name", "", "the game's name (required)")
		fs.Var(players, "player", "side=ADDRESS, once per side (required)")
		fs.Var(passwords, "password", "side=PASSWORD, optional; generated when missing")
		deadline = fs.Duration("deadline", 0, "deadline of each waiting phase, e.g. 48h (0: none)")
		grace = fs.Duration("grace", 0, "grace period after a deadline")
		noOrders = fs.String("no-orders", "wait", "at a deadline without orders: wait, or default (the ruleset's default orders)")
		fs.Var(&options, "option", "an optional rule to play, e.g. york (repeatable)")
		diceMode = fs.String("dice", "", "seed (the default; a match's second game plays as its first): every roll from the turn's seed and the orders; beacon: a public drand round after the last order mixed in too, which nobody knows before (needs [beacon] in the configuration; HELP DICE)")
		matchOf = fs.String("match-of", "", "make this the second game of a match with that finished game: sides switched, same passwords (4.2)")
		absence = fs.Duration("absence-limit", adjudicator.DefaultAbsenceLimit, "how long in all each player may be absent (ABSENT UNTIL); 0: no absence")
		observers = fs.String("observers", "open", "who may OBSERVE the game by mail: open, ask (a player's ALLOW) or no")
	}
	var ng adjudicator.NewGame
	check := func() error {
		if *name == "" {
			return usageError("game new: --name is required")
		}
		if err := knownRuleset(*ruleset); err != nil {
			return err
		}
		if *absence <= 0 {
			*absence = -1 // the desk's "no absence"
		}
		ng = adjudicator.NewGame{Name: *name, Ruleset: *ruleset, Players: map[rules.Side]string{}, Passwords: map[rules.Side]string{},
			PhaseLength: *deadline, Grace: *grace, NoOrders: *noOrders, MatchOf: *matchOf, AbsenceLimit: *absence, Observers: *observers, Dice: *diceMode}
		for k, v := range players {
			ng.Players[rules.Side(k)] = v
		}
		for k, v := range passwords {
			ng.Passwords[rules.Side(k)] = v
		}
		if len(options) > 0 {
			ng.Options = rules.Options{}
			for _, o := range options {
				ng.Options[o] = true
			}
		}
		return nil
	}
	return hostCommand(e, "game new", args, flags, check, func(desk *adjudicator.Desk, _ store.Store) error {
		creds, err := desk.CreateGame(e.ctx, ng)
		if err != nil {
			return err
		}
		for _, cr := range creds {
			fmt.Fprintf(e.stdout, "%s\t%s\t%s\n", cr.Side, cr.Address, cr.Password)
		}
		return nil
	})
}

func cmdHandle(e *env, args []string) error {
	fs := newFlags(e, "handle")
	var c common
	c.register(fs)
	maxSize := fs.Int64("max-size", 1<<20, "largest message read, in bytes; larger ones are refused unread")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError(err.Error()) // exit 2: no retry mends a wrong command line
	}
	handle := func(desk *adjudicator.Desk, stdin io.Reader) error {
		msg, err := adjudicator.ReadMessage(stdin, *maxSize, false, time.Time{})
		if err != nil {
			return err
		}
		outcome, err := desk.Handle(e.ctx, msg)
		if err != nil {
			return deskFailure{err}
		}
		fmt.Fprintln(e.stdout, outcome)
		return nil
	}
	if e.served != nil {
		return handle(e.served.desk, e.stdin)
	}
	if err := c.resolve(); err != nil {
		return err // exit 75: a configuration being mended should not bounce the mail
	}
	// While serve holds the store, the message goes to the daemon through its control
	// socket (as much of it as adjudicator.ReadMessage would read), so that a host may feed the
	// same store by pipe and by IMAP. An error after the request may have arrived is
	// a temporary failure: the MTA delivers again, and the desk knows the message.
	if *maxSize > maxForwardedMessage {
		*maxSize = maxForwardedMessage
	}
	raw, err := io.ReadAll(io.LimitReader(e.stdin, *maxSize+1))
	if err != nil {
		return fmt.Errorf("read message: %w", err)
	}
	// The last --max-size is the one the daemon reads by: the one raw was cut to.
	fwd := append(slices.Clone(e.args), fmt.Sprintf("--max-size=%d", *maxSize))
	if code, ok, err := forwardStdin(e, c.socket, fwd, raw); err != nil {
		return err
	} else if ok {
		return exitCode(code)
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	return handle(desk, bytes.NewReader(raw))
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
	var asJSON, unsent *bool
	var maildir *string
	return hostCommand(e, "outbox", args, func(fs *flag.FlagSet) {
		asJSON = fs.Bool("json", false, "print a JSON array")
		unsent = fs.Bool("unsent", false, "only mails not yet sent")
		maildir = fs.String("maildir", "", "write each mail, as it is sent, to this Maildir (made if missing) instead of printing it")
	}, nil, func(desk *adjudicator.Desk, db store.Store) error {
		mails, err := readOutbox(e, db, *unsent)
		if err != nil {
			return err
		}
		if *maildir == "" {
			return printOutbox(e, mails, *asJSON)
		}
		n, err := writeMaildir(db, mails, desk.Address, *maildir)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%d mails written to %s\n", n, filepath.Join(*maildir, "new"))
		return nil
	})
}

// readOutbox reads the outbox of db, or the mails of it not yet sent.
func readOutbox(e *env, db store.Store, unsent bool) ([]store.OutMail, error) {
	var mails []store.OutMail
	if err := db.Read(e.ctx, func(tx store.Tx) error {
		var err error
		mails, err = tx.Outbox()
		return err
	}); err != nil {
		return nil, err
	}
	if unsent {
		mails = slices.DeleteFunc(mails, func(m store.OutMail) bool { return m.Sent })
	}
	return mails, nil
}

// printOutbox prints mails of the outbox.
func printOutbox(e *env, mails []store.OutMail, asJSON bool) error {
	out := []outMailJSON{}
	for _, m := range mails {
		out = append(out, outMailJSON{To: m.To, Subject: m.Subject, Body: m.Body, MessageID: m.MessageID, InReplyTo: m.InReplyTo, Sent: m.Sent, Game: m.Game, Side: m.Side, Kind: m.Kind})
	}
	if asJSON {
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
	var nowFlag *string
	var now time.Time
	return hostCommand(e, "tick", args, func(fs *flag.FlagSet) {
		nowFlag = fs.String("now", "", "the time to process, RFC 3339 (default: now)")
	}, func() error {
		now = time.Now()
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
		return nil
	}, func(desk *adjudicator.Desk, _ store.Store) error {
		report, err := desk.Tick(e.ctx, now)
		for _, l := range report {
			fmt.Fprintln(e.stdout, l)
		}
		return err
	})
}

// hostCommand parses the flags of a host command (the common ones and those flags
// adds, checked by check when it is not nil), then runs fn on the store: in the daemon,
// through its control socket, when a daemon serves the store; on the file, opened here,
// otherwise. The command function is the same either way (control.go).
func hostCommand(e *env, name string, args []string, flags func(*flag.FlagSet), check func() error, fn func(*adjudicator.Desk, store.Store) error) error {
	fs := newFlags(e, name)
	var c common
	if flags != nil {
		flags(fs)
	}
	c.register(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if check != nil {
		if err := check(); err != nil {
			return err
		}
	}
	if e.served != nil {
		return fn(e.served.desk, e.served.db)
	}
	if err := c.resolve(); err != nil {
		return err
	}
	if code, ok, err := forward(e, c.socket, e.args); err != nil {
		return err
	} else if ok {
		return exitCode(code)
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(desk, db)
}

// gameCommand parses the flags of a command about one game (--db, --address, --game and
// those flags adds), opens the store and runs fn with the desk.
func gameCommand(e *env, name string, args []string, flags func(*flag.FlagSet), fn func(desk *adjudicator.Desk, game string) error) error {
	var game *string
	return hostCommand(e, name, args, func(fs *flag.FlagSet) {
		game = fs.String("game", "", "the game's name (required)")
		if flags != nil {
			flags(fs)
		}
	}, func() error {
		if *game == "" {
			return usageError(name + ": --game is required")
		}
		return nil
	}, func(desk *adjudicator.Desk, _ store.Store) error { return fn(desk, *game) })
}

func cmdAuditVerify(e *env, args []string) error {
	for i, a := range args {
		// An exported archive is verified on its own, without a store: what a player
		// holding it can run.
		if a == "--export" || a == "-export" {
			if i+1 >= len(args) || len(args) != 2 {
				return usageError("audit verify --export FILE takes no other flag")
			}
			f, err := os.Open(args[i+1])
			if err != nil {
				return err
			}
			defer f.Close()
			rep, err := adjudicator.VerifyExport(f)
			if err != nil {
				return err
			}
			printAuditReport(e, args[i+1], rep)
			return nil
		}
	}
	return gameCommand(e, "audit verify", args, nil, func(desk *adjudicator.Desk, game string) error {
		rep, err := desk.VerifyAudit(e.ctx, game)
		if err != nil {
			return err
		}
		printAuditReport(e, game, rep)
		return nil
	})
}

// printAuditReport says what a verification checked.
func printAuditReport(e *env, what string, rep adjudicator.AuditReport) {
	fmt.Fprintf(e.stdout, "audit of %s verified: %d entries, %d rolls, %d re-derived from revealed seeds, %d awaiting their seed's reveal\n",
		what, rep.Entries, rep.Rolls, rep.Verified, rep.Unrevealed)
	if rep.Beacons > 0 {
		fmt.Fprintf(e.stdout, "%d drand quicknet rounds verified with the chain's public key; every roll re-derived with its round\n", rep.Beacons)
	}
	if rep.Cards > 0 {
		fmt.Fprintf(e.stdout, "%d cards turned from sealed decks, %d re-derived from the revealed deck seed\n", rep.Cards, rep.CardsVerified)
	}
	if rep.HostKey != "" {
		fmt.Fprintf(e.stdout, "%d signed chain heads of results mails verified with the host key %s\n", rep.Signatures, rep.HostKey)
	}
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
	var side, pic *string
	if e.served == nil {
		// A running daemon may run the command for us: it must write where we mean.
		absPNG(e.args)
	}
	return gameCommand(e, "map", args, func(fs *flag.FlagSet) {
		side = fs.String("side", "", "the side whose view to print")
		pic = fs.String("png", "", "write the map as a PNG picture to this file instead")
	}, func(desk *adjudicator.Desk, game string) error {
		if *pic != "" {
			b, err := desk.MapPicture(e.ctx, game, rules.Side(*side))
			if err != nil {
				return err
			}
			if err := os.WriteFile(*pic, b, 0o644); err != nil {
				return fmt.Errorf("map --png: %w", err)
			}
			fmt.Fprintf(e.stdout, "wrote %s (%d bytes)\n", *pic, len(b))
			return nil
		}
		text, err := desk.MapFor(e.ctx, game, rules.Side(*side))
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, text)
		return nil
	})
}

// absPNG makes the file of a --png flag in args absolute, in place.
func absPNG(args []string) {
	for i, a := range args {
		name, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if name != "png" || !strings.HasPrefix(a, "-") {
			continue
		}
		at := i
		if !eq {
			if at = i + 1; at >= len(args) {
				return
			}
			val = args[at]
		}
		if abs, err := filepath.Abs(val); err == nil && val != "" {
			if eq {
				args[at] = a[:len(a)-len(val)] + abs
			} else {
				args[at] = abs
			}
		}
	}
}

func cmdGames(e *env, args []string) error {
	return hostCommand(e, "games", args, nil, nil, func(desk *adjudicator.Desk, _ store.Store) error {
		games, err := desk.Games(e.ctx)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, adjudicator.FormatGames(games))
		return nil
	})
}

func cmdDeadline(e *env, args []string) error {
	var extend *time.Duration
	var at *string
	var when time.Time
	return gameCommand(e, "deadline", args, func(fs *flag.FlagSet) {
		extend = fs.Duration("extend", 0, "move the deadline on by this much, e.g. 24h")
		at = fs.String("at", "", "set the deadline to this time, RFC 3339, e.g. 2026-12-01T18:00:00Z")
	}, func(desk *adjudicator.Desk, game string) error {
		if (*extend == 0) == (*at == "") {
			return usageError("deadline: give one of --extend and --at")
		}
		if *at != "" {
			t, err := time.Parse(time.RFC3339, *at)
			if err != nil {
				return usageError(fmt.Sprintf("--at %q: expected RFC 3339 such as 2026-12-01T18:00:00Z", *at))
			}
			when = t
		}
		return hostReport(e)(desk.ExtendDeadline(e.ctx, game, *extend, when))
	})
}

func cmdPause(e *env, name string, args []string) error {
	return gameCommand(e, name, args, nil, func(desk *adjudicator.Desk, game string) error {
		if name == "pause" {
			return hostReport(e)(desk.Pause(e.ctx, game))
		}
		return hostReport(e)(desk.Resume(e.ctx, game))
	})
}

func cmdPlayer(e *env, args []string) error {
	var side, address, password *string
	return gameCommand(e, "player", args, func(fs *flag.FlagSet) {
		side = fs.String("side", "", "the side whose player changes (required)")
		address = fs.String("address", "", "the new address (required); it gets a mail")
		password = fs.String("password", "", "a new password for the side, sent to the new address; empty: unchanged")
	}, func(desk *adjudicator.Desk, game string) error {
		if *side == "" || *address == "" {
			return usageError("player: --side and --address are required")
		}
		return hostReport(e)(desk.ReplaceAddress(e.ctx, game, *side, *address, *password))
	})
}

func cmdGameEnd(e *env, args []string) error {
	return gameCommand(e, "game end", args, nil, func(desk *adjudicator.Desk, game string) error {
		return hostReport(e)(desk.EndGame(e.ctx, game))
	})
}

func cmdResend(e *env, args []string) error {
	var side *string
	return gameCommand(e, "resend", args, func(fs *flag.FlagSet) {
		side = fs.String("side", "", "the side whose last results to resend (required)")
	}, func(desk *adjudicator.Desk, game string) error {
		if *side == "" {
			return usageError("resend: --side is required")
		}
		return hostReport(e)(desk.Resend(e.ctx, game, *side))
	})
}

// hostReport prints what a host operation did.
func hostReport(e *env) func(string, error) error {
	return func(report string, err error) error {
		if err == nil {
			fmt.Fprintln(e.stdout, report)
		}
		return err
	}
}
