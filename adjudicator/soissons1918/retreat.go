package soissons1918

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
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
	// N is the retreat number after the remnants' converted losses (20.4.7: "For each
	// Loss thus canceled, increase the retreat number by one") and the 21.1
	// conversion, which the combat code adds itself (see convertLoss). With N < 1
	// nothing retreats.
	N int
	// Segment is SegAssault or SegImprovised (4.2 C.4, C.7).
	Segment string
}

// RetreatResult says what happened, for the combat's result lines.
type RetreatResult struct {
	// Lines are the texts retreat has already emitted as events: each unit's path,
	// where its destination came from (an order or the default), its disruption and
	// why, eliminations.
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
	advanced  map[string]bool  // units that advanced after combat (19.5)
}

// Retreat policies of the standing order RETREAT ALL (HELP).
const (
	PolicyLine  = "LINE"  // the default: on the supply line rather than beside it
	PolicyCover = "COVER" // the best defensive terrain of 20.4.5 first
)

// an end is one hex a retreat may end in, with how it gets there.
type end struct {
	at     hex.Hex
	path   []hex.Hex // from the defender's hex to at
	onLine bool      // on the supply line, not beside it (21)
	zoc    bool      // the path enters an enemy ZOC (21: isolated units)
	edge   int       // the supply line's length from at (15.1)
}

// retreat carries out one combat's mandatory retreat (21): every defending unit in
// From ends at least N hexes from every attacker hex, along its supply path but for
// the last hex, which may be beside it; isolated units move through enemy ZOC towards
// the nearest hex where they are not isolated; never ending next to an enemy unit
// (eliminated if impossible, remnants too); threat zones ignored; stacking limits
// applied after (16). Destinations within the rules are the defender's standing
// RETREAT orders, else the default in HELP. Disruption: 21.2 (two or more hexes), 4.2
// C.4 / C.7 by Segment, and one more level for moving through enemy ZOC (21, 15.4).
// HQs share the retreat without disruption and turn to "artillery used" (10). Retreat
// markers are NOT placed here: call endRetreats once the segment's last combat is
// resolved (4.2 C.4, C.7: "After all retreats are completed").
func (g *game) retreat(c RetreatCall) RetreatResult {
	var res RetreatResult
	var us []*Unit
	for _, u := range g.at(c.From, "") {
		if g.counter(u).Kind != KindTank { // tank groups move with their division (9)
			us = append(us, u)
		}
	}
	if c.N < 1 || len(us) == 0 {
		return res
	}
	side := g.sideOf(us[0])
	// Combat units first, then HQs, which by default follow the first of them (10:
	// "they share with them the mandatory retreat results").
	slices.SortStableFunc(us, func(a, b *Unit) int {
		return boolFirst(g.counter(a).Kind != KindHQ, g.counter(b).Kind != KindHQ)
	})
	ends := g.retreatEnds(side, c.From, c.Attackers, c.N)
	say := func(format string, args ...any) {
		t := fmt.Sprintf(format, args...)
		res.Lines = append(res.Lines, t)
		g.Event("21", "%s", t)
	}
	// sayEach tells the owner own and the attacker others (chooseEnd).
	sayEach := func(own, others string) {
		res.Lines = append(res.Lines, own)
		g.ToEach("21", nil, side, own, others)
	}
	if len(ends) == 0 {
		for _, u := range us {
			g.eliminate(u)
			res.Eliminated = append(res.Eliminated, u.ID)
		}
		say("%s in %s cannot retreat %d hex(es) from the attackers without ending next to an enemy unit: eliminated (21)",
			strings.Join(ids(us), ","), c.From, c.N)
		res.Vacated = true
		g.noteVacated(c)
		return res
	}
	touched := map[hex.Hex]bool{}
	var first *end
	for _, u := range us {
		e, why, own, ordered := g.chooseEnd(side, u, ends)
		// An HQ goes with the stack's first unit unless its owner's orders chose its
		// end (HELP).
		if g.counter(u).Kind == KindHQ && first != nil && !ordered {
			e, why, own = first, "default: with the first unit of the stack (10)", "default: with the first unit of the stack (10)"
		}
		if first == nil {
			first = e
		}
		k := len(e.path) - 1
		var up []string
		if g.counter(u).Combat() {
			if k >= 2 {
				up = append(up, "21.2: two or more hexes")
			}
			if c.Segment == SegAssault && k >= 4 {
				up = append(up, "4.2 C.4: four or more hexes after an assault")
			}
			if c.Segment == SegImprovised && u.Retreat && k >= 2 {
				up = append(up, "4.2 C.7: already marked Retreat")
			}
			if e.zoc {
				up = append(up, "21: through enemy ZOC")
			}
		}
		g.disrupt(u, len(up))
		g.moveTo(u, e.at)
		g.displaceEnemyHQs(side, e.at)
		touched[e.at] = true
		g.rlog.retreated = append(g.rlog.retreated, u.ID)
		text := func(why string) string {
			t := fmt.Sprintf("%s retreats %s (%d hex(es); %s)", u.ID, pathString(e.path), k, why)
			if len(up) > 0 {
				t += fmt.Sprintf(": disruption +%d (%s), now %s", len(up), strings.Join(up, "; "), DisruptionNames[u.Dis])
			}
			return t
		}
		sayEach(text(own), text(why))
	}
	for _, h := range sortedHexes(touched) {
		res.Eliminated = append(res.Eliminated, g.removeExcess(h, side, "21")...)
	}
	res.Vacated = len(g.at(c.From, side)) == 0
	if res.Vacated {
		g.noteVacated(c)
	}
	return res
}

func (g *game) noteVacated(c RetreatCall) {
	if c.Segment != SegImprovised {
		return
	}
	if g.rlog.vacated == nil {
		g.rlog.vacated = map[hex.Hex]bool{}
	}
	g.rlog.vacated[c.From] = true
}

// retreatEnds lists every hex a unit of side in from may end a retreat of at least n
// hexes from every attacker in: the shortest retreat the rules allow (21), every end
// of that length. None: the unit is eliminated.
func (g *game) retreatEnds(side rules.Side, from hex.Hex, attackers []hex.Hex, n int) []end {
	dist := g.retreatDistances(side)
	enemy := sides.Other(side)
	legal := func(h hex.Hex) bool {
		for _, a := range attackers {
			if g.sc.Map.Grid.Distance(h, a) < n {
				return false
			}
		}
		return len(g.combatAt(h, enemy)) == 0 && !g.nextToEnemy(side, h)
	}
	start := []end{{at: from, path: []hex.Hex{from}}}
	if _, ok := g.startDist(dist, from); !ok {
		// 21: "if the unit is isolated, it must move through enemy directly towards
		// the closest hex where it is no longer isolated ... If two or more such
		// hexes are equidistant, choose the closest to the friendly map edge."
		start = g.towardsSupply(side, from, dist)
		if len(start) == 0 {
			return nil
		}
		var out []end
		for _, s := range start {
			if legal(s.at) {
				out = append(out, s)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	// 21: "it must follow the retreating unit's supply path, except for the last hex
	// of the retreat, which may be adjacent to the supply line": level by level down
	// the supply line, each step one hex nearer the friendly edge (the defender
	// chooses among equal lines, 15.1), the last step to any hex next to the line.
	level := start
	for first := true; len(level) > 0; first = false {
		var next, out []end
		seen, seenEnd := map[hex.Hex]bool{}, map[hex.Hex]bool{}
		for _, p := range level {
			d, _ := g.startDist(dist, p.at)
			if d == 0 {
				continue // the friendly edge: the line ends here
			}
			for _, q := range g.sc.Map.Grid.Neighbours(p.at) {
				if !g.sc.Map.OnMap(q) || g.aisne(p.at, q) || len(g.combatAt(q, enemy)) > 0 {
					continue
				}
				dq, ok := dist[q]
				onLine := ok && dq == d-1
				if onLine && !seen[q] {
					seen[q] = true
					next = append(next, end{at: q, path: appendPath(p.path, q), onLine: true, zoc: p.zoc, edge: dq})
				}
				// The last hex may be any hex next to p, which is on the line: "adjacent
				// to the supply line". The 20.4.7 example reads so: 1713, next to the
				// line's 1612, is refused only for being two hexes from attacker X.
				// The unit's own hex is not part of its line (15.1), so a one-hex
				// retreat ends on the line or next to one of its first hexes.
				if seenEnd[q] || !legal(q) || (first && !onLine && !g.besideFirst(dist, p.at, q, d)) {
					continue
				}
				seenEnd[q] = true
				e, _ := g.startDist(dist, q)
				out = append(out, end{at: q, path: appendPath(p.path, q), onLine: onLine, zoc: p.zoc, edge: e})
			}
		}
		if len(out) > 0 {
			return out
		}
		level = next
	}
	return nil
}

// hqRetreatChoice is the displaced HQ's own choice of its four-hex retreat (10): the
// first hex of its standing RETREAT order that ends a retreat of n hexes along its
// supply line (dist, traced without the entering units), the last hex on the line or
// next to it (21); nil when it has no such order or none of its hexes does.
func (g *game) hqRetreatChoice(hq *Unit, dist map[hex.Hex]int, n int) ([]hex.Hex, string) {
	o := g.standingText(g.sideOf(hq), kRetreat+" "+hq.ID)
	f := strings.Fields(o)
	if len(f) != 3 || f[2] == "DEFAULT" || n < 1 {
		return nil, ""
	}
	enemy := sides.Other(g.sideOf(hq))
	from := g.hexOf(hq)
	level := [][]hex.Hex{{from}}
	ends := map[hex.Hex][]hex.Hex{}
	for k := 1; k <= n; k++ {
		var next [][]hex.Hex
		seen := map[hex.Hex]bool{}
		for _, p := range level {
			at := p[len(p)-1]
			d, ok := dist[at]
			if at == from {
				d, ok = g.startDist(dist, from)
			}
			if !ok {
				continue
			}
			for _, q := range g.sc.Map.Grid.Neighbours(at) {
				if !g.sc.Map.OnMap(q) || g.aisne(at, q) || len(g.at(q, enemy)) > 0 {
					continue
				}
				dq, on := dist[q]
				on = on && dq == d-1
				if on && !seen[q] {
					seen[q] = true
					next = append(next, appendPath(p, q))
				}
				if _, dup := ends[q]; k == n && !dup && (on || k > 1 || g.besideFirst(dist, from, q, d)) {
					ends[q] = appendPath(p, q)
				}
			}
		}
		level = next
	}
	for _, w := range strings.Split(f[2], ",") {
		for at, p := range ends {
			if at.String() == w {
				return p, "its owner's RETREAT order"
			}
		}
	}
	return nil, ""
}

// besideFirst reports whether q is next to a first hex of the supply line from p, the
// retreating unit's hex (one of p's neighbours one hex nearer the edge).
func (g *game) besideFirst(dist map[hex.Hex]int, p, q hex.Hex, d int) bool {
	for _, r := range g.sc.Map.Grid.Neighbours(q) {
		if dr, ok := dist[r]; ok && dr == d-1 && g.sc.Map.Grid.Adjacent(r, p) && !g.aisne(p, r) {
			return true
		}
	}
	return false
}

func appendPath(p []hex.Hex, h hex.Hex) []hex.Hex {
	return append(slices.Clone(p), h)
}

// towardsSupply is the isolated unit's retreat (21): the shortest paths, through enemy
// ZOC but never through enemy units, to the nearest hexes where a unit of side is no
// longer isolated, the ties kept to the hexes nearest the friendly edge. Among equal
// paths one avoiding enemy ZOC is taken (13.1: "may retreat through enemy ZOC only if
// not possible otherwise").
func (g *game) towardsSupply(side rules.Side, from hex.Hex, dist map[hex.Hex]int) []end {
	enemy := sides.Other(side)
	ez := g.zoc(enemy)
	type node struct {
		path []hex.Hex
		zoc  bool
	}
	best := map[hex.Hex]node{from: {path: []hex.Hex{from}}}
	level := []hex.Hex{from}
	for len(level) > 0 {
		var found []end
		for _, h := range level {
			if h == from {
				continue
			}
			if e, ok := g.startDist(dist, h); ok {
				found = append(found, end{at: h, path: best[h].path, onLine: true, zoc: best[h].zoc, edge: e})
			}
		}
		if len(found) > 0 {
			m := slices.MinFunc(found, func(a, b end) int { return cmp.Compare(a.edge, b.edge) }).edge
			return slices.DeleteFunc(found, func(e end) bool { return e.edge != m })
		}
		var next []hex.Hex
		for _, h := range level {
			for _, n := range g.sc.Map.Grid.Neighbours(h) {
				if !g.sc.Map.OnMap(n) || g.aisne(h, n) || len(g.combatAt(n, enemy)) > 0 {
					continue
				}
				cand := node{path: appendPath(best[h].path, n), zoc: best[h].zoc || ez[n]}
				old, seen := best[n]
				switch {
				case !seen:
					best[n] = cand
					next = append(next, n)
				case len(old.path) == len(cand.path) && old.zoc && !cand.zoc:
					best[n] = cand
				}
			}
		}
		level = next
	}
	return nil
}

// retreatDistances is, for every hex a retreating unit of side may trace its supply
// path through, the path's length to the friendly edge: free of enemy units and
// enemy ZOC (15.1), the Aisne impassable, threat zones ignored (21: "Threat Zones do
// not affect retreat in any way").
func (g *game) retreatDistances(side rules.Side) map[hex.Hex]int {
	enemy := sides.Other(side)
	ez := g.zoc(enemy)
	return g.distancesToEdge(side, func(h hex.Hex) bool { return !ez[h] && len(g.unitsAt(h, enemy)) == 0 })
}

// distancesToEdge is, for every hex on the map that free allows and that reaches
// side's friendly edge through such hexes, the number of hexes to the edge, the Aisne
// impassable (15.1).
func (g *game) distancesToEdge(side rules.Side, free func(hex.Hex) bool) map[hex.Hex]int {
	m := g.sc.Map
	dist := map[hex.Hex]int{}
	var queue []hex.Hex
	for _, h := range m.Hexes() {
		if g.edge(side, h) && free(h) {
			dist[h] = 0
			queue = append(queue, h)
		}
	}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		for _, n := range m.Grid.Neighbours(h) {
			if _, seen := dist[n]; seen || !m.OnMap(n) || g.aisne(h, n) || !free(n) {
				continue
			}
			dist[n] = dist[h] + 1
			queue = append(queue, n)
		}
	}
	return dist
}

// chooseEnd picks u's end among the legal ones: its standing RETREAT order's first
// hex that is legal, else the side's RETREAT ALL policy, else the default (HELP):
// a hex where the stack stays within the limits of 16, on the supply line rather than
// beside it, nearest the friendly edge, then the lowest hex id. why says whose choice it
// was as both sides are told it, own as its owner is: a RETREAT order none of whose
// hexes is allowed, and a RETREAT ALL policy that picks the hex the default would, had
// no effect, and are told to the owner alone (invariant 5: the attacker sees where the
// unit went, not the orders that did not choose it). ordered says the owner's orders
// chose: its RETREAT order, or, with no RETREAT order of it unmet, the RETREAT ALL policy.
func (g *game) chooseEnd(side rules.Side, u *Unit, ends []end) (e *end, why, own string, ordered bool) {
	note := ""
	if o := g.standingText(side, "retreat "+u.ID); o != "" {
		f := strings.Fields(o)
		if len(f) == 3 && f[2] != "DEFAULT" {
			for _, w := range strings.Split(f[2], ",") {
				for i := range ends {
					if ends[i].at.String() == w {
						return &ends[i], "its owner's RETREAT order", "its owner's RETREAT order", true
					}
				}
			}
			note = "no hex of its owner's RETREAT order is allowed; "
		}
	}
	const dflt = "default: within stacking limits, on the supply line, nearest the friendly edge"
	policy, own := PolicyLine, dflt
	if o := g.standingText(side, "retreat"); o != "" {
		policy = strings.Fields(o)[2]
		own = "its owner's RETREAT ALL " + policy + " order"
		ordered = note == ""
	}
	e, why = g.bestEnd(side, u, ends, policy), own
	if g.bestEnd(side, u, ends, PolicyLine).at == e.at {
		why = dflt
	}
	return e, why, note + own, ordered
}

// bestEnd is u's best end under policy (chooseEnd).
func (g *game) bestEnd(side rules.Side, u *Unit, ends []end, policy string) *end {
	cover := map[string]int{"city": 3, "village": 2, "ravine": 2, "woods": 1}
	sorted := slices.Clone(ends)
	slices.SortStableFunc(sorted, func(a, b end) int {
		sa, sb := g.stackAfter(a.at, side, []*Unit{u}) == "", g.stackAfter(b.at, side, []*Unit{u}) == ""
		if sa != sb {
			return boolFirst(sa, sb)
		}
		if policy == PolicyCover {
			if ca, cb := cover[g.sc.Map.Terrain(a.at)], cover[g.sc.Map.Terrain(b.at)]; ca != cb {
				return cmp.Compare(cb, ca)
			}
		}
		if a.onLine != b.onLine {
			return boolFirst(a.onLine, b.onLine)
		}
		if a.edge != b.edge {
			return cmp.Compare(a.edge, b.edge)
		}
		return hex.Compare(a.at, b.at)
	})
	for i := range ends {
		if ends[i].at == sorted[0].at {
			return &ends[i]
		}
	}
	return &ends[0] // not reached
}

func boolFirst(a, b bool) int {
	switch {
	case a && !b:
		return -1
	case b && !a:
		return 1
	}
	return 0
}

// eliminate removes a unit from play, with its tank group (9: a tank group "must be
// stacked with a division at all times").
func (g *game) eliminate(u *Unit) {
	if u.Tank != "" {
		if t := g.st.unit(u.Tank); t != nil {
			t.Where, t.Hex = Removed, ""
		}
		u.Tank = ""
	}
	u.Where, u.Hex = Removed, ""
	u.Prepare, u.Improvised = false, ""
}

// displaceEnemyHQs makes enemy HQs alone in h retreat when units of side enter it
// (10).
func (g *game) displaceEnemyHQs(side rules.Side, h hex.Hex) {
	if len(g.at(h, sides.Other(side))) > 0 {
		g.displaceHQs(h)
	}
}

// endRetreats places the Retreat markers on every unit that retreated at least one
// hex in the segment (4.2 C.4, C.7), turns such HQs to "artillery used" (10), and
// forgets the segment's retreats. Call it once after the segment's last combat.
func (g *game) endRetreats() {
	for _, id := range g.rlog.retreated {
		u := g.st.unit(id)
		if u == nil || u.Where != OnMap {
			continue
		}
		u.Retreat = true
		if g.counter(u).Kind == KindHQ {
			u.ArtUsed = true
		}
	}
	g.rlog.retreated = nil
}

// convertLoss answers the defender's 21.1 choice for one combat: whether to convert
// one loss (and no more than one) into one more hex of retreat, from the defender's
// standing CONVERT orders (a unit's own order first, in the order of defenders, then
// CONVERT ALL or NONE), else the default: no conversion. defenders are the units
// attacked in the combat, losses the defender loss number before the conversion.
// why says whether the answer came from an order or the default, for the result
// mail. The combat code applies the answer: losses-1, retreat number+1 (1 when the
// CRT called for none).
func (g *game) convertLoss(defenders []*Unit, losses int) (convert bool, why string) {
	if losses < 1 || len(defenders) == 0 {
		return false, "no loss to convert (21.1)"
	}
	side := g.sideOf(defenders[0])
	for _, u := range defenders {
		if o := g.standingText(side, "convert "+u.ID); o != "" {
			yes := strings.HasSuffix(o, " YES")
			return yes, fmt.Sprintf("the defender's order %q (21.1)", o)
		}
	}
	if o := g.standingText(side, "convert"); o != "" {
		return o == "CONVERT ALL", fmt.Sprintf("the defender's order %q (21.1)", o)
	}
	return false, "default: no conversion (21.1)"
}

// standingID is where Resolve files a standing order in game.standing: under its side
// and its key (LOSSES under "losses", bombard.go and lossOrder).
type standingID struct {
	side rules.Side
	key  string
}

// standingText is side's standing order with key, or "".
func (g *game) standingText(side rules.Side, key string) string {
	return g.standing[standingID{side, key}]
}

// removeExcess brings side's stack in h within the limits of 16 when a movement or a
// retreat left it over: "the owning player immediately eliminates sufficient SP of
// his choice". The stack is brought to one of 16's kinds (stackProblem): whole units
// go to leave one division, or three regiments of one division and remnants; SP go as
// losses to bring it to 6 SP; or some units go and the rest lose SP. The choice is
// the owner's standing LOSSES order (the units named there give up SP first), else
// the default of HELP: the fewest SP eliminated, then the fewest units, then the
// strongest first. It returns the ids of the units eliminated.
func (g *game) removeExcess(h hex.Hex, side rules.Side, rule string) []string {
	us := g.combatAt(h, side)
	if g.stackProblem(us) == "" {
		return nil
	}
	problem := g.stackProblem(us)
	// The LOSSES order's units of this hex: an order naming none of them plays no part
	// (the default chooses, and says so: the other side is not told of an order that
	// chose nothing, invariant 5).
	order := slices.DeleteFunc(g.lossOrder(side), func(id string) bool {
		return !slices.ContainsFunc(us, func(u *Unit) bool { return u.ID == id })
	})
	rank := func(u *Unit) int {
		if i := slices.Index(order, u.ID); i >= 0 {
			return i
		}
		return len(order)
	}
	why := "default: the fewest SP"
	if len(order) > 0 {
		why = "its owner's LOSSES order"
	}
	// The count limits: the set of whole units to eliminate, chosen among every
	// subset (a hex holds few units).
	var gone []*Unit
	var bestCost []int
	found := false
	for mask := 0; mask < 1<<len(us); mask++ {
		var keep, drop []*Unit
		for i, u := range us {
			if mask&(1<<i) != 0 {
				drop = append(drop, u)
			} else {
				keep = append(keep, u)
			}
		}
		if p := g.stackProblem(keep); p != "" && !g.st.revised(1) && !strings.Contains(p, "SP, at most") {
			continue // revision 0: the count limits first, then SP
		}
		unnamed, sp, ranks := 0, 0, 0
		for _, u := range drop {
			if rank(u) == len(order) {
				unnamed++
			}
			sp += g.strength(u)
			ranks += rank(u)
		}
		losses := 0
		if g.stackProblem(keep) != "" && g.st.revised(1) {
			// The rest brought to 6 SP by losses (16: "up to 6 SP").
			for _, u := range keep {
				losses += g.strength(u)
			}
			losses -= 6
		}
		// Equal SP: whole units rather than losses (a remnant rather than a step of a
		// regiment).
		cost := []int{sp + losses, losses, len(drop), ranks}
		if len(order) > 0 {
			cost = []int{unnamed, ranks, sp + losses, losses}
		}
		if !g.st.revised(1) {
			cost = []int{sp, len(drop), ranks}
			if len(order) > 0 {
				cost = []int{unnamed, ranks, sp}
			}
		}
		if !found || slices.Compare(cost, bestCost) < 0 {
			found, gone, bestCost = true, drop, cost
		}
	}
	var out []string
	var lines []string
	for _, u := range gone {
		g.eliminate(u)
		out = append(out, u.ID)
		lines = append(lines, u.ID+" eliminated")
	}
	// The SP limit: losses, the named units first, else the strongest.
	for range 12 {
		left := g.combatAt(h, side)
		p := g.stackProblem(left)
		if p == "" {
			break
		}
		slices.SortStableFunc(left, func(a, b *Unit) int {
			if ra, rb := rank(a), rank(b); ra != rb {
				return cmp.Compare(ra, rb)
			}
			return cmp.Compare(g.strength(b), g.strength(a))
		})
		u := left[0]
		if u.Remnant || g.strength(u) <= 1 {
			g.eliminate(u)
			out = append(out, u.ID)
			lines = append(lines, u.ID+" eliminated")
			continue
		}
		lines = append(lines, g.takeLoss(u))
	}
	g.Event("16", "%s over-stacked in %s after the %s (%s): %s (%s)", sides.Name(side), h, map[string]string{"21": "retreat", "19": "move", "19.6": "fall back", "19.7": "pursuit", "19.5": "advance"}[rule], problem, strings.Join(lines, "; "), why)
	return out
}

// movementRules names the segments whose end enforces 16's limits: "at the end of
// every voluntary movement (during the Maneuver segment, the Advance after Combat
// segment and the Fall Back segment and the Pursuit segment)".
// PREPARE and IMPROVISE share the maneuver's rank (resolve.go), so that a mail whose
// last maneuver order buys a marker still ends the segment.
var movementRules = map[string]string{kMove: "19", kPrepare: "19", kImprovise: "19", kFallBack: "19.6", kPursue: "19.7", kAdvance: "19.5"}

// endMovement enforces 16 once a movement segment of side is over: "There are no
// stacking limits during the course of the movement ... as long as stacking limits
// are obeyed once movement is completed", so the order in which a mail's moves are
// written never costs SP.
func (g *game) endMovement(side rules.Side, kind string) {
	rule, ok := movementRules[kind]
	if !ok {
		return
	}
	for _, h := range g.combatHexes(side) {
		g.removeExcess(h, side, rule)
	}
}

// warnStacking tells, in the order check, of each accepted move that leaves its hex
// over the limits of 16 once all the mail's orders for the step are tried: the move
// stands, and the owner loses the excess SP at the end of the segment.
func (g *game) warnStacking(side rules.Side, items []item, now []int, out []rules.Checked) {
	for _, i := range now {
		it := items[i]
		if it.kind == kPrepare || it.kind == kImprovise || !out[i].OK {
			continue
		}
		if _, ok := movementRules[it.kind]; !ok {
			continue
		}
		to := it.at
		if len(it.path) > 0 {
			to = it.path[len(it.path)-1]
		}
		if p := g.stackProblem(g.combatAt(to, side)); p != "" && to != noHex {
			out[i].Reason += fmt.Sprintf("; WARNING: %s will be over-stacked (%s): at the end of the segment you lose the excess SP (16; your LOSSES order, else the default of HELP)", to, p)
		}
	}
}

// lossOrder is side's standing LOSSES order as a list of unit ids.
func (g *game) lossOrder(side rules.Side) []string {
	o, ok := g.standing[standingID{side, kLosses}]
	if !ok || o == "LOSSES DEFAULT" {
		return nil
	}
	return strings.Split(strings.TrimPrefix(o, "LOSSES "), ",")
}

func ids(us []*Unit) []string {
	out := make([]string, len(us))
	for i, u := range us {
		out[i] = u.ID
	}
	return out
}

func sortedHexes(m map[hex.Hex]bool) []hex.Hex {
	var out []hex.Hex
	for h := range m {
		out = append(out, h)
	}
	slices.SortFunc(out, hex.Compare)
	return out
}

// Standing order kinds of the defender's retreat choices (HELP).
const (
	kRetreat = "retreat" // RETREAT <unit>[,<unit>] <hex>[,<hex>]|DEFAULT; RETREAT ALL LINE|COVER
	kConvert = "convert" // CONVERT ALL|NONE; CONVERT <unit>[,<unit>] YES|NO
	kSpent   = "spent"   // SPENT <tank group> <division>[,<division>]|REMOVE (4.2 C.8)
)

// parseRetreatOrder reads the RETREAT, CONVERT, SPENT and ADVANCE lines (21, 21.1,
// 4.2 C.8, 19.5).
func (sc *Scenario) parseRetreatOrder(it item, units func(string) ([]string, error), oneHex func(string) (hex.Hex, error)) item {
	f := it.line.Fields
	bad := func(rule, format string, args ...any) item {
		it.rule, it.err = rule, fmt.Errorf(format, args...)
		return it
	}
	var err error
	switch kw := orders.Upper(f[0]); kw {
	case "RETREAT":
		it.rule, it.kind = "21", kRetreat
		if len(f) != 3 {
			return bad("21", "want RETREAT <unit>[,<unit>...] <hex>[,<hex>...] (where they end a retreat, first choice first), RETREAT <unit> DEFAULT, or RETREAT ALL LINE|COVER")
		}
		if orders.EqualFold(f[1], "ALL") {
			p := orders.Upper(f[2])
			if p != PolicyLine && p != PolicyCover {
				return bad("21", "want RETREAT ALL LINE or RETREAT ALL COVER")
			}
			it.text = "RETREAT ALL " + p
			return it
		}
		if it.units, err = units(f[1]); err != nil {
			return bad("21", "%v", err)
		}
		if orders.EqualFold(f[2], "DEFAULT") {
			it.text = fmt.Sprintf("RETREAT %s DEFAULT", strings.Join(it.units, ","))
			return it
		}
		var hs []string
		for _, w := range strings.Split(f[2], ",") {
			h, err := oneHex(w)
			if err != nil {
				return bad("21", "%v", err)
			}
			hs = append(hs, h.String())
		}
		it.text = fmt.Sprintf("RETREAT %s %s", strings.Join(it.units, ","), strings.Join(hs, ","))
	case "CONVERT":
		it.rule, it.kind = "21.1", kConvert
		switch {
		case len(f) == 2 && (orders.EqualFold(f[1], "ALL") || orders.EqualFold(f[1], "NONE")):
			it.text = "CONVERT " + orders.Upper(f[1])
		case len(f) == 3 && (orders.EqualFold(f[2], "YES") || orders.EqualFold(f[2], "NO")):
			if it.units, err = units(f[1]); err != nil {
				return bad("21.1", "%v", err)
			}
			it.text = fmt.Sprintf("CONVERT %s %s", strings.Join(it.units, ","), orders.Upper(f[2]))
		default:
			return bad("21.1", "want CONVERT ALL, CONVERT NONE, or CONVERT <unit>[,<unit>...] YES|NO")
		}
	case "SPENT":
		it.rule, it.kind = "4.2", kSpent
		if len(f) != 3 {
			return bad("4.2", "want SPENT <tank group> <division>[,<division>...] or SPENT <tank group> REMOVE")
		}
		c, ok := sc.Counter(f[1])
		if !ok || c.Kind != KindTank {
			return bad("9", "no tank group %q (T1-T8)", f[1])
		}
		it.units = []string{c.ID}
		if orders.EqualFold(f[2], "REMOVE") {
			it.text = "SPENT " + c.ID + " REMOVE"
			return it
		}
		var ds []string
		for _, w := range strings.Split(f[2], ",") {
			d, ok := sc.Counter(w)
			if !ok || d.Kind != KindDivision || d.Side != EN {
				return bad("4.2", "no Entente division %q", w)
			}
			ds = append(ds, d.ID)
		}
		it.text = fmt.Sprintf("SPENT %s %s", c.ID, strings.Join(ds, ","))
	case "ADVANCE":
		it.rule, it.kind = "19.5", kAdvance
		if len(f) != 2 && len(f) != 3 {
			return bad("19.5", "want ADVANCE <unit> [<hex>]")
		}
		if it.units, err = units(f[1]); err != nil || len(it.units) != 1 {
			return bad("19.5", "want ADVANCE <unit> [<hex>]: %v", err)
		}
		it.text = "ADVANCE " + it.units[0]
		if len(f) == 3 {
			if it.at, err = oneHex(f[2]); err != nil {
				return bad("19.5", "%v", err)
			}
			it.text += " " + it.at.String()
		}
	}
	return it
}

// standingOrders turns a checked RETREAT, CONVERT or SPENT line into its standing orders,
// one per unit named (so that a later order for a unit replaces its earlier one).
func standingOrders(side rules.Side, it item) []rules.Order {
	mk := func(key, text string) rules.Order {
		return rules.Order{Phase: phaseStanding, Side: side, Key: key, Kind: "standing", Text: text, Summary: "standing order: " + text}
	}
	if len(it.units) == 0 {
		return []rules.Order{mk(it.kind, it.text)}
	}
	f := strings.Fields(it.text)
	var out []rules.Order
	for _, u := range it.units {
		out = append(out, mk(it.kind+" "+u, fmt.Sprintf("%s %s %s", f[0], u, f[2])))
	}
	return out
}
