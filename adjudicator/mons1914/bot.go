package mons1914

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The scripted players of Mons 1914, for the demo (adjutant demo --ruleset mons1914)
// and the tests that play a whole game: the German marches on the canal and assaults
// its bridges, the British holds it, then his cavalry rides for the exits.

// germanTurns are the German player's orders for turns 1-4: the march from the entry
// hexes down the roads to the north ends of the canal bridges (8.4, 9.20), with the
// bombardments and melees from turn 3 on. Later turns repeat the assault on the
// bridges (germanAssault). Orders that the dice have made impossible are reported
// "Not carried out" by the game and the game goes on.
var germanTurns = []string{
	// Turn 1: every division marches in column down its road (8.2, 8.4, 9.20).
	`MARCH IX/31/18 4300-4301-4302-4303-4304-4305-4306
MARCH IX/84/18 4300-4301-4302-4303-4304-4305
MARCH IX/85/18 4300-4301-4302-4303-4304
MARCH IX/86/18 4300-4301-4302-4303
MARCH IX/FA9/18 4300-4301-4302
MARCH IX/FA45/18 4300-4301
MARCH IX/75/17 4700-4701-4702-4703-4704-4705-4706
MARCH IX/76/17 4700-4701-4702-4703-4704-4705
MARCH IX/89/17 4700-4701-4702-4703-4704
MARCH IX/90/17 4700-4701-4702-4703
MARCH IX/FA24/17 4700-4701-4702
MARCH IX/FA60/17 4700-4701
MARCH III/20/6 3900-3901-3902-3903-3904-3805-3705
MARCH III/24/6 3900-3901-3902-3903-3904-3805
MARCH III/35/6 3900-3901-3902-3903-3904
MARCH III/64/6 3900-3901-3902-3903
MARCH III/FA3/6 3900-3901-3902
MARCH III/FA39/6 3900-3901
MARCH III/8/5 3100-3101-3102-3103-3104-3105-3106
MARCH III/12/5 3100-3101-3102-3103-3104-3105
MARCH III/48/5 3100-3101-3102-3103-3104
MARCH III/52/5 3100-3101-3102-3103
MARCH III/FA18/5 3100-3101-3102
MARCH III/FA54/5 3100-3101
COMBAT NONE`,
	// Turn 2: up to the bridges at Obourg (4207), Nimy (3307) and Mariette (2907).
	`MOVE IX/31/18 4306-4207
MOVE IX/FA9/18 4302-4303-4304-4305
MOVE III/20/6 3705-3606-3506-3407-3307
MOVE III/FA3/6 3902-3903-3904-3805
MOVE III/8/5 3106-3007-2907
MOVE III/12/5 3105-3106-3006-2906-2806
MOVE III/FA18/5 3102-3103-3104-3105
COMBAT NONE`,
	// Turn 3: Jemappes (2707), the guns forward, the first assaults.
	`MOVE III/12/5 2806-2706-2707
MOVE III/FA3/6 3805-3705-3606
MOVE III/FA18/5 3105-3106-3006
MOVE IX/FA45/18 4301-4302-4303-4304
MOVE III/24/6 3805-3705
MOVE 3/III III/J3/6 2/III 3900-3801
`,
	// Turn 4: IV Corps enters (8.2): the 7th Division through 3900 and across country,
	// the 8th down the road from 2100.
	`MARCH IV/26/7 3900-4001-4002-4003-4004-4005
MARCH IV/27/7 3900-4001-4002-4003-4004
MARCH IV/66/7 3900-4001-4002-4003
MARCH IV/165/7 3900-4001-4002
MARCH IV/36/8 2100-2101-2102-2103-2104-2105-2106
MARCH IV/72/8 2100-2101-2102-2103-2104-2105
MARCH IV/93/8 2100-2101-2102-2103-2104
MARCH IV/153/8 2100-2101-2102-2103
`,
	// Turn 5: the 8th Division closes on the bridge at 2008/2009.
	`MOVE IV/36/8 2106-2107-2008
MOVE IV/72/8 2105-2106-2107
`,
}

// germanAssault is the German combat phase from turn 3 on: the guns on the bridge
// hexes, then the infantry over the bridges (10.0, 12.0).
const germanAssault = `BOMBARD 4208 WITH IX/FA9/18 IX/FA45/18
BOMBARD 3308 WITH III/FA3/6
BOMBARD 2908 WITH III/FA18/5
MELEE 4208 WITH IX/31/18
MELEE 3308 WITH III/20/6
MELEE 2908 WITH III/8/5
MELEE 2708 WITH III/12/5
`

// germanScript is the German mail of a turn.
func germanScript(turn int) string {
	var b strings.Builder
	if turn <= len(germanTurns) {
		b.WriteString(germanTurns[turn-1] + "\n")
	} else {
		b.WriteString("MOVE NONE\n")
	}
	if turn >= 3 {
		b.WriteString(germanAssault)
	}
	if turn >= 5 {
		b.WriteString("MELEE 2009 WITH IV/36/8\n")
	}
	return b.String()
}

// britishScript is the British mail of a turn, sent before the German's so that it
// is held for the British player turn: hold the canal and fight until turn 7, then the
// cavalry rides for the exit hexes (4.4) while the infantry fights on.
func britishScript(turn int) string {
	switch {
	case turn == 1:
		// Standing orders, sent once (6.6, 11.2, 12.12), then the first turn.
		return "TOP 2613 1/N\nDEFFIRE SPREAD\nLOSSES 2/DG 5/DG 11/H\n" +
			"SEQUENCE move/fight\nMOVE 1/B 2713-2613\nMOVE RFA27 2712-2711-2710\nCOMBAT NONE\n"
	case turn < 3:
		return "SEQUENCE move/fight\nMOVE NONE\nCOMBAT NONE\n"
	case turn < 8:
		return "SEQUENCE fight/move\nBOMBARD 2707 WITH RFA27\nMOVE NONE\n"
	}
	var b strings.Builder
	b.WriteString("SEQUENCE fight/move\nBOMBARD 2707 WITH RFA27\n")
	// The cavalry division rides south down columns 17-20, two turns to an exit hex.
	rides := map[int][]string{
		8: {"MOVE 4/H 1713-1714-1715-1716-1717-1718-1719-1720-1721",
			"MOVE 5/L 1714-1715-1716-1717-1718-1719-1720-1721-1722",
			"MOVE 11/H 2013-2014-2015-2016-2017-2018-2019-2020-2021",
			"MOVE 2/DG 1913-1914-1915-1916-1917-1918-1919-1920-1921"},
		9: {"MOVE 4/H 1721-1722-1723-1724-1725-1726-1727-1628-OFF",
			"MOVE 5/L 1722-1723-1724-1725-1726-1727-1628-OFF",
			"MOVE 11/H 2021-2022-2023-2024-2025-2026-2027-2127-2228-OFF",
			"MOVE 2/DG 1921-1922-1923-1924-1925-1926-1927-OFF"},
	}
	if m, ok := rides[turn]; ok {
		b.WriteString(strings.Join(m, "\n") + "\n")
	} else {
		b.WriteString("MOVE NONE\n")
	}
	return b.String()
}

// Script is the whole game named game as the two players mail it. The British player
// sends his turn first (it is held until his player turn), then the German his: the
// German's mail lets the game run through the whole turn.
func Script(game string) rules.Script {
	var mails rules.Script
	for turn := 1; turn <= 14; turn++ {
		mails = append(mails,
			rules.BotMail{Side: BEF, Subject: fmt.Sprintf("[%s] British turn %d", game, turn), Body: britishScript(turn)},
			rules.BotMail{Side: DE, Subject: fmt.Sprintf("[%s] German turn %d", game, turn), Body: germanScript(turn)})
	}
	return mails
}

// Bot implements rules.Botter: the script, whatever the state.
func (r *Rules) Bot(game string) rules.Bot { return Script(game) }

var _ rules.Botter = (*Rules)(nil)

// TurnScript is side's mail of a turn as the scripted players write it (Script sends
// it whole; a player who stops to see each result sends it a phase at a time).
func TurnScript(side rules.Side, turn int) string {
	if side == BEF {
		return britishScript(turn)
	}
	return germanScript(turn)
}
