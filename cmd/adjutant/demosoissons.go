package main

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// The Soissons 1918 demo game: players, passwords and their mails.
const (
	soissonsGame   = "soissons"
	soissonsEN     = "mangin@xe-armee.example"
	soissonsDE     = "eben@9-armee.example"
	soissonsPassEN = "on-les-aura"
	soissonsPassDE = "halten-um-jeden-preis"
)

// demoSoissons plays all 17 turns of Soissons 1918, by mail or through pipe mode.
func demoSoissons(e *env, keep string, quiet, pipe bool) error {
	rs, err := soissons1918.New()
	if err != nil {
		return err
	}
	g := &drivenDemo{
		game: soissonsGame, rs: rs,
		create: []string{"game", "new", "--name", soissonsGame, "--ruleset", rs.Name(),
			"--player", "en=" + soissonsEN, "--player", "de=" + soissonsDE,
			"--password", "en=" + soissonsPassEN, "--password", "de=" + soissonsPassDE},
		players: map[adjudicator.Side]demoPlayer{"en": {soissonsEN, soissonsPassEN}, "de": {soissonsDE, soissonsPassDE}},
		script:  fixedScript(soissonsScript(soissonsGame)),
	}
	return g.play(e, keep, quiet, pipe)
}

// soissonsWaits counts the steps of turn t that wait for each side (4.2): a day turn
// waits five times for each (the mutual bombardment steps of both operational phases
// and the other side's fall back), a night turn twice; there is no German phase on 18
// July AM (22) nor on 23 July PM (3.2).
func soissonsWaits(t int) (en, de int) {
	switch {
	case (t-1)%3 == 2:
		return 2, 2
	case t == 1 || t == 17:
		return 2, 3
	}
	return 5, 5
}

// soissonsScript is the demo: both sides set up by default; on 18 July AM the Entente
// bombards the German front before the (not yet adjudicated, rule 20) assault and
// tries one, which the order check refuses; otherwise each side passes every step,
// one mail per side and turn.
func soissonsScript(game string) []scripted {
	head := func(pass string) string { return fmt.Sprintf("GAME %s\nPASSWORD %s\n", game, pass) }
	mails := []scripted{
		{From: soissonsDE, Subject: "[" + game + "] set-up", Body: head(soissonsPassDE) + "SETUP DEFAULT\nLOSSES DEFAULT\n"},
		{From: soissonsEN, Subject: "[" + game + "] set-up", Body: head(soissonsPassEN) + "SETUP DEFAULT\n"},
		{From: soissonsEN, Subject: "[" + game + "] an assault", Body: head(soissonsPassEN) + "ASSAULT 0904 FROM 0803\n"},
	}
	for t := 1; t <= 17; t++ {
		en, de := soissonsWaits(t)
		enBody := head(soissonsPassEN)
		if t == 1 {
			enBody += "# 4.2 C.3: first mutual bombardment, next to our Prepare markers\nBOMBARD 0904 H4 A2\nBOMBARD 0906 H4 A1\n"
			en--
		}
		enBody += strings.Repeat("PASS\n", en)
		mails = append(mails,
			scripted{From: soissonsEN, Subject: fmt.Sprintf("[%s] turn %d", game, t), Body: enBody},
			scripted{From: soissonsDE, Subject: fmt.Sprintf("[%s] turn %d", game, t), Body: head(soissonsPassDE) + strings.Repeat("PASS\n", de)})
	}
	return mails
}
