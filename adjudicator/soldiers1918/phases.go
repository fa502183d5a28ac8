package soldiers1918

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Phases IV-VI and XI: Chaos of War (7.0) and visibility (8.0).

// usCOWModifier is the 7.1 modifier to the US Chaos of War roll by German infantry FS.
var usCOWModifier = map[int]int{2: +1, 3: 0, 4: -1, 6: -2}

// Standing orders: not tied to a turn, they hold until replaced.
const (
	phaseStanding = "standing"
	keyCOW        = "cow"
	keyOverstack  = "overstack"
	keyMoves      = "moves"
	keyFire       = "fire"
)

// chaosOfWar rolls the number of COWed markers for the side in its Chaos of War phase
// (7.1 for the US in IV, 7.2 for the German in V) and places them from the side's
// standing list, or goes on to the placing step that waits for one.
func (g *game) chaosOfWar(side rules.Side, inputs []rules.Order) error {
	var roll dice.Roll
	if side == US {
		mod, ok := usCOWModifier[g.st.GermanFS]
		if !ok {
			return fmt.Errorf("7.1 has no modifier for German infantry FS %d", g.st.GermanFS)
		}
		roll = g.d.Roll(dice.Request{Purpose: fmt.Sprintf("7.1 US Chaos of War, turn %d (German infantry FS %d: %+d)", g.st.T, g.st.GermanFS, mod), Rule: "7.1", Count: 1, Sides: 6, Modifier: mod})
	} else {
		roll = g.d.Roll(dice.Request{Purpose: fmt.Sprintf("7.2 German Chaos of War, turn %d (1d6-2)", g.st.T), Rule: "7.2", Count: 1, Sides: 6, Modifier: -2})
	}
	n := max(roll.Result, 0)
	rule, name, next, place := "7.1", "US", PhaseV, PhaseIVPlace
	if side == DE {
		rule, name, next, place = "7.2", "German", PhaseVI, PhaseVPlace
	}
	g.RollEvent(rule, roll, "The %s player may place %d COWed marker(s) on enemy units (%s).", name, n, rule)
	g.st.COWToPlace = n
	if n == 0 {
		g.st.P = next
		return nil
	}
	if o, ok := orderByKey(inputs, side, keyCOW); ok {
		g.placeCOW(side, o)
		g.st.P = next
		return nil
	}
	g.st.P = place
	return nil
}

// placeCOW puts COWed markers on the hexes of the side's priority list, in order: one per
// hex, never on a hex without an enemy unit that can be COWed (7.4, 7.5, 7.6, 12.5).
func (g *game) placeCOW(side rules.Side, o rules.Order) {
	blocks := parseCanonical(o.Text)
	enemy := sides.Other(side)
	placed := 0
	if len(blocks) == 1 && !blocks[0].none {
		for _, h := range blocks[0].hexes {
			if placed == g.st.COWToPlace {
				break
			}
			id := h.String()
			if g.st.hasCOW(id) {
				continue
			}
			eligible := false
			for _, i := range g.st.liveIn(h, enemy) {
				if !g.st.cowImmune(g.st.Units[i], g.r.sc) {
					eligible = true
				}
			}
			if !eligible {
				// A hex of the list no marker went to: the other side sees the markers
				// placed, never the list (Revision 1).
				g.ownerOnly(side, "7.4, 7.5, 7.6", "No COWed marker in %s: no enemy unit there can be COWed.", h)
				continue
			}
			g.st.cowHex(id, g.r.sc)
			placed++
			g.Event("7.3, 7.4", "COWed marker placed in %s: its units may neither move nor fire for the rest of the turn.", h)
		}
	}
	if left := g.st.COWToPlace - placed; left > 0 {
		g.Event("7.4", "%d COWed marker(s) left unplaced: the priority list named no further hex with units that can be COWed.", left)
	}
	g.st.COWToPlace = 0
}

// placeStep resolves IVp or Vp, once the placing side has sent its list.
func (g *game) placeStep(side rules.Side, inputs []rules.Order, next string) error {
	o, ok := orderByKey(inputs, side, keyCOW)
	if !ok {
		return fmt.Errorf("no COW list for %s", side)
	}
	g.placeCOW(side, o)
	g.st.P = next
	return nil
}

// visibility is Phase VI: three dice, 17 and 18 count as 16, never under 3 (8.2).
func (g *game) visibility() {
	roll := g.d.Roll(dice.Request{Purpose: fmt.Sprintf("8.2 visibility for turn %d", g.st.T), Rule: "8.2", Count: 3, Sides: 6})
	g.st.Visibility = min(max(roll.Result, 3), 16)
	g.RollEvent("8.2", roll, "Visibility this turn: %d hexes. It limits movement (9.7) and range (10.6).", g.st.Visibility)
	g.st.P = PhaseVII
}

// removeCOW is Phase XI (7.7); then the turn ends, or the game (4.2).
func (g *game) removeCOW() {
	if n := len(g.st.COWedHexes()); n > 0 {
		g.Event("7.7", "All COWed markers are removed (%d).", n)
	}
	g.st.COWed = nil
	g.st.Visibility = 0
	if g.st.T < LastTurn {
		g.st.T++
		g.st.P = PhaseI
		g.Event("5.2", "Game Turn %d begins.", g.st.T)
		return
	}
	g.endOfGame()
}

// endOfGame scores the 4.2 penetration: the last two digits of the farthest-north US
// unit's hex at the end of Game Turn 6.
func (g *game) endOfGame() {
	best, bestHex := -1, ""
	for _, u := range g.st.Units {
		if sideOf(u.Kind) != US || u.Carnage {
			continue
		}
		h, err := hex.Parse(u.Hex)
		if err == nil && h.Row > best {
			best, bestHex = h.Row, u.Hex
		}
	}
	if best < 0 {
		best = 0
		g.st.Result = "End of Game Turn 6: no US unit is left on the map; US penetration 00 (4.2)."
	} else {
		g.st.Result = fmt.Sprintf("End of Game Turn 6: the farthest-north US unit is in %s; US penetration %02d (4.2). Switch sides and play the second game with the same division quality (4.2).", bestHex, best)
	}
	g.st.Penetration = best
	g.Event("4.2", "%s", g.st.Result)
	g.st.P = PhaseOver
}

// stackLimit is a side's stacking limit (6.3, 6.4).
func (st *State) stackLimit(side rules.Side) int {
	if side == DE && st.Quality == 6 {
		return 4
	}
	if side == DE {
		return 3
	}
	return 4
}

// overStacked returns the hexes of side holding more units than 6.3 or 6.4 allow, sorted.
func (st *State) overStacked(side rules.Side) []string {
	var out []string
	for id, units := range st.stacks(side) {
		if stackOver(st, side, units) > 0 {
			out = append(out, id)
		}
	}
	sort.Strings(out)
	return out
}

// stacks returns the indexes of side's live units by hex.
func (st *State) stacks(side rules.Side) map[string][]int {
	m := map[string][]int{}
	for i, u := range st.Units {
		if !u.Carnage && sideOf(u.Kind) == side {
			m[u.Hex] = append(m[u.Hex], i)
		}
	}
	return m
}

// stackOver is how many units a stack has beyond its limit; a US stack mixing Army and
// USMC is over by all of the smaller kind (6.4).
func stackOver(st *State, side rules.Side, units []int) int {
	if side == DE {
		return max(len(units)-st.stackLimit(DE), 0)
	}
	army, usmc := 0, 0
	for _, i := range units {
		if st.Units[i].Kind == KindUSMC {
			usmc++
		} else {
			army++
		}
	}
	if army > 0 && usmc > 0 {
		return min(army, usmc) + max(max(army, usmc)-4, 0)
	}
	return max(army+usmc-4, 0)
}

// correctStacking is 6.1/6.2 at the end of a phase, "in such a way as to satisfy the
// offended player ... (It's always the offended player's choice of solution)": his
// OVERSTACK lines for a hex say which units leave it and how, in the order written; the
// rest of the excess goes by his standing choice (OVERSTACK CARNAGE, or by default the
// nearest legal hex, the lowest-numbered of several), the units that moved last first.
// A COWed unit stays COWed wherever it goes (7.4: "for the rest of the game turn").
func (g *game) correctStacking(side rules.Side, choice []overSpec) {
	general := overSpec{}
	for _, o := range choice {
		if o.general() {
			general = o
		}
	}
	over := func(id string) bool { return stackOver(g.st, side, g.st.stacks(side)[id]) > 0 }
	for _, id := range g.st.overStacked(side) {
		for _, o := range choice {
			if o.general() || o.Hex.String() != id {
				continue
			}
			for taken := 0; over(id) && (o.Count == 0 || taken < o.Count); {
				leave := g.orderedExcess(side, id, o, taken)
				if len(leave) == 0 {
					if taken == 0 {
						g.ownerOnly(sides.Other(side), "6.2", "The offended player's order %s names no units in %s whose leaving lessens the over-stack: his standing choice applies.", o, id)
					}
					break
				}
				for _, i := range leave {
					g.removeExcess(side, i, id, o, fmt.Sprintf("as the offended player ordered (%s)", o))
				}
				taken += len(leave)
			}
		}
		for over(id) {
			i := excessUnit(g.st, side, g.st.stacks(side)[id], g.arrivals)
			why := "by default: the offended player has no order for this hex (OVERSTACK, 6.2)"
			if general.Carnage {
				why = "as the offended player chose (standing order OVERSTACK CARNAGE)"
			}
			g.removeExcess(side, i, id, general, why)
		}
	}
}

// orderedExcess picks the units an OVERSTACK line for hex id takes next, taken of them
// taken already: of its kind (ARMY takes Sergeant York's platoon too unless a count is
// given, as in MOVE), the last to arrive first, the fewest whose leaving lessens the
// over-stack (in a mixed US stack that may be every unit of the kind named, 6.4), never
// more than the line's count. None when the line cannot lessen it.
func (g *game) orderedExcess(side rules.Side, id string, o overSpec, taken int) []int {
	units := g.st.stacks(side)[id]
	var cands []int
	for _, i := range units {
		k := g.st.Units[i].Kind
		if o.Kind == "" || k == o.Kind || (o.Kind == KindUSArmy && k == KindYork && o.Count == 0) {
			cands = append(cands, i)
		}
	}
	sort.SliceStable(cands, func(a, b int) bool {
		x, y := cands[a], cands[b]
		if g.arrivals[x] != g.arrivals[y] {
			return g.arrivals[x] > g.arrivals[y]
		}
		return x > y
	})
	if o.Count > 0 {
		cands = cands[:min(len(cands), o.Count-taken)]
	}
	now := stackOver(g.st, side, units)
	for n := 1; n <= len(cands); n++ {
		rest := slices.DeleteFunc(slices.Clone(units), func(j int) bool { return slices.Contains(cands[:n], j) })
		if stackOver(g.st, side, rest) < now {
			return cands[:n]
		}
	}
	return nil
}

// removeExcess takes unit i out of the over-stacked hex from, as o says: carnage, the
// hex o names if it is one of the nearest legal hexes, or the nearest legal hex (the
// lowest-numbered of several); with no legal hex at all, carnage. why says whose choice
// it was, for the results.
func (g *game) removeExcess(side rules.Side, i int, from string, o overSpec, why string) {
	u := &g.st.Units[i]
	name := kindName[u.Kind]
	if o.Carnage {
		u.Carnage = true
		g.Event("6.2", "%s in %s is over the stacking limit and becomes carnage, %s.", name, from, why)
		return
	}
	nearest := g.nearestRooms(side, from, u.Kind)
	if len(nearest) == 0 {
		u.Carnage = true
		g.Event("6.2", "%s in %s is over the stacking limit and has no legal hex to go to: it becomes carnage.", name, from)
		return
	}
	dest, how := nearest[0], "moves to the nearest legal hex, "+nearest[0]
	if to := o.To.String(); o.To != (hex.Hex{}) {
		if slices.Contains(nearest, to) {
			dest, how = to, "moves to "+to+", one of the nearest legal hexes"
		} else {
			why = fmt.Sprintf("the default: %s is not one of the nearest legal hexes (%s), as 6.2 requires, so the order %s cannot be followed", to, strings.Join(nearest, ", "), o)
		}
	}
	u.Hex = dest
	cowed := ""
	if g.st.isCOWed(*u) {
		cowed = " It stays COWed for the rest of the turn (7.4)."
	}
	g.Event("6.2", "%s in %s is over the stacking limit and %s, %s.%s", name, from, how, why, cowed)
}

// excessUnit picks the unit to remove from an over-stacked hex: in a mixed US stack one
// of the smaller kind; else the unit that moved in last this phase (arrivals), or, with
// none moved, the highest id.
func excessUnit(st *State, side rules.Side, units []int, arrivals map[int]int) int {
	if side == US {
		var army, usmc []int
		for _, i := range units {
			if st.Units[i].Kind == KindUSMC {
				usmc = append(usmc, i)
			} else {
				army = append(army, i)
			}
		}
		if len(army) > 0 && len(usmc) > 0 {
			if len(usmc) <= len(army) {
				units = usmc
			} else {
				units = army
			}
		}
	}
	best := units[0]
	for _, i := range units[1:] {
		if arrivals[i] > arrivals[best] || (arrivals[i] == arrivals[best] && i > best) {
			best = i
		}
	}
	return best
}

// nearestRooms returns the nearest map hexes, by distance, where a unit of kind may
// stand without breaking the stacking rules and without enemy units, sorted by id: the
// "nearest legal hex" of 6.2, of which the offended player may choose any.
func (g *game) nearestRooms(side rules.Side, from, kind string) []string {
	origin, _ := hex.Parse(from)
	enemy := sides.Other(side)
	stacks := g.st.stacks(side)
	var best []string
	bestD := 1 << 30
	for _, h := range g.r.sc.Hexes() {
		id := h.String()
		if id == from || len(g.st.liveIn(h, enemy)) > 0 {
			continue
		}
		d := g.r.sc.Grid.Distance(origin, h)
		if d > bestD {
			continue
		}
		probe := *g.st
		probe.Units = append(slices.Clone(g.st.Units), Unit{Kind: kind, Hex: id})
		if stackOver(&probe, side, append(slices.Clone(stacks[id]), len(probe.Units)-1)) > 0 {
			continue
		}
		if d < bestD {
			best, bestD = nil, d
		}
		best = append(best, id)
	}
	sort.Strings(best)
	return best
}
