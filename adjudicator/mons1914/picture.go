package mons1914

import (
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// pictureCounters are the picture's counters (mapview.View.Counters): the cell of each
// hex with units, its German-control mark included. A hex with a mark only (German
// control, entry, exit) gets none: a hundred such counters hid the units of the
// picture, and the text map keeps every mark.
func pictureCounters(cells map[hex.Hex]string, forces map[hex.Hex][]string) map[hex.Hex]string {
	out := map[hex.Hex]string{}
	for h, c := range cells {
		if len(forces[h]) > 0 {
			out[h] = strings.TrimSpace(c)
		}
	}
	return out
}
