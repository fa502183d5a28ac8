package main

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
	"github.com/adjutant-pbem/adjutant/store"
)

// demoRun is one game of a demo: how the host creates it and the mails its players send.
type demoRun struct {
	name, ruleset, matchOf string
	options                []string
	// next returns the i-th mail of the game, reading the game through read when the
	// players answer what they see; ok is false after the last mail.
	next func(i int, read func(func(store.Tx) error) error) (m scripted, ok bool, err error)
}

// gameNew is the host's "game new" command for the run (without --db).
func (r demoRun) gameNew() []string {
	args := []string{"game", "new", "--name", r.name, "--ruleset", r.ruleset,
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE,
		"--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}
	for _, o := range r.options {
		args = append(args, "--option", o)
	}
	return args
}

// fixed plays a script written in advance.
func fixed(mails []scripted) func(int, func(func(store.Tx) error) error) (scripted, bool, error) {
	return func(i int, _ func(func(store.Tx) error) error) (scripted, bool, error) {
		if i >= len(mails) {
			return scripted{}, false, nil
		}
		return mails[i], true, nil
	}
}

// demoRuns are the games "adjutant demo --ruleset" plays: the Soldiers 1918 match (4.2),
// or one teaching game.
func demoRuns(ruleset string) ([]demoRun, error) {
	switch ruleset {
	case "soldiers1918":
		return []demoRun{
			{name: sampleGame, ruleset: ruleset, next: fixed(sampleScript())},
			{name: sampleReturn, ruleset: ruleset, matchOf: sampleGame, next: fixed(script(sampleReturn, sampleDE, samplePassDE, sampleUS, samplePassUS))},
		}, nil
	case teaching.Name:
		rs, err := teaching.New()
		if err != nil {
			return nil, err
		}
		// The turn limit (an option, not in the rulebook) makes sure the demo ends even
		// when the cards keep every German MG alive.
		return []demoRun{{name: sampleGame, ruleset: ruleset, options: []string{teaching.OptTurns24}, next: teachingPlayers(rs, sampleGame)}}, nil
	}
	return nil, usageError(fmt.Sprintf("demo: --ruleset %q: want soldiers1918 or teaching", ruleset))
}

// teachingPlayers are the two scripted players of the teaching game. Cards decide where
// shells land and who wins a 1 to 1 fight, so no mail can be written in advance: each
// player reads the game as his map shows it and answers with the ruleset's bot
// (teaching.Rules.BotOrders) when his turn opens.
func teachingPlayers(rs *teaching.Rules, game string) func(int, func(func(store.Tx) error) error) (scripted, bool, error) {
	const maxMails = 200
	return func(i int, read func(func(store.Tx) error) error) (scripted, bool, error) {
		var st adjudicator.State
		err := read(func(tx store.Tx) error {
			g, err := tx.Game(game)
			if err != nil {
				return err
			}
			st, err = rs.Decode(g.State)
			return err
		})
		if err != nil {
			return scripted{}, false, fmt.Errorf("demo: read %s: %w", game, err)
		}
		if st.Over() {
			return scripted{}, false, nil
		}
		if i >= maxMails {
			return scripted{}, false, fmt.Errorf("demo: %s has not ended after %d mails", game, maxMails)
		}
		for _, p := range []struct {
			side       adjudicator.Side
			addr, pass string
		}{{teaching.American, sampleUS, samplePassUS}, {teaching.German, sampleDE, samplePassDE}} {
			if body := rs.BotOrders(st, p.side); body != "" {
				return scripted{From: p.addr, Subject: fmt.Sprintf("[%s] %s", game, st.PhaseTitle()),
					Body: fmt.Sprintf("GAME %s\nPASSWORD %s\n%s", game, p.pass, body)}, true, nil
			}
		}
		return scripted{}, false, fmt.Errorf("demo: %s waits for nobody in %s", game, st.PhaseTitle())
	}
}
