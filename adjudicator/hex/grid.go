package hex

import (
	"fmt"
	"strconv"
	"strings"
)

// Parity says which columns are shifted, i.e. sit half a hex lower (towards
// higher row numbers) than the columns either side of them.
type Parity int

const (
	// OddColumnsShifted: a hex in an odd column meets rows rr and rr+1 of the
	// adjacent columns, a hex in an even column meets rows rr-1 and rr (Mons
	// 7.2: 3506 touches 3407, 3505, 3606, 3607; Mons 12.3: 1824 touches 1923,
	// 1924). It is the zero value, so the zero Grid is the Mons geometry.
	OddColumnsShifted Parity = iota
	// EvenColumnsShifted is the opposite: a hex in an even column meets rows
	// rr and rr+1 of the adjacent columns, a hex in an odd column rows rr-1
	// and rr (Soissons 19.5: 2310 touches 2209 and 2311).
	EvenColumnsShifted
)

// String names the parity the way a scenario file or an error message would.
func (p Parity) String() string {
	switch p {
	case OddColumnsShifted:
		return "odd columns shifted"
	case EvenColumnsShifted:
		return "even columns shifted"
	}
	return "Parity(" + strconv.Itoa(int(p)) + ")"
}

// Grid is a map's hex geometry. The zero value is the Mons grid
// ([OddColumnsShifted]). A Parity other than the two constants is treated as
// OddColumnsShifted; scenario loaders should reject such values before they
// get here, since silently guessing a map's geometry would be worse than an
// error at load time.
type Grid struct{ Parity Parity }

// shifted reports whether column col sits half a hex lower than its
// neighbouring columns. col&1 rather than col%2 keeps negative columns
// (off-map neighbours) right: in Go, -1%2 is -1 but -1&1 is 1.
func (g Grid) shifted(col int) bool {
	odd := col&1 == 1
	if g.Parity == EvenColumnsShifted {
		return !odd
	}
	return odd
}

// cube is a hex in cube coordinates: x is the column, z the row measured
// along the grid's slanted axis, and x+y+z = 0. Distances and lines are
// straightforward there (see the package documentation).
type cube struct{ x, y, z int }

func (a cube) add(b cube) cube { return cube{a.x + b.x, a.y + b.y, a.z + b.z} }
func (a cube) sub(b cube) cube { return cube{a.x - b.x, a.y - b.y, a.z - b.z} }
func (a cube) dot(b cube) int  { return a.x*b.x + a.y*b.y + a.z*b.z }

// cube converts an offset (column, row) hex to cube coordinates. Moving one
// column east changes the cube z by half a row on average; the half that is
// rounded away is exactly what shifted() describes. col-(col&1) and
// col+(col&1) are always even, so the division is exact for negative
// columns too.
func (g Grid) cube(h Hex) cube {
	var z int
	if g.Parity == EvenColumnsShifted {
		z = h.Row - (h.Col+(h.Col&1))/2
	} else {
		z = h.Row - (h.Col-(h.Col&1))/2
	}
	return cube{x: h.Col, y: -h.Col - z, z: z}
}

// hex is the inverse of cube.
func (g Grid) hex(c cube) Hex {
	if g.Parity == EvenColumnsShifted {
		return Hex{Col: c.x, Row: c.z + (c.x+(c.x&1))/2}
	}
	return Hex{Col: c.x, Row: c.z + (c.x-(c.x&1))/2}
}

// cubeDirections are the six unit steps between neighbouring hexes, in
// cube coordinates. Consecutive entries are 60 degrees apart, so two
// directions i and (i+1)%6 are the two edges meeting at one corner. It is a
// function rather than a variable because the package keeps no globals.
func cubeDirections() [6]cube {
	return [6]cube{
		{1, -1, 0}, {1, 0, -1}, {0, 1, -1},
		{-1, 1, 0}, {-1, 0, 1}, {0, -1, 1},
	}
}

// Neighbours returns the six hexes touching h, clockwise as seen on the
// printed sheet starting with the hex to the south (same column, row+1):
// S, SW, NW, N, NE, SE. The order is fixed so that callers can index it or
// print it reproducibly. Hexes off the edge of any map are included as they
// are (row -1 for a hex in row 00, for example); the caller filters them
// against its map.
func (g Grid) Neighbours(h Hex) [6]Hex {
	c, r := h.Col, h.Row
	// In a shifted column the side neighbours are rows r and r+1; in an
	// unshifted one, rows r-1 and r.
	lo, hi := r-1, r
	if g.shifted(c) {
		lo, hi = r, r+1
	}
	return [6]Hex{
		{c, r + 1},  // S
		{c - 1, hi}, // SW
		{c - 1, lo}, // NW
		{c, r - 1},  // N
		{c + 1, lo}, // NE
		{c + 1, hi}, // SE
	}
}

// Adjacent reports whether a and b share a hexside. A hex is not adjacent to
// itself.
func (g Grid) Adjacent(a, b Hex) bool {
	return g.Distance(a, b) == 1
}

// Distance counts hexes as Mons 10.2 counts range: the length of the shortest
// path of contiguous hexes from a to b, not counting a and counting b. So a
// hex is 0 from itself, 1 from its neighbours, and 2524 is 3 from 2823.
func (g Grid) Distance(a, b Hex) int {
	d := g.cube(a).sub(g.cube(b))
	return (abs(d.x) + abs(d.y) + abs(d.z)) / 2
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Hexside is the edge between two adjacent hexes, stored in a canonical order
// (A < B by [Compare]) so that the same edge compares equal, and can key a
// map, whichever side it was named from. Rivers, bridges and wire lie on
// hexsides (Mons 9.16: "a railroad bridge spans hex side 1523/1624").
type Hexside struct{ A, B Hex }

// newHexside puts a and b in canonical order without checking adjacency.
func newHexside(a, b Hex) Hexside {
	if Compare(b, a) < 0 {
		a, b = b, a
	}
	return Hexside{A: a, B: b}
}

// Hexside returns the hexside between a and b in canonical order, whichever
// order they are given in, and false when a and b are not adjacent (so there
// is no such hexside).
func (g Grid) Hexside(a, b Hex) (Hexside, bool) {
	if !g.Adjacent(a, b) {
		return Hexside{}, false
	}
	return newHexside(a, b), true
}

// String prints the hexside as the rulebooks do, "1523/1624", smaller id
// first.
func (s Hexside) String() string {
	return s.A.String() + "/" + s.B.String()
}

// ParseHexside reads a hexside written as two hex ids separated by a slash,
// "1523/1624", in either order, and returns it in canonical order. It checks
// only the form (and that the two ids differ): adjacency depends on the map's
// parity, so check it with [Grid.Hexside] or [Grid.Adjacent].
func ParseHexside(s string) (Hexside, error) {
	left, right, ok := strings.Cut(s, "/")
	if !ok {
		return Hexside{}, fmt.Errorf("hexside %q: expected two hex ids separated by a slash such as 1523/1624", s)
	}
	a, err := Parse(left)
	if err != nil {
		return Hexside{}, fmt.Errorf("hexside %q: %w", s, err)
	}
	b, err := Parse(right)
	if err != nil {
		return Hexside{}, fmt.Errorf("hexside %q: %w", s, err)
	}
	if a == b {
		return Hexside{}, fmt.Errorf("hexside %q: names the same hex twice; expected two adjacent hexes such as 1523/1624", s)
	}
	return newHexside(a, b), nil
}
