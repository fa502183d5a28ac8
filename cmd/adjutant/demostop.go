package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// stopGame is the Soldiers 1918 game the demo plays in the other style of play: each
// player sends, when the game waits for him, only the orders of the phase it waits at,
// having read the results of every phase before it.
const stopGame = "sample-stop"

// soldiersStopPace plays stopGame through pipe mode (adjutant handle) in a store of its
// own, the sample game's orders sent one phase at a time (soldiers1918.Rules.BotOrders),
// and says how often it waited for a player's mail per game turn (issue 21's pace of
// play, measured).
func soldiersStopPace(e *env) (string, error) {
	dir, err := os.MkdirTemp("", "adjutant-stop-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	return playStopGame(e, filepath.Join(dir, "stop.db"))
}

// playStopGame plays stopGame into the store at path and tells its pace.
func playStopGame(e *env, path string) (string, error) {
	rs, err := soldiers1918.New()
	if err != nil {
		return "", err
	}
	run := func(args []string, stdin []byte) error {
		if err := e.runSub(append(args, "--db", path, "--address", sampleAddress), stdin, io.Discard); err != nil {
			return fmt.Errorf("demo, stopping style: %w", err)
		}
		return nil
	}
	err = run([]string{"game", "new", "--name", stopGame, "--ruleset", soldiers1918.Name,
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE,
		"--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}, nil)
	if err != nil {
		return "", err
	}
	from := map[rules.Side]string{soldiers1918.US: sampleUS, soldiers1918.DE: sampleDE}
	pass := map[rules.Side]string{soldiers1918.US: samplePassUS, soldiers1918.DE: samplePassDE}
	start := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for i := 0; ; i++ {
		if i > maxDemoMails {
			return "", fmt.Errorf("demo, stopping style: %s has not ended after %d mails", stopGame, maxDemoMails)
		}
		st, waiting, err := stopGameWaits(e, path, rs)
		if err != nil {
			return "", err
		}
		if st.Over() {
			break
		}
		if len(waiting) == 0 {
			return "", fmt.Errorf("demo, stopping style: %s waits for nobody at turn %d phase %s", stopGame, st.T, st.P)
		}
		side := waiting[0]
		body := fmt.Sprintf("GAME %s\nPASSWORD %s\n%s", stopGame, pass[side], rs.BotOrders(st, side))
		m := scripted{From: from[side], Subject: "[" + stopGame + "] orders", Body: body}
		if err := run([]string{"handle"}, eml(m, sampleAddress, fmt.Sprintf("stop-%d@players.example", i+1), start.Add(time.Duration(i)*time.Hour))); err != nil {
			return "", err
		}
	}
	for _, args := range [][]string{{"audit", "verify", "--game", stopGame}, {"replay", "--game", stopGame}} {
		if err := run(args, nil); err != nil {
			return "", err
		}
	}
	turns, advances, err := journalWaits(e, path, stopGame)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: waits for a player's mail per game turn (%d turns, the set-up one): %.1f,\nplayed by players who send each phase's orders once they have seen the results\nbefore it\n", stopGame, turns, float64(advances)/float64(turns)), nil
}

// stopGameWaits reads stopGame's state and the sides its phase waits for.
func stopGameWaits(e *env, path string, rs *soldiers1918.Rules) (*soldiers1918.State, []rules.Side, error) {
	db, err := store.Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer db.Close()
	var st rules.State
	var filed []rules.Order
	err = db.Read(e.ctx, func(tx store.Tx) error {
		g, err := tx.Game(stopGame)
		if err != nil {
			return err
		}
		if st, err = rs.Decode(g.State); err != nil {
			return err
		}
		stored, err := tx.Orders(stopGame)
		for _, o := range stored {
			filed = append(filed, rules.Order{Phase: o.Phase, Side: rules.Side(o.Side), Key: o.Key, Kind: o.Kind, Text: o.Text})
		}
		return err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("demo, stopping style: read %s: %w", stopGame, err)
	}
	return st.(*soldiers1918.State), rs.Waiting(st, filed), nil
}

// journalWaits counts the game turns of game's journal and its advances (each one a
// wait for the mail that completed a phase's orders).
func journalWaits(e *env, path, game string) (turns, advances int, err error) {
	journal, err := journalOf(e, path, game)
	if err != nil {
		return 0, 0, err
	}
	if turns, advances, _ = paceOf(journal); turns == 0 {
		return 0, 0, fmt.Errorf("demo, stopping style: %s resolved nothing", game)
	}
	return turns, advances, nil
}
