package hex_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

var (
	// mons and soissons are the two map geometries the rulebooks fix.
	mons     = hex.Grid{Parity: hex.OddColumnsShifted}
	soissons = hex.Grid{Parity: hex.EvenColumnsShifted}
)

func h(s string) hex.Hex { return hex.MustParse(s) }

func gridName(g hex.Grid) string {
	if g.Parity == hex.EvenColumnsShifted {
		return "Soissons"
	}
	return "Mons"
}

func otherGrid(g hex.Grid) hex.Grid {
	if g.Parity == hex.EvenColumnsShifted {
		return mons
	}
	return soissons
}

// adjacencyFacts is every pair of hexes the rulebook text says (or, where
// noted, clearly implies) touch. pinsParity marks the facts that the opposite
// parity gets wrong, i.e. the ones that decide which parity a map has.
var adjacencyFacts = []struct {
	rule       string
	g          hex.Grid
	a, b       string
	pinsParity bool
}{
	// Mons 7.2: "A unit in hex 3506 would project ZOC into 3407, 3505, 3606 and 3607."
	{"Mons 7.2", mons, "3506", "3407", true},
	{"Mons 7.2", mons, "3506", "3505", false},
	{"Mons 7.2", mons, "3506", "3606", false},
	{"Mons 7.2", mons, "3506", "3607", true},
	// Mons 7.2: "a unit in hex 2707 projects ZOC into 2607, 2706 and 2807."
	{"Mons 7.2", mons, "2707", "2607", false},
	{"Mons 7.2", mons, "2707", "2706", false},
	{"Mons 7.2", mons, "2707", "2807", false},
	// Mons 12.3: "a unit in hex 1824 may not melee attack into both 1923 and 1924".
	{"Mons 12.3", mons, "1824", "1923", true},
	{"Mons 12.3", mons, "1824", "1924", false},
	// Mons 4.5: a British unit in 3122 with German units in 3023 and 3222 is surrounded.
	{"Mons 4.5", mons, "3122", "3023", true},
	{"Mons 4.5", mons, "3122", "3222", false},
	// Mons 9.16: "a railroad bridge spans hex side 1523/1624".
	{"Mons 9.16", mons, "1523", "1624", true},
	// Mons 10.4: 4308 can bombard 4208 and 4209 because only the terrain of
	// the two end hexes is involved, i.e. nothing lies between: adjacent.
	{"Mons 10.4", mons, "4308", "4208", false},
	{"Mons 10.4", mons, "4308", "4209", true},
	// Soissons 15.2: supply line from 2013 through 2113; friendly ZOC from
	// 2212 into 2213 connects through 2113 with the ZOC in 2013.
	{"Soissons 15.2", soissons, "2013", "2113", false},
	{"Soissons 15.2", soissons, "2113", "2213", false},
	{"Soissons 15.2", soissons, "2212", "2213", false},
	{"Soissons 15.2", soissons, "2212", "2113", false},
	// Soissons 19.5: after an attack on 2310, "unit X could advance into
	// 2311 ... unit Y could advance into 2209", both hexes "adjacent to the
	// defender's hex".
	{"Soissons 19.5", soissons, "2310", "2209", true},
	{"Soissons 19.5", soissons, "2310", "2311", false},
	// Soissons 14: X "cannot project a TZ beyond 0805 into 0706": 0706 is the
	// hex beyond 0805, so they touch.
	{"Soissons 14", soissons, "0805", "0706", true},
	// Soissons 19.6 (implied): unit A may end its fall back in 1317 on its
	// supply line "or adjacent to the supply line in 1216 or 1416"; both
	// touch 1317.
	{"Soissons 19.6", soissons, "1317", "1216", true},
	{"Soissons 19.6", soissons, "1317", "1416", true},
}

func TestRulebookAdjacency(t *testing.T) {
	for _, f := range adjacencyFacts {
		a, b := h(f.a), h(f.b)
		for _, p := range [][2]hex.Hex{{a, b}, {b, a}} {
			if !f.g.Adjacent(p[0], p[1]) {
				t.Errorf("%s: %s.Adjacent(%v, %v) = false, want true", f.rule, gridName(f.g), p[0], p[1])
			}
			if d := f.g.Distance(p[0], p[1]); d != 1 {
				t.Errorf("%s: %s.Distance(%v, %v) = %d, want 1", f.rule, gridName(f.g), p[0], p[1], d)
			}
			if ns := f.g.Neighbours(p[0]); !slices.Contains(ns[:], p[1]) {
				t.Errorf("%s: %s.Neighbours(%v) = %v, want it to include %v", f.rule, gridName(f.g), p[0], ns, p[1])
			}
		}
		if _, ok := f.g.Hexside(a, b); !ok {
			t.Errorf("%s: %s.Hexside(%v, %v) not ok, want a hexside", f.rule, gridName(f.g), a, b)
		}
		// The facts that fix the parity must fail on the other grid, or the
		// parity would not be pinned by the rulebook at all.
		if o := otherGrid(f.g); f.pinsParity && o.Adjacent(a, b) {
			t.Errorf("%s: %v and %v also touch on the %s grid; the fact does not pin the parity", f.rule, a, b, gridName(o))
		}
	}
}

func TestNeighboursOrder(t *testing.T) {
	tests := []struct {
		g    hex.Grid
		h    string
		want [6]string // S, SW, NW, N, NE, SE
	}{
		// A shifted column in Mons (odd): side neighbours in rows rr, rr+1.
		{mons, "3506", [6]string{"3507", "3407", "3406", "3505", "3606", "3607"}},
		// An unshifted column in Mons (even): side neighbours in rows rr-1, rr.
		{mons, "1824", [6]string{"1825", "1724", "1723", "1823", "1923", "1924"}},
		// Soissons: odd columns unshifted, even columns shifted.
		{soissons, "2310", [6]string{"2311", "2210", "2209", "2309", "2409", "2410"}},
		{soissons, "0805", [6]string{"0806", "0706", "0705", "0804", "0905", "0906"}},
	}
	for _, tt := range tests {
		got := tt.g.Neighbours(h(tt.h))
		var gotS [6]string
		for i, n := range got {
			gotS[i] = n.String()
		}
		if gotS != tt.want {
			t.Errorf("%s.Neighbours(%s) = %v, want %v", gridName(tt.g), tt.h, gotS, tt.want)
		}
	}
}

// TestNeighboursOffMap: hexes on the edge keep all six neighbours, even the
// ones no map has, so the caller decides what is on its map.
func TestNeighboursOffMap(t *testing.T) {
	// Mons 3.1: 2100 is an entry hex on the topmost hex file.
	got := mons.Neighbours(h("2100"))
	if !slices.Contains(got[:], hex.Hex{Col: 21, Row: -1}) {
		t.Errorf("Mons.Neighbours(2100) = %v, want it to include row -1 north of it", got)
	}
	got = soissons.Neighbours(h("0000"))
	want := [6]hex.Hex{{0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, 0}, {1, 1}}
	if got != want {
		t.Errorf("Soissons.Neighbours(0000) = %+v, want %+v", got, want)
	}
	// Column -1 is odd: shifted on the Mons grid.
	got = mons.Neighbours(hex.Hex{Col: -1, Row: 0})
	want = [6]hex.Hex{{-1, 1}, {-2, 1}, {-2, 0}, {-1, -1}, {0, 0}, {0, 1}}
	if got != want {
		t.Errorf("Mons.Neighbours(col -1, row 0) = %+v, want %+v", got, want)
	}
}

// TestMonsZOCLists checks that the ZOC examples of Mons 7.2 name only
// neighbours; the hexes they leave out (3406 and 3507; 2608, 2708 and 2808)
// are the built-up ones ZOC does not enter, a fact for the map data.
func TestMonsZOCLists(t *testing.T) {
	tests := []struct {
		from       string
		zoc, other []string
	}{
		{"3506", []string{"3407", "3505", "3606", "3607"}, []string{"3406", "3507"}},
		{"2707", []string{"2607", "2706", "2807"}, []string{"2608", "2708", "2808"}},
	}
	for _, tt := range tests {
		var got []string
		for _, n := range mons.Neighbours(h(tt.from)) {
			got = append(got, n.String())
		}
		want := append(slices.Clone(tt.zoc), tt.other...)
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("Mons.Neighbours(%s) = %v, want %v", tt.from, got, want)
		}
	}
}

func TestRulebookDistance(t *testing.T) {
	tests := []struct {
		rule string
		g    hex.Grid
		a, b string
		want int
	}{
		// Mons 10.2: "an artillery unit in hex 2524 bombarding a unit in hex
		// 2823 is firing at a range of three hexes."
		{"Mons 10.2", mons, "2524", "2823", 3},
		{"Mons 10.2", mons, "2524", "2524", 0},
		// Mons 10.4's examples.
		{"Mons 10.4", mons, "3514", "3714", 2},
		{"Mons 10.4", mons, "3714", "3911", 4},
		{"Mons 10.4", mons, "3714", "3813", 2},
		{"Mons 10.4", mons, "4308", "4208", 1},
		{"Mons 10.4", mons, "4308", "4209", 1},
		// Soissons 15.2: 2013 and 2213 are linked through 2113.
		{"Soissons 15.2", soissons, "2013", "2213", 2},
	}
	for _, tt := range tests {
		a, b := h(tt.a), h(tt.b)
		if got := tt.g.Distance(a, b); got != tt.want {
			t.Errorf("%s: Distance(%v, %v) = %d, want %d", tt.rule, a, b, got, tt.want)
		}
		if got := tt.g.Distance(b, a); got != tt.want {
			t.Errorf("%s: Distance(%v, %v) = %d, want %d", tt.rule, b, a, got, tt.want)
		}
	}
}

// TestMonsSurrounded: Mons 4.5 says a British unit in 3122 is "immediately
// surrounded" by German units in 3023 and 3222 "and/or their zones of
// control". That holds only if every neighbour of 3122 is one of those two
// hexes or next to one of them.
func TestMonsSurrounded(t *testing.T) {
	germans := []hex.Hex{h("3023"), h("3222")}
	for _, n := range mons.Neighbours(h("3122")) {
		covered := false
		for _, g := range germans {
			if n == g || mons.Adjacent(n, g) {
				covered = true
			}
		}
		if !covered {
			t.Errorf("Mons 4.5: neighbour %v of 3122 is neither 3023 nor 3222 nor next to them", n)
		}
	}
}

// TestMonsSouthEdge: Mons 4.4's exit hexes on the south edge are 1327, 1628,
// 1927 and 2228. The south edge is straight only if the odd columns, which
// end at row 27, sit half a hex lower than the even ones, which end at 28:
// then the odd-column exit hexes meet row 28 of the even columns beside them.
func TestMonsSouthEdge(t *testing.T) {
	for _, pair := range [][2]string{{"1327", "1428"}, {"1927", "1828"}, {"1927", "2028"}, {"1628", "1527"}, {"2228", "2127"}} {
		a, b := h(pair[0]), h(pair[1])
		if !mons.Adjacent(a, b) {
			t.Errorf("Mons 4.4: %v and %v are not adjacent; the south edge would not be straight", a, b)
		}
	}
}

// TestSoissonsThreatZone: in the Soissons 14 example unit X projects ZOC into
// 0805 and its two-hex threat zone would reach 0706 (beyond 0805) and 1003.
// Some hex must be adjacent to 0805 and two hexes from both.
func TestSoissonsThreatZone(t *testing.T) {
	var spots []string
	for _, x := range soissons.Neighbours(h("0805")) {
		if soissons.Distance(x, h("0706")) == 2 && soissons.Distance(x, h("1003")) == 2 {
			spots = append(spots, x.String())
		}
	}
	if len(spots) == 0 {
		t.Fatal("Soissons 14: no hex next to 0805 is two hexes from both 0706 and 1003")
	}
	t.Logf("Soissons 14: unit X can only be in %v", spots)
}

// region returns every hex with column and row in the given ranges.
func region(c0, c1, r0, r1 int) []hex.Hex {
	var hs []hex.Hex
	for c := c0; c <= c1; c++ {
		for r := r0; r <= r1; r++ {
			hs = append(hs, hex.Hex{Col: c, Row: r})
		}
	}
	return hs
}

func TestNeighbourProperties(t *testing.T) {
	for _, g := range []hex.Grid{mons, soissons} {
		for _, a := range region(-3, 60, -3, 40) {
			ns := g.Neighbours(a)
			seen := map[hex.Hex]bool{}
			for _, n := range ns {
				if seen[n] {
					t.Errorf("%s.Neighbours(%v) = %v lists %v twice", gridName(g), a, ns, n)
				}
				seen[n] = true
				if d := g.Distance(a, n); d != 1 {
					t.Errorf("%s: Distance(%v, %v) = %d, want 1 for a neighbour", gridName(g), a, n, d)
				}
				if !g.Adjacent(a, n) || !g.Adjacent(n, a) {
					t.Errorf("%s: Adjacent(%v, %v) false for a neighbour", gridName(g), a, n)
				}
				back := g.Neighbours(n)
				if !slices.Contains(back[:], a) {
					t.Errorf("%s: %v is a neighbour of %v but not the other way round", gridName(g), n, a)
				}
			}
			// Exactly the six neighbours are at distance 1, and
			// Adjacent(a, b) == (Distance(a, b) == 1).
			for _, b := range region(a.Col-3, a.Col+3, a.Row-3, a.Row+3) {
				d := g.Distance(a, b)
				if (d == 1) != seen[b] {
					t.Errorf("%s: Distance(%v, %v) = %d but neighbour = %v", gridName(g), a, b, d, seen[b])
				}
				if g.Adjacent(a, b) != (d == 1) {
					t.Errorf("%s: Adjacent(%v, %v) = %v but Distance = %d", gridName(g), a, b, g.Adjacent(a, b), d)
				}
			}
		}
	}
}

// TestDistanceIsShortestPath checks Distance against Mons 10.2's own
// definition, "the shortest path of contiguous hexes", found by breadth-first
// search over Neighbours.
func TestDistanceIsShortestPath(t *testing.T) {
	for _, g := range []hex.Grid{mons, soissons} {
		for _, src := range []hex.Hex{h("2524"), h("2310"), h("0000"), {Col: -1, Row: 3}} {
			dist := map[hex.Hex]int{src: 0}
			queue := []hex.Hex{src}
			for len(queue) > 0 {
				cur := queue[0]
				queue = queue[1:]
				if dist[cur] == 12 {
					continue
				}
				for _, n := range g.Neighbours(cur) {
					if _, ok := dist[n]; !ok {
						dist[n] = dist[cur] + 1
						queue = append(queue, n)
					}
				}
			}
			for b, want := range dist {
				if got := g.Distance(src, b); got != want {
					t.Errorf("%s: Distance(%v, %v) = %d, want %d (shortest path)", gridName(g), src, b, got, want)
				}
			}
			for _, b := range region(src.Col-12, src.Col+12, src.Row-12, src.Row+12) {
				if _, ok := dist[b]; !ok && g.Distance(src, b) <= 12 {
					t.Errorf("%s: Distance(%v, %v) = %d, but no path that short", gridName(g), src, b, g.Distance(src, b))
				}
			}
		}
	}
}

func TestDistanceMetric(t *testing.T) {
	rng := new(sampler)
	pick := func() hex.Hex { return hex.Hex{Col: rng.IntN(70) - 5, Row: rng.IntN(50) - 5} }
	for _, g := range []hex.Grid{mons, soissons} {
		for range 20000 {
			a, b, c := pick(), pick(), pick()
			ab, ba := g.Distance(a, b), g.Distance(b, a)
			if ab != ba {
				t.Fatalf("%s: Distance(%v, %v) = %d but Distance(%v, %v) = %d", gridName(g), a, b, ab, b, a, ba)
			}
			if (ab == 0) != (a == b) {
				t.Fatalf("%s: Distance(%v, %v) = %d", gridName(g), a, b, ab)
			}
			if ac, cb := g.Distance(a, c), g.Distance(c, b); ab > ac+cb {
				t.Fatalf("%s: Distance(%v, %v) = %d > %d + %d via %v", gridName(g), a, b, ab, ac, cb, c)
			}
			// Never shorter than the column difference, never longer than
			// walking the columns and then the rows.
			dc, dr := abs(a.Col-b.Col), abs(a.Row-b.Row)
			if ab < dc || ab > dc+dr {
				t.Fatalf("%s: Distance(%v, %v) = %d outside [%d, %d]", gridName(g), a, b, ab, dc, dc+dr)
			}
		}
	}
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

func TestHexside(t *testing.T) {
	// Mons 9.16: "a railroad bridge spans hex side 1523/1624".
	want := hex.Hexside{A: h("1523"), B: h("1624")}
	for _, p := range [][2]string{{"1523", "1624"}, {"1624", "1523"}} {
		got, ok := mons.Hexside(h(p[0]), h(p[1]))
		if !ok || got != want {
			t.Errorf("Mons.Hexside(%s, %s) = %v, %v; want %v, true", p[0], p[1], got, ok, want)
		}
	}
	if got := want.String(); got != "1523/1624" {
		t.Errorf("Hexside.String() = %q, want %q", got, "1523/1624")
	}
	// On the Soissons parity the two hexes do not touch.
	if got, ok := soissons.Hexside(h("1523"), h("1624")); ok {
		t.Errorf("Soissons.Hexside(1523, 1624) = %v, true; want false", got)
	}
	for _, p := range [][2]string{{"2524", "2823"}, {"2524", "2524"}, {"3514", "3714"}} {
		if got, ok := mons.Hexside(h(p[0]), h(p[1])); ok || got != (hex.Hexside{}) {
			t.Errorf("Mons.Hexside(%s, %s) = %v, %v; want zero, false", p[0], p[1], got, ok)
		}
	}
}

func TestHexsideProperties(t *testing.T) {
	for _, g := range []hex.Grid{mons, soissons} {
		for _, a := range region(0, 50, 0, 30) {
			for _, b := range g.Neighbours(a) {
				s1, ok1 := g.Hexside(a, b)
				s2, ok2 := g.Hexside(b, a)
				if !ok1 || !ok2 || s1 != s2 {
					t.Fatalf("%s: Hexside(%v, %v) = %v, %v but Hexside(%v, %v) = %v, %v", gridName(g), a, b, s1, ok1, b, a, s2, ok2)
				}
				if hex.Compare(s1.A, s1.B) >= 0 {
					t.Fatalf("%s: Hexside(%v, %v) = %+v not in canonical order", gridName(g), a, b, s1)
				}
				if !(s1.A == a && s1.B == b || s1.A == b && s1.B == a) {
					t.Fatalf("%s: Hexside(%v, %v) = %v has other hexes", gridName(g), a, b, s1)
				}
				if !b.Valid() {
					continue
				}
				back, err := hex.ParseHexside(s1.String())
				if err != nil || back != s1 {
					t.Fatalf("ParseHexside(%q) = %v, %v; want %v", s1.String(), back, err, s1)
				}
				rev, err := hex.ParseHexside(b.String() + "/" + a.String())
				if err != nil || rev != s1 {
					t.Fatalf("ParseHexside(%q) = %v, %v; want %v", b.String()+"/"+a.String(), rev, err, s1)
				}
			}
		}
	}
}

func TestParseHexside(t *testing.T) {
	got, err := hex.ParseHexside("1624/1523")
	if want := (hex.Hexside{A: h("1523"), B: h("1624")}); err != nil || got != want {
		t.Errorf("ParseHexside(1624/1523) = %v, %v; want %v", got, err, want)
	}
	// Form only: 2524/2823 parses although the hexes do not touch.
	if _, err := hex.ParseHexside("2524/2823"); err != nil {
		t.Errorf("ParseHexside(2524/2823) error %v, want nil (adjacency is the grid's job)", err)
	}
	bad := []struct{ in, want string }{
		{"", "1523/1624"},
		{"1523", "1523/1624"},
		{"1523-1624", "1523/1624"},
		{"1523/", "expected a 4-digit hex id"},
		{"/1624", "expected a 4-digit hex id"},
		{"1523/1624/1725", "expected a 4-digit hex id"},
		{"1523 /1624", "expected a 4-digit hex id"},
		{"1523/1523", "same hex"},
	}
	for _, tt := range bad {
		got, err := hex.ParseHexside(tt.in)
		if err == nil {
			t.Errorf("ParseHexside(%q) = %v, want an error", tt.in, got)
			continue
		}
		if !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), tt.in) {
			t.Errorf("ParseHexside(%q) error %q, want it to quote the input and say %q", tt.in, err, tt.want)
		}
	}
}

func TestParityString(t *testing.T) {
	for p, want := range map[hex.Parity]string{
		hex.OddColumnsShifted:  "odd columns shifted",
		hex.EvenColumnsShifted: "even columns shifted",
		7:                      "Parity(7)",
	} {
		if got := p.String(); got != want {
			t.Errorf("Parity(%d).String() = %q, want %q", int(p), got, want)
		}
	}
	var zero hex.Grid
	if zero.Parity != hex.OddColumnsShifted {
		t.Errorf("zero Grid has parity %v, want the Mons parity", zero.Parity)
	}
}
