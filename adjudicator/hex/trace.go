package hex

import "fmt"

// Trace is what a straight line between hex centres passes: the hexes it
// crosses (excluding both ends) and the hexsides it runs exactly along.
//
// Crossed is in order from the first hex towards the second and includes any
// hex the line touches only at a corner (see the package documentation and
// [Grid.Corners]). Along is in the same order. Both are nil when empty, as
// for a hex and itself or two adjacent hexes.
type Trace struct {
	Crossed []Hex
	Along   []Hexside
}

// Trace follows the straight segment from the centre of from to the centre
// of to (Mons 10.3) and reports every hex and hexside it passes between them.
// It is exact and symmetric: Trace(b, a) lists the same hexes and hexsides as
// Trace(a, b), in reverse order.
func (g Grid) Trace(from, to Hex) Trace {
	var t Trace
	g.walk(from, to, func(s step) bool {
		switch s.kind {
		case stepAlong:
			t.Along = append(t.Along, s.side)
		default:
			t.Crossed = append(t.Crossed, s.hex)
		}
		return true
	})
	return t
}

// Corners returns the hexes that the segment from the centre of from to the
// centre of to touches only at a single corner, in order. They are a subset
// of Trace(from, to).Crossed. Mons 10.3 ("even the slightest portion") lets
// them block like any other crossed hex, which is what [Grid.LineOfSight]
// does; a ruleset whose rule exempts corners can remove these.
func (g Grid) Corners(from, to Hex) []Hex {
	var out []Hex
	g.walk(from, to, func(s step) bool {
		if s.kind == stepCorner {
			out = append(out, s.hex)
		}
		return true
	})
	return out
}

// LineOfSight applies Mons 10.3: the line is blocked by a crossed hex that
// blocks, or by a hexside it runs along where either hex of that side blocks.
// End hexes never block: blocks is never called for from or to. A hex touched
// only at a corner counts as crossed (see [Trace]).
//
// When the line is blocked, blockedBy is the blocking hex nearest to from
// (for a hexside whose two hexes both block, the one first in [Compare]
// order), so a reply can tell the player why; when clear, blockedBy is the
// zero Hex. A nil blocks means nothing blocks. The walk stops at the first
// blocking hex, so blocks is not necessarily called for every hex of the
// line.
func (g Grid) LineOfSight(from, to Hex, blocks func(Hex) bool) (clear bool, blockedBy Hex) {
	if blocks == nil {
		return true, Hex{}
	}
	clear = true
	g.walk(from, to, func(s step) bool {
		switch s.kind {
		case stepAlong:
			// "Only one of which contains blocking terrain" is enough, so
			// either side blocks; if both do, the line is blocked all the
			// more.
			for _, h := range [2]Hex{s.side.A, s.side.B} {
				if blocks(h) {
					clear, blockedBy = false, h
					return false
				}
			}
		default:
			if blocks(s.hex) {
				clear, blockedBy = false, s.hex
				return false
			}
		}
		return true
	})
	return clear, blockedBy
}

// stepKind says how the segment met the hex or hexside of a step.
type stepKind int

const (
	// stepCross: the segment passes through the inside of the hex.
	stepCross stepKind = iota
	// stepCorner: the segment touches the hex at one corner only.
	stepCorner
	// stepAlong: the segment runs along the whole hexside.
	stepAlong
)

// step is one thing the segment passes, reported in order by walk.
type step struct {
	kind stepKind
	hex  Hex     // for stepCross and stepCorner
	side Hexside // for stepAlong
}

// walk calls visit for each hex and hexside the segment between the centres
// of from and to passes, in order, excluding from and to themselves, until
// visit returns false.
//
// It works in cube coordinates, where the plane x+y+z = 0 is a scaled copy of
// the map and every hex is the set of points nearer its centre than any other
// centre (see the package documentation). The boundary between hex h and its
// neighbour h+d is then the line of points p with (p-h)·d = 1, since every
// direction d has d·d = 2. Along the segment p(t) = a + t·D, 0 <= t <= 1,
// that boundary is reached at t = (1 - (a-h)·d) / (D·d), when D·d > 0 (the
// segment moves towards that neighbour). The current hex is left at the
// smallest such t. All quantities are integers, so the comparisons between
// these fractions are exact, which keeps results identical in both
// directions and on every machine, and makes the hexside and corner cases,
// which are exactly the ones a float would get wrong, come out right.
//
// When the smallest t is reached through one edge, the segment crosses into
// that neighbour. When it is reached through two edges at once, the segment
// leaves through the corner between directions d1 and d2, where h, h+d1 and
// h+d2 meet. Which of the other two it continues into depends on the sign of
// D·(d1-d2): positive, it goes on into h+d1 and touches h+d2 only at that
// corner; negative, the reverse; zero means D is parallel to the hexside
// between h+d1 and h+d2, so the segment runs along that whole hexside and, at
// its far end, enters h+d1+d2. Three hexes meet at each corner and a point
// lies on at most two edges of one hex, so there is no other case.
func (g Grid) walk(from, to Hex, visit func(step) bool) {
	a, b := g.cube(from), g.cube(to)
	if a == b {
		return
	}
	D := b.sub(a)
	dirs := cubeDirections()
	// A segment of hex length n meets fewer than 3n+5 hexes (an area bound);
	// the limit only turns a bug into a panic instead of an endless loop in
	// the adjudicator.
	n := (abs(D.x) + abs(D.y) + abs(D.z)) / 2
	limit := 4*n + 8

	h := a
	for range limit {
		// Find the edge(s) of h through which the segment leaves: the
		// smallest t = num/den over directions the segment moves towards.
		// Denominators are positive, so num1/den1 < num2/den2 exactly when
		// num1*den2 < num2*den1.
		best := [2]int{-1, -1}
		bestNum, bestDen := 0, 1
		for i, d := range dirs {
			den := D.dot(d)
			if den <= 0 {
				continue
			}
			num := 1 - a.sub(h).dot(d)
			switch {
			case best[0] < 0 || num*bestDen < bestNum*den:
				best = [2]int{i, -1}
				bestNum, bestDen = num, den
			case num*bestDen == bestNum*den:
				best[1] = i
			}
		}
		if best[0] < 0 {
			panic(fmt.Sprintf("hex: internal error: segment %v-%v has no exit from %v", from, to, g.hex(h)))
		}

		var next cube
		if best[1] < 0 {
			next = h.add(dirs[best[0]])
		} else {
			d1, d2 := dirs[best[0]], dirs[best[1]]
			h1, h2 := h.add(d1), h.add(d2)
			switch s := D.dot(d1.sub(d2)); {
			case s > 0:
				next = h1
				if !g.visitCorner(h2, a, b, visit) {
					return
				}
			case s < 0:
				next = h2
				if !g.visitCorner(h1, a, b, visit) {
					return
				}
			default:
				side := newHexside(g.hex(h1), g.hex(h2))
				if !visit(step{kind: stepAlong, side: side}) {
					return
				}
				next = h1.add(d2)
			}
		}
		if next == b {
			return
		}
		if !visit(step{kind: stepCross, hex: g.hex(next)}) {
			return
		}
		h = next
	}
	panic(fmt.Sprintf("hex: internal error: segment %v-%v did not reach its end", from, to))
}

// visitCorner reports a hex touched at a corner, unless it is an end hex.
// It never is (a segment leaving an end hex's centre reaches one of its
// corners only when running along a hexside), but the check keeps the
// promise that end hexes are never reported without relying on that.
func (g Grid) visitCorner(c, a, b cube, visit func(step) bool) bool {
	if c == a || c == b {
		return true
	}
	return visit(step{kind: stepCorner, hex: g.hex(c)})
}
