package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
)

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
	return c.forwardOrOpen(e, e.args, fn)
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
func absPNG(args []string) { absFlag(args, "png") }

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
