package teaching

import (
	"fmt"
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Side is a side of the game.
type Side = rules.Side

// The two sides.
const (
	American Side = "us"
	German   Side = "de"
)

// Phases. A game turn is an American turn then a German turn (rulebook: "The Americans
// go first, then turns alternate").
const (
	PhaseGermanSetup   = "setup-de"
	PhaseAmericanSetup = "setup-us"
	PhaseAmerican      = "us"
	PhaseGerman        = "de"
	PhaseOver          = "over"
	// The steps a player who stops to see a result sends in a mail of their own
	// (STOP AFTER): American movement, hand to hand, wire and chips (steps 3-5) after
	// his artillery; wire and chips (steps 4-5) after hand to hand; German fire (step
	// 2) after his artillery.
	PhaseAmericanMove = "us-move"
	PhaseAmericanWire = "us-wire"
	PhaseGermanFire   = "de-fire"
)

// Chips (rule 5).
const (
	ChipNone  = ""
	ChipBlue  = "blue"
	ChipBlack = "black"
)

// Unit is one counter. German units never move (set-up); American units carry a chip
// and are flipped, not removed, when killed (rule 3).
type Unit struct {
	ID   int     `json:"id"`
	Kind string  `json:"kind"` // inf, mg, army, marine
	Hex  hex.Hex `json:"hex"`
	Chip string  `json:"chip,omitempty"`
	Dead bool    `json:"dead,omitempty"`
}

// Cut is a cut wire hexside and the turn it was cut in; it is clear terrain from the
// next turn on (rule 4). Turn 0 is wire cut at set-up.
type Cut struct {
	Side   string `json:"side"` // "0606/0607", canonical
	Turn   int    `json:"turn"`
	Marker bool   `json:"marker"` // one of the 27 markers (rule 4); false at set-up
}

// State is the whole game.
type State struct {
	T       int            `json:"turn"`
	P       string         `json:"phase"`
	Mix     string         `json:"mix"`
	Options []string       `json:"options,omitempty"`
	Units   []*Unit        `json:"units"`
	Smoke   []hex.Hex      `json:"smoke,omitempty"`
	Cuts    []Cut          `json:"cuts,omitempty"`
	Decks   map[Side]*Deck `json:"decks"`
	Shown   []string       `json:"shown,omitempty"` // cards turned this game turn
	NextID  int            `json:"next_id"`
	End     string         `json:"end,omitempty"` // why the game ended
	// Revision is the revision of these rules the game was created under (Revision for
	// the games New makes; 0, absent, for a game created before revision 1), so that a
	// game in progress is played by the rules it began with (invariant 4).
	Revision int `json:"revision,omitempty"`
}

// Revision is the revision of these rules new games are created under.
//
// 1 (issue 21): STOP AFTER ARTILLERY / HAND TO HAND leaves a turn's later steps to a
// mail of their own; a move that only a shell of the same turn can make legal is
// accepted for now and judged at step 3; a results mail tells a player which of his
// steps came from a later mail or from the deadline's default.
const Revision = 1

var _ rules.State = (*State)(nil)

// Turn is the game turn, 0 during set-up.
func (st *State) Turn() int { return st.T }

// Phase is the current phase's key.
func (st *State) Phase() string { return st.P }

// Over reports whether the game has ended.
func (st *State) Over() bool { return st.P == PhaseOver }

// PhaseTitle names the phase for players.
func (st *State) PhaseTitle() string {
	switch st.P {
	case PhaseGermanSetup:
		return "German set-up"
	case PhaseAmericanSetup:
		return "American set-up"
	case PhaseAmerican:
		return fmt.Sprintf("turn %d, American turn (rules 1, 3-5)", st.T)
	case PhaseGerman:
		return fmt.Sprintf("turn %d, German turn (rules 1, 2)", st.T)
	case PhaseAmericanMove:
		return fmt.Sprintf("turn %d, American turn, steps 3-5: movement, wire, chips (rules 3-5)", st.T)
	case PhaseAmericanWire:
		return fmt.Sprintf("turn %d, American turn, steps 4-5: wire, chips (rules 4, 5)", st.T)
	case PhaseGermanFire:
		return fmt.Sprintf("turn %d, German turn, step 2: rifle and MG fire (rule 2)", st.T)
	}
	return "game over"
}

func (st *State) opt(name string) bool { return slices.Contains(st.Options, name) }

func isGerman(kind string) bool { return kind == "inf" || kind == "mg" }

// side returns the side of a unit.
func (u *Unit) side() Side {
	if isGerman(u.Kind) {
		return German
	}
	return American
}

// live returns the live units of side in h (nil side: both).
func (st *State) live(side Side, h hex.Hex) []*Unit {
	var out []*Unit
	for _, u := range st.Units {
		if !u.Dead && u.Hex == h && (side == "" || u.side() == side) {
			out = append(out, u)
		}
	}
	return out
}

// german returns the live German unit in h, if any (one a hex, set-up).
func (st *State) german(h hex.Hex) *Unit {
	if us := st.live(German, h); len(us) > 0 {
		return us[0]
	}
	return nil
}

func (st *State) smoked(h hex.Hex) bool { return slices.Contains(st.Smoke, h) }

func (st *State) cut(side string) (Cut, bool) {
	for _, c := range st.Cuts {
		if c.Side == side {
			return c, true
		}
	}
	return Cut{}, false
}

func (st *State) markersUsed() int {
	n := 0
	for _, c := range st.Cuts {
		if c.Marker {
			n++
		}
	}
	return n
}

// casualties counts the dead American units: the score (rulebook: "the fewer the
// American casualties, the more successful the attack").
func (st *State) casualties() int {
	n := 0
	for _, u := range st.Units {
		if u.Dead && u.side() == American {
			n++
		}
	}
	return n
}

func (st *State) liveCount(kind string) int {
	n := 0
	for _, u := range st.Units {
		if !u.Dead && u.Kind == kind {
			n++
		}
	}
	return n
}

func (st *State) liveSide(side Side) int {
	n := 0
	for _, u := range st.Units {
		if !u.Dead && u.side() == side {
			n++
		}
	}
	return n
}

// clone copies the state deeply, so that resolution never changes its input.
func (st *State) clone() *State {
	c := *st
	c.Options = slices.Clone(st.Options)
	c.Units = make([]*Unit, len(st.Units))
	for i, u := range st.Units {
		v := *u
		c.Units[i] = &v
	}
	c.Smoke = slices.Clone(st.Smoke)
	c.Cuts = slices.Clone(st.Cuts)
	c.Shown = slices.Clone(st.Shown)
	c.Decks = map[Side]*Deck{}
	for s, d := range st.Decks {
		c.Decks[s] = &Deck{Order: slices.Clone(d.Order), Next: d.Next, Shuffles: d.Shuffles, Discards: slices.Clone(d.Discards), Turned: slices.Clone(d.Turned)}
	}
	return &c
}
