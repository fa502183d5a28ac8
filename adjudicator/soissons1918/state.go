package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Steps of the game the desk waits for. An operational phase (4.2 C) is a few steps,
// not one per segment: step 1 (reinforcements C.1, tanks C.2, first bombardment C.3,
// assault C.4), step 2 (maneuver C.5, second bombardment C.6, improvised attack C.7,
// advance C.8, pursuit C.9 given in advance) and the other side's fall back (C.8). A
// night operational phase (4.2 I) is one step for bombardment and maneuver, then the
// fall back.
const (
	StepSetupDE = "setup-de" // 3.1: the German sets up first
	StepSetupEN = "setup-en"
	StepOne     = "1"  // phasing side's step 1, with "en" or "de" before it
	StepTwo     = "2"  // step 2
	StepNight   = "n"  // the night step
	StepFall    = "fb" // the non-phasing side's fall back
	StepOver    = "over"
)

// Disruption levels (11), in order.
const (
	GoodOrder = iota
	Reforming
	Disorganized
	Shocked
)

// DisruptionNames are the levels' names for mails.
var DisruptionNames = []string{"Good Order", "Reforming", "Disorganized", "Shocked"}

// Where a unit is.
const (
	OnMap   = "map"
	Waiting = "wait" // a reinforcement not yet arrived (18)
	Box     = "box"  // a tank group in the Tank Assets box (9)
	Removed = "out"  // removed from play
)

// Unit is one unit's state.
type Unit struct {
	ID         string `json:"id"`
	Where      string `json:"where"`
	Hex        string `json:"hex,omitempty"`
	Losses     int    `json:"losses,omitempty"`     // 5: the Loss marker
	Dis        int    `json:"dis,omitempty"`        // 11: disruption level
	Remnant    bool   `json:"remnant,omitempty"`    // 8
	Prepare    bool   `json:"prepare,omitempty"`    // 19.4
	Improvised string `json:"improvised,omitempty"` // 19.4.1: the hex the marker points at
	Retreat    bool   `json:"retreat,omitempty"`    // 21: the Retreat marker
	Corps      string `json:"corps,omitempty"`      // 12: a German reinforcement's assigned corps
	Arrived    int    `json:"arrived,omitempty"`    // 18.2: the turn it was placed, for road movement
	Tank       string `json:"tank,omitempty"`       // 9: the tank group attached to this division
	Reduced    bool   `json:"reduced,omitempty"`    // 9.3: a tank group on its reduced side
	ArtUsed    bool   `json:"artUsed,omitempty"`    // 17.3.2: an HQ on its "artillery used" side
}

// State is a game of Soissons 1918.
type State struct {
	T       int                      `json:"turn"` // 1-17; 0 during set-up
	P       string                   `json:"phase"`
	Units   []Unit                   `json:"units"`
	Art     map[rules.Side]Artillery `json:"art"`             // army AP available (17.3.1)
	Control map[string]rules.Side    `json:"control"`         // town name: the side controlling it (3.3)
	Moved   []string                 `json:"moved,omitempty"` // units that moved in this operational phase (19.6)
	Paths   map[string]string        `json:"paths,omitempty"` // and the paths they moved along (19.6)
	Sudden  bool                     `json:"sudden,omitempty"`
	Verdict string                   `json:"verdict,omitempty"`
	// Revision is the revision of these rules the game was created under (Revision for
	// the games New makes; 0, absent, for a game created before revision 1), so that a
	// game in progress is played and replayed by the rules it began with (invariant 4).
	Revision int `json:"revision,omitempty"`
}

// Revision is the revision of these rules new games are created under.
//
// 1 (issue 21): HQs are units for Sudden Death, town control and proximity VP (2.3.1,
// 3.2, 3.3); Sudden Death ends the step at once (3.2); an HQ alone that an enemy enters
// retreats four hexes by 21's rules; an isolated unit falls back through enemy ZOC when
// it has no other way out, and its fall back must end supplied (15.3, 13.1); 16's
// limits are three kinds of stack, any one of them within the limits; tank groups are
// attached at set-up by the Entente's PLACE orders (3.1); PASS alone answers only the
// step the game is at, and TANK REMOVE is for that step (9.4).
const Revision = 1

// Turn implements rules.State.
func (s *State) Turn() int { return s.T }

// Phase implements rules.State.
func (s *State) Phase() string { return s.P }

// Over implements rules.State.
func (s *State) Over() bool { return s.P == StepOver }

// PhaseTitle implements rules.State.
func (s *State) PhaseTitle() string {
	switch s.P {
	case StepSetupDE:
		return "German set-up (3.1)"
	case StepSetupEN:
		return "Entente set-up (3.1)"
	case StepOver:
		return "game over (3.3)"
	}
	side, step := phasing(s.P), s.P[2:]
	name := map[rules.Side]string{EN: "Entente", DE: "German"}[side]
	t := turnName(s.T)
	switch step {
	case StepOne:
		return fmt.Sprintf("%s, %s step 1: reinforcements, bombardment (4.2 C.1-C.4)", t, name)
	case StepTwo:
		return fmt.Sprintf("%s, %s step 2: maneuver, bombardment (4.2 C.5-C.7)", t, name)
	case StepNight:
		return fmt.Sprintf("%s, %s night bombardment and maneuver (4.2 I.1-I.2)", t, name)
	case StepFall:
		return fmt.Sprintf("%s, %s fall back in the %s phase (4.2 C.8)", t, map[rules.Side]string{EN: "German", DE: "Entente"}[side], name)
	}
	return s.P
}

// phasing is the side whose operational phase a step key belongs to.
func phasing(p string) rules.Side {
	if strings.HasPrefix(p, string(DE)) {
		return DE
	}
	return EN
}

// TurnName is "18 July AM" for turn 1 (3.2), as PASS names a turn (HELP).
func TurnName(t int) string { return turnName(t) }

// turnName is "18 July AM" for turn 1 (3.2).
func turnName(t int) string {
	if t < 1 {
		return "set-up"
	}
	return fmt.Sprintf("%d July %s", 18+(t-1)/3, []string{"AM", "PM", "night"}[(t-1)%3])
}

// Night reports whether turn t is a night turn (4.1).
func Night(t int) bool { return t > 0 && (t-1)%3 == 2 }

func (s *State) unit(id string) *Unit {
	for i := range s.Units {
		if s.Units[i].ID == id {
			return &s.Units[i]
		}
	}
	return nil
}

// sortedUnits returns the units sorted by id, for stable output.
func (s *State) sortedUnits() []*Unit {
	out := make([]*Unit, len(s.Units))
	for i := range s.Units {
		out[i] = &s.Units[i]
	}
	slices.SortFunc(out, func(a, b *Unit) int { return strings.Compare(a.ID, b.ID) })
	return out
}

var _ rules.State = (*State)(nil)
