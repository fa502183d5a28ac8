package mons1914

import (
	"maps"
	"slices"
	"strconv"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The sides (2.5).
const (
	DE  rules.Side = "de"
	BEF rules.Side = "bef"
)

// Phases of a game turn (5.2). The British player turn has two phases whose kinds the
// British sequence decides (5.3).
const (
	PhaseGermanMove   = "gm" // I.A
	PhaseGermanCombat = "gc" // I.B: bombardment, then melee
	PhaseBritish1     = "b1" // II.A
	PhaseBritish2     = "b2" // II.B
	PhaseOver         = "over"
)

// LastTurn is the last game turn (4.3); FirstDayTurn ends the first day (4.2).
const (
	LastTurn     = 14
	FirstDayTurn = 7
)

// Sequences the British player may declare (5.3).
var Sequences = []string{"move/fight", "fight/move", "fight/fight", "move/move"}

// Unit states.
const (
	Waiting = "wait"   // German, not yet entered (8.0)
	OnMap   = "map"    // in play
	Dead    = "dead"   // in the dead pile
	Exited  = "exited" // moved off the map (4.4)
	Out     = "out"    // not in play at all (conformance cases only)
)

// Unit is one unit's state.
type Unit struct {
	ID         string `json:"id"`
	Status     string `json:"status"`
	Hex        string `json:"hex,omitempty"`
	Steps      int    `json:"steps"`
	Surrounded bool   `json:"surrounded,omitempty"` // eliminated while surrounded (4.5)
	Arrived    int    `json:"arrived,omitempty"`    // order of arrival in its hex, for the top unit (6.6)
}

// State is a game of Mons 1914.
type State struct {
	T        int    `json:"turn"`
	P        string `json:"phase"`
	Sequence string `json:"sequence,omitempty"` // this turn's British sequence (5.3)
	Units    []Unit `json:"units"`
	// German lists the hexes the German player controls (3.2); the British control the
	// rest.
	German []string `json:"german,omitempty"`
	// Top is the owner's choice of the top unit of a stack, by hex (6.6).
	Top map[string]string `json:"top,omitempty"`
	// Used lists what has acted this phase: "moved ID", "fired ID", "meleed ID",
	// "bombarded HEX", "attacked HEX", "marched ID" (9.2, 10.5, 12.1, 9.20).
	Used []string `json:"used,omitempty"`
	// Spent is the MP each unit has spent this movement phase, Origin the stack it
	// moves with (the hex it began the phase in, or its place in an entry column), and
	// Parent the origin of the stack that moved last: 9.6 lets a stack halt, drop units
	// and resume until another parent stack moves, 9.7 lets the faster units go on.
	Spent   map[string]int    `json:"spent,omitempty"`
	Origin  map[string]string `json:"origin,omitempty"`
	Parent  string            `json:"parent,omitempty"`
	Clock   int               `json:"clock"` // arrival counter
	Winner  string            `json:"winner,omitempty"`
	Verdict string            `json:"verdict,omitempty"`
	// Revision is the revision of these rules the game was created under (Revision for
	// the games New makes; 0, absent, for a game created before revision 1), so that a
	// game in progress is played and replayed by the rules it began with (invariant 4).
	Revision int `json:"revision,omitempty"`
}

// Revision is the revision of these rules new games are created under.
//
// 1 (issue 21): a stack may split and resume (9.6, 9.7), so what a unit spent and the
// stack it moves with are kept through a movement phase and each phase starts afresh
// once the last is resolved; the other side is told in words what it sees of a
// movement phase (6.6); a bombardment loss on a stack names the units it is apportioned
// among (10.9 with 6.6); the British status gives 8.2's entry schedule, not how many
// German units are still to enter, and the British map no longer lists them (6.6); a
// second-hex advance not made names its hex.
const Revision = 1

var _ rules.State = (*State)(nil)

// Turn implements rules.State.
func (s *State) Turn() int { return s.T }

// Phase implements rules.State.
func (s *State) Phase() string { return s.P }

// Over implements rules.State.
func (s *State) Over() bool { return s.P == PhaseOver }

// PhaseTitle implements rules.State.
func (s *State) PhaseTitle() string {
	switch s.P {
	case PhaseGermanMove:
		return "I.A German movement (8.0, 9.0)"
	case PhaseGermanCombat:
		return "I.B German combat: bombardment, then melee (10.0-12.0)"
	case PhaseBritish1, PhaseBritish2:
		n := 1
		if s.P == PhaseBritish2 {
			n = 2
		}
		if s.Sequence == "" {
			return "II British phase " + strconv.Itoa(n) + " (sequence declared with its orders, 5.3)"
		}
		return "II British " + s.britishKind(s.P) + " phase " + strconv.Itoa(n) + " (" + s.Sequence + ", 5.3)"
	case PhaseOver:
		return "game over"
	}
	return s.P
}

// britishKind is "movement" or "combat" for a British phase, by the declared sequence
// (move/fight when none is declared yet).
func (s *State) britishKind(p string) string {
	seq := s.Sequence
	if seq == "" {
		seq = "move/fight"
	}
	first, second, _ := cut(seq, "/")
	k := first
	if p == PhaseBritish2 {
		k = second
	}
	if k == "move" {
		return "movement"
	}
	return "combat"
}

func cut(s, sep string) (string, string, bool) {
	for i := 0; i+len(sep) <= len(s); i++ {
		if s[i:i+len(sep)] == sep {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func (s *State) clone() *State {
	c := *s
	c.Units = slices.Clone(s.Units)
	c.German = slices.Clone(s.German)
	c.Used = slices.Clone(s.Used)
	c.Spent = maps.Clone(s.Spent)
	c.Origin = maps.Clone(s.Origin)
	if s.Top != nil {
		c.Top = map[string]string{}
		for k, v := range s.Top {
			c.Top[k] = v
		}
	}
	return &c
}

func (s *State) unit(id string) *Unit {
	for i := range s.Units {
		if s.Units[i].ID == id {
			return &s.Units[i]
		}
	}
	return nil
}

// newPhase forgets what acted in the last phase, keeping what keep says.
func (s *State) newPhase(keep func(string) bool) {
	s.Used = slices.DeleteFunc(s.Used, func(w string) bool { return keep == nil || !keep(w) })
	s.Spent, s.Origin, s.Parent = nil, nil, ""
}

func (s *State) used(what string) bool { return slices.Contains(s.Used, what) }
func (s *State) use(what string)       { s.Used = append(s.Used, what) }

// germanControls reports whether the German player controls h (3.2).
func (s *State) germanControls(h hex.Hex) bool {
	_, ok := slices.BinarySearch(s.German, h.String())
	return ok
}

func (s *State) setControl(h hex.Hex, german bool) {
	i, ok := slices.BinarySearch(s.German, h.String())
	switch {
	case german && !ok:
		s.German = slices.Insert(s.German, i, h.String())
	case !german && ok:
		s.German = slices.Delete(s.German, i, i+1)
	}
}
