package soissons1918

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Combat segments, for the disruption rules of retreats (4.2 C.4, C.7).
const (
	SegAssault    = "assault"    // 4.2 C.4: +1 for a retreat of four or more hexes
	SegImprovised = "improvised" // 4.2 C.7: +1 for a unit already marked Retreat that retreats two
)

// RetreatCall is what the combat code asks of a retreat after one combat's losses are
// applied (20.4.7, 21).
type RetreatCall struct {
	// From is the defender's hex; every defending unit in it retreats (a stacked hex is
	// attacked, and retreats, together: 20), with the HQs stacked there (10) and the
	// tank groups of its divisions (9).
	From hex.Hex
	// Attackers are the hexes of every attacking unit: the retreat number is the
	// minimal distance between every retreating unit and every attacker afterwards
	// (20.4.7, 21).
	Attackers []hex.Hex
	// N is the retreat number after the remnants' converted losses (20.4.7) and the
	// 21.1 conversion, which the combat code adds itself (see convertLoss). N may be
	// 0 only when Remnants is set.
	N int
	// Remnants lists remnants in From that must retreat although N is 0 (8: a loss on
	// a remnant is a one-hex retreat, and every remnant stacked with it retreats too;
	// the 21.2 example). Leave it nil when N > 0: then everybody retreats.
	Remnants []*Unit
	// Segment is SegAssault or SegImprovised (4.2 C.4, C.7).
	Segment string
}

// RetreatResult says what happened, for the combat's result lines.
type RetreatResult struct {
	// Lines are the events' texts, already emitted as events by retreat: each unit's
	// path, where its destination came from (an order or the default), its
	// disruption and why, eliminations.
	Lines []string
	// Vacated reports that no unit of the defender is left in From (19.5).
	Vacated bool
	// Eliminated lists the ids of units eliminated because no legal retreat existed
	// (21) or by the owner's removal of excess stacking (16).
	Eliminated []string
}

// retreatLog is what the retreats of the current combat segment leave for the end
// of the segment and for the advance after combat (4.2 C.4, C.7, C.8, 19.5).
type retreatLog struct {
	retreated []string         // units that retreated at least one hex, for the markers
	vacated   map[hex.Hex]bool // defenders' hexes vacated by improvised attacks (19.5)
}

// retreat carries out one combat's mandatory retreat (21): every defending unit in
// From (or the listed remnants when N is 0) ends at least N hexes from every attacker
// hex, along its supply path but for the last hex, which may be beside it; isolated
// units move through enemy ZOC towards the nearest hex where they are not isolated;
// never ending next to an enemy unit (eliminated if impossible, remnants too);
// threat zones ignored; stacking limits applied after (16). Destinations within the
// rules are the defender's standing RETREAT orders, else the default in HELP.
// Disruption: 21.2 (two or more hexes), 4.2 C.4 / C.7 by Segment, and one more level
// for moving through enemy ZOC (21, 15.4). HQs share the retreat without disruption
// and turn to "artillery used" (10). Retreat markers are NOT placed here: call
// endRetreats once the segment's last combat is resolved (4.2 C.4, C.7: "After all
// retreats are completed").
func (g *game) retreat(c RetreatCall) RetreatResult {
	_ = c
	return RetreatResult{} // stub: being written on branch retreat
}

// convertLoss answers the defender's 21.1 choice for one combat: whether to convert
// one loss (and no more than one) into one more hex of retreat, from the defender's
// standing CONVERT order, else the default (no conversion). defenders are the units
// attacked in the combat, losses the defender loss number before the conversion, n
// the retreat number. why says whether the answer came from an order or the
// default, for the result mail. The combat code applies the answer: losses-1, n+1
// (n becomes 1 when the CRT called for no retreat).
func (g *game) convertLoss(defenders []*Unit, losses, n int) (convert bool, why string) {
	_, _, _ = defenders, losses, n
	return false, "default: no conversion (21.1)" // stub
}

// endRetreats places the Retreat markers on every unit that retreated at least one
// hex in the segment (4.2 C.4, C.7), turns such HQs to "artillery used" (10), and
// forgets the segment's retreats. Call it once after the segment's last combat.
func (g *game) endRetreats() {}
