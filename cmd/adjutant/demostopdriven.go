package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The stopping style of play for the driven demos (Mons, Soissons), as Soldiers' sample-stop
// (demostop.go): players who send, when the game waits for them, only the orders of the
// step it waits at, having read the results of every step before it. Its game is
// played through pipe mode in a store of its own, and the demo prints how often it
// waited for a player's mail per game turn beside the early style's figure.

// stopNow gives side's order lines for the step st is at, and nothing for a later one;
// none means PASS.
type stopNow func(st rules.State, side rules.Side) []string

// stopScript is the script of players who stop to see every result: each mail answers
// the step the game is at for one side it waits for, with now's lines (PASS when
// none), and only once a step and side.
func stopScript(rs rules.Ruleset, game string, now stopNow) rules.Bot {
	sent := map[string]bool{}
	return botFunc(func(i int, st rules.State) (rules.BotMail, bool, error) {
		if st.Over() {
			return rules.BotMail{}, false, nil
		}
		for _, side := range rs.Waiting(st, nil) {
			k := fmt.Sprintf("%d.%s.%s", st.Turn(), st.Phase(), side)
			if sent[k] {
				continue // answered: the step waits for the other side
			}
			sent[k] = true
			lines := now(st, side)
			if len(lines) == 0 {
				lines = []string{"PASS"}
			}
			return rules.BotMail{Side: side, Subject: fmt.Sprintf("[%s] %s", game, st.PhaseTitle()), Body: strings.Join(lines, "\n") + "\n"}, true, nil
		}
		return rules.BotMail{}, false, fmt.Errorf("demo, stopping style: %s waits at turn %d step %s for nobody the script has not answered", game, st.Turn(), st.Phase())
	})
}

// botFunc is a function as a [rules.Bot].
type botFunc func(i int, st rules.State) (rules.BotMail, bool, error)

// Next implements rules.Bot.
func (f botFunc) Next(i int, st rules.State) (rules.BotMail, bool, error) { return f(i, st) }

// forNow keeps of lines those the order check accepts for the step st is at (not held
// for a later one, as held says of a line's verdict), dropping the refused ones until
// the rest is accepted whole: a mail with a refused line changes nothing.
func forNow(rs rules.Ruleset, st rules.State, side rules.Side, lines []string, held func(rules.Checked) bool) []string {
	for range len(lines) + 1 {
		var keep []string
		refused := false
		for _, c := range rs.Check(st, side, numbered(lines), nil) {
			switch {
			case !c.OK:
				refused = true
			case !held(c):
				keep = append(keep, c.Line.Text)
			}
		}
		if !refused {
			return keep
		}
		lines = keep
	}
	return nil
}

// stopGameOf is g played in the stopping style: the game named game, the same
// players, now's orders.
func stopGameOf(g *drivenDemo, game string, now stopNow) *drivenDemo {
	s := *g
	s.game = game
	s.create = slices.Clone(g.create)
	if i := slices.Index(s.create, "--name"); i >= 0 && i+1 < len(s.create) {
		s.create[i+1] = game
	}
	s.bot = stopScript(g.rs, game, now)
	return &s
}

// stopPace plays g (a stopping-style game, stopGameOf) through pipe mode in a store of
// its own and tells how often it waited for a player's mail per game turn.
func stopPace(e *env, g *drivenDemo) (string, error) {
	dir, err := os.MkdirTemp("", "adjutant-stop-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	return playDrivenStop(e, g, filepath.Join(dir, "stop.db"))
}

// playDrivenStop plays g into the store at path, verifies its audit and replay, and
// tells its pace from its journal.
func playDrivenStop(e *env, g *drivenDemo, path string) (string, error) {
	db := []string{"--db", path, "--address", sampleAddress}
	run := func(args []string, stdin []byte, w io.Writer) error {
		if err := e.runSub(args, stdin, w); err != nil {
			return fmt.Errorf("demo, stopping style: %w", err)
		}
		return nil
	}
	if err := run(append(g.create, db...), nil, io.Discard); err != nil {
		return "", err
	}
	if _, err := g.pipe(e, path, db, io.Discard, run); err != nil {
		return "", err
	}
	for _, args := range [][]string{{"audit", "verify", "--game", g.game}, {"replay", "--game", g.game}} {
		if err := run(append(args, db...), nil, io.Discard); err != nil {
			return "", err
		}
	}
	turns, advances, err := journalWaits(e, path, g.game)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: waits for a player's mail per game turn (%d turns): %.1f, played by\nplayers who send each step's orders once they have seen the results before it\n", g.game, turns, float64(advances)/float64(turns)), nil
}

// numbered is lines as the order check reads a mail's.
func numbered(lines []string) []orders.Line {
	var ls []orders.Line
	for i, l := range lines {
		ls = append(ls, orders.Line{No: i + 1, Text: l, Fields: strings.Fields(l)})
	}
	return ls
}
