package soissons1918

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// kAdvance is the ADVANCE order (19.5, 4.2 C.8): ADVANCE <unit> [<hex>], sent with the
// step 2 orders and carried out in the Advance After Combat segment, after every
// improvised attack, if the hex the unit's Improvised Attack marker points at was
// vacated by an improvised attack.
const kAdvance = "advance"

// advance carries out one ADVANCE order in the Advance After Combat segment (4.2 C.8,
// 19.5): a unit marked with an Improvised Attack marker whose target hex was vacated
// by an improvised attack in this segment (g.rlog.vacated, filled by retreat) moves
// one hex, regardless of terrain, into that hex, or into a hex next to it when a
// friendly unit already occupies it; never from an enemy ZOC directly into another
// (13.1); stacking limits apply (16). to is the hex asked for (zero: the target
// hex, or the first legal hex next to it by the default of HELP).
func (g *game) advance(side, id string, to hex.Hex) error {
	_, _, _ = side, id, to
	return nil // stub: being written on branch retreat
}
