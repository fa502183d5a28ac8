package main

import (
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"

	"github.com/adjutant-pbem/adjutant/store"
)

// demoOpts are the choices of `adjutant demo`.
type demoOpts struct {
	keep    string // keep the game in this store file
	quiet   bool   // print only the summary
	pipe    bool   // play through pipe mode instead of mail
	verbose bool   // print every mail as it is delivered
	maildir string // write every mail here ("" with quiet: nowhere; else a new folder)
	dice    string // "beacon": games created with --dice beacon against the demo's relay
}

// mailsOut is where the demo prints every mail as it goes: standard output with
// --verbose, nowhere else (the short account and the Maildir tell the game then).
func (o demoOpts) mailsOut(e *env) io.Writer {
	if o.verbose && !o.quiet {
		return e.stdout
	}
	return io.Discard
}

// demoFinish writes every mail of the demo's store to the Maildir (a new folder unless
// one was named, none with --quiet), and gives the short account of the game to print
// before the summary: what the players read, a line an event of the game, and how often
// each of paced (the games whose pace the demo does not tell itself) waited for mail.
func demoFinish(e *env, path string, o demoOpts, paced ...string) (string, error) {
	dir := o.maildir
	if dir == "" && !o.quiet {
		var err error
		if dir, err = os.MkdirTemp("", "adjutant-demo-maildir-"); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	if !o.quiet && !o.verbose {
		mails, err := outboxOf(e, path)
		if err != nil {
			return "", err
		}
		b.WriteString(demoAccount(mails))
	}
	if dir != "" {
		var out strings.Builder
		sub := *e
		sub.stdout, sub.stderr = &out, &out
		if code := runEnv(&sub, []string{"outbox", "--db", path, "--address", sampleAddress, "--maildir", dir}); code != 0 {
			return "", fmt.Errorf("write the mails to %s: %s", dir, out.String())
		}
		n, _, _ := strings.Cut(strings.TrimSpace(out.String()), " ")
		pace, err := demoPace(e, path, paced...)
		if err != nil {
			return "", err
		}
		b.WriteString(pace)
		fmt.Fprintf(&b, "Every mail as the players received it (%s mails), in the Maildir\n  %s\n(mutt -f DIR, or Thunderbird or any Maildir reader, opens it)\n", n, dir)
	}
	return b.String(), nil
}

// stepTitle is a "== title ==" line of a results mail.
var stepTitle = regexp.MustCompile(`(?m)^== (.+) ==$`)

// demoAccount tells a game from its outbox in a line an event: each game's creation,
// each order check (who wrote, whether it was accepted), each advance (the steps it
// resolved, told once for both sides), the verdict.
func demoAccount(mails []outMailJSON) string {
	var b strings.Builder
	line := func(format string, args ...any) {
		s := fmt.Sprintf(format, args...)
		if r := []rune(s); len(r) > 78 {
			s = string(r[:75]) + "..."
		}
		b.WriteString(s + "\n")
	}
	b.WriteString("The game as its players read it (a line an event; --verbose prints every mail):\n")
	for i, m := range mails {
		first, _, _ := strings.Cut(m.Body, "\n")
		switch m.Kind {
		case "invite":
			if i == 0 || mails[i-1].Kind != "invite" || mails[i-1].Game != m.Game {
				line("  game %s created; invitations to %s", m.Game, strings.Join(invited(mails[i:]), ", "))
			}
		case "reply":
			verdict := "answered"
			switch {
			case strings.Contains(m.Body, "REFUSED"):
				verdict = "REFUSED, nothing changed"
			case strings.Contains(m.Body, "Your orders are accepted"):
				verdict = "accepted"
			}
			line("  %s (%s) mails orders: %s", m.Side, m.To[0], verdict)
		case "results":
			if i > 0 && mails[i-1].Kind == "results" && mails[i-1].Game == m.Game {
				continue // the same advance, told to the other side
			}
			var steps []string
			for _, t := range stepTitle.FindAllStringSubmatch(m.Body, -1) {
				if !notAStep(t[1]) {
					steps = append(steps, t[1])
				}
			}
			switch len(steps) {
			case 0:
				line("    resolved: nothing %s saw", m.Side)
			case 1:
				line("    resolved: %s", steps[0])
			default:
				line("    resolved %d steps, the last: %s", len(steps), steps[len(steps)-1])
			}
			if strings.HasPrefix(first, "Game over: ") {
				line("  %s %s", m.Game, first)
			}
		}
	}
	return b.String()
}

// notAStep tells the sections of a results mail that are not steps of the game.
func notAStep(title string) bool {
	for _, p := range []string{"Map", "Status", "Notes", "Orders revealed", "Dice", "Audit", "Cards", "Deck"} {
		if strings.HasPrefix(title, p) {
			return true
		}
	}
	return false
}

// invited lists the sides of the run of invitations at the head of mails.
func invited(mails []outMailJSON) []string {
	var out []string
	for i, m := range mails {
		if m.Kind != "invite" || (i > 0 && m.Game != mails[0].Game) {
			break
		}
		out = append(out, m.Side+" "+m.To[0])
	}
	return out
}

// demoPace says how often a game of the demo waited for a player's mail, per game turn,
// from its journal: as its players sent their orders (each advance is one wait: the
// phase resolved when the last order it needed came in), and as players who stop to
// see every result would, at most (each phase that resolved a player's orders would be
// a wait of its own, but for orders the rules have him give ahead, such as Soldiers'
// plots, which the journal does not tell apart).
func demoPace(e *env, path string, games ...string) (string, error) {
	var b strings.Builder
	for _, game := range games {
		journal, err := journalOf(e, path, game)
		if err != nil {
			return "", err
		}
		turns, advances, phases := paceOf(journal)
		if turns == 0 {
			continue
		}
		n := float64(turns)
		fmt.Fprintf(&b, "%s: waits for a player's mail per game turn (%d turns): %.1f as its players\nsent their orders; at most %.1f for players who stop to see every result (the\nphases that resolved a player's orders, plots sent ahead included)\n",
			game, turns, float64(advances)/n, float64(phases)/n)
	}
	return b.String(), nil
}

// paceOf counts a journal's game turns, its advances (each a wait for the mail that
// completed a phase's orders) and the phases that resolved a player's orders.
func paceOf(journal []store.JournalEntry) (turns, advances, phases int) {
	seen := map[int]bool{}
	for _, j := range journal {
		if len(j.Steps) == 0 {
			continue
		}
		advances++
		for _, s := range j.Steps {
			seen[s.Turn] = true
			if len(s.Orders) > 0 {
				phases++
			}
		}
	}
	return len(seen), advances, phases
}

// journalOf reads game's journal from the store at path.
func journalOf(e *env, path, game string) ([]store.JournalEntry, error) {
	db, err := store.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read the demo's journal: %w", err)
	}
	defer db.Close()
	var journal []store.JournalEntry
	err = db.Read(e.ctx, func(tx store.Tx) error {
		var err error
		journal, err = tx.Journal(game)
		return err
	})
	return journal, err
}
