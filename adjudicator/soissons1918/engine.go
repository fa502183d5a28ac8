package soissons1918

import (
	"fmt"
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// game is a state being worked on with its scenario: what both the order check and the
// resolution use, so that an order is judged the same way in both.
type game struct {
	rules.Log
	sc       *Scenario
	st       *State
	d        dice.Source           // nil in the order check
	moved    map[string]bool       // units that moved in the current segment
	shelled  map[shellID]bool      // the hexes each side bombarded in the current segment (17.6)
	used     map[string]int        // MP each unit spent in this segment, in 1/TEC.Scale MP
	standing map[standingID]string // the standing orders on file, by side and key
	lossWhy  string                // whether the last loss taker came from an order or the default
	seg      *segmentState         // the combat segment being resolved or checked (20)
	rlog     retreatLog            // the current combat segment's retreats (retreat.go)
	sudden   string                // the Sudden Death event not yet told (3.2: stopped)
}

// newGame works on st with the scenario sc.
func newGame(sc *Scenario, st *State) *game {
	return &game{Log: rules.Log{State: st, Sides: sides}, sc: sc, st: st}
}

func (g *game) counter(u *Unit) *Counter { c, _ := g.sc.Counter(u.ID); return c }

func (g *game) sideOf(u *Unit) rules.Side { return g.counter(u).Side }

// corps is the HQ a unit is subordinated to (12): printed, or assigned on arrival.
func (g *game) corps(u *Unit) string {
	if u.Corps != "" {
		return u.Corps
	}
	return g.counter(u).Corps
}

func (g *game) hexOf(u *Unit) hex.Hex { return hex.MustParse(u.Hex) }

// at lists the units of side ("" for both) on the map in h.
func (g *game) at(h hex.Hex, side rules.Side) []*Unit {
	var out []*Unit
	id := h.String() // once: at is the hottest loop of the supply and threat zones
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && u.Hex == id && (side == "" || g.sideOf(u) == side) {
			out = append(out, u)
		}
	}
	return out
}

// combatAt lists side's combat units (divisions, regiments, remnants) in h.
func (g *game) combatAt(h hex.Hex, side rules.Side) []*Unit {
	var out []*Unit
	for _, u := range g.at(h, side) {
		if g.counter(u).Combat() {
			out = append(out, u)
		}
	}
	return out
}

// combatHexes lists the hexes holding side's combat units.
func (g *game) combatHexes(side rules.Side) []hex.Hex {
	return g.hexesOf(side, func(u *Unit) bool { return g.counter(u).Combat() })
}

// zoc is the zone of control of side's divisions, regiments and remnants (13): the six
// hexes around each, never negated; HQs have none (10).
func (g *game) zoc(side rules.Side) map[hex.Hex]bool {
	return board.Zones(g.sc.Map, g.combatHexes(side), nil)
}

// tz is side's threat zone (14): two hexes from each combat unit, "one hex beyond their
// ZOC", negated by enemy units and enemy ZOC, and not projected beyond an adjacent hex
// occupied by an enemy unit or in an enemy ZOC. Terrain never matters.
func (g *game) tz(side rules.Side) map[hex.Hex]bool {
	enemy := sides.Other(side)
	ez := g.zoc(enemy)
	blocked := func(h hex.Hex) bool { return ez[h] || len(g.unitsAt(h, enemy)) > 0 }
	out := map[hex.Hex]bool{}
	m := g.sc.Map
	for _, h := range g.combatHexes(side) {
		for _, n := range m.Grid.Neighbours(h) {
			if !m.OnMap(n) || blocked(n) {
				continue
			}
			for _, n2 := range m.Grid.Neighbours(n) {
				if m.OnMap(n2) && n2 != h && !m.Grid.Adjacent(h, n2) && !blocked(n2) {
					out[n2] = true
				}
			}
		}
	}
	return out
}

// edge reports whether h is on side's friendly map edge (15.1).
func (g *game) edge(side rules.Side, h hex.Hex) bool {
	if side == EN {
		return g.sc.Map.InSet("west-edge", h)
	}
	return g.sc.Map.InSet("east-edge", h)
}

// aisne reports whether an unbridged Aisne hexside lies between a and b (19.3, 15.1).
func (g *game) aisne(a, b hex.Hex) bool {
	return g.sc.Map.SideHas(a, b, "aisne") && !g.sc.Map.SideHas(a, b, "bridge")
}

// supply traces the supply line of a unit of side in h (15.1): the shortest chain of
// hexes to the friendly edge free of enemy units, enemy ZOC and enemy TZ, the Aisne
// impassable. The unit's own hex is not part of the chain.
func (g *game) supply(side rules.Side, h hex.Hex) ([]hex.Hex, bool) {
	free := g.supplyFree(side, nil)
	return board.Trace(g.sc.Map, h, func(x hex.Hex) bool { return g.edge(side, x) },
		func(from, to hex.Hex) bool { return free(to) && !g.aisne(from, to) })
}

// supplyFree says which hexes a supply line of side may use (15.1): none with an enemy
// unit, enemy ZOC or enemy TZ. ignore lists enemy units left out (19.6: enemy units
// that moved this turn, for the fall back), "as long as the supply line does not cross
// the path of an enemy unit that advanced this turn": the hexes it moved through (not
// the one it stands in, which the line may pass, "it can go through unit Y itself")
// are closed.
func (g *game) supplyFree(side rules.Side, ignore map[string]bool) func(hex.Hex) bool {
	enemy := sides.Other(side)
	saved := g.hide(ignore)
	ez, et := g.zoc(enemy), g.tz(enemy)
	occupied := map[hex.Hex]bool{}
	for _, eh := range g.unitHexes(enemy) {
		occupied[eh] = true
	}
	g.unhide(saved)
	for id := range ignore {
		if p, err := orders.ParsePath(g.st.Paths[id]); err == nil && len(p) > 1 {
			for _, h := range p[:len(p)-1] {
				occupied[h] = true
			}
		}
	}
	return func(x hex.Hex) bool { return !occupied[x] && !ez[x] && !et[x] }
}

// hide takes the ignored units off the map for a computation; unhide puts them back.
func (g *game) hide(ignore map[string]bool) map[string]string {
	saved := map[string]string{}
	for id := range ignore {
		if u := g.st.unit(id); u != nil && u.Where == OnMap {
			saved[id] = u.Where
			u.Where = "hidden"
		}
	}
	return saved
}

func (g *game) unhide(saved map[string]string) {
	for id, w := range saved {
		g.st.unit(id).Where = w
	}
}

// isolated reports whether a unit of side in h can trace no supply line (15).
func (g *game) isolated(side rules.Side, h hex.Hex) bool {
	_, ok := g.supply(side, h)
	return !ok
}

// strength is a unit's current SP (5; 8: a remnant has 1).
func (g *game) strength(u *Unit) int {
	if u.Remnant {
		return 1
	}
	return g.counter(u).SP - u.Losses
}

// stackProblem says why side's units in h break 16's limits, or "". 16 lets a player
// stack "any one division counter", "up to three regiments of the same division
// and/or remnants, in any combination" or "up to 6 SP (regardless of formation or
// nationality)": three kinds of stack, any one of which is within the limits (HELP).
// Read as three limits all at once, no division could stack at all (every one has 9
// SP or more, 2.3.1), 3.1's "Up to three regiments of the same division may stack in
// the same hex" would set up 9 SP in a hex that the first move must thin, and
// "regardless of formation or nationality" would have nothing to allow.
func (g *game) stackProblem(us []*Unit) string {
	if !g.st.revised(1) {
		return g.stackProblemRev0(us)
	}
	divs, regs, sp, n := 0, map[string]bool{}, 0, 0
	for _, u := range us {
		c := g.counter(u)
		if !c.Combat() {
			continue // HQs and tank groups do not count (10, 9)
		}
		n++
		sp += g.strength(u)
		switch {
		case c.Kind == KindDivision:
			divs++
		case !u.Remnant:
			regs[c.Division] = true
		}
	}
	if n == 0 || sp <= 6 || (divs == 1 && n == 1) || (divs == 0 && n <= 3 && len(regs) <= 1) {
		return ""
	}
	switch {
	case divs > 1:
		return fmt.Sprintf("two divisions in one hex with %d SP (16: \"any one division counter\", or up to 6 SP)", sp)
	case divs == 1:
		return fmt.Sprintf("a division with other units, %d SP (16: \"any one division counter\", or up to 6 SP)", sp)
	case n > 3:
		return fmt.Sprintf("%d regiments and remnants with %d SP (16: at most three of one division, or up to 6 SP)", n, sp)
	}
	return fmt.Sprintf("regiments of different divisions with %d SP (16: \"up to three regiments of the same division\", or up to 6 SP)", sp)
}

// stackAfter says why side's units in h would break 16 once us join them, or "".
func (g *game) stackAfter(h hex.Hex, side rules.Side, us []*Unit) string {
	var all []*Unit
	for _, u := range g.at(h, side) {
		if !slices.Contains(us, u) {
			all = append(all, u)
		}
	}
	return g.stackProblem(append(all, us...))
}

// disrupt raises u's disruption by n levels, at most Shocked (11); tank groups and HQs
// are never disrupted (9, 10), and a remnant is never better than Disorganized (8).
func (g *game) disrupt(u *Unit, n int) {
	if !g.counter(u).Combat() {
		return
	}
	u.Dis = min(Shocked, u.Dis+n)
	if u.Remnant {
		u.Dis = max(u.Dis, Disorganized)
	}
}

// markers counts side's units bearing a marker (19.4: the counter mix is a limit).
func (g *game) markers(side rules.Side, improvised bool) int {
	n := 0
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && g.sideOf(u) == side && ((improvised && u.Improvised != "") || (!improvised && u.Prepare)) {
			n++
		}
	}
	return n
}

// place puts a unit on the map and takes control of a town it enters (3.3); an
// Entente unit entering a Sudden Death location ends the game (3.2). HQs count: 2.3.1
// calls them units ("Corps HQs are non-combat units"), and neither 3.2 ("an Entente
// unit occupies") nor 3.3 ("The last side to occupy") leaves them out. Tank groups
// move with their division and are never placed alone.
func (g *game) place(u *Unit, h hex.Hex) {
	u.Where, u.Hex = OnMap, h.String()
	if k := g.counter(u).Kind; k == KindTank || k == KindHQ && !g.st.revised(1) {
		return // revision 0: only combat units took control and ended the game
	}
	side := g.sideOf(u)
	if t, ok := g.sc.TownAt(h); ok {
		if g.st.Control[t.Name] != side {
			g.st.Control[t.Name] = side
			g.Event("3.3", "%s now controls %s", sidePhrase[side], t.Name)
		}
		if side == EN && t.Circle == "red" && !g.st.Sudden && !g.st.revised(1) {
			g.st.Sudden = true // revision 0: told at once, and the step went on
			g.Event("3.2", "Sudden Death: %s enters %s, a red location; the game ends (3.2, 3.4)", u.ID, t.Name)
		}
		if side == EN && t.Circle == "red" && !g.st.Sudden {
			g.st.Sudden = true
			g.sudden = fmt.Sprintf("Sudden Death: %s enters %s, a red location; the game ends at once (3.2, 3.4)", u.ID, t.Name)
		}
	}
}

// stopped reports whether the game has ended by Sudden Death (3.2: "the game is
// immediately terminated"), so that nothing more of the step is carried out. The
// Sudden Death event is told here, after the order that caused it.
func (g *game) stopped() bool {
	if !g.st.revised(1) {
		return false
	}
	if g.sudden != "" {
		g.Event("3.2", "%s", g.sudden)
		g.sudden = ""
	}
	return g.st.Sudden
}

// sidePhrase is a side as a sentence names it, "the Entente" ("the German player").
var sidePhrase = map[rules.Side]string{EN: "the Entente", DE: "the German player"}
