package main

import (
	"fmt"
	"strings"
)

// The Soissons 1918 demo game: players, passwords and their mails.
const (
	soissonsGame   = "soissons"
	soissonsEN     = "mangin@xe-armee.example"
	soissonsDE     = "eben@9-armee.example"
	soissonsPassEN = "on-les-aura"
	soissonsPassDE = "halten-um-jeden-preis"
)

// soissonsDemo plays all 17 turns of Soissons 1918 through pipe mode.
var soissonsDemo = demoGame{soissonsGame, "soissons1918", []string{"en=" + soissonsEN, "de=" + soissonsDE},
	[]string{"en=" + soissonsPassEN, "de=" + soissonsPassDE}, soissonsScript}

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
func soissonsScript() []scripted {
	head := func(pass string) string { return fmt.Sprintf("GAME %s\nPASSWORD %s\n", soissonsGame, pass) }
	mails := []scripted{
		{From: soissonsDE, Subject: "[" + soissonsGame + "] set-up", Body: head(soissonsPassDE) + "SETUP DEFAULT\nLOSSES DEFAULT\n"},
		{From: soissonsEN, Subject: "[" + soissonsGame + "] set-up", Body: head(soissonsPassEN) + "SETUP DEFAULT\n"},
		{From: soissonsEN, Subject: "[" + soissonsGame + "] an assault", Body: head(soissonsPassEN) + "ASSAULT 0904 FROM 0803\n"},
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
			scripted{From: soissonsEN, Subject: fmt.Sprintf("[%s] turn %d", soissonsGame, t), Body: enBody},
			scripted{From: soissonsDE, Subject: fmt.Sprintf("[%s] turn %d", soissonsGame, t), Body: head(soissonsPassDE) + strings.Repeat("PASS\n", de)})
	}
	return mails
}
