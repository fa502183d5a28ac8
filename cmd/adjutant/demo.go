package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
	"github.com/adjutant-pbem/adjutant/mail"
)

// scripted is one mail of a scripted player.
type scripted struct {
	From    string
	Subject string
	Body    string
}

// Sample game: addresses and passwords of the scripted players.
const (
	sampleGame    = "sample"
	sampleReturn  = "sample-return" // the second game of the match (4.2)
	sampleUS      = "pershing@aef.example"
	sampleDE      = "ktk@regiment.example"
	samplePassUS  = "lafayette-we-are-here"
	samplePassDE  = "gott-strafe-england"
	sampleAddress = "adjutant@localhost"
)

// The sample game's plots (soldiers1918.Script), for the secrecy tests.
var (
	sampleUSPlots = soldiers1918.USPlots
	sampleDEPlots = soldiers1918.DEPlots
)

// sampleScript is a whole six-turn game of Soldiers 1918 as the two players would mail
// it. Each player answers when the game waits for him: the US sends its movement and fire
// orders for a turn once the turn has begun (orders for a later phase are held, 5.2), the
// German his fire and movement orders with the plot for the next turn (5.2 II).
func sampleScript() []scripted {
	return script(sampleGame, sampleUS, samplePassUS, sampleDE, samplePassDE)
}

// script is the sample game (soldiers1918.Script) for the given game and players; the
// second game of a match plays it with the sides switched (4.2).
func script(game, usAddr, passUS, deAddr, passDE string) []scripted {
	players := map[rules.Side]demoPlayer{soldiers1918.US: {usAddr, passUS}, soldiers1918.DE: {deAddr, passDE}}
	var mails []scripted
	for _, m := range soldiers1918.Script(game) {
		mails = append(mails, scriptedFor(game, players, m))
	}
	return mails
}

// scriptedFor is m as the player of its side mails it to game.
func scriptedFor(game string, players map[rules.Side]demoPlayer, m rules.BotMail) scripted {
	p := players[m.Side]
	return scripted{From: p.addr, Subject: m.Subject, Body: m.Text(game, p.pass)}
}

// matchGame is one game of the sample match and the mails its players send.
type matchGame struct {
	name  string
	mails []scripted
}

// sampleMatch is the match of 4.2 that both demos play: the sample game, then the return
// game with the sides switched and the same passwords.
func sampleMatch() []matchGame {
	return []matchGame{
		{sampleGame, textOnly(sampleScript())},
		{sampleReturn, textOnly(script(sampleReturn, sampleDE, samplePassDE, sampleUS, samplePassUS))},
	}
}

// textOnly has the first player of a script turn the pictures of the map off (SET
// PICTURE OFF), so that the demo shows both kinds of mail; the benchmark plays the
// script as it is, as players do by default (with pictures).
func textOnly(mails []scripted) []scripted {
	out := slices.Clone(mails)
	head, rest, _ := strings.Cut(out[0].Body, "PASSWORD ")
	pw, rest, _ := strings.Cut(rest, "\n")
	out[0].Body = head + "PASSWORD " + pw + "\n# The map as text only: no picture of it in my mails.\nSET PICTURE OFF\n" + rest
	return out
}

// eml renders a scripted mail as an RFC 5322 message.
func eml(m scripted, to, messageID string, date time.Time) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "From: %s\r\nTo: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: <%s>\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n",
		m.From, to, m.Subject, date.Format(time.RFC1123Z), messageID)
	b.WriteString(strings.ReplaceAll(m.Body, "\n", "\r\n"))
	return b.Bytes()
}

// cmdDemo plays the sample game: over real IMAP and SMTP on loopback with the embedded
// mail servers, or with --pipe through pipe mode, printing every mail.
func cmdDemo(e *env, args []string) error {
	fs := newFlags(e, "demo")
	keep := fs.String("db", "", "keep the game in this bbolt file (default: a temporary file)")
	quiet := fs.Bool("quiet", false, "print only the summary")
	verbose := fs.Bool("verbose", false, "print every mail as it is delivered, instead of a line an event")
	maildir := fs.String("maildir", "", "write every mail to this Maildir, for mutt or Thunderbird (default: a new folder, whose path is printed; none with --quiet)")
	pipe := fs.Bool("pipe", false, "play through pipe mode (adjutant handle) instead of mail")
	ruleset := fs.String("ruleset", "soldiers1918", "the game to play: soldiers1918, mons1914, teaching or soissons1918")
	diceMode := fs.String("dice", "seed", "seed, or beacon: every roll bound to a recorded drand quicknet round served on loopback (soldiers1918 with --pipe)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	o := demoOpts{keep: *keep, quiet: *quiet, pipe: *pipe, verbose: *verbose, maildir: *maildir, dice: *diceMode}
	switch {
	case o.dice == "seed":
		o.dice = ""
	case o.dice != adjudicator.DiceBeacon:
		return usageError(fmt.Sprintf("demo: --dice %q: expected seed or beacon", o.dice))
	case *ruleset != "soldiers1918" || !*pipe:
		return usageError("demo: --dice beacon is played by the soldiers1918 demo with --pipe")
	}
	switch *ruleset {
	case "mons1914":
		return demoMons(e, o)
	case teaching.Name:
		return demoTeaching(e, o)
	case "soissons1918":
		return demoSoissons(e, o)
	case "soldiers1918":
	default:
		return usageError(fmt.Sprintf("demo: no demo of ruleset %q: soldiers1918, mons1914, teaching or soissons1918", *ruleset))
	}
	if !*pipe {
		res, err := playByMail(e, o)
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "%s%s\nDemo complete in %s: %d mails delivered to the players over IMAP.\n%s", res.account, strings.Repeat("=", 78), res.elapsed.Round(time.Millisecond), res.delivered, res.summary)
		return nil
	}
	return demoPipe(e, o)
}

// demoPipe plays the sample match (4.2) through pipe mode in a temporary store, printing
// every mail as it is queued, then the audit verification and the replay of each game.
func demoPipe(e *env, o demoOpts) error {
	path, quiet := o.keep, !o.verbose || o.quiet
	if path == "" {
		dir, err := os.MkdirTemp("", "adjutant-demo-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path = filepath.Join(dir, "demo.db")
	}
	printed := 0
	show := func() error {
		mails, err := outboxOf(e, path)
		if err != nil {
			return err
		}
		for _, m := range mails[printed:] {
			if !quiet {
				fmt.Fprintf(e.stdout, "%s\nTo: %s\nSubject: %s\n\n%s\n", strings.Repeat("=", 78), strings.Join(m.To, ", "), m.Subject, m.Body)
			}
		}
		printed = len(mails)
		return nil
	}
	db := []string{"--db", path, "--address", sampleAddress}
	var summary bytes.Buffer
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	var bc *demoBeacon
	if o.dice == adjudicator.DiceBeacon {
		var err error
		if bc, err = startDemoBeacon(start); err != nil {
			return err
		}
		defer bc.close()
	}
	step := func(args []string, stdin []byte, out io.Writer) error {
		var errb bytes.Buffer
		sub := *e
		if bc != nil {
			sub.now, sub.beacon = bc.now, bc.source()
		}
		sub.stdin, sub.stdout, sub.stderr = bytes.NewReader(stdin), out, &errb
		if code := runEnv(&sub, append(args, db...)); code != 0 {
			return fmt.Errorf("adjutant %s: exit %d: %s", strings.Join(args, " "), code, errb.String())
		}
		return nil
	}
	rounds := 0
	settle := func() error {
		if bc == nil {
			return nil
		}
		n, err := bc.settle(func() (string, error) {
			var out bytes.Buffer
			err := step([]string{"tick"}, nil, &out)
			return out.String(), err
		})
		rounds += n
		return err
	}
	for n, g := range sampleMatch() {
		create := []string{"game", "new", "--name", g.name, "--match-of", sampleGame}
		if n == 0 {
			create = []string{"game", "new", "--name", g.name, "--ruleset", "soldiers1918",
				"--player", "us=" + sampleUS, "--player", "de=" + sampleDE,
				"--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}
			if bc != nil {
				create = append(create, "--dice", adjudicator.DiceBeacon)
			}
		} else if !quiet {
			fmt.Fprintf(e.stdout, "%s\n>>> The host creates %s, the return game of the match (4.2).\n", strings.Repeat("#", 78), g.name)
		}
		if bc != nil {
			bc.set(start.Add(time.Duration(n*100) * time.Hour))
		}
		if err := step(create, nil, io.Discard); err != nil {
			return err
		}
		if err := settle(); err != nil {
			return err
		}
		if err := show(); err != nil {
			return err
		}
		for i, m := range g.mails {
			at := start.Add(time.Duration(n*100+i) * time.Hour)
			if bc != nil {
				bc.set(at)
			}
			raw := eml(m, sampleAddress, fmt.Sprintf("demo-%s-%d@players.example", g.name, i+1), at)
			if !quiet {
				fmt.Fprintf(e.stdout, "%s\n>>> %s mails the game (adjutant handle):\n%s\n", strings.Repeat("#", 78), m.From, m.Body)
			}
			if err := step([]string{"handle"}, raw, io.Discard); err != nil {
				return err
			}
			if err := settle(); err != nil {
				return err
			}
			if err := show(); err != nil {
				return err
			}
		}
	}
	for _, g := range sampleMatch() {
		for _, args := range [][]string{{"audit", "verify", "--game", g.name}, {"replay", "--game", g.name}} {
			if err := step(args, nil, &summary); err != nil {
				return err
			}
		}
	}
	mails, err := outboxOf(e, path)
	if err != nil {
		return err
	}
	byPlayer := map[string][]received{}
	var games []string
	for _, m := range mails {
		if len(m.To) == 1 {
			byPlayer[m.To[0]] = append(byPlayer[m.To[0]], received{Env: &mail.Envelope{Subject: m.Subject, Text: m.Body}})
		}
	}
	for _, g := range sampleMatch() {
		games = append(games, g.name)
	}
	checked, err := checkPlayersMails(games, byPlayer)
	if err != nil {
		return err
	}
	account, err := demoFinish(e, path, o, sampleGame, sampleReturn)
	if err != nil {
		return err
	}
	stop, err := soldiersStopPace(e)
	if err != nil {
		return err
	}
	account += stop
	if bc != nil {
		fmt.Fprintf(&summary, "Every roll is bound to a recorded drand quicknet round served on loopback: %d rounds came in.\n", rounds)
	}
	fmt.Fprintf(e.stdout, "%s%s\nDemo complete: %d mails queued.\n%s%s", account, strings.Repeat("=", 78), printed, summary.String(), checked)
	return nil
}

func outboxOf(e *env, path string) ([]outMailJSON, error) {
	var out bytes.Buffer
	sub := *e
	sub.stdout = &out
	if code := runEnv(&sub, []string{"outbox", "--db", path, "--json"}); code != 0 {
		return nil, fmt.Errorf("read outbox of %s", path)
	}
	var mails []outMailJSON
	if err := json.Unmarshal(out.Bytes(), &mails); err != nil {
		return nil, err
	}
	return mails, nil
}
