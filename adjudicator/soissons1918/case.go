package soissons1918

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// CaseAdapter lets the conformance runner (package adjudicator/conformance) drive
// Soissons 1918. It satisfies conformance.Adapter without importing it.
//
// STATE lines (units not named are out of play, so that a case sets up only what its
// rule needs; towns keep their start control, 3.3):
//
//	turn N                      1 (the default) to 17
//	phase P                     a step key: en1, en2, enfb, enn, de1, ... (default en2);
//	                            setup-de or setup-en: every unit not named is as in a
//	                            new game, waiting to be set up
//	unit ID HEX [flags]         a unit on the map; flags: losses=N, dis=reforming|
//	                            disorganized|shocked, prepare, retreat, remnant,
//	                            improvised=HEX, tank=ID (attaches a tank group),
//	                            reduced (that tank group), corps=HQ, arrived=N, artused,
//	                            moved (in this operational phase, 19.6), path=P (moved
//	                            along P, ending in HEX)
//	box ID                      a tank group in the Tank Assets box
//	wait ID                     a reinforcement not yet arrived
//	art SIDE H,M,A              a side's army artillery points (default none)
//	control TOWN SIDE           who controls a town (3.3)
//	revision N                  the rules revision the game was created under
//	                            (State.Revision), 0 to Revision (the default)
//
// Describe gives, sorted: "turn N", "phase P", one "unit ID HEX SP DIS [markers]" per
// unit on the map (markers: prepare, improvised>HEX, retreat, remnant, tank=ID,
// reduced, artused), "box ID", "out ID" for units removed from play, "art SIDE H M A",
// "control TOWN SIDE", "verdict: ..." once the game is over, and "revision N" for a
// game created before this revision.
type CaseAdapter struct{ Rules *Rules }

// Ruleset returns the rules the cases run against.
func (a CaseAdapter) Ruleset() rules.Ruleset { return a.Rules }

// State builds a state from STATE lines; errors name the offending line.
func (a CaseAdapter) State(lines []string) (rules.State, error) {
	if a.Rules == nil {
		return nil, errors.New("CaseAdapter has no Rules")
	}
	sc := a.Rules.sc
	s0, _ := a.Rules.New(nil)
	st := s0.(*State)
	st.T, st.P = 1, "en"+StepTwo
	initial := map[string]string{}
	for i := range st.Units {
		initial[st.Units[i].ID] = st.Units[i].Where
		st.Units[i].Where = "none"
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
		switch f[0] {
		case "turn":
			n, err := strconv.Atoi(f[len(f)-1])
			if err != nil || n < 1 || n > LastTurn {
				bad("want turn 1-17")
			}
			st.T = n
		case "phase":
			st.P = f[1]
		case "art":
			ps := strings.Split(f[2], ",")
			if len(f) != 3 || len(ps) != 3 {
				bad("want art en|de H,M,A")
				continue
			}
			var n [3]int
			for i, p := range ps {
				n[i], _ = strconv.Atoi(p)
			}
			st.Art[rules.Side(f[1])] = Artillery{n[0], n[1], n[2]}
		case "control":
			if len(f) != 3 || sc.Town(f[1]) == nil {
				bad("want control <Town> en|de")
				continue
			}
			st.Control[f[1]] = rules.Side(f[2])
		case "box", "wait":
			if u := unit(f[1]); u != nil {
				u.Where = map[string]string{"box": Box, "wait": Waiting}[f[0]]
			}
		case "unit":
			if len(f) < 3 {
				bad("want unit ID HEX [flags]")
				continue
			}
			u := unit(f[1])
			h, err := hex.Parse(f[2])
			if u == nil || err != nil || !sc.Map.OnMap(h) {
				bad("want unit ID HEX on the map")
				continue
			}
			u.Where, u.Hex = OnMap, h.String()
			for _, fl := range f[3:] {
				k, v, _ := strings.Cut(fl, "=")
				switch k {
				case "losses":
					u.Losses, _ = strconv.Atoi(v)
				case "dis":
					u.Dis = slices.Index([]string{"good", "reforming", "disorganized", "shocked"}, v)
					if u.Dis < 0 {
						bad("dis=%s", v)
					}
				case "prepare":
					u.Prepare = true
				case "retreat":
					u.Retreat = true
				case "remnant":
					u.Remnant, u.Dis = true, max(u.Dis, Disorganized)
				case "improvised":
					u.Improvised = v
				case "tank":
					t := unit(v)
					if t != nil {
						t.Where, t.Hex, u.Tank = OnMap, u.Hex, t.ID
					}
				case "reduced":
					if t := st.unit(u.Tank); t != nil {
						t.Reduced = true // the division's attached tank group
					} else {
						u.Reduced = true
					}
				case "corps":
					u.Corps = orders.Upper(v)
				case "arrived":
					u.Arrived, _ = strconv.Atoi(v)
				case "artused":
					u.ArtUsed = true
				case "moved":
					st.Moved = append(st.Moved, u.ID) // moved in this operational phase (19.6)
				case "path":
					st.Moved = append(st.Moved, u.ID) // and along this path
					if st.Paths == nil {
						st.Paths = map[string]string{}
					}
					st.Paths[u.ID] = v
				default:
					bad("unknown flag %q", fl)
				}
			}
		case "revision":
			n, err := strconv.Atoi(strings.Join(f[1:], " "))
			if err != nil || n < 0 || n > Revision {
				bad("want revision 0-%d", Revision)
				continue
			}
			st.Revision = n
		default:
			bad("unknown STATE line")
		}
	}
	setup := strings.HasPrefix(st.P, "setup")
	if setup {
		st.T = 0 // a set-up case: units not named wait to be set up, as in a new game
	}
	for i := range st.Units {
		if st.Units[i].Where == "none" {
			st.Units[i].Where = Removed
			if setup {
				st.Units[i].Where = initial[st.Units[i].ID]
			}
		}
	}
	_ = g
	return st, errors.Join(errs...)
}

// Describe gives the state as lines comparable with EXPECT lines.
func (a CaseAdapter) Describe(s rules.State) []string {
	st := s.(*State)
	g := newGame(a.Rules.sc, st)
	out := []string{fmt.Sprintf("turn %d", st.T), "phase " + st.P}
	for _, u := range st.sortedUnits() {
		switch u.Where {
		case OnMap:
			w := []string{"unit", u.ID, u.Hex}
			c := g.counter(u)
			if c.Combat() {
				w = append(w, strconv.Itoa(g.strength(u)), []string{"good", "reforming", "disorganized", "shocked"}[u.Dis])
			}
			for _, m := range []struct {
				on   bool
				text string
			}{{u.Prepare, "prepare"}, {u.Improvised != "", "improvised>" + u.Improvised}, {u.Retreat, "retreat"},
				{u.Remnant, "remnant"}, {u.Tank != "", "tank=" + u.Tank}, {u.Reduced, "reduced"}, {u.ArtUsed, "artused"}} {
				if m.on {
					w = append(w, m.text)
				}
			}
			out = append(out, strings.Join(w, " "))
		case Box:
			out = append(out, "box "+u.ID)
		}
	}
	for _, side := range sides.IDs() {
		a := st.Art[side]
		out = append(out, fmt.Sprintf("art %s %d %d %d", side, a.Heavy, a.Medium, a.Air))
	}
	for t, side := range st.Control {
		out = append(out, fmt.Sprintf("control %s %s", t, side))
	}
	if st.Over() {
		out = append(out, "verdict: "+st.Verdict)
	}
	if st.Revision != Revision {
		out = append(out, "revision "+strconv.Itoa(st.Revision)) // a game created before this revision
	}
	slices.Sort(out)
	return out
}
