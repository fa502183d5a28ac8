package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// finish closes the step just resolved (its automatic segments) and moves the game to
// the next step that waits, running the automatic phases between (4.2).
func (g *game) finish() error {
	st := g.st
	for id := range g.moved {
		if !slices.Contains(st.Moved, id) {
			st.Moved = append(st.Moved, id)
		}
	}
	slices.Sort(st.Moved)
	if st.Sudden {
		return g.end()
	}
	switch {
	case st.P == StepSetupDE:
		g.completeSetup(DE)
		st.P = StepSetupEN
		return nil
	case st.P == StepSetupEN:
		g.completeSetup(EN)
		return g.beginTurn(1)
	}
	side, step := phasing(st.P), st.P[2:]
	switch step {
	case StepOne:
		// 4.2 C.4 b: "Remove Prepare markers on units that did not assault."
		var gone []string
		for i := range st.Units {
			u := &st.Units[i]
			if u.Prepare && g.sideOf(u) == side && !g.segState().attackers[u.ID] {
				u.Prepare = false
				gone = append(gone, u.ID)
			}
		}
		if len(gone) > 0 {
			g.Event("4.2", "C.4 b: the Prepare markers of units that did not assault are removed: %s", strings.Join(gone, ", "))
		}
	case StepFall:
		g.forcedFallBacks(sides.Other(side))
		if sides.Other(side) == EN {
			g.spentWithdrawal()
		}
		if !Night(st.T) {
			// 4.2 C.9 final segment; 11.1 reads the same recovery as the End of Day
			// turn phase: the phasing player's Shocked units become Disorganized.
			for i := range st.Units {
				u := &st.Units[i]
				if g.sideOf(u) != side {
					continue
				}
				u.Retreat = false
				u.Improvised = ""
				if u.Dis == Shocked {
					u.Dis = Disorganized
				}
			}
		}
		st.Moved, st.Paths = nil, nil
	}
	ss := steps(st.T)
	i := slices.Index(ss, st.P)
	if i+1 < len(ss) {
		st.P = ss[i+1]
		g.used, g.moved, g.shelled = map[string]int{}, map[string]bool{}, nil
		return nil
	}
	// D, F, J: the end of the turn.
	if st.T == LastTurn {
		return g.end()
	}
	return g.beginTurn(st.T + 1)
}

// beginTurn runs the automatic phases that open turn t: AM, artillery availability
// and reorganization (4.2 A, B); night, tank attrition and artillery availability
// (4.2 H, G). A PM turn has none (17.3.4: its points are the AM's left over).
func (g *game) beginTurn(t int) error {
	st := g.st
	st.T = t
	st.P = steps(t)[0]
	g.used, g.moved, g.shelled = map[string]int{}, map[string]bool{}, nil
	part := g.sc.Turns[t-1]
	if Night(t) {
		for i := range st.Units {
			u := &st.Units[i]
			if u.Where != OnMap || g.counter(u).Kind != KindTank {
				continue
			}
			if u.Reduced {
				g.detach(u)
				u.Where, u.Hex = Removed, ""
				g.Event("9.3", "tank group %s, already reduced, is removed from play", u.ID)
			} else {
				u.Reduced = true
				g.Event("9.3", "tank group %s is reduced", u.ID)
			}
		}
	}
	if part.Part != "PM" {
		st.Art[EN], st.Art[DE] = part.EN, part.DE
		for i := range st.Units {
			st.Units[i].ArtUsed = false
		}
		g.Event("17.3.3", "artillery for %s: Entente heavy %d, medium %d, air %d; German heavy %d, medium %d, air %d; every HQ's organic point is available again",
			turnName(t), part.EN.Heavy, part.EN.Medium, part.EN.Air, part.DE.Heavy, part.DE.Medium, part.DE.Air)
	}
	if part.Part == "AM" && t > 1 {
		g.reorganize()
	}
	return nil
}

// reorganize is 4.2 B and 11.1: every disrupted unit recovers one level, two when in
// command and not next to an enemy unit; remnants never recover below Disorganized.
func (g *game) reorganize() {
	var moved []string
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where != OnMap || u.Dis == GoodOrder || !g.counter(u).Combat() {
			continue
		}
		n := 1
		if g.inCommand(u) && !g.adjacentEnemy(u) {
			n = 2
		}
		was := u.Dis
		u.Dis = max(GoodOrder, u.Dis-n)
		if u.Remnant {
			u.Dis = max(u.Dis, Disorganized)
		}
		if u.Dis != was {
			moved = append(moved, fmt.Sprintf("%s %s", u.ID, DisruptionNames[u.Dis]))
		}
	}
	if len(moved) > 0 {
		g.Event("11.1", "reorganization: %s", strings.Join(moved, ", "))
	}
}

// forcedFallBacks moves side's isolated units that did not fall back (15.3) along
// their fall back path until they are no longer isolated and not next to an enemy. A
// unit with no supply line to follow goes first, through enemy ZOC if need be, to the
// nearest hex with one (21, 13.1: zocExits).
func (g *game) forcedFallBacks(side rules.Side) {
	if !g.st.revised(1) {
		g.forcedFallBacksRev0(side)
		return
	}
	ignore := g.movedThisTurn(sides.Other(side))
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where != OnMap || g.sideOf(u) != side || g.moved[u.ID] || g.counter(u).Kind == KindTank {
			continue
		}
		h := g.hexOf(u)
		if !g.isolated(side, h) {
			continue
		}
		dist := g.edgeDistances(side, ignore)
		path := []hex.Hex{h}
		if _, on := g.startDist(dist, h); !on {
			if exits, _ := g.zocExits(side, h, dist, ignore); len(exits) > 0 {
				path = exits[0].path
			}
		}
		ok := false
		for cur := path[len(path)-1]; ; {
			if cur != h && !g.isolatedIn(side, []*Unit{u}, cur) && !g.nextToEnemy(side, cur) && g.stackAfter(cur, side, []*Unit{u}) == "" {
				ok = true
				break
			}
			d, on := g.startDist(dist, cur)
			if !on || d == 0 {
				break
			}
			var next hex.Hex
			found := false
			for _, n := range g.sc.Map.Grid.Neighbours(cur) {
				if dn, on := dist[n]; on && dn == d-1 && !g.aisne(cur, n) {
					next, found = n, true
					break
				}
			}
			if !found {
				break
			}
			path = append(path, next)
			cur = next
		}
		if !ok || g.fallBack(side, []string{u.ID}, path) != nil {
			g.Event("15.3", "%s in %s is isolated and finds no fall back to a supplied hex", u.ID, h)
			continue
		}
		g.Event("15.3", "%s was isolated and had to fall back (15.3; default path)", u.ID)
	}
}

func (g *game) nextToEnemy(side rules.Side, h hex.Hex) bool {
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		if len(g.unitsAt(n, sides.Other(side))) > 0 {
			return true
		}
	}
	return false
}

// spentWithdrawal removes the Entente's spent divisions at the end of his fall back
// (7, 19.6.2). 4.2 C.8: their tank groups "may be attached to an adjacent division if
// that division is in command and not in a ravine hex unconnected by road to the tank
// group original hex. Otherwise, the tank group is permanently removed": "may", so
// the Entente's standing SPENT order chooses (the first eligible division it names,
// or REMOVE); by default (HELP) each goes to the first such division without a tank
// group, in map order.
func (g *game) spentWithdrawal() {
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where != OnMap || g.sideOf(u) != EN || g.counter(u).Kind != KindDivision || g.strength(u) > 5 {
			continue
		}
		h := g.hexOf(u)
		if u.Tank != "" {
			t := g.st.unit(u.Tank)
			u.Tank = ""
			to, why, note := g.spentTankChoice(t, h)
			// note (a SPENT order no division of which could take the tank group) is
			// the Entente's alone: the German sees where it goes (invariant 5).
			var own, others string
			if to == nil {
				t.Where, t.Hex = Removed, ""
				others = fmt.Sprintf("tank group %s of the spent %s has no division to go to and is removed", t.ID, u.ID)
				if why != "" {
					others = fmt.Sprintf("tank group %s of the spent %s is removed (%s)", t.ID, u.ID, why)
				}
				own = others
				if note != "" {
					own = fmt.Sprintf("tank group %s of the spent %s is removed (%s)", t.ID, u.ID, note)
				}
			} else {
				t.Hex, to.Tank = to.Hex, t.ID
				others = fmt.Sprintf("tank group %s of the spent %s goes to %s in %s (%s)", t.ID, u.ID, to.ID, to.Hex, why)
				own = fmt.Sprintf("tank group %s of the spent %s goes to %s in %s (%s%s)", t.ID, u.ID, to.ID, to.Hex, note, why)
			}
			g.ToEach("4.2", nil, EN, own, others)
		}
		u.Where, u.Hex = Removed, ""
		g.Event("19.6.2", "%s is spent and withdrawn from play", u.ID)
	}
}

// tankHeir is the division next to h that may take the tank group of a spent division
// in h (4.2 C.8), or nil.
func (g *game) tankHeir(h hex.Hex) *Unit {
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		for _, d := range g.combatAt(n, EN) {
			if g.mayInherit(d, h) {
				return d
			}
		}
	}
	return nil
}

// mayInherit reports whether division d may take the tank group of a spent division
// in h (4.2 C.8): adjacent, in command, not itself spent, without a tank group (9),
// and not in a ravine hex unconnected by road to h.
func (g *game) mayInherit(d *Unit, h hex.Hex) bool {
	if d.Where != OnMap || g.sideOf(d) != EN || g.counter(d).Kind != KindDivision || d.Tank != "" || g.strength(d) <= 5 {
		return false
	}
	n := g.hexOf(d)
	if !g.sc.Map.Grid.Adjacent(h, n) || !g.inCommand(d) {
		return false
	}
	return g.sc.Map.Terrain(n) != "ravine" || g.sc.Map.SideHas(h, n, "road")
}

// spentTankChoice is where the tank group t of a spent division in h goes (4.2 C.8):
// the Entente's standing SPENT order (its first eligible division, or REMOVE), else
// the default; nil: removed. why says which, for the result mail ("": no order and
// no division may take it).
//
// note, when not empty, says that the Entente's SPENT order named no division that may
// take it: the Entente's alone to be told.
func (g *game) spentTankChoice(t *Unit, h hex.Hex) (to *Unit, why, note string) {
	if o := g.standingText(EN, kSpent+" "+t.ID); o != "" {
		f := strings.Fields(o)
		if f[2] == "REMOVE" {
			return nil, "the Entente's SPENT order", ""
		}
		for _, id := range strings.Split(f[2], ",") {
			if d := g.st.unit(id); d != nil && g.mayInherit(d, h) {
				return d, "the Entente's SPENT order", ""
			}
		}
		note = "no division of your SPENT order may take it"
		if d := g.tankHeir(h); d != nil {
			return d, "default: the first eligible neighbour", note + "; "
		}
		return nil, "", note + ", nor any other"
	}
	if d := g.tankHeir(h); d != nil {
		return d, "default: the first eligible neighbour", ""
	}
	return nil, "", ""
}

// end finishes the game with the victory count (3.3, 3.4).
func (g *game) end() error {
	g.st.P = StepOver
	g.st.Verdict = g.verdict()
	g.Event("3.4", "%s", g.st.Verdict)
	return nil
}

// VP counts the Entente victory points (3.3) and says how.
func (g *game) VP() (int, []string) {
	var why []string
	total := 0
	for _, t := range g.sc.Towns {
		if t.Circle == "none" {
			continue
		}
		if g.st.Control[t.Name] == EN && t.Circle == "black" {
			total += t.VP
			why = append(why, fmt.Sprintf("%s %d (Entente)", t.Name, t.VP))
			continue
		}
		best := -1
		for i := range g.st.Units {
			u := &g.st.Units[i]
			// 3.3: "the closest Entente unit": an HQ is one (2.3.1), a tank group
			// stands with its division.
			if u.Where != OnMap || g.sideOf(u) != EN || !g.st.revised(1) && !g.counter(u).Combat() {
				continue
			}
			for _, h := range t.Hexes {
				if d := g.sc.Map.Grid.Distance(h, g.hexOf(u)); best < 0 || d < best {
					best = d
				}
			}
		}
		if best >= 0 && t.VP-best > 0 {
			total += t.VP - best
			why = append(why, fmt.Sprintf("%s %d-%d", t.Name, t.VP, best))
		}
	}
	return total, why
}

// verdict is the last mail's count (3.3, 3.4).
func (g *game) verdict() string {
	if g.st.Sudden {
		return "Sudden Death: the Entente entered a red location: Entente Outstanding Performance Victory (3.2, 3.4)"
	}
	var held []string
	for _, t := range g.sc.Towns {
		if t.Circle == "none" && g.st.Control[t.Name] == DE {
			held = append(held, t.Name)
		}
	}
	if len(held) >= 2 {
		return fmt.Sprintf("German Outstanding Performance Victory: the Germans still hold %s, uncircled towns, so no VP are counted (3.3)", strings.Join(held, ", "))
	}
	vp, why := g.VP()
	pen := ""
	if len(held) == 1 {
		vp -= 5
		pen = fmt.Sprintf(", -5 for %s still German", held[0])
	}
	level := "German Outstanding Performance Victory"
	switch {
	case vp > 12:
		level = "Entente Outstanding Performance Victory"
	case vp >= 10:
		level = "Entente Superior Performance Victory"
	case vp >= 7:
		level = "Draw"
	case vp >= 4:
		level = "German Superior Performance Victory"
	}
	return fmt.Sprintf("%d Entente VP (%s%s): %s (3.4)", vp, strings.Join(why, ", "), pen, level)
}
