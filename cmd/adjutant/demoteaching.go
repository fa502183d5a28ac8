package main

import (
	"fmt"
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// The teaching game sample (adjutant demo --ruleset teaching). Its players are the
// Soldiers 1918 sample's: the American is the US player.
const teachingGame = "sample"

// teachingPace counts the steps at which the demo game waited for a mail, by game
// turn: the pace of play (issue 21) in the two styles the demo plays.
type teachingPace struct {
	waits map[int][]string // game turn: the phases that waited for a mail
}

// stops reports whether the players of turn stop to see every result they may see
// (STOP AFTER): as the ruleset's scripted players do (teaching.BotStops).
func (teachingPace) stops(turn int) bool { return teaching.BotStops(turn) }

// saw records that the game waited for a mail in st. A refused mail, sent again in
// the same phase, is the same wait.
func (p *teachingPace) saw(st rules.State) {
	if ws := p.waits[st.Turn()]; !slices.Contains(ws, st.Phase()) {
		p.waits[st.Turn()] = append(ws, st.Phase())
	}
}

// mean is the waits per game turn in the turns of one style from turn 2 to the last
// whole turn (turn 1 has no German turn, the last may end mid-turn), and the turns
// counted.
func (p *teachingPace) mean(stop bool, last int) (float64, int) {
	sum, n := 0, 0
	for turn := 2; turn < last; turn++ {
		if p.stops(turn) == stop && len(p.waits[turn]) > 0 {
			sum += len(p.waits[turn])
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return float64(sum) / float64(n), n
}

// summary is the lines the demo adds to its closing summary.
func (p *teachingPace) summary(last int) string {
	fast, nf := p.mean(false, last)
	slow, ns := p.mean(true, last)
	return fmt.Sprintf("Waits per game turn, one mail a turn: %.1f (%d odd turns; turn 1: %d).\n"+
		"Waits per game turn, stopping to see every result: %.1f (%d even turns).\n",
		fast, nf, len(p.waits[1]), slow, ns)
}

// teachingDemo is the teaching game of the demo: the ruleset's bots (teaching.Rules.Bot)
// play it, the turn limit of 24 (an option, not printed) making sure it ends; the
// players send odd turns in one mail and stop after every step they may on even turns.
func teachingDemo() (*drivenDemo, *teachingPace, error) {
	rs, err := teaching.New()
	if err != nil {
		return nil, nil, err
	}
	g, err := newDrivenDemo(rs, teachingGame, map[rules.Side]demoPlayer{teaching.American: {sampleUS, samplePassUS}, teaching.German: {sampleDE, samplePassDE}},
		"--option", teaching.OptTurns24)
	if err != nil {
		return nil, nil, err
	}
	pace := &teachingPace{waits: map[int][]string{}}
	g.saw = func(st rules.State) {
		if st.Turn() > 0 {
			pace.saw(st)
		}
	}
	return g, pace, nil
}

// demoTeaching plays the teaching game to its end, by mail or through pipe mode,
// printing every mail, then verifies the audit trail and replays the game, and ends
// with the waits per game turn in both styles of play.
func demoTeaching(e *env, o demoOpts) error {
	g, pace, err := teachingDemo()
	if err != nil {
		return err
	}
	if err := g.play(e, o); err != nil {
		return err
	}
	last := 0
	for turn := range pace.waits {
		last = max(last, turn)
	}
	_, err = fmt.Fprint(e.stdout, pace.summary(last))
	return err
}
