package soissons1918

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// rank orders a step's orders by segment (4.2): reinforcements, tanks, then the
// phasing player's bombardments before the other's (C.3 c), maneuver before the second
// bombardment (C.5, C.6), fall back before pursuit (C.8, C.9).
func rank(p string, side rules.Side, kind string) int {
	ph := phasing(p) == side
	switch kind {
	case kSetup, kPass:
		return 0
	case kPlace:
		return 1
	case kReinforce:
		return 1
	case kTank:
		return 2
	case kMove, kPrepare, kImprovise:
		if len(p) > 2 && p[2:] == StepNight {
			return 6 // I.1 bombardment, then I.2 maneuver
		}
		return 3
	case kAssault, kAttack:
		return 6 // C.4 after C.3; C.7 after C.5 and C.6
	case kBombard:
		if ph {
			return 4
		}
		return 5
	case kFallBack, kAdvance:
		return 7 // C.8: advance after the improvised attacks (step 2); fall back (its own step)
	case kPursue:
		return 8
	}
	return 9
}

type sided struct {
	side rules.Side
	it   item
}

// resolve carries out the current step's orders, then the automatic segments that
// follow, up to the next step that waits.
func (g *game) resolve(now []rules.Order, standing map[standingID]string) error {
	var list []sided
	for _, o := range now {
		it := g.sc.parseLine(orders.Line{No: 0, Text: o.Text, Fields: strings.Fields(o.Text)})
		if it.err != nil {
			return fmt.Errorf("stored order %q: %w", o.Text, it.err)
		}
		list = append(list, sided{o.Side, it})
	}
	slices.SortStableFunc(list, func(a, b sided) int {
		return cmp.Compare(rank(g.st.P, a.side, a.it.kind), rank(g.st.P, b.side, b.it.kind))
	})
	g.standing = standing
	p := g.st.P
	// Set-up and reinforcement orders first, then the scheduled reinforcements no order
	// placed arrive by default (18.1), then the segments that follow.
	done := map[int]bool{}
	for i, s := range list {
		if rank(p, s.side, s.it.kind) > 1 || g.stopped() {
			break
		}
		done[i] = true
		g.do(s)
	}
	if len(p) > 2 && (p[2:] == StepOne || p[2:] == StepNight) && !g.stopped() {
		g.defaultReinforcements(phasing(p))
	}
	// The combats of the segment are resolved together, in the order declared (20).
	var fights []item
	for _, s := range list {
		if s.it.kind == kAssault || s.it.kind == kAttack {
			fights = append(fights, s.it)
		}
	}
	fought := false
	for i, s := range list {
		switch {
		case done[i]:
		case fought && (s.it.kind == kAssault || s.it.kind == kAttack):
			// resolved, or told not carried out, with the first of the segment
		case g.stopped():
			// 3.2: "the game is immediately terminated".
			g.EventTo(s.it.rule, []rules.Side{s.side}, "%s: not carried out: the game ended at once by Sudden Death (3.2)", s.it.text)
			continue
		case s.it.kind == kAssault || s.it.kind == kAttack:
			g.combatSegment(s.side, fights)
			fought = true
		default:
			g.do(s)
		}
		if !g.stopped() && (i == len(list)-1 || rank(p, list[i+1].side, list[i+1].it.kind) != rank(p, s.side, s.it.kind)) {
			g.endMovement(s.side, s.it.kind)
		}
	}
	g.stopped()
	return g.finish()
}

// do applies one order at resolution; an order that no longer holds is reported.
func (g *game) do(s sided) {
	if err := g.apply(s.side, s.it); err != nil {
		g.EventTo(s.it.rule, []rules.Side{s.side}, "%s: not carried out: %v", s.it.text, err)
	}
}

// apply checks one order against the state and carries it out.
func (g *game) apply(side rules.Side, it item) error {
	switch it.kind {
	case kSetup:
		g.placeDefaults(side)
	case kPlace:
		if it.target != "" {
			return g.placeTank(side, it.units[0], it.target)
		}
		return g.placeUnit(side, it.units[0], it.at)
	case kPass:
	case kReinforce:
		return g.reinforce(side, it)
	case kTank:
		return g.tank(it)
	case kBombard:
		return g.bombard(side, it.bombard)
	case kMove:
		return g.move(side, it)
	case kPrepare:
		return g.prepare(side, it.units[0])
	case kImprovise:
		return g.improvise(side, it.units[0], it.at)
	case kFallBack:
		return g.fallBack(side, it.units, it.path)
	case kPursue:
		return g.pursue(side, it.units[0], it.at)
	case kAdvance:
		return g.advance(side, it.units[0], it.at)
	}
	return nil
}

// placeDefaults puts side's units on their default set-up hexes (3.1), once, and
// attaches the Entente's tank groups as shipped (data/armies.txt), which his PLACE
// orders for tank groups then change.
func (g *game) placeDefaults(side rules.Side) {
	first := false
	for _, c := range g.sc.Counters {
		if u := g.st.unit(c.ID); c.Side == side && c.OnStart && u.Where == Waiting {
			g.place(u, c.Start)
			first = true
		}
	}
	if !first || side != EN || !g.st.revised(1) {
		return // revision 0 attached them as shipped once the set-up was complete
	}
	for _, c := range g.sc.Counters {
		if c.Kind == KindTank && c.Attach != "" {
			t, d := g.st.unit(c.ID), g.st.unit(c.Attach)
			if t.Where == Box && d.Where == OnMap && d.Tank == "" {
				t.Where, t.Hex, d.Tank = OnMap, d.Hex, c.ID
			}
		}
	}
}

// placeTank attaches a tank group at set-up (3.1: "The Entente player attaches all,
// some or none of his tank groups available in the Tank Asset Box to a division of his
// choosing, regardless of the sector. Tank groups may not be placed on an empty hex.
// Only one tank group may be attached to a single division"), or leaves it in the box
// (to BOX).
func (g *game) placeTank(side rules.Side, id, to string) error {
	g.placeDefaults(side)
	t, err := g.own(side, id)
	if err != nil {
		return err
	}
	if t.Where != Box && t.Where != OnMap {
		return fmt.Errorf("%s is not available at start: it arrives in the Tank Assets box later (18.1)", id)
	}
	if to != "BOX" {
		d := g.st.unit(to)
		if d.Where != OnMap {
			return fmt.Errorf("%s is not on the map at set-up (18: it arrives later)", to)
		}
		if d.Tank != "" && d.Tank != id {
			return fmt.Errorf("%s has %s already (3.1: \"Only one tank group may be attached to a single division\"); PLACE %s BOX or elsewhere first", to, d.Tank, d.Tank)
		}
	}
	g.detach(t)
	t.Where, t.Hex = Box, ""
	if to != "BOX" {
		d := g.st.unit(to)
		t.Where, t.Hex, d.Tank = OnMap, d.Hex, id
	}
	return nil
}

// placeUnit moves one of side's set-up units to h (3.1) and says what 3.1 finds wrong
// with that unit there.
func (g *game) placeUnit(side rules.Side, id string, h hex.Hex) error {
	g.placeDefaults(side)
	u, err := g.own(side, id)
	if err != nil {
		return err
	}
	c := g.counter(u)
	if !c.OnStart {
		if !g.st.revised(1) {
			return fmt.Errorf("%s is not set up at start (18: it arrives as a reinforcement; tank groups start in the box, 3.1)", id)
		}
		return fmt.Errorf("%s is not set up at start (18: it arrives as a reinforcement)", id)
	}
	if !g.st.revised(1) {
		g.place(u, h)
	} else {
		g.moveTo(u, h) // its tank group with it (19)
	}
	for _, p := range g.sc.SetupProblems(side, g.positions()) {
		if p.Unit == u.ID {
			return fmt.Errorf("%s", p.Text)
		}
	}
	return nil
}

// positions maps every unit on the map to its hex.
func (g *game) positions() map[string]hex.Hex {
	pos := map[string]hex.Hex{}
	for i := range g.st.Units {
		if u := &g.st.Units[i]; u.Where == OnMap {
			pos[u.ID] = g.hexOf(u)
		}
	}
	return pos
}

// completeSetup ends side's set-up (3.1): what 3.1 still finds wrong is reported; the
// Entente attaches the default tank groups and puts Prepare markers on his divisions
// next to German units.
func (g *game) completeSetup(side rules.Side) {
	g.placeDefaults(side)
	for _, p := range g.sc.SetupProblems(side, g.positions()) {
		g.EventTo("3.1", []rules.Side{side}, "set-up: %s: %s", p.Unit, p.Text)
	}
	if side != EN {
		g.Event("3.1", "the German player has set up")
		return
	}
	if !g.st.revised(1) {
		g.completeSetupRev0()
		return
	}
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && g.counter(u).Kind == KindDivision && g.adjacentEnemy(u) && g.markers(EN, false) < g.sc.Prepare[EN] {
			u.Prepare = true
		}
	}
	var tanks []string
	for i := range g.st.Units {
		if u := &g.st.Units[i]; u.Tank != "" {
			tanks = append(tanks, u.Tank+" on "+u.ID)
		}
	}
	slices.Sort(tanks)
	attached := "no tank group attached"
	if len(tanks) > 0 {
		attached = "tank groups attached: " + strings.Join(tanks, ", ")
	}
	g.Event("3.1", "the Entente player has set up; %s; Prepare markers on every division next to a German unit", attached)
}

// adjacentEnemy reports whether an enemy unit is next to u.
func (g *game) adjacentEnemy(u *Unit) bool {
	h := g.hexOf(u)
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		if len(g.unitsAt(n, sides.Other(g.sideOf(u)))) > 0 {
			return true
		}
	}
	return false
}

func (g *game) own(side rules.Side, id string) (*Unit, error) {
	u := g.st.unit(id)
	if u == nil {
		return nil, fmt.Errorf("no unit %s", id)
	}
	if g.sideOf(u) != side {
		return nil, fmt.Errorf("%s is not yours", id)
	}
	return u, nil
}

// reinforce places one of this turn's reinforcements on the friendly edge (18.1).
func (g *game) reinforce(side rules.Side, it item) error {
	for _, id := range it.units {
		u, err := g.own(side, id)
		if err != nil {
			return err
		}
		c := g.counter(u)
		if u.Where == OnMap && u.Arrived == g.st.T && c.Arrive == g.st.T {
			return fmt.Errorf("%s is placed already this turn (18.1); to place it elsewhere, CANCEL REINFORCE %s and send it again", id, id)
		}
		if u.Where != Waiting || c.Arrive != g.st.T || c.Kind == KindTank {
			return fmt.Errorf("%s is not a reinforcement of this turn (18; tank groups go to the Tank Assets box, 18.1)", id)
		}
		if !g.edge(side, it.at) {
			return fmt.Errorf("%s is not on your map edge (18.1: %s edge)", it.at, map[rules.Side]string{EN: "the western", DE: "the eastern"}[side])
		}
		if len(g.combatAt(it.at, sides.Other(side))) > 0 {
			return fmt.Errorf("%s holds enemy units", it.at)
		}
		if c.Corps == "GREY" {
			u.Corps = c.Default
			if it.corps != "" {
				if hq, ok := g.sc.Counter(it.corps); !ok || hq.Side != side {
					return fmt.Errorf("CORPS %s is not one of your HQs (12)", it.corps)
				}
				u.Corps = it.corps
			}
		} else if it.corps != "" {
			return fmt.Errorf("%s belongs to corps %s already (12: only German reinforcements are assigned one)", id, c.Corps)
		}
		g.place(u, it.at)
		u.Arrived = g.st.T
		if p := g.stackProblem(g.at(it.at, side)); p != "" {
			return fmt.Errorf("%s would be overstacked: %s", it.at, p)
		}
		g.Event("18.1", "%s arrives in %s (corps %s)", id, it.at, g.corps(u))
	}
	return nil
}

// defaultReinforcements brings in, on the first road hexes of the friendly edge, the
// reinforcements of this turn no order placed (18.1), and sends arriving tank groups
// to the Tank Assets box.
func (g *game) defaultReinforcements(side rules.Side) {
	var roads []hex.Hex
	edge := map[rules.Side]string{EN: "west-edge", DE: "east-edge"}[side]
	for _, h := range g.sc.Map.Set(edge) {
		for _, n := range g.sc.Map.Grid.Neighbours(h) {
			if g.sc.Map.SideHas(h, n, "road") {
				roads = append(roads, h)
				break
			}
		}
	}
	roads = append(roads, g.sc.Map.Set(edge)...)
	for i := range g.st.Units {
		u := &g.st.Units[i]
		c := g.counter(u)
		if u.Where != Waiting || c.Side != side || c.Arrive != g.st.T {
			continue
		}
		if c.Kind == KindTank {
			u.Where = Box
			g.Event("9", "tank group %s arrives in the Tank Assets box", u.ID)
			continue
		}
		for _, h := range roads {
			if len(g.combatAt(h, sides.Other(side))) > 0 {
				continue
			}
			if g.stackAfter(h, side, []*Unit{u}) == "" {
				if c.Corps == "GREY" {
					u.Corps = c.Default
				}
				g.place(u, h)
				u.Arrived = g.st.T
				g.Event("18.1", "%s arrives in %s (default placement; corps %s)", u.ID, h, g.corps(u))
				break
			}
		}
	}
}

// tank assigns, reassigns or removes a tank group (9.2, 9.4).
func (g *game) tank(it item) error {
	t := g.st.unit(it.tank)
	if t.Where != OnMap && t.Where != Box {
		return fmt.Errorf("%s is not in play", it.tank)
	}
	if it.target == "REMOVE" {
		if t.Where == OnMap {
			g.detach(t)
		}
		t.Where, t.Hex = Removed, ""
		g.Event("9.4", "tank group %s is removed from play", it.tank)
		return nil
	}
	d := g.st.unit(it.target)
	if d.Where != OnMap {
		return fmt.Errorf("%s is not on the map", it.target)
	}
	if d.Tank != "" {
		return fmt.Errorf("%s already has tank group %s (9: no more than one)", d.ID, d.Tank)
	}
	dh := g.hexOf(d)
	if !g.inCommand(d) {
		return fmt.Errorf("%s is not in command (9.2, 12)", d.ID)
	}
	if t.Where == Box {
		if g.sc.Map.Terrain(dh) == "ravine" {
			return fmt.Errorf("%s is in a ravine hex (9.2)", d.ID)
		}
	} else {
		th := g.hexOf(t)
		if !g.sc.Map.Grid.Adjacent(th, dh) {
			return fmt.Errorf("%s is not next to %s's division (9.2: onto an adjacent division)", d.ID, it.tank)
		}
		if g.sc.Map.Terrain(dh) == "ravine" && !g.sc.Map.SideHas(th, dh, "road") {
			return fmt.Errorf("%s is in a ravine hex unconnected by road to %s (9.2)", d.ID, th)
		}
		g.detach(t)
	}
	t.Where, t.Hex, d.Tank = OnMap, d.Hex, t.ID
	g.Event("9.2", "tank group %s is attached to %s in %s", t.ID, d.ID, d.Hex)
	return nil
}

func (g *game) detach(t *Unit) {
	for i := range g.st.Units {
		if g.st.Units[i].Tank == t.ID {
			g.st.Units[i].Tank = ""
		}
	}
}

// moveAlong moves u and its tank group to h.
func (g *game) moveTo(u *Unit, h hex.Hex) {
	g.place(u, h)
	if u.Tank != "" {
		g.st.unit(u.Tank).Hex = h.String()
	}
}

// allowance is a combat unit's movement allowance (19.2.1, 19.2.2, 22), in the
// terrain effects table's units (1/Scale MP: road movement costs 1/2 MP, 19.3.1).
func (g *game) allowance(side rules.Side, u *Unit) int {
	mp := 6
	switch {
	case side == EN && g.st.T == 1:
		return 8 * g.sc.TEC.Scale // 22: "Entente movement allowance of all units is 8"
	case Night(g.st.T):
		mp = 8
	case u.Prepare:
		mp = 4
	}
	if u.Dis == Reforming || u.Dis == Disorganized {
		mp /= 2
	}
	return mp * g.sc.TEC.Scale
}

// move carries out a maneuver move (19).
func (g *game) move(side rules.Side, it item) error {
	path := it.path
	start := path[0]
	var us []*Unit
	hqs := 0
	for _, id := range it.units {
		u, err := g.own(side, id)
		if err != nil {
			return err
		}
		c := g.counter(u)
		if u.Where != OnMap || g.hexOf(u) != start {
			return fmt.Errorf("%s is not in %s", id, start)
		}
		if c.Kind == KindTank {
			return fmt.Errorf("tank groups move with their division (19)")
		}
		if c.Kind == KindHQ {
			hqs++
		}
		if g.moved[id] {
			return fmt.Errorf("%s has moved already this segment (19: each move is completed before the next); to move it otherwise, CANCEL MOVE %s and send its whole move", id, id)
		}
		us = append(us, u)
	}
	if hqs > 0 && hqs != len(us) {
		return fmt.Errorf("an HQ moves by itself (10: one hex by day, two by night)")
	}
	enemy := sides.Other(side)
	ez := g.zoc(enemy)
	if hqs > 0 {
		limit := 1
		if Night(g.st.T) {
			limit = 2
		}
		if len(path)-1 > limit {
			return fmt.Errorf("an HQ moves %d hex(es) in this segment (10, 19.2)", limit)
		}
		for i := 1; i < len(path); i++ {
			if g.aisne(path[i-1], path[i]) {
				return fmt.Errorf("%s/%s is an unbridged Aisne hexside (19.3)", path[i-1], path[i])
			}
			if len(g.at(path[i], enemy)) > 0 {
				return fmt.Errorf("%s holds enemy units", path[i])
			}
		}
		for _, u := range us {
			g.moved[u.ID] = true
			g.moveTo(u, path[len(path)-1])
		}
		g.EventTo("10", []rules.Side{side}, "HQ %s moves %s", strings.Join(it.units, ","), pathString(path))
		return nil
	}
	for _, u := range us {
		switch {
		case u.Dis == Shocked:
			return fmt.Errorf("%s is Shocked (19.1.1)", u.ID)
		case u.Retreat:
			return fmt.Errorf("%s has a Retreat marker (19.1.1)", u.ID)
		case u.Remnant:
			return fmt.Errorf("%s is a remnant: remnants move only in the fall back (8, 19.1.1)", u.ID)
		case ez[start]:
			return fmt.Errorf("%s starts in an enemy ZOC and may not move (13.1, 19.1.1)", u.ID)
		}
	}
	isolatedBefore := g.isolated(side, start)
	cost := 0
	var displaced []hex.Hex
	road := true
	for _, u := range us {
		c := g.counter(u)
		if u.Arrived != g.st.T || c.Arrive == 0 || !g.onRoad(start) {
			road = false // 19.3.1: only reinforcements on their turn, from a road hex
		}
	}
	for i := 1; i < len(path); i++ {
		from, to := path[i-1], path[i]
		if len(g.combatAt(to, enemy)) > 0 {
			return fmt.Errorf("%s holds enemy combat units (moving into them is combat, rule 20)", to)
		}
		if len(g.at(to, enemy)) > 0 {
			displaced = append(displaced, to) // 10: an enemy HQ alone does not stop a move
		}
		if ez[from] && ez[to] {
			return fmt.Errorf("%s to %s is from one enemy ZOC directly to another (13.1)", from, to)
		}
		if road && (!g.sc.Map.SideHas(from, to, "road") || g.near(to, enemy, 2)) {
			road = false // 19.3.1: once off the road, no more road movement
		}
		class := "infantry"
		if road {
			class = "road"
		}
		mp, ok, why := g.sc.TEC.Step(g.sc.Map, class, from, to)
		if !ok {
			return fmt.Errorf("%s-%s: %s (19.3)", from, to, why)
		}
		for _, u := range us {
			if u.Tank == "" {
				continue
			}
			if (g.sc.Map.Terrain(to) == "ravine" || g.sc.Map.Terrain(from) == "ravine") && !g.sc.Map.SideHas(from, to, "road") {
				return fmt.Errorf("%s has a tank group: it enters and leaves ravine hexes only by road (9.1, 19.3); TANK %s REMOVE first frees it (9.4)", u.ID, u.Tank)
			}
		}
		cost += mp
		if !isolatedBefore {
			if g.isolatedIn(side, us, to) {
				return fmt.Errorf("%s would be isolated in %s (15.2)", strings.Join(it.units, ","), to)
			}
		}
	}
	for _, u := range us {
		if g.used[u.ID]+cost > g.allowance(side, u) {
			return fmt.Errorf("%s would spend %s MP, it has %s (19.2, 19.3)", u.ID, g.mp(g.used[u.ID]+cost), g.mp(g.allowance(side, u)))
		}
	}
	// 16: an over-stacked hex is the owner's to thin out "once movement is
	// completed" (endMovement), not a reason to refuse the move.
	end := path[len(path)-1]
	for _, u := range us {
		g.used[u.ID] += cost
		g.moved[u.ID] = true
		if g.st.Paths == nil {
			g.st.Paths = map[string]string{}
		}
		g.st.Paths[u.ID] = pathString(path)
		if u.Prepare {
			u.Prepare = false // 19.2.1: "Remove the Prepare marker when the unit is moved"
		}
		g.moveTo(u, end)
	}
	g.EventTo("19", []rules.Side{side}, "%s moves %s (%s MP)", strings.Join(it.units, ","), pathString(path), g.mp(cost))
	for _, h := range displaced {
		g.displaceHQs(h)
	}
	return nil
}

// displaceHQs is 10: "If an enemy unit enters a hex containing a Corps HQ alone, the HQ
// immediately conducts a four-hexes retreat movement. It is marked with a retreat
// marker and flipped to its artillery used side". The retreat obeys 21: it follows the
// HQ's supply path, traced without the entering units and ignoring threat zones ("Threat
// Zones do not affect retreat in any way"), four hexes or as far as it goes; an HQ
// with no such path goes first through enemy ZOC to the nearest hex with one ("if the
// unit is isolated, it must move through enemy directly towards the closest hex where
// it is no longer isolated").
func (g *game) displaceHQs(h hex.Hex) {
	if !g.st.revised(1) {
		g.displaceHQsRev0(h)
		return
	}
	for _, hq := range g.at(h, "") {
		c := g.counter(hq)
		if c.Kind != KindHQ || g.hexOf(hq) != h {
			continue
		}
		side := c.Side
		// The line is traced as if the units entering were not there (they are what
		// the HQ retreats from).
		entering := map[string]bool{}
		for _, u := range g.at(h, sides.Other(side)) {
			entering[u.ID] = true
		}
		saved := g.hide(entering)
		dist := g.retreatDistances(side)
		path := []hex.Hex{h}
		if _, ok := g.startDist(dist, h); !ok {
			if exits := g.towardsSupply(side, h, dist); len(exits) > 0 {
				path = exits[0].path
			}
		}
		g.unhide(saved)
		cur := path[len(path)-1]
		for len(path) < 5 {
			d, ok := g.startDist(dist, cur)
			if !ok || d == 0 {
				break
			}
			moved := false
			for _, n := range g.sc.Map.Grid.Neighbours(cur) {
				if dn, ok := dist[n]; ok && dn == d-1 && !g.aisne(cur, n) && len(g.at(n, sides.Other(side))) == 0 {
					cur, moved = n, true
					break
				}
			}
			if !moved {
				break
			}
			path = append(path, cur)
		}
		why := "default: the first line in map order"
		if p, w := g.hqRetreatChoice(hq, dist, len(path)-1); p != nil {
			path, why = p, w
			cur = p[len(p)-1]
		}
		// 21: "Retreating units may never end their retreat adjacent to an enemy unit.
		// They must continue retreating until they can end their retreat outside of an
		// enemy ZOC. If it's not possible, they are eliminated". An HQ that could not
		// leave the hex the enemy entered, or ends in an enemy ZOC, goes on along its
		// line; failing that it is eliminated.
		ez := g.zoc(sides.Other(side))
		for n := 0; (cur == h || ez[cur]) && n < len(dist); n++ {
			d, ok := g.startDist(dist, cur)
			next, found := cur, false
			for _, nb := range g.sc.Map.Grid.Neighbours(cur) {
				if dn, on := dist[nb]; ok && on && dn == d-1 && !g.aisne(cur, nb) && len(g.at(nb, sides.Other(side))) == 0 {
					next, found = nb, true
					break
				}
			}
			if !found {
				break
			}
			cur = next
			path = append(path, cur)
		}
		if cur == h || ez[cur] {
			g.eliminate(hq)
			g.Event("10", "HQ %s, alone in %s when an enemy unit enters, cannot end a retreat outside enemy ZOC: eliminated (21)", hq.ID, h)
			continue
		}
		hq.Retreat, hq.ArtUsed = true, true
		g.place(hq, cur)
		g.Event("10", "HQ %s, alone in %s when an enemy unit enters, retreats %s (%s)", hq.ID, h, pathString(path), why)
	}
}

// mp writes n table units as MP ("1.5").
func (g *game) mp(n int) string {
	sc := g.sc.TEC.Scale
	if n%sc == 0 {
		return fmt.Sprint(n / sc)
	}
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", float64(n)/float64(sc)), "0"), ".")
}

func (g *game) onRoad(h hex.Hex) bool {
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		if g.sc.Map.SideHas(h, n, "road") {
			return true
		}
	}
	return false
}

// near reports whether an enemy unit of side is within n hexes of h.
func (g *game) near(h hex.Hex, side rules.Side, n int) bool {
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && g.sideOf(u) == side && g.sc.Map.Grid.Distance(h, g.hexOf(u)) <= n {
			return true
		}
	}
	return false
}

// ready checks what a unit must be to act in the maneuver segment (19.1.1); markers may
// be bought in an enemy ZOC (4.2 C.5).
func (g *game) ready(side rules.Side, id string) (*Unit, error) {
	u, err := g.own(side, id)
	if err != nil {
		return nil, err
	}
	c := g.counter(u)
	switch {
	case u.Where != OnMap || !c.Combat():
		return nil, fmt.Errorf("%s is not a combat unit on the map", id)
	case u.Dis == Shocked || u.Retreat || u.Remnant:
		return nil, fmt.Errorf("%s does not activate in the maneuver segment (19.1.1: Shocked, Retreat marker or remnant)", id)
	}
	return u, nil
}

// prepare buys a Prepare marker for 3 MP (19.4).
func (g *game) prepare(side rules.Side, id string) error {
	u, err := g.ready(side, id)
	if err != nil {
		return err
	}
	if u.Prepare {
		return fmt.Errorf("%s has a Prepare marker already", id)
	}
	if g.markers(side, false) >= g.sc.Prepare[side] {
		return fmt.Errorf("all %d of your Prepare markers are in use (19.4: the counter mix is a limit)", g.sc.Prepare[side])
	}
	prep := 3 * g.sc.TEC.Scale // 19.4: "Preparations cost 3MP"
	if g.used[id]+prep > g.allowance(side, u) {
		return fmt.Errorf("%s has %s MP left; Prepare costs 3 (19.4)", id, g.mp(g.allowance(side, u)-g.used[id]))
	}
	g.used[id] += prep
	g.moved[id] = true
	u.Prepare = true
	g.EventTo("19.4", []rules.Side{side}, "%s receives a Prepare marker (3 MP)", id)
	return nil
}

// improvise buys an Improvised Attack marker pointing at an adjacent enemy (19.4.1).
func (g *game) improvise(side rules.Side, id string, target hex.Hex) error {
	u, err := g.ready(side, id)
	if err != nil {
		return err
	}
	h := g.hexOf(u)
	if !g.sc.Map.Grid.Adjacent(h, target) || len(g.combatAt(target, sides.Other(side))) == 0 {
		return fmt.Errorf("%s is not an adjacent hex with enemy units (19.4.1: the marker must point at an adjacent enemy unit)", target)
	}
	if u.Improvised != "" {
		return fmt.Errorf("%s has an Improvised Attack marker already", id)
	}
	if g.markers(side, true) >= g.sc.Improvised[side] {
		return fmt.Errorf("all %d of your Improvised Attack markers are in use (19.4)", g.sc.Improvised[side])
	}
	cost := g.sc.TEC.Scale // 19.4.1: 1 MP against a clear hex
	if g.sc.Map.Terrain(target) != "clear" || g.sc.Map.SideHas(h, target, "stream") {
		cost *= 2 // 19.4.1: 2 MP into non-clear terrain or across a stream
	}
	if g.used[id]+cost > g.allowance(side, u) {
		return fmt.Errorf("%s has %s MP left; the marker costs %s (19.4.1)", id, g.mp(g.allowance(side, u)-g.used[id]), g.mp(cost))
	}
	g.used[id] += cost
	g.moved[id] = true
	u.Improvised = target.String()
	g.EventTo("19.4.1", []rules.Side{side}, "%s receives an Improvised Attack marker pointing at %s (%s MP)", id, target, g.mp(cost))
	return nil
}

// fallBack moves units in the fall back segment (19.6): any distance, conforming to
// the supply line but for the last hex (which may be next to it), never ending next
// to an enemy unit; enemy units that moved this turn are ignored for the path.
func (g *game) fallBack(side rules.Side, ids []string, path []hex.Hex) error {
	start := path[0]
	var us []*Unit
	for _, id := range ids {
		u, err := g.own(side, id)
		if err != nil {
			return err
		}
		if u.Where != OnMap || g.hexOf(u) != start {
			return fmt.Errorf("%s is not in %s", id, start)
		}
		if g.counter(u).Kind == KindTank {
			return fmt.Errorf("tank groups move with their division (19)")
		}
		if g.moved[id] {
			return fmt.Errorf("%s has fallen back already", id)
		}
		us = append(us, u)
	}
	ignore := g.movedThisTurn(sides.Other(side))
	dist := g.edgeDistances(side, ignore)
	last := path[len(path)-1]
	isolated := g.isolated(side, start)
	// k > 0: the unit has no supply line to conform to, and path[:k+1] is its way
	// through enemy ZOC to the nearest hex with one (21, 13.1); the rest of the path
	// conforms to the line from there.
	k, throughZOC := 0, false
	if _, ok := g.startDist(dist, start); !ok && isolated && g.st.revised(1) {
		exits, ez := g.zocExits(side, start, dist, ignore)
		if len(exits) == 0 {
			return fmt.Errorf("no supply line from %s to trace the fall back along, and no way to one even through enemy ZOC (19.6, 21)", start)
		}
		k = len(exits[0].path) - 1
		if len(path)-1 < k || !slices.ContainsFunc(exits, func(e end) bool { return e.at == path[k] }) {
			return fmt.Errorf("%s is isolated with no supply line to follow: its fall back goes first, through enemy ZOC if need be, to the nearest hex with one, %d hex(es) away (21, 13.1), e.g. %s", start, k, pathString(exits[0].path))
		}
		for i := 1; i <= k; i++ {
			if g.aisne(path[i-1], path[i]) {
				return fmt.Errorf("%s/%s is an unbridged Aisne hexside (19.3)", path[i-1], path[i])
			}
			if len(g.combatAt(path[i], sides.Other(side))) > 0 && !g.allIgnored(path[i], sides.Other(side), ignore) {
				return fmt.Errorf("%s holds enemy units", path[i])
			}
			throughZOC = throughZOC || ez[path[i]]
		}
		if i := slices.IndexFunc(exits, func(e end) bool { return !e.zoc }); throughZOC && i >= 0 {
			return fmt.Errorf("%s enters an enemy ZOC, which a retreat may do \"only if not possible otherwise\" (13.1): %s does not", pathString(path[:k+1]), pathString(exits[i].path))
		}
	}
	for i := k + 1; i < len(path); i++ {
		if g.aisne(path[i-1], path[i]) {
			return fmt.Errorf("%s/%s is an unbridged Aisne hexside (19.3)", path[i-1], path[i])
		}
		d0, ok0 := dist[path[i-1]]
		if i == k+1 {
			d0, ok0 = g.startDist(dist, path[k])
		}
		d1, ok1 := dist[path[i]]
		if i == k+1 && !ok0 {
			return fmt.Errorf("no supply line from %s to trace the fall back along (19.6)", path[k])
		}
		onLine := ok1 && d1 == d0-1
		if i < len(path)-1 && !onLine {
			return fmt.Errorf("%s is off the supply line (19.6: the fall back conforms to it, the last hex may be beside it)", path[i])
		}
		if i == len(path)-1 && !onLine {
			beside := false
			for _, n := range g.sc.Map.Grid.Neighbours(path[i]) {
				if dn, ok := dist[n]; ok && dn == d0-1 {
					beside = true
				}
			}
			if !beside {
				return fmt.Errorf("%s is neither on the supply line nor next to it (19.6)", path[i])
			}
		}
		if len(g.combatAt(path[i], sides.Other(side))) > 0 && !g.allIgnored(path[i], sides.Other(side), ignore) {
			return fmt.Errorf("%s holds enemy units", path[i])
		}
	}
	for _, n := range g.sc.Map.Grid.Neighbours(last) {
		if len(g.unitsAt(n, sides.Other(side))) > 0 {
			return fmt.Errorf("%s is next to an enemy unit in %s (19.6, 13.1: never ending a retreat adjacent to an enemy)", last, n)
		}
	}
	if isolated && g.isolatedIn(side, us, last) && g.st.revised(1) {
		return fmt.Errorf("%s would still be isolated in %s: an isolated unit falls back \"to a position where it is no longer isolated\" (15.3)", strings.Join(ids, ","), last)
	}
	n := len(path) - 1
	for _, u := range us {
		// 4.2 C.8 (read over 19.6.1, which gives only the first clause): with a Retreat
		// marker, +1 for two or more hexes and +2 for four or more; without, +1 for four.
		up := 0
		switch {
		case u.Retreat && n >= 4:
			up = 2
		case u.Retreat && n >= 2, !u.Retreat && n >= 4:
			up = 1
		}
		if throughZOC {
			up++ // 13.1: "at the cost of an additional disruption level"
		}
		g.disrupt(u, up)
		u.Retreat = true
		if g.counter(u).Kind == KindHQ {
			u.ArtUsed = true // 10, 19.6
		}
		g.moved[u.ID] = true
		g.moveTo(u, last)
	}
	how := ""
	if throughZOC {
		how = "; through enemy ZOC, as it had no other way out (13.1, 21): disruption +1"
	}
	g.Event("19.6", "%s fall(s) back %s (%d hexes%s)", strings.Join(ids, ","), pathString(path), n, how)
	return nil
}

// zocExits is the first leg of the fall back of a unit of side in from that has no
// supply line to conform to: 19.6 makes a fall back obey "all retreat rules", 21 sends
// an isolated unit "through enemy [ZOC] directly towards the closest hex where it is
// no longer isolated", and 13.1 lets a retreat, the fall back included, through enemy
// ZOC "only if not possible otherwise". As for the rest of the fall back, the enemy
// units that moved this turn are ignored (19.6). ez is the enemy ZOC so traced.
func (g *game) zocExits(side rules.Side, from hex.Hex, dist map[hex.Hex]int, ignore map[string]bool) (exits []end, ez map[hex.Hex]bool) {
	saved := g.hide(ignore)
	defer g.unhide(saved)
	return g.towardsSupply(side, from, dist), g.zoc(sides.Other(side))
}

// isolatedIn reports whether units us of side would be isolated in h (15), their own
// ZOC there negating the enemy threat zones it reaches (14).
func (g *game) isolatedIn(side rules.Side, us []*Unit, h hex.Hex) bool {
	saved := map[*Unit]string{}
	for _, u := range us {
		saved[u] = u.Hex
		u.Hex = h.String()
	}
	defer func() {
		for u, w := range saved {
			u.Hex = w
		}
	}()
	return g.isolated(side, h)
}

func (g *game) allIgnored(h hex.Hex, side rules.Side, ignore map[string]bool) bool {
	for _, u := range g.combatAt(h, side) {
		if !ignore[u.ID] {
			return false
		}
	}
	return true
}

// movedThisTurn lists side's units that moved in this operational phase (19.6).
func (g *game) movedThisTurn(side rules.Side) map[string]bool {
	out := map[string]bool{}
	for _, id := range g.st.Moved {
		if u := g.st.unit(id); u != nil && g.sideOf(u) == side {
			out[id] = true
		}
	}
	return out
}

// edgeDistances is, for every hex a supply line of side may use (15.1), ignoring the
// given enemy units, its length to the friendly edge.
func (g *game) edgeDistances(side rules.Side, ignore map[string]bool) map[hex.Hex]int {
	return g.distancesToEdge(side, g.supplyFree(side, ignore))
}

// startDist is the length of the supply line from h, the unit's own hex, which is not
// part of the line (15.1) and may lie in an enemy ZOC.
func (g *game) startDist(dist map[hex.Hex]int, h hex.Hex) (int, bool) {
	if d, ok := dist[h]; ok {
		return d, true
	}
	best, ok := 0, false
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		if d, on := dist[n]; on && !g.aisne(h, n) && (!ok || d+1 < best) {
			best, ok = d+1, true
		}
	}
	return best, ok
}

// pursue advances a Prepare-marked unit no longer next to an enemy one hex (19.7).
func (g *game) pursue(side rules.Side, id string, to hex.Hex) error {
	u, err := g.own(side, id)
	if err != nil {
		return err
	}
	if u.Where != OnMap || !u.Prepare {
		return fmt.Errorf("%s has no Prepare marker (19.7)", id)
	}
	if g.adjacentEnemy(u) {
		return fmt.Errorf("%s is still next to an enemy unit (19.7)", id)
	}
	from := g.hexOf(u)
	if !g.sc.Map.Grid.Adjacent(from, to) || g.aisne(from, to) || len(g.at(to, sides.Other(side))) > 0 {
		return fmt.Errorf("%s is not a hex %s may advance into (19.7)", to, id)
	}
	ez := g.zoc(sides.Other(side))
	if ez[from] && ez[to] {
		return fmt.Errorf("%s to %s is from one enemy ZOC to another (13.1)", from, to)
	}
	if u.Tank != "" && g.sc.Map.Terrain(to) == "ravine" && !g.sc.Map.SideHas(from, to, "road") {
		return fmt.Errorf("%s has a tank group: no ravine but by road (9.1)", id)
	}
	g.moveTo(u, to)
	g.Event("19.7", "%s pursues into %s, keeping its Prepare marker", id, to)
	return nil
}

// rollD6 rolls one die for a purpose, with the rule that called for it.
func (g *game) rollD6(purpose, rule string, mod int) dice.Roll {
	return g.d.Roll(dice.Request{Purpose: purpose, Rule: rule, Count: 1, Sides: 6, Modifier: mod})
}
