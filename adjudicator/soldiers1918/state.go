package soldiers1918

import (
	"fmt"
	"slices"
	"sort"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The two sides.
const (
	US rules.Side = "us"
	DE rules.Side = "de"
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

func sideOf(kind string) rules.Side {
	if kind == KindDeInf || kind == KindDeHMG {
		return DE
	}
	return US
}

// Phase keys. Set-up is turn 0 (3.1-3.6); turns 1-6 run phases I-XI (5.2). IV and V
// roll for Chaos of War and place the markers from the placing side's standing list;
// without a list they go on to IVp and Vp, which wait for one.
const (
	PhasePlots       = "setup-plots"
	PhaseGermanSetup = "setup-german"
	PhaseUSSetup     = "setup-us"
	PhaseI           = "I"
	PhaseII          = "II"
	PhaseIII         = "III"
	PhaseIV          = "IV"
	PhaseIVPlace     = "IVp"
	PhaseV           = "V"
	PhaseVPlace      = "Vp"
	PhaseVI          = "VI"
	PhaseVII         = "VII"
	PhaseVIII        = "VIII"
	PhaseIX          = "IX"
	PhaseX           = "X"
	PhaseXI          = "XI"
	PhaseOver        = "over"
)

// phaseOrder is the sequence of a game turn (5.2), for placing early orders.
var phaseOrder = []string{PhaseI, PhaseII, PhaseIII, PhaseIV, PhaseIVPlace, PhaseV, PhaseVPlace, PhaseVI, PhaseVII, PhaseVIII, PhaseIX, PhaseX, PhaseXI}

func phaseIndex(p string) int {
	for i, q := range phaseOrder {
		if q == p {
			return i
		}
	}
	return -1
}

// nextTurnOf returns the turn whose phase p comes next: this turn if p is still ahead,
// else the next one (turn 1 during set-up). Orders for a later phase are held (5.2).
func (s *State) nextTurnOf(p string) int {
	if s.T == 0 {
		return 1
	}
	if phaseIndex(s.P) <= phaseIndex(p) {
		return s.T
	}
	return s.T + 1
}

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
	Quality int `json:"quality,omitempty"`
	// FixedQuality is the first game's quality in the second game of a match (4.2): it
	// replaces the 3.4 roll.
	FixedQuality int    `json:"fixed_quality,omitempty"`
	GermanFS     int    `json:"german_fs,omitempty"`
	Units        []Unit `json:"units,omitempty"`
	// USCancelled is set once a 5.2 I cancellation succeeds: no US bombardment after.
	USCancelled bool `json:"us_cancelled,omitempty"`
	// Visibility is this turn's (8.2), 0 before Phase VI.
	Visibility int `json:"visibility,omitempty"`
	// COWed lists the ids of the units COWed this turn, sorted (7.3, 7.4). The status
	// belongs to the units, "for the rest of the game turn" (7.4): a COWed unit moved by
	// the 6.2 correction stays COWed. The map's COWed markers are the hexes holding COWed
	// units (COWedHexes).
	COWed []int `json:"cowed_units,omitempty"`
	// LegacyCOWed is the hexes of the markers as states before the unit model stored
	// them; Decode turns them into COWed units.
	LegacyCOWed []string `json:"cowed,omitempty"`
	// COWToPlace is the number of COWed markers rolled and not yet placed (7.1, 7.2).
	COWToPlace int `json:"cow_to_place,omitempty"`
	// Fired lists the units that fired, and Targets the hexes fired into, this fire
	// phase (10.2, 10.5).
	Fired   []int    `json:"fired,omitempty"`
	Targets []string `json:"targets,omitempty"`
	// Winner is set when the game ends: "us" for a sudden-death exit (4.1), "" else.
	Winner string `json:"winner,omitempty"`
	// Penetration is the 4.2 score at the end of turn 6: the last two digits of the
	// farthest-north US unit's hex.
	Penetration int    `json:"penetration,omitempty"`
	Result      string `json:"result,omitempty"`
	// Revision is the revision of these rules the game was created under (Revision, for
	// the games New makes). A game of revision 0, created before revision 1, tells both
	// sides of an order not carried out, as the results mails it sent did: replay
	// re-renders them byte for byte (invariant 4).
	Revision int `json:"revision,omitempty"`
}

// Revision is the revision of these rules new games are created under.
//
// 1: an order not carried out, in whole or beyond where its units stopped, and the part
// of a standing order that had no effect (a COW list's hex without a marker, an
// OVERSTACK line naming no units of the hex) are told to their owner alone (invariant
// 5): at the table the opponent would see the units move or fire and the markers
// placed, never the plan that could not be made.
//
// 2 (issue 22): the text map draws trenches, bunkers and wire in the kit's letters
// (mapview.Works), which no game uses for a unit or marker; a game of revision 1 or
// 0 keeps the letters it was shown.
const Revision = 2

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
	case PhaseIV:
		return fmt.Sprintf("Turn %d, Phase IV: US Chaos of War (5.2 IV, 7.1)", s.T)
	case PhaseIVPlace:
		return fmt.Sprintf("Turn %d, Phase IV: US places %d COWed marker(s) (7.1, 7.4)", s.T, s.COWToPlace)
	case PhaseV:
		return fmt.Sprintf("Turn %d, Phase V: German Chaos of War (5.2 V, 7.2)", s.T)
	case PhaseVPlace:
		return fmt.Sprintf("Turn %d, Phase V: German places %d COWed marker(s) (7.2, 7.4)", s.T, s.COWToPlace)
	case PhaseVI:
		return fmt.Sprintf("Turn %d, Phase VI: Visibility Determination (5.2 VI, 8.2)", s.T)
	case PhaseVII:
		return fmt.Sprintf("Turn %d, Phase VII: US Movement (5.2 VII, 9.0)", s.T)
	case PhaseVIII:
		return fmt.Sprintf("Turn %d, Phase VIII: German Fire (5.2 VIII, 10.0)", s.T)
	case PhaseIX:
		return fmt.Sprintf("Turn %d, Phase IX: US Fire (5.2 IX, 10.0)", s.T)
	case PhaseX:
		return fmt.Sprintf("Turn %d, Phase X: German Movement (5.2 X, 9.0)", s.T)
	case PhaseXI:
		return fmt.Sprintf("Turn %d, Phase XI: Mutual COWed Marker Removal (5.2 XI, 7.7)", s.T)
	case PhaseOver:
		return "Game over (4.2)"
	}
	return s.P
}

func (s *State) clone() *State {
	c := *s
	c.Units = append([]Unit(nil), s.Units...)
	c.COWed = append([]int(nil), s.COWed...)
	c.LegacyCOWed = append([]string(nil), s.LegacyCOWed...)
	c.Fired = append([]int(nil), s.Fired...)
	c.Targets = append([]string(nil), s.Targets...)
	if s.Options != nil {
		c.Options = map[string]bool{}
		for k, v := range s.Options {
			c.Options[k] = v
		}
	}
	return &c
}

// liveIn returns the indexes of the live units of side in h, in id order.
func (s *State) liveIn(h hex.Hex, side rules.Side) []int {
	var out []int
	id := h.String()
	for i, u := range s.Units {
		if u.Hex == id && !u.Carnage && sideOf(u.Kind) == side {
			out = append(out, i)
		}
	}
	return out
}

// hasCOW reports whether hex id holds a COWed marker this turn: a live COWed unit
// (7.4: "hexes containing COWed units").
func (s *State) hasCOW(id string) bool {
	for _, u := range s.Units {
		if u.Hex == id && s.isCOWed(u) {
			return true
		}
	}
	return false
}

// COWedHexes returns the hexes holding a COWed marker, sorted: those of the live COWed
// units.
func (s *State) COWedHexes() []string {
	seen := map[string]bool{}
	var out []string
	for _, u := range s.Units {
		if !seen[u.Hex] && s.isCOWed(u) {
			seen[u.Hex] = true
			out = append(out, u.Hex)
		}
	}
	sort.Strings(out)
	return out
}

// cowImmune reports whether a unit can never be COWed: German units in a bunker hex
// (7.5), USMC (7.6), and Sergeant York with the 12.5 option.
func (s *State) cowImmune(u Unit, sc *Scenario) bool {
	switch u.Kind {
	case KindUSMC:
		return true
	case KindYork:
		return s.Options["york"]
	case KindDeInf, KindDeHMG:
		h, err := hex.Parse(u.Hex)
		return err == nil && sc.Hex(h).Has(Bunker)
	}
	return false
}

// isCOWed reports whether a live unit is COWed this turn (7.3).
func (s *State) isCOWed(u Unit) bool {
	_, found := slices.BinarySearch(s.COWed, u.ID)
	return !u.Carnage && found
}

// cowUnit COWs the unit at index i for the rest of the turn, unless it can never be
// COWed (7.5, 7.6, 12.5); it reports whether the unit is now COWed.
func (s *State) cowUnit(i int, sc *Scenario) bool {
	u := s.Units[i]
	if u.Carnage || s.cowImmune(u, sc) {
		return false
	}
	if n, found := slices.BinarySearch(s.COWed, u.ID); !found {
		s.COWed = slices.Insert(s.COWed, n, u.ID)
	}
	return true
}

// cowHex puts a COWed marker in hex id: every live unit there that can be COWed is
// (7.4: "A COWed marker in a hex effects all units eligible to be COWed in that hex").
// It reports whether any unit was COWed.
func (s *State) cowHex(id string, sc *Scenario) bool {
	hit := false
	for i, u := range s.Units {
		if u.Hex == id && s.cowUnit(i, sc) {
			hit = true
		}
	}
	return hit
}

// migrateCOW turns the markers of a state stored before the unit model (hexes) into
// COWed units.
func (s *State) migrateCOW(sc *Scenario) {
	for _, id := range s.LegacyCOWed {
		s.cowHex(id, sc)
	}
	s.LegacyCOWed = nil
}

// hasFired reports whether unit id fired this phase (10.2).
func (s *State) hasFired(id int) bool {
	for _, f := range s.Fired {
		if f == id {
			return true
		}
	}
	return false
}
