package soldiers1918

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The scripted players of Soldiers 1918: a whole six-turn game as two players would
// mail it (Script), the script the demo, the benchmark and the desk's BenchmarkHandle
// play, and the same orders one phase at a time (BotOrders). It is data, in one place,
// so that what is measured is what the demo shows.

// USPlots and DEPlots are the scripted plots: the US aims at the shipped German
// deployment (reconstructed data: see data/), the German at the US Army stacks in No
// Man's Land. 1015 and 4519 hold nobody: markers there have no effect (12.1). No hex
// is plotted twice, and none is one of the HELP text's examples, so that a secrecy
// test can look for every plotted hex in every mail before its reveal.
var (
	USPlots = []string{
		"1911x3, 3603x3, 1401x3, 2901x3",
		"4701x3, 1402x3, 2902x3, 3802x3",
		"1602x4, 4403x4, 1102x4",
		"NONE",
		"1802x3, 2103x3, 2502x2, 1015x1, 4519x1",
		"3202x3, 3502x3, 4002x3, 4303x3",
	}
	DEPlots = []string{
		"2000x4, 2100x4, 2200x4",
		"3500x4, 3600x4, 3700x4",
		"1200x3, 1300x3, 1400x3, 1500x3",
		"NONE",
		"4000x4, 4100x4, 4200x4",
		"3300x6, 3400x6",
	}
)

// Standing Chaos of War lists of the scripted players (7.4): hexes that no plot names.
const (
	USCOW = "COW 2303 4802"
	DECOW = "COW 1600 1700 1800"
)

// MarineMoves keeps the Marines' esprit (11.1): each turn the two stacks that started in
// 3000 and 3100 go one row north; the one from 3200 takes 3201 and stays, next to the
// Germans in 3202 (11.1: then it is not checked). A move that has become impossible when
// its phase comes is reported and not carried out.
func MarineMoves(turn int) string {
	var b strings.Builder
	for _, col := range []int{30, 31} {
		fmt.Fprintf(&b, "MOVE USMC %d%02d-%d%02d\n", col, turn-1, col, turn)
	}
	if turn == 1 {
		b.WriteString("MOVE USMC 3200-3201\n")
	}
	return b.String()
}

// Script is the scripted game named game; the second game of a match plays it with the
// sides switched (4.2), each player keeping his side of the script. Each player answers
// when the game waits for him: the US sends its movement and fire orders for a turn
// once the turn has begun (orders for a later phase are held, 5.2), the German his fire
// and movement orders with the plot for the next turn (5.2 II). The first mails are
// written as people write them: comments, a signature, a quoted line.
func Script(game string) rules.Script {
	var us strings.Builder
	us.WriteString("\n# The six-turn plot (3.2), then our placement (3.6), held until its step.\n")
	for i, p := range USPlots {
		fmt.Fprintf(&us, "PLOT TURN %d %s\n", i+1, p)
	}
	us.WriteString("PLOT COMPLETE\nSETUP DEFAULT\n" + USCOW + "\n# Turn 1: the Army holds, the Marines go forward (11.1).\n" + MarineMoves(1) + "FIRE NONE\n\n-- \nJohn J. Pershing\n")
	mails := rules.Script{
		{Side: US, Subject: "[" + game + "] orders", Body: us.String()},
		{Side: DE, Subject: "Re: [" + game + "] You are invited to play German", Body: fmt.Sprintf("PLOT TURN 1 %s\nSETUP DEFAULT\n%s\nFIRE NONE\nMOVE NONE\nSTATUS\n\n> PLOT TURN 1 4300x3 (quoted from the invitation: never executed)\n", DEPlots[0], DECOW)},
		{Side: DE, Subject: "[" + game + "] plot for turn 2", Body: "PLOT " + DEPlots[1] + "\n"},
	}
	for turn := 2; turn <= 6; turn++ {
		mails = append(mails, rules.BotMail{Side: US, Subject: fmt.Sprintf("[%s] turn %d", game, turn), Body: MarineMoves(turn) + "FIRE NONE\n"})
		de := "FIRE NONE\nMOVE NONE\n"
		if turn < 6 {
			de += "PLOT " + DEPlots[turn] + "\n"
		}
		mails = append(mails, rules.BotMail{Side: DE, Subject: fmt.Sprintf("[%s] turn %d", game, turn), Body: de})
	}
	return mails
}

// Bot implements rules.Botter: the script, whatever the state.
func (r *Rules) Bot(game string) rules.Bot { return Script(game) }

var _ rules.Botter = (*Rules)(nil)

// BotOrders are the script's orders for side in the phase s is at and nothing beyond
// it, for players who send each phase's orders only once they have seen the results
// before it (the demo's stopping style): the plots and placements of the set-up, the
// German's plot for the next turn in Phase II, each side's Chaos of War list when first
// asked, the Marines' moves (or none, if they no longer stand where the script has
// them), and no fire and no German move.
func (r *Rules) BotOrders(s rules.State, side rules.Side) string {
	st := s.(*State)
	us := side == US
	switch st.P {
	case PhasePlots:
		if !us {
			return "PLOT TURN 1 " + DEPlots[0] + "\n"
		}
		var b strings.Builder
		for i, p := range USPlots {
			fmt.Fprintf(&b, "PLOT TURN %d %s\n", i+1, p)
		}
		return b.String() + "PLOT COMPLETE\n"
	case PhaseGermanSetup, PhaseUSSetup:
		return "SETUP DEFAULT\n"
	case PhaseII:
		return fmt.Sprintf("PLOT TURN %d %s\n", st.T+1, DEPlots[st.T])
	case PhaseIVPlace:
		return USCOW + "\n"
	case PhaseVPlace:
		return DECOW + "\n"
	case PhaseVII:
		moves := MarineMoves(st.T)
		var lines []orders.Line
		for i, l := range strings.Split(strings.TrimSpace(moves), "\n") {
			lines = append(lines, orders.Line{No: i + 1, Text: l, Fields: strings.Fields(l)})
		}
		for _, c := range r.Check(st, side, lines, nil) {
			if !c.OK {
				return "MOVE NONE\n"
			}
		}
		return moves
	case PhaseVIII, PhaseIX:
		return "FIRE NONE\n"
	}
	return "MOVE NONE\n"
}
