package soissons1918

import (
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// HQs are units: 2.3.1 "Corps HQs are non-combat units". Where no sentence of the
// rulebook leaves them out of a rule that says "unit", they count for it (issue 21,
// revision 1): 3.1's Prepare markers ("adjacent to a German unit"), 11.1 ("not
// adjacent to an enemy unit"), 12.1.2 (a command path "does not cross: an enemy
// unit"; a friendly HQ is subordinated to no command, so it blocks none), 14 ("negated by enemy units' presence"), 15.1 ("do not
// contain an enemy unit"), 17.2.1, 17.2.2 and 17.7 ("adjacent to a friendly unit"),
// 19.6, 13.1 and 21 ("never end their retreat adjacent to an enemy unit") and 19.7
// ("no longer adjacent to any enemy unit"). The sentences that leave them out keep
// them out: no ZOC (13, 10), no threat zone (14: "Infantry divisions, regiments and
// remnants exert a Threat Zone"), no stacking or disruption (10), not combat units,
// so never attacked nor in 20.1's obligation, and alone no bar to enemy movement (10).
// Revision 0 counted combat units alone for all of these.

// unitsAt lists side's units in h that a rule saying "unit" counts: combat units and,
// from revision 1, HQs (above).
func (g *game) unitsAt(h hex.Hex, side rules.Side) []*Unit {
	if !g.st.revised(1) {
		return g.combatAt(h, side)
	}
	var out []*Unit
	for _, u := range g.at(h, side) {
		if g.countsAsUnit(u) {
			out = append(out, u)
		}
	}
	return out
}

// countsAsUnit reports whether u counts for a rule saying "unit" (above); tank groups
// never stand alone (19), so their division counts for them.
func (g *game) countsAsUnit(u *Unit) bool {
	c := g.counter(u)
	return c.Combat() || c.Kind == KindHQ && g.st.revised(1)
}

// unitHexes lists the hexes holding side's units that count for a rule saying "unit".
func (g *game) unitHexes(side rules.Side) []hex.Hex { return g.hexesOf(side, g.countsAsUnit) }

// hexesOf lists, sorted, the hexes holding side's units on the map that keep allows.
func (g *game) hexesOf(side rules.Side, keep func(*Unit) bool) []hex.Hex {
	seen := map[hex.Hex]bool{}
	var out []hex.Hex
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && g.sideOf(u) == side && keep(u) {
			if h := g.hexOf(u); !seen[h] {
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	slices.SortFunc(out, func(a, b hex.Hex) int { return strings.Compare(a.String(), b.String()) })
	return out
}
