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
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
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
  game archive    write a finished game's complete record to a file, check
                  it (audit verify and replay from the file), then remove
                  the game from the store: GAME --config FILE [--out FILE]
  game export     write a finished game's record (the zip every player
                  gets): GAME --config FILE [--side S] --out FILE
  store compact   rewrite the store into a new file without its free pages
                  (serve stopped; compact_at_start does it at start-up)
  store space     where the store file's bytes go, bucket by bucket, and
                  whether compaction would give space back: --config FILE
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
                  archive alone: --export FILE; an archived game: --archive FILE
  audit export    export it: --config FILE --game G --format csv|json (json:
                  with the host's public key and the signed heads)
  replay          re-adjudicate a game and compare: --config FILE --game G;
                  an archived game: --archive FILE
  checkmails      what a player runs: check every roll, seed, sealed
                  order, signature and beacon round of one game from his
                  saved mails alone: --game G MAIL...
  map             print a side's map: --config FILE --game G --side S

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
		case len(rest) > 0 && rest[0] == "archive":
			err = cmdGameArchive(e, rest[1:])
		case len(rest) > 0 && rest[0] == "export":
			err = cmdGameExport(e, rest[1:])
		default:
			err = usageError("game: expected \"game new\", \"game end\", \"game archive\" or \"game export\"")
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
			if _, ok := archiveFlag(rest[1:]); ok {
				err = cmdArchiveCheck(e, rest[1:], false)
				break
			}
			err = cmdAuditVerify(e, rest[1:])
		case "export":
			err = cmdAuditExport(e, rest[1:])
		default:
			err = usageError("audit: expected verify or export")
		}
	case "replay":
		if _, ok := archiveFlag(rest); ok {
			err = cmdArchiveCheck(e, rest, true)
			break
		}
		err = cmdReplay(e, rest)
	case "checkmails":
		err = cmdCheckMails(e, rest)
	case "store":
		err = cmdStore(e, rest)
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
