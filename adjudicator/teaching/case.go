package teaching

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

// CaseAdapter lets the conformance runner (package adjudicator/conformance) drive the
// teaching game: it builds a State from a case's STATE lines and describes a State as
// lines a case's EXPECT section can name. It satisfies conformance.Adapter without
// importing that package (which links package testing); the compile-time check is in
// conformance_test.go.
//
// STATE lines (any order):
//
//	turn N                       the game turn (default 1)
//	phase P                      setup-de, setup-us, us (the default), us-move,
//	                             us-wire, de, de-fire or over (us-move: the American
//	                             stopped after his artillery, and so on)
//	option NAME                  an option, as at game new (mix-NAME picks a mix)
//	unit KIND HEX [N] [CHIP]     N (default 1) live units; KIND inf, mg, army, marine;
//	                             CHIP black or blue (Americans only)
//	dead KIND HEX [N]            N flipped American units
//	smoke HEX                    a white chip
//	cut SIDE [TURN]              wire cut with a marker in TURN (default 0)
//	markers N                    N of the 27 wire markers already spent elsewhere
//	deck SIDE CARD ...           the cards left in side's sealed deck, in the order
//	                             they will be turned (no DICE: a card is no roll);
//	                             without it a deck is a new deck, unshuffled
//	discards SIDE CARD ...       the side's discards, in order; a reshuffle in a case
//	                             keeps them in that order (dice.NewScriptDealer)
//	revision N                   the rules revision the game was created under
//	                             (State.Revision), 0 to Revision (the default)
//
// Units get ids in the order written. Describe gives, sorted: "turn N", "phase P",
// "unit KIND HEX N [CHIP]" per kind, chip and hex of live units, "dead KIND HEX N",
// "smoke HEX", "cut SIDE TURN" (set-up cuts have turn 0), "markers N" (spent),
// "casualties N", "left SIDE N" (cards left), "turned SIDE CARD ..." (every card turned,
// in order), when the game has ended, "over" and "end: WHY", and "revision N" for a
// game created before this revision.
type CaseAdapter struct {
	Rules *Rules
}

// Ruleset returns the rules the cases run against.
func (a CaseAdapter) Ruleset() rules.Ruleset { return a.Rules }

// State builds a state from STATE lines; errors name the offending line.
func (a CaseAdapter) State(lines []string) (rules.State, error) {
	if a.Rules == nil {
		return nil, errors.New("CaseAdapter has no Rules")
	}
	opts := rules.Options{}
	for _, l := range lines {
		if f := strings.Fields(l); len(f) == 2 && f[0] == "option" {
			opts[f[1]] = true
		}
	}
	s, err := a.Rules.New(opts)
	if err != nil {
		return nil, err
	}
	st := s.(*State)
	st.T, st.P = 1, PhaseAmerican
	for _, side := range []Side{American, German} {
		// A case's decks are sealed decks, in new-deck order unless a deck line says.
		st.Decks[side] = &Deck{Order: newDeck(), Shuffles: 1}
	}
	var errs []error
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || f[0] == "option" {
			continue
		}
		bad := func(format string, args ...any) {
			errs = append(errs, fmt.Errorf("%q: %s", l, fmt.Sprintf(format, args...)))
		}
		switch f[0] {
		case "turn":
			n, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 2 || err != nil || n < 0 {
				bad("want turn N")
				continue
			}
			st.T = n
		case "phase":
			if len(f) != 2 || !slices.Contains([]string{PhaseGermanSetup, PhaseAmericanSetup, PhaseAmerican, PhaseAmericanMove, PhaseAmericanWire, PhaseGerman, PhaseGermanFire, PhaseOver}, f[1]) {
				bad("want phase setup-de|setup-us|us|us-move|us-wire|de|de-fire|over")
				continue
			}
			st.P = f[1]
		case "unit", "dead":
			if len(f) < 3 || len(f) > 5 || kindSide[f[1]] == "" {
				bad("want %s KIND HEX [N] [CHIP]", f[0])
				continue
			}
			h, err := hex.Parse(f[2])
			if err != nil {
				bad("%v", err)
				continue
			}
			n, chip := 1, ChipNone
			for _, w := range f[3:] {
				switch w {
				case ChipBlack, ChipBlue:
					chip = w
				default:
					if n, err = strconv.Atoi(w); err != nil || n < 1 {
						bad("%q: want a count or a chip", w)
					}
				}
			}
			if f[0] == "dead" && kindSide[f[1]] != American {
				bad("only American units are flipped; dead Germans are removed")
				continue
			}
			for range n {
				st.NextID++
				st.Units = append(st.Units, &Unit{ID: st.NextID, Kind: f[1], Hex: h, Chip: chip, Dead: f[0] == "dead"})
			}
		case "smoke":
			h, err := hex.Parse(f[len(f)-1])
			if len(f) != 2 || err != nil {
				bad("want smoke HEX")
				continue
			}
			st.Smoke = append(st.Smoke, h)
		case "cut":
			if len(f) < 2 || len(f) > 3 {
				bad("want cut SIDE [TURN]")
				continue
			}
			s, err := hex.ParseHexside(f[1])
			if err != nil {
				bad("%v", err)
				continue
			}
			turn := 0
			if len(f) == 3 {
				if turn, err = strconv.Atoi(f[2]); err != nil {
					bad("want cut SIDE [TURN]")
					continue
				}
			}
			st.Cuts = append(st.Cuts, Cut{Side: s.String(), Turn: turn, Marker: true})
		case "markers":
			n, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 2 || err != nil || n < 0 || n > MaxMarkers {
				bad("want markers N, 0 to %d", MaxMarkers)
				continue
			}
			for k := range n {
				st.Cuts = append(st.Cuts, Cut{Side: fmt.Sprintf("spent-%d", k), Turn: 0, Marker: true})
			}
		case "deck", "discards":
			if len(f) < 2 || (Side(f[1]) != American && Side(f[1]) != German) {
				bad("want %s us|de CARD ...", f[0])
				continue
			}
			side := Side(f[1])
			var left []string
			for _, c := range f[2:] {
				if !validCard(orders.Upper(c)) {
					bad("%q is not a card (AS, 10H, KC ...)", c)
				}
				left = append(left, orders.Upper(c))
			}
			if f[0] == "deck" {
				st.Decks[side].Order, st.Decks[side].Next = left, 0
			} else {
				st.Decks[side].Discards = left
			}
		case "revision":
			n, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 2 || err != nil || n < 0 || n > Revision {
				bad("want revision 0-%d", Revision)
				continue
			}
			st.Revision = n
		default:
			bad("unknown STATE line")
		}
	}
	return st, errors.Join(errs...)
}

// Describe gives the state as canonical lines.
func (a CaseAdapter) Describe(s rules.State) []string {
	st := s.(*State)
	out := []string{fmt.Sprintf("turn %d", st.T), "phase " + st.P, fmt.Sprintf("casualties %d", st.casualties()),
		fmt.Sprintf("markers %d", st.markersUsed())}
	count := map[string]int{}
	for _, u := range st.Units {
		k := fmt.Sprintf("unit %s %s", u.Kind, u.Hex)
		if u.Dead {
			k = fmt.Sprintf("dead %s %s", u.Kind, u.Hex)
		}
		if u.Chip != "" {
			k += " " + u.Chip
		}
		count[k]++
	}
	for k, n := range count {
		f := strings.Fields(k)
		out = append(out, strings.Join(append(f[:3:3], append([]string{strconv.Itoa(n)}, f[3:]...)...), " "))
	}
	for _, h := range st.Smoke {
		out = append(out, "smoke "+h.String())
	}
	for _, c := range st.Cuts {
		if !strings.HasPrefix(c.Side, "spent-") {
			out = append(out, fmt.Sprintf("cut %s %d", c.Side, c.Turn))
		}
	}
	for _, side := range []Side{American, German} {
		dk := st.Decks[side]
		out = append(out, fmt.Sprintf("left %s %d", side, dk.left()))
		if len(dk.Turned) > 0 {
			var cs []string
			for _, t := range dk.Turned {
				cs = append(cs, t.Card)
			}
			out = append(out, fmt.Sprintf("turned %s %s", side, strings.Join(cs, " ")))
		}
	}
	if st.Over() {
		out = append(out, "over", "end: "+st.End)
	}
	if st.Revision != Revision {
		out = append(out, "revision "+strconv.Itoa(st.Revision)) // a game created before this revision
	}
	slices.Sort(out)
	return out
}
