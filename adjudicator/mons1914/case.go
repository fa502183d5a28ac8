package mons1914

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// CaseAdapter lets the conformance runner (package adjudicator/conformance) drive Mons
// 1914. It satisfies conformance.Adapter without importing it (the check is in
// conformance_test.go).
//
// STATE lines (units not named are out of play, so that a case sets up only what its
// rule needs):
//
//	turn N                   1 (the default) to 14
//	phase P                  gm (the default), gc, b1, b2 or over
//	sequence S               the British sequence already declared (5.3)
//	unit ID HEX [STEPS]      a unit on the map, at full strength unless STEPS is given
//	wait ID                  a German unit not yet entered (8.0)
//	dead ID [surrounded]     a unit in the dead pile (4.5: surrounded counts twice)
//	exited ID                a British unit that left the map (4.4)
//	german HEX               a hex the German player controls (3.2)
//	top HEX ID               the owner's top unit of a stack (6.6)
//	revision N               the rules revision the game was created under (State.Revision),
//	                         0 to Revision (the default): a game from before a revision
//
// Units are placed in the order written, so the first unit named in a hex is the top
// one by default (6.6). Describe gives, sorted: "turn N", "phase P", "sequence S" once
// declared, one "unit ID HEX STEPS" per unit on the map, "wait ID", "dead ID" (with
// "surrounded"), "exited ID", "german HEX", "winner de|bef" once the game is over, and
// "revision N" for a game created before this revision.
type CaseAdapter struct{ Rules *Rules }

// Ruleset returns the rules the cases run against.
func (a CaseAdapter) Ruleset() rules.Ruleset { return a.Rules }

// State builds a state from STATE lines; errors name the offending line.
func (a CaseAdapter) State(lines []string) (rules.State, error) {
	if a.Rules == nil {
		return nil, errors.New("CaseAdapter has no Rules")
	}
	sc := a.Rules.sc
	st := &State{T: 1, P: PhaseGermanMove, Revision: Revision}
	for _, c := range sc.Counters {
		st.Units = append(st.Units, Unit{ID: c.ID, Status: Out, Steps: c.Steps})
	}
	g := newGame(sc, st)
	var errs []error
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%q: %s", l, fmt.Sprintf(format, args...)))
		}
		unit := func(id string) *Unit {
			c, ok := sc.Counter(id)
			if !ok {
				bad("no unit %s", id)
				return nil
			}
			return st.unit(c.ID)
		}
		hexArg := func(s string) (hex.Hex, bool) {
			h, err := hex.Parse(s)
			if err != nil || !sc.Map.OnMap(h) {
				bad("%s is not a hex of the map", s)
				return h, false
			}
			return h, true
		}
		switch f[0] {
		case "turn":
			n, err := strconv.Atoi(strings.Join(f[1:], " "))
			if err != nil || n < 1 || n > LastTurn {
				bad("want turn 1-%d", LastTurn)
				continue
			}
			st.T = n
		case "phase":
			if len(f) != 2 || !slices.Contains(append(slices.Clone(phaseOrder), PhaseOver), f[1]) {
				bad("want phase gm, gc, b1, b2 or over")
				continue
			}
			st.P = f[1]
		case "sequence":
			if len(f) != 2 || !slices.Contains(Sequences, f[1]) {
				bad("want sequence %s", strings.Join(Sequences, "|"))
				continue
			}
			st.Sequence = f[1]
		case "unit":
			if len(f) != 3 && len(f) != 4 {
				bad("want unit <id> <hex> [<steps>]")
				continue
			}
			u := unit(f[1])
			h, ok := hexArg(f[2])
			if u == nil || !ok {
				continue
			}
			if len(f) == 4 {
				n, err := strconv.Atoi(f[3])
				if err != nil || n < 1 || n > u.Steps {
					bad("steps: want 1-%d", u.Steps)
					continue
				}
				u.Steps = n
			}
			g.place(u, h)
		case "wait", "exited", "dead":
			if len(f) < 2 {
				bad("want %s <id>", f[0])
				continue
			}
			u := unit(f[1])
			if u == nil {
				continue
			}
			u.Status = map[string]string{"wait": Waiting, "exited": Exited, "dead": Dead}[f[0]]
			u.Surrounded = len(f) == 3 && f[2] == "surrounded"
		case "german":
			for _, w := range f[1:] {
				if h, ok := hexArg(w); ok {
					st.setControl(h, true)
				}
			}
		case "top":
			u := unit(f[len(f)-1])
			h, ok := hexArg(f[1])
			if u == nil || !ok || len(f) != 3 {
				continue
			}
			if st.Top == nil {
				st.Top = map[string]string{}
			}
			st.Top[h.String()] = u.ID
		case "revision":
			n, err := strconv.Atoi(strings.Join(f[1:], " "))
			if err != nil || n < 0 || n > Revision {
				bad("want revision 0-%d", Revision)
				continue
			}
			st.Revision = n
		default:
			bad("unknown state line: want turn, phase, sequence, unit, wait, dead, exited, german, top or revision")
		}
	}
	for _, h := range g.positions(DE) {
		st.setControl(h, true)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return st, nil
}

// Describe gives the canonical lines of a state, sorted.
func (a CaseAdapter) Describe(s rules.State) []string {
	st, ok := s.(*State)
	if !ok {
		return []string{fmt.Sprintf("not a mons1914 state: %T", s)}
	}
	out := []string{"turn " + strconv.Itoa(st.T), "phase " + st.P}
	if st.Sequence != "" {
		out = append(out, "sequence "+st.Sequence)
	}
	for _, u := range st.Units {
		switch u.Status {
		case OnMap:
			out = append(out, fmt.Sprintf("unit %s %s %d", u.ID, u.Hex, u.Steps))
		case Waiting:
			out = append(out, "wait "+u.ID)
		case Exited:
			out = append(out, "exited "+u.ID)
		case Dead:
			d := "dead " + u.ID
			if u.Surrounded {
				d += " surrounded"
			}
			out = append(out, d)
		}
	}
	for _, h := range st.German {
		out = append(out, "german "+h)
	}
	if st.Winner != "" {
		out = append(out, "winner "+st.Winner)
	}
	if st.Revision != Revision {
		out = append(out, "revision "+strconv.Itoa(st.Revision)) // a game created before this revision
	}
	slices.Sort(out)
	return out
}
