package soldiers1918

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// The two sides.
const (
	US adjudicator.Side = "us"
	DE adjudicator.Side = "de"
)

// Unit kinds, as in the counter mix (2.7, 3.5, 3.6, 12.5).
const (
	KindDeInf  = "de-inf"
	KindDeHMG  = "de-hmg"
	KindUSArmy = "us-army"
	KindUSMC   = "usmc"
	KindYork   = "york" // the Sergeant York unit: a US Army infantry platoon (12.5)
)

var (
	kindOrder = []string{KindDeInf, KindDeHMG, KindUSArmy, KindYork, KindUSMC}
	kindWord  = map[string]string{KindDeInf: "INF", KindDeHMG: "HMG", KindUSArmy: "ARMY", KindYork: "YORK", KindUSMC: "USMC"}
	kindName  = map[string]string{KindDeInf: "German infantry platoon", KindDeHMG: "German HMG platoon", KindUSArmy: "US Army platoon", KindYork: "Sergeant York's platoon", KindUSMC: "USMC platoon"}
)

func sideOf(kind string) adjudicator.Side {
	if kind == KindDeInf || kind == KindDeHMG {
		return DE
	}
	return US
}

// Phase keys. Set-up is turn 0 (3.1-3.6); turns 1-6 run phases I-XI (5.2).
const (
	PhasePlots       = "setup-plots"
	PhaseGermanSetup = "setup-german"
	PhaseUSSetup     = "setup-us"
	PhaseI           = "I"
	PhaseII          = "II"
	PhaseIII         = "III"
	PhaseIVtoXI      = "IV-XI"
	PhaseOver        = "over"
)

// LastTurn is the end of the game (4.2).
const LastTurn = 6

// Unit is one counter on the map.
type Unit struct {
	ID      int    `json:"id"`
	Kind    string `json:"kind"`
	Hex     string `json:"hex"`
	Carnage bool   `json:"carnage,omitempty"` // eliminated, flipped in place (2.6)
}

// State is a game of Soldiers 1918.
type State struct {
	T       int             `json:"turn"`
	P       string          `json:"phase"`
	Options map[string]bool `json:"options,omitempty"`
	// Quality is the 3.4 division-quality roll, 0 until rolled.
	Quality  int    `json:"quality,omitempty"`
	GermanFS int    `json:"german_fs,omitempty"`
	Units    []Unit `json:"units,omitempty"`
	// USCancelled is set once a 5.2 I cancellation succeeds: no US bombardment after.
	USCancelled bool   `json:"us_cancelled,omitempty"`
	Result      string `json:"result,omitempty"`
}

var _ adjudicator.State = (*State)(nil)

// Turn implements adjudicator.State.
func (s *State) Turn() int { return s.T }

// Phase implements adjudicator.State.
func (s *State) Phase() string { return s.P }

// Over implements adjudicator.State.
func (s *State) Over() bool { return s.P == PhaseOver }

// PhaseTitle implements adjudicator.State.
func (s *State) PhaseTitle() string {
	switch s.P {
	case PhasePlots:
		return "Set-up: bombardment plots (3.2, 3.3)"
	case PhaseGermanSetup:
		return "Set-up: German placement (3.5)"
	case PhaseUSSetup:
		return "Set-up: US placement (3.6)"
	case PhaseI:
		return fmt.Sprintf("Turn %d, Phase I: US Bombardment Execution (5.2 I)", s.T)
	case PhaseII:
		return fmt.Sprintf("Turn %d, Phase II: German Bombardment Plot (5.2 II)", s.T)
	case PhaseIII:
		return fmt.Sprintf("Turn %d, Phase III: German Bombardment Execution (5.2 III)", s.T)
	case PhaseIVtoXI:
		return fmt.Sprintf("Turn %d, Phases IV-XI (not implemented yet)", s.T)
	case PhaseOver:
		return "Game over (4.2)"
	}
	return s.P
}

func (s *State) clone() *State {
	c := *s
	c.Units = append([]Unit(nil), s.Units...)
	if s.Options != nil {
		c.Options = map[string]bool{}
		for k, v := range s.Options {
			c.Options[k] = v
		}
	}
	return &c
}

// liveIn returns the indexes of the live units of side in h, in id order.
func (s *State) liveIn(h hex.Hex, side adjudicator.Side) []int {
	var out []int
	id := h.String()
	for i, u := range s.Units {
		if u.Hex == id && !u.Carnage && sideOf(u.Kind) == side {
			out = append(out, i)
		}
	}
	return out
}

func (s *State) placed(side adjudicator.Side) bool {
	for _, u := range s.Units {
		if sideOf(u.Kind) == side {
			return true
		}
	}
	return false
}
