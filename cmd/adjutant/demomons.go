package main

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The Mons 1914 sample game (adjutant demo --ruleset mons1914): the players; their
// mails are the ruleset's script (mons1914.Script).
const (
	monsGame    = "mons"
	monsDE      = "kluck@erste-armee.example"
	monsBEF     = "french@bef.example"
	monsPassDE  = "paris-in-six-weeks"
	monsPassBEF = "home-by-christmas"
)

// monsDemo is the Mons sample game as a driven demo.
func monsDemo() (*drivenDemo, error) {
	rs, err := mons1914.New()
	if err != nil {
		return nil, err
	}
	return newDrivenDemo(rs, monsGame, map[rules.Side]demoPlayer{mons1914.DE: {monsDE, monsPassDE}, mons1914.BEF: {monsBEF, monsPassBEF}})
}

// demoMons plays the Mons sample game, by mail or through pipe mode, printing every mail,
// then verifies the audit trail and replays the game.
func demoMons(e *env, o demoOpts) error {
	g, err := monsDemo()
	if err != nil {
		return err
	}
	return g.play(e, o)
}
