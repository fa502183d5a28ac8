package main

import (
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// The players of the stopping style (demostopdriven.go) for Mons and Soissons: the
// demo's own players, each mail cut down to the step the game waits at.

// Games of the stopping style.
const (
	monsStopGame     = "mons-stop"
	soissonsStopGame = "soissons-stop"
)

// monsStopNow gives the lines of the demo's Mons mail for side's turn (mons1914.TurnScript) that are for the phase the game is at, as the order check routes
// them; standing orders go with the British player's first phase. The German thus
// sees where his moves ended before he bombards and melees, and the British player
// sees his first phase's results before his second.
func monsStopNow(rs rules.Ruleset) stopNow {
	return func(s rules.State, side rules.Side) []string {
		st := s.(*mons1914.State)
		script := mons1914.TurnScript(side, st.T)
		lines := strings.Split(strings.TrimSpace(script), "\n")
		now := forNow(rs, st, side, lines, func(c rules.Checked) bool {
			standing := strings.HasPrefix(c.Reason, "standing order")
			return strings.HasPrefix(c.Reason, "held for") || standing && st.P != mons1914.PhaseBritish1
		})
		// The game waits for a line for the phase itself (HELP): SEQUENCE or a
		// standing order alone does not close it.
		for _, c := range rs.Check(st, side, numbered(now), nil) {
			if c.Reason == "legal as the state stands" {
				return now
			}
		}
		return append(now, "PASS")
	}
}

// soissonsStopNow gives the demo's Soissons orders for the step the game is at: the
// set-ups and standing orders of soissonsScript, the Entente's orders of his own steps
// and the German's maneuvers (soissons1918.StepOrders), each read from the
// position that step meets; nothing (PASS) in the other steps, answered one at a time
// instead of ahead.
func soissonsStopNow(rs *soissons1918.Rules) stopNow {
	return func(s rules.State, side rules.Side) []string {
		st := s.(*soissons1918.State)
		switch {
		case st.P == soissons1918.StepSetupDE:
			return []string{"SETUP DEFAULT", "LOSSES DEFAULT", "LEAD DEFAULT"}
		case st.P == soissons1918.StepSetupEN:
			return []string{"SETUP DEFAULT", "XRESULT DEFAULT"}
		case !strings.HasPrefix(st.P, string(side)):
			return nil
		case side == soissons1918.EN:
			return soissons1918.StepOrders(rs, st, side)
		case st.P == "de2" || st.P == "den":
			return soissons1918.StepOrders(rs, st, side)
		}
		return nil
	}
}

// stopStyleOf is the stopping-style game of a driven demo whose players the demo has
// for it (Mons, Soissons), or nil.
func stopStyleOf(g *drivenDemo) *drivenDemo {
	switch rs := g.rs.(type) {
	case *mons1914.Rules:
		return stopGameOf(g, monsStopGame, monsStopNow(rs))
	case *soissons1918.Rules:
		return stopGameOf(g, soissonsStopGame, soissonsStopNow(rs))
	}
	return nil
}
