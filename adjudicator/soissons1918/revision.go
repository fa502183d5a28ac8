package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// The rules of revision 0, kept whole where revision 1 rewrote a procedure, so that a
// game created before it plays and replays as it began (State.Revision).

var _ rules.Reviser = (*Rules)(nil)

// AtRevisionOf implements rules.Reviser: st at the revision initial was created under.
func (r *Rules) AtRevisionOf(st, initial rules.State) rules.State {
	s := *st.(*State)
	s.Revision = initial.(*State).Revision
	return &s
}

// revised reports whether the game is played under revision n of these rules or a later one.
func (s *State) revised(n int) bool { return s.Revision >= n }

// stackProblemRev0 is revision 0's reading of 16: every limit at once, combat units only.
func (g *game) stackProblemRev0(us []*Unit) string {
	divs, regs, sp := 0, map[string]bool{}, 0
	others := 0
	for _, u := range us {
		c := g.counter(u)
		switch {
		case c.Kind == KindDivision:
			divs++
		case c.Kind == KindRegiment:
			others++
			sp += g.strength(u)
			if !u.Remnant {
				regs[c.Division] = true
			}
		}
	}
	switch {
	case divs > 1:
		return "two divisions in one hex (16: \"any one division counter\")"
	case divs == 1 && others > 0:
		return "a division with regiments or remnants (16)"
	case others > 3:
		return fmt.Sprintf("%d regiments and remnants, at most three (16)", others)
	case len(regs) > 1:
		return "regiments of different divisions (16: \"up to three regiments of the same division\")"
	case sp > 6:
		return fmt.Sprintf("%d SP, at most 6 (16)", sp)
	}
	return ""
}

// completeSetupRev0 ends the Entente set-up as revision 0 did: the tank groups attached
// as shipped, whatever PLACE said.
func (g *game) completeSetupRev0() {
	for _, c := range g.sc.Counters {
		if c.Kind == KindTank && c.Attach != "" {
			t, d := g.st.unit(c.ID), g.st.unit(c.Attach)
			if d.Where == OnMap && d.Tank == "" {
				t.Where, t.Hex, d.Tank = OnMap, d.Hex, c.ID
			}
		}
	}
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where == OnMap && g.counter(u).Kind == KindDivision && g.adjacentEnemy(u) && g.markers(EN, false) < g.sc.Prepare[EN] {
			u.Prepare = true
		}
	}
	g.Event("3.1", "the Entente player has set up; tank groups attached as shipped (data/armies.txt); Prepare markers on every division next to a German unit")
}

// displaceHQsRev0 is revision 0's 10: an HQ alone that an enemy enters retreats along
// its supply line, traced without the units entering, or is eliminated.
func (g *game) displaceHQsRev0(h hex.Hex) {
	for _, hq := range g.at(h, "") {
		c := g.counter(hq)
		if c.Kind != KindHQ || g.hexOf(hq) != h {
			continue
		}
		side := c.Side
		entering := map[string]bool{}
		for _, u := range g.at(h, sides.Other(side)) {
			entering[u.ID] = true
		}
		dist := g.edgeDistances(side, entering)
		cur := h
		path := []hex.Hex{h}
		for range 4 {
			d, ok := dist[cur]
			if cur == h {
				d, ok = g.startDist(dist, h)
			}
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
		ez := g.zoc(sides.Other(side))
		for n := 0; (cur == h || ez[cur]) && n < len(dist); n++ {
			d, ok := dist[cur]
			if cur == h {
				d, ok = g.startDist(dist, h)
			}
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

// forcedFallBacksRev0 is revision 0's 15.3: an isolated unit falls back along its
// supply line only, never through enemy ZOC.
func (g *game) forcedFallBacksRev0(side rules.Side) {
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
		ok := false
		for cur := h; ; {
			d, on := dist[cur]
			if cur == h {
				d, on = g.startDist(dist, h)
			}
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
			if g.isolated(side, cur) || g.nextToEnemy(side, cur) || g.stackAfter(cur, side, []*Unit{u}) != "" {
				continue
			}
			ok = true
			break
		}
		if !ok || g.fallBack(side, []string{u.ID}, path) != nil {
			g.Event("15.3", "%s in %s is isolated and finds no fall back to a supplied hex", u.ID, h)
			continue
		}
		g.Event("15.3", "%s was isolated and had to fall back (15.3; default path)", u.ID)
	}
}

// laterForm says why an order line of a form revision 1 brought is refused in a game
// created before it, or "".
func (s *State) laterForm(it item) string {
	form := ""
	switch {
	case s.revised(1):
	case it.kind == kPass && it.turn != 0:
		form = "PASS <turn>"
	case it.kind == kPlace && it.target != "":
		form = "PLACE <tank group>"
	}
	if form == "" {
		return ""
	}
	return fmt.Sprintf("%s came with a later revision of these rules; this game keeps the rules it was created under (HELP)", form)
}

// passKeyRev0 is revision 0's PASS: the first step from now that waits for side and
// has nothing from it yet.
func passKeyRev0(st *State, side rules.Side, filed []rules.Order, taken []string) (string, error) {
	for _, k := range upcoming(st) {
		_, p, _ := strings.Cut(k, ".")
		if waits(p, side) && !hasOrder(filed, k, side) && !slices.Contains(taken, k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("no step is waiting for you")
}
