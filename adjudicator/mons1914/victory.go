package mons1914

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// cutOff reports whether a British unit in h cannot trace a path of contiguous hexes to
// an exit hex free of German units and their zones of control (4.5). A zone in h itself
// does not cut it; British units do not negate zones.
func (g *game) cutOff(h hex.Hex) bool {
	dz := g.zoc(DE)
	free := func(x hex.Hex) bool { return !dz[x] && len(g.at(x, DE)) == 0 }
	_, ok := board.Trace(g.sc.Map, h, func(x hex.Hex) bool {
		return g.sc.Map.InSet("exit", x) && (x == h || free(x))
	}, func(_, to hex.Hex) bool { return free(to) })
	return !ok
}

// Score is the count behind 4.3's verdict.
type Score struct {
	Dead, Surrounded, CutOff, Exited int
	Bavai                            bool
	VP                               int
}

// Counted is the British units that count towards condition two: the dead pile, the
// surrounded eliminations twice, and the units cut off at the end (4.5).
func (s Score) Counted() int { return s.Dead + s.Surrounded + s.CutOff }

func (g *game) score(final bool) Score {
	var s Score
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if g.counter(u).Side != "bef" {
			continue
		}
		switch u.Status {
		case Dead:
			s.Dead++
			if u.Surrounded {
				s.Surrounded++
			}
		case Exited:
			s.Exited++
		case OnMap:
			if final && g.cutOff(hex.MustParse(u.Hex)) {
				s.CutOff++
			}
		}
	}
	bavai, _ := g.sc.Map.Place("Bavai")
	s.Bavai = g.st.germanControls(bavai)
	if s.Bavai {
		s.VP++
	}
	s.VP += s.Counted() / 20
	if s.Exited <= 8 {
		s.VP++
	}
	return s
}

// endOfTurn applies 4.2 after turn 7 and 4.3 after turn 14, and otherwise starts the next
// turn (5.4).
func (g *game) endOfTurn() {
	st := g.st
	switch st.T {
	case FirstDayTurn:
		held := 0
		for _, h := range g.sc.Map.Set("bridgehead") {
			if st.germanControls(h) {
				held++
			}
		}
		if held == len(g.sc.Map.Set("bridgehead")) {
			st.Winner, st.P = string(DE), PhaseOver
			st.Verdict = "German first day victory: at the end of Game Turn 7 the German player controls all six Conde Canal south bank bridge hexes (4.2)."
			g.Event("4.2", "%s", st.Verdict)
			return
		}
		g.Event("4.2", "End of Game Turn 7: the German player controls %d of the six bridge hexes; no first day victory, play continues (4.2)", held)
	case LastTurn:
		sc := g.score(true)
		st.P = PhaseOver
		st.Winner = string(BEF)
		if sc.VP >= 2 {
			st.Winner = string(DE)
		}
		yes := map[bool]string{true: "yes", false: "no"}
		st.Verdict = fmt.Sprintf("End of Game Turn 14 (4.3): Bavai German-controlled: %s; British units counted as lost: %d (dead pile %d, of them %d surrounded and counted twice, cut off %d, 4.5), %d VP; British units exited: %d (no more than eight: %s). German VP: %d. %s wins.",
			yes[sc.Bavai], sc.Counted(), sc.Dead, sc.Surrounded, sc.CutOff, sc.Counted()/20, sc.Exited, yes[sc.Exited <= 8], sc.VP,
			map[bool]string{true: "The German player", false: "The British player"}[st.Winner == string(DE)])
		g.Event("4.3", "%s", st.Verdict)
		return
	}
	st.T++
	st.P = PhaseGermanMove
	st.Sequence = ""
}
