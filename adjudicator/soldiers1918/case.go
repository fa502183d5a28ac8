package soldiers1918

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// CaseAdapter lets the conformance runner (package adjudicator/conformance) drive Soldiers
// 1918: it builds a State from a case's STATE lines and describes a State as lines that a
// case's EXPECT section can name. It satisfies conformance.Adapter without importing that
// package, so that this non-test file does not link package testing into the binary; the
// compile-time check is in conformance_test.go.
//
// STATE lines (any order; each at most once except unit, carnage and option):
//
//	turn N                  0 (set-up, the default) to 6
//	phase P                 setup-plots (the default), setup-german, setup-us, I, II, III,
//	                        IV-XI or over; set-up phases need turn 0, the others turn 1-6
//	quality Q               the 3.4 roll, 0 (not rolled) to 6; sets german-fs from the table
//	german-fs N             the German infantry FS, overriding the table
//	cancelled               US bombardments cancelled (5.2 I)
//	visibility N            this turn's visibility (8.2), 3-16
//	cowed HEX               a COWed marker in HEX this turn (7.3): every unit there that
//	                        can be COWed is (7.4); an error if none can
//	cow-to-place N          COWed markers rolled and not yet placed (7.1, 7.2), 0-7: for
//	                        a case that starts in IVp or Vp, waiting for a COW list
//	option NAME             an optional rule, e.g. option york (12.5)
//	unit KIND HEX [N]       N (default 1) live units; KIND: de-inf, de-hmg, us-army, usmc, york
//	carnage KIND HEX [N]    N eliminated units, flipped in place (2.6)
//	revision N              the rules revision the game was created under (State.Revision),
//	                        0 to Revision (the default): a game from before a revision
//
// Units get ids in the order written, and a phase resolves a hex's units in id order
// (10.5: one roll each). Live units of both sides may not share a hex (9.6).
//
// Describe gives, sorted: "turn N", "phase P", "quality Q", "german-fs N", "cancelled"
// when set, "revision N" when not the current one, "visibility N" once rolled, "cowed HEX" per marker, "cow-to-place N" while
// markers wait for a COW list (IVp, Vp), "winner us" after a
// sudden-death exit, "penetration N" (when above 0) with "over", "option NAME" for each option, "over" when the game is over, and one
// "unit KIND HEX N" or "carnage KIND HEX N" line per kind and hex, and a "cowed-unit KIND
// HEX N" line for the N live units of a kind and hex that are COWed (the status belongs
// to the units, 7.4; "cowed HEX" is a hex holding any of them).
type CaseAdapter struct {
	Rules *Rules
}

// Ruleset returns the rules the cases run against.
func (a CaseAdapter) Ruleset() rules.Ruleset { return a.Rules }

var casePhases = append(append([]string{PhasePlots, PhaseGermanSetup, PhaseUSSetup}, phaseOrder...), PhaseOver)

// State builds a game state from STATE lines; errors name the offending line.
func (a CaseAdapter) State(lines []string) (rules.State, error) {
	if a.Rules == nil {
		return nil, errors.New("CaseAdapter has no Rules")
	}
	sc := a.Rules.sc
	st := &State{T: 0, P: PhasePlots, Revision: Revision}
	seen := map[string]bool{}
	fsSet := false
	type cowLine struct{ line, hex string }
	var cowed []cowLine // applied once every unit is known
	var errs []error
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%q: %s", l, fmt.Sprintf(format, args...)))
		}
		word := f[0]
		switch word {
		case "turn", "phase", "quality", "german-fs", "cancelled", "revision":
			if seen[word] {
				bad("%s given twice", word)
				continue
			}
			seen[word] = true
		}
		switch word {
		case "turn", "quality", "german-fs", "revision":
			if len(f) != 2 {
				bad("want %s <number>", word)
				continue
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				bad("want %s <number>", word)
				continue
			}
			switch word {
			case "turn":
				if n < 0 || n > LastTurn {
					bad("turn is 0 (set-up) to %d (4.2)", LastTurn)
				}
				st.T = n
			case "quality":
				if n < 0 || n > 6 {
					bad("quality is the 3.4 roll of one die, 1-6, or 0 before it is rolled")
					continue
				}
				st.Quality = n
				if n > 0 && !fsSet {
					st.GermanFS = sc.GermanInfantryFS[n].N
				}
			case "german-fs":
				st.GermanFS, fsSet = n, true
			case "revision":
				if n < 0 || n > Revision {
					bad("revision is 0 to %d (State.Revision)", Revision)
					continue
				}
				st.Revision = n
			}
		case "phase":
			if len(f) != 2 || !slices.Contains(casePhases, f[1]) {
				bad("want phase <%s>", strings.Join(casePhases, "|"))
				continue
			}
			st.P = f[1]
		case "cancelled":
			if len(f) != 1 {
				bad("cancelled takes nothing after it")
			}
			st.USCancelled = true
		case "visibility":
			n, err := strconv.Atoi(strings.Join(f[1:], ""))
			if len(f) != 2 || err != nil || n < 3 || n > 16 {
				bad("want visibility <3-16> (8.2)")
				continue
			}
			st.Visibility = n
		case "cowed":
			if len(f) != 2 {
				bad("want cowed <hex>")
				continue
			}
			h, err := hex.Parse(f[1])
			if err != nil || !sc.OnMap(h) {
				bad("cowed %q: want a hex of the map", f[1])
				continue
			}
			cowed = append(cowed, cowLine{l, h.String()})
		case "cow-to-place":
			if seen[word] {
				bad("%s given twice", word)
				continue
			}
			seen[word] = true
			n, err := strconv.Atoi(strings.Join(f[1:], ""))
			if len(f) != 2 || err != nil || n < 0 || n > 7 {
				bad("want cow-to-place <0-7> (7.1, 7.2)")
				continue
			}
			st.COWToPlace = n
		case "option":
			if len(f) != 2 || a.Rules.OptionNames()[f[1]] == "" {
				bad("want option <name>, one of %v", slices.Sorted(maps.Keys(a.Rules.OptionNames())))
				continue
			}
			if st.Options == nil {
				st.Options = map[string]bool{}
			}
			st.Options[f[1]] = true
		case "unit", "carnage":
			if len(f) != 3 && len(f) != 4 {
				bad("want %s <kind> <hex> [<count>]", word)
				continue
			}
			if !slices.Contains(kindOrder, f[1]) {
				bad("unit kind %q: want one of %s", f[1], strings.Join(kindOrder, ", "))
				continue
			}
			h, err := hex.Parse(f[2])
			if err != nil {
				bad("%v", err)
				continue
			}
			if !sc.OnMap(h) {
				bad("hex %s is not on the map", h)
				continue
			}
			n := 1
			if len(f) == 4 {
				if n, err = strconv.Atoi(f[3]); err != nil || n < 1 {
					bad("count %q: want a number of units, at least 1", f[3])
					continue
				}
			}
			for range n {
				st.Units = append(st.Units, Unit{ID: len(st.Units) + 1, Kind: f[1], Hex: h.String(), Carnage: word == "carnage"})
			}
		default:
			bad("unknown state line: want turn, phase, quality, german-fs, cancelled, visibility, cowed, cow-to-place, option, unit or carnage")
		}
	}
	switch {
	case st.P == PhaseOver:
	case strings.HasPrefix(st.P, "setup-") && st.T != 0:
		errs = append(errs, fmt.Errorf("phase %s is part of set-up, turn 0, not turn %d", st.P, st.T))
	case !strings.HasPrefix(st.P, "setup-") && st.T == 0:
		errs = append(errs, fmt.Errorf("phase %s needs a turn from 1 to %d", st.P, LastTurn))
	}
	for _, c := range cowed {
		if !st.cowHex(c.hex, sc) {
			errs = append(errs, fmt.Errorf("%q: no unit in %s can be COWed (7.4: no marker in an empty hex; 7.5, 7.6, 12.5)", c.line, c.hex))
		}
	}
	live := map[string]rules.Side{}
	for _, u := range st.Units {
		if u.Carnage {
			continue
		}
		if s, ok := live[u.Hex]; ok && s != sideOf(u.Kind) {
			errs = append(errs, fmt.Errorf("hex %s holds live units of both sides, which never share a hex (9.6)", u.Hex))
			break
		}
		live[u.Hex] = sideOf(u.Kind)
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
		return []string{fmt.Sprintf("not a soldiers1918 state: %T", s)}
	}
	out := []string{
		"turn " + strconv.Itoa(st.T),
		"phase " + st.P,
		"quality " + strconv.Itoa(st.Quality),
		"german-fs " + strconv.Itoa(st.GermanFS),
	}
	if st.USCancelled {
		out = append(out, "cancelled")
	}
	if st.Revision != Revision {
		out = append(out, "revision "+strconv.Itoa(st.Revision)) // a game created before this revision
	}
	if st.Visibility > 0 {
		out = append(out, "visibility "+strconv.Itoa(st.Visibility))
	}
	for _, h := range st.COWedHexes() {
		out = append(out, "cowed "+h)
	}
	if st.COWToPlace > 0 {
		out = append(out, "cow-to-place "+strconv.Itoa(st.COWToPlace))
	}
	if st.Winner != "" {
		out = append(out, "winner "+st.Winner)
	}
	if st.Over() {
		out = append(out, "over")
		if st.Penetration > 0 {
			out = append(out, "penetration "+strconv.Itoa(st.Penetration))
		}
	}
	for k, on := range st.Options {
		if on {
			out = append(out, "option "+k)
		}
	}
	type stack struct {
		word, kind, hex string
	}
	counts := map[stack]int{}
	for _, u := range st.Units {
		w := "unit"
		if u.Carnage {
			w = "carnage"
		}
		counts[stack{w, u.Kind, u.Hex}]++
		if st.isCOWed(u) {
			counts[stack{"cowed-unit", u.Kind, u.Hex}]++
		}
	}
	for k, n := range counts {
		out = append(out, fmt.Sprintf("%s %s %s %d", k.word, k.kind, k.hex, n))
	}
	slices.Sort(out)
	return out
}
