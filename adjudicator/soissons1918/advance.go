package soissons1918

import (
	"fmt"
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// kAdvance is the ADVANCE order (19.5, 4.2 C.8): ADVANCE <unit> [<hex>], sent with the
// step 2 orders and carried out in the Advance After Combat segment, after every
// improvised attack, if the hex the unit's Improvised Attack marker points at was
// vacated by an improvised attack. A unit without an ADVANCE order stays (HELP).
const kAdvance = "advance"

// noHex is an ADVANCE order's hex when none is given.
var noHex hex.Hex

// advance carries out one ADVANCE order in the Advance After Combat segment (4.2 C.8,
// 19.5): a unit marked with an Improvised Attack marker whose target hex was vacated
// by an improvised attack in this segment (g.rlog.vacated, filled by retreat) moves
// one hex, regardless of terrain, into that hex, or into a hex next to it when a
// friendly unit already occupies it; never from an enemy ZOC directly into another
// (13.1); stacking limits apply (16). to is the hex asked for; without one (the zero
// Hex) the default of HELP: the target hex if no friendly unit is in it, else the
// first hex next to it, by hex id, that the rules allow and that keeps the stacks
// within the limits.
func (g *game) advance(side rules.Side, id string, to hex.Hex) error {
	u, err := g.own(side, id)
	if err != nil {
		return err
	}
	if u.Where != OnMap || u.Improvised == "" {
		return fmt.Errorf("%s has no Improvised Attack marker (19.5: only units marked with one advance)", id)
	}
	t := hex.MustParse(u.Improvised)
	from := g.hexOf(u)
	if to != noHex && to != t && !(g.sc.Map.Grid.Adjacent(to, t) && g.sc.Map.Grid.Adjacent(to, from)) {
		return fmt.Errorf("%s is neither %s, the hex %s's marker points at, nor a hex next to both (19.5)", to, t, id)
	}
	if g.d == nil {
		// The order check: whether the hex will be vacated is known only once the
		// improvised attacks are resolved.
		return nil
	}
	g.endRetreats() // 4.2 C.7: the improvised attack segment is over
	if g.rlog.advanced[id] {
		return fmt.Errorf("%s has advanced already (19.5: a one-hex advance)", id)
	}
	if !g.rlog.vacated[t] || len(g.at(t, sides.Other(side))) > 0 {
		return fmt.Errorf("%s was not vacated by an improvised attack (19.5)", t)
	}
	occupied := len(g.combatAt(t, side)) > 0
	var why string
	if to != noHex {
		if to != t && !occupied {
			return fmt.Errorf("%s is empty: the advance goes into it, not beside it (19.5)", t)
		}
		if err := g.advanceProblem(u, from, to); err != nil {
			return err
		}
		why = "the attacker's order"
	} else {
		cands := []hex.Hex{t}
		if occupied {
			for _, n := range g.sc.Map.Grid.Neighbours(t) {
				if g.sc.Map.OnMap(n) && g.sc.Map.Grid.Adjacent(n, from) {
					cands = append(cands, n)
				}
			}
			slices.SortFunc(cands[1:], hex.Compare)
		}
		var first error
		for _, c := range cands {
			err := g.advanceProblem(u, from, c)
			if err == nil {
				if p := g.stackAfter(c, side, []*Unit{u}); p != "" {
					err = fmt.Errorf("%s would be overstacked: %s (16)", c, p)
				}
			}
			if err == nil {
				to = c
				break
			}
			if first == nil {
				first = err
			}
		}
		if to == noHex {
			return fmt.Errorf("no hex to advance into: %w", first)
		}
		why = "default: the target hex, else the first free hex beside it"
	}
	if g.rlog.advanced == nil {
		g.rlog.advanced = map[string]bool{}
	}
	g.rlog.advanced[id] = true
	g.moveTo(u, to)
	g.displaceEnemyHQs(side, to)
	g.Event("19.5", "%s advances after combat from %s into %s (%s)", id, from, to, why)
	g.removeExcess(to, side, "19.5")
	return nil
}

// advanceProblem says why u may not advance from from into to (19.5), or nil.
func (g *game) advanceProblem(u *Unit, from, to hex.Hex) error {
	side := g.sideOf(u)
	switch {
	case !g.sc.Map.Grid.Adjacent(from, to):
		return fmt.Errorf("%s is not next to %s (19.5: a one-hex advance)", to, from)
	case g.aisne(from, to):
		return fmt.Errorf("%s/%s is an unbridged Aisne hexside (19.3)", from, to)
	case len(g.combatAt(to, sides.Other(side))) > 0:
		return fmt.Errorf("%s holds enemy units", to)
	}
	ez := g.zoc(sides.Other(side))
	if ez[from] && ez[to] {
		return fmt.Errorf("%s to %s is from one enemy ZOC directly into another (19.5, 13.1)", from, to)
	}
	if u.Tank != "" && g.sc.Map.Terrain(to) == "ravine" && !g.sc.Map.SideHas(from, to, "road") {
		return fmt.Errorf("%s has a tank group: no ravine but by road (9.1)", u.ID)
	}
	return nil
}
