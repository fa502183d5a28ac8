package main

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// The Soissons 1918 demo game: players and passwords; their mails are written as the
// game goes by the ruleset's scripted players (soissons1918.Rules.Bot).
const (
	soissonsGame   = "soissons"
	soissonsEN     = "mangin@xe-armee.example"
	soissonsDE     = "eben@9-armee.example"
	soissonsPassEN = "on-les-aura"
	soissonsPassDE = "halten-um-jeden-preis"
)

// demoSoissons plays all 17 turns of Soissons 1918, by mail or through pipe mode.
func demoSoissons(e *env, o demoOpts) error {
	g, err := soissonsDemo()
	if err != nil {
		return err
	}
	return g.play(e, o)
}

// soissonsDemo is the Soissons sample game as a driven demo.
func soissonsDemo() (*drivenDemo, error) {
	rs, err := soissons1918.New()
	if err != nil {
		return nil, err
	}
	return newDrivenDemo(rs, soissonsGame, map[rules.Side]demoPlayer{soissons1918.EN: {soissonsEN, soissonsPassEN}, soissons1918.DE: {soissonsDE, soissonsPassDE}})
}
