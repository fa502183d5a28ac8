package soissons1918

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// MaxCommandPath is the most intervening hexes a command path may have (12.1.2).
const MaxCommandPath = 3

// shortestPaths lists the intervening hexes of every shortest path from a to b (12.1.2:
// "the shortest route"), in the order of hex.Grid.Neighbours, when a and b are at most
// MaxCommandPath+1 apart.
func (g *game) shortestPaths(a, b hex.Hex) [][]hex.Hex {
	gr := g.sc.Map.Grid
	d := gr.Distance(a, b)
	if d > MaxCommandPath+1 {
		return nil
	}
	if a == b {
		return [][]hex.Hex{{}} // a unit stacked with its HQ: no intervening hex (10)
	}
	var out [][]hex.Hex
	var walk func(cur hex.Hex, acc []hex.Hex)
	walk = func(cur hex.Hex, acc []hex.Hex) {
		if cur == b {
			out = append(out, append([]hex.Hex(nil), acc[:len(acc)-1]...))
			return
		}
		for _, n := range gr.Neighbours(cur) {
			if g.sc.Map.OnMap(n) && gr.Distance(n, b) == gr.Distance(cur, b)-1 {
				walk(n, append(acc, n))
			}
		}
	}
	walk(a, nil)
	return out
}

// mustCross lists the intervening hexes that every shortest path from a to b crosses,
// whatever its length (12.1.2: "the shortest path (whatever its length ...)"): each
// shortest path has one hex at each distance from a, and a hex at distance k with
// k + its distance to b equal to the whole is on one of them, so the hexes crossed by
// all are those alone at their distance.
func (g *game) mustCross(a, b hex.Hex) []hex.Hex {
	gr := g.sc.Map.Grid
	d := gr.Distance(a, b)
	level := make([][]hex.Hex, d)
	for _, h := range g.sc.Map.Hexes() {
		if k := gr.Distance(a, h); k > 0 && k < d && k+gr.Distance(h, b) == d {
			level[k] = append(level[k], h)
		}
	}
	var out []hex.Hex
	for _, l := range level {
		if len(l) == 1 {
			out = append(out, l[0])
		}
	}
	return out
}

// hqOf is the HQ unit u is subordinated to, on the map.
func (g *game) hqOf(u *Unit) *Unit {
	hq := g.st.unit(g.corps(u))
	if hq == nil || hq.Where != OnMap {
		return nil
	}
	return hq
}

// inCommand reports whether u traces a command path to its parent HQ (12, 12.1): a
// shortest route of at most three intervening hexes crossing no enemy unit, no friendly
// unit of another command and no shortest path of such a unit to its own HQ (of
// equidistant ones, the owner's choice, taken as the one that blocks least). Command paths ignore
// enemy ZOC and TZ; remnants are never in command; a retreating HQ commands nobody
// (12.1.1).
func (g *game) inCommand(u *Unit) bool {
	if u.Remnant {
		return false
	}
	hq := g.hqOf(u)
	if hq == nil || hq.Retreat {
		return false
	}
	side := g.sideOf(u)
	blocked := map[hex.Hex]bool{}
	for i := range g.st.Units {
		o := &g.st.Units[i]
		if o.Where != OnMap || !g.countsAsUnit(o) {
			continue
		}
		oh := g.hexOf(o)
		if g.sideOf(o) != side {
			blocked[oh] = true // "an enemy unit", an HQ too from revision 1 (units.go)
			continue
		}
		if !g.counter(o).Combat() || o.Remnant || g.corps(o) == g.corps(u) {
			continue
		}
		blocked[oh] = true
		if ohq := g.hqOf(o); ohq != nil {
			// 12.1.2: "the shortest path (whatever its length - but choose if two are
			// equidistant)": the owner chooses, so only the hexes every one of the
			// unit's shortest paths crosses block (the choice that blocks least);
			// and whatever its length: the example's "regardless of whether Y2
			// itself is in command or not (if HQ Y had been more than three hexes
			// away)".
			for _, h := range g.mustCross(oh, g.hexOf(ohq)) {
				blocked[h] = true
			}
		}
	}
	for _, p := range g.shortestPaths(g.hexOf(u), g.hexOf(hq)) {
		ok := true
		for _, h := range p {
			if blocked[h] {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}
