package main

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// The teaching game sample (adjutant demo --ruleset teaching). Its players are the
// Soldiers 1918 sample's: the American is the US player.
const teachingGame = "sample"

// teachingDemo is the teaching game of the demo: the ruleset's bots (BotOrders) play
// it, the turn limit of 24 (an option, not printed) making sure it ends.
func teachingDemo() (*drivenDemo, error) {
	rs, err := teaching.New()
	if err != nil {
		return nil, err
	}
	g := &drivenDemo{
		game: teachingGame, rs: rs,
		create: []string{"game", "new", "--name", teachingGame, "--ruleset", teaching.Name, "--option", teaching.OptTurns24,
			"--player", "us=" + sampleUS, "--player", "de=" + sampleDE, "--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE},
		players: map[adjudicator.Side]demoPlayer{teaching.American: {sampleUS, samplePassUS}, teaching.German: {sampleDE, samplePassDE}},
	}
	g.script = func(i int, st adjudicator.State) (scripted, bool, error) {
		switch {
		case st.Over():
			return scripted{}, false, nil
		case i >= maxDemoMails:
			return scripted{}, false, fmt.Errorf("demo: %s has not ended after %d mails", g.game, maxDemoMails)
		}
		for _, s := range rs.Sides() {
			if body := rs.BotOrders(st, s.ID); body != "" {
				p := g.players[s.ID]
				return scripted{From: p.addr, Subject: fmt.Sprintf("[%s] %s", g.game, st.PhaseTitle()),
					Body: fmt.Sprintf("GAME %s\nPASSWORD %s\n%s", g.game, p.pass, body)}, true, nil
			}
		}
		return scripted{}, false, fmt.Errorf("demo: %s waits for nobody in %s", g.game, st.PhaseTitle())
	}
	return g, nil
}

// demoTeaching plays the teaching game to its end, by mail or through pipe mode,
// printing every mail, then verifies the audit trail and replays the game.
func demoTeaching(e *env, o demoOpts) error {
	g, err := teachingDemo()
	if err != nil {
		return err
	}
	return g.play(e, o)
}
