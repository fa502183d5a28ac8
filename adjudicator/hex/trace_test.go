package hex_test

import (
	"math"
	"slices"
	"sort"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

func hexes(ids ...string) []hex.Hex {
	var out []hex.Hex
	for _, s := range ids {
		out = append(out, h(s))
	}
	return out
}

func side(s string) hex.Hexside {
	hs, err := hex.ParseHexside(s)
	if err != nil {
		panic(err)
	}
	return hs
}

func sides(ss ...string) []hex.Hexside {
	var out []hex.Hexside
	for _, s := range ss {
		out = append(out, side(s))
	}
	return out
}

// blockSet returns a blocks function for LineOfSight that blocks the given
// hexes.
func blockSet(ids ...string) func(hex.Hex) bool {
	set := map[hex.Hex]bool{}
	for _, s := range ids {
		set[h(s)] = true
	}
	return func(x hex.Hex) bool { return set[x] }
}

// TestRulebookTraces pins the geometry of the Mons 10.4 examples, and of the
// Soissons 15.2 chain 2013-2113-2213.
func TestRulebookTraces(t *testing.T) {
	tests := []struct {
		name     string
		g        hex.Grid
		from, to string
		crossed  []hex.Hex
		along    []hex.Hexside
	}{
		// "this LoS runs along the hexside shared by 3614 and 3615".
		{"Mons 10.4 first example", mons, "3514", "3714", nil, sides("3614/3615")},
		// "the built-up residential hex in 3813 blocks its LoS": the line
		// runs along 3713/3814, straight through 3813 corner to corner, then
		// along 3812/3912.
		{"Mons 10.4 second example", mons, "3714", "3911", hexes("3813"), sides("3713/3814", "3812/3912")},
		// "the terrain in the hexes of the bombarding and targeted units is
		// never a factor": nothing lies between.
		{"Mons 10.4 third example", mons, "4308", "4208", nil, nil},
		{"Mons 10.4 third example", mons, "4308", "4209", nil, nil},
		// 2013 and 2213 sit in shifted columns, half a row below 2113, so a
		// straight line between them does not cross 2113 but runs along
		// 2113/2114, like the first Mons example.
		{"Soissons 15.2 chain", soissons, "2013", "2213", nil, sides("2113/2114")},
	}
	for _, tt := range tests {
		got := tt.g.Trace(h(tt.from), h(tt.to))
		if !slices.Equal(got.Crossed, tt.crossed) || !slices.Equal(got.Along, tt.along) {
			t.Errorf("%s: %s.Trace(%s, %s) = %v, want crossed %v along %v", tt.name, gridName(tt.g), tt.from, tt.to, got, tt.crossed, tt.along)
		}
	}
}

// TestMonsLoSExamples replays Mons 10.4 with the terrain the examples name.
func TestMonsLoSExamples(t *testing.T) {
	tests := []struct {
		name      string
		from, to  string
		blocking  []string // forest and built-up residential hexes
		wantClear bool
		wantBy    string
	}{
		// 3614 is built-up industrial (does not block), 3615 forest.
		{"Mons 10.4 3514->3714", "3514", "3714", []string{"3615"}, false, "3615"},
		{"Mons 10.4 3714->3514", "3714", "3514", []string{"3615"}, false, "3615"},
		// 3813 is built-up residential.
		{"Mons 10.4 3714->3911", "3714", "3911", []string{"3813"}, false, "3813"},
		{"Mons 10.4 3911->3714", "3911", "3714", []string{"3813"}, false, "3813"},
		// Whatever stands in 4308, 4208 and 4209 does not matter.
		{"Mons 10.4 4308->4208", "4308", "4208", []string{"4308", "4208", "4209"}, true, ""},
		{"Mons 10.4 4308->4209", "4308", "4209", []string{"4308", "4208", "4209"}, true, ""},
	}
	for _, tt := range tests {
		clear, by := mons.LineOfSight(h(tt.from), h(tt.to), blockSet(tt.blocking...))
		var wantBy hex.Hex
		if tt.wantBy != "" {
			wantBy = h(tt.wantBy)
		}
		if clear != tt.wantClear || by != wantBy {
			t.Errorf("%s: LineOfSight(%s, %s) = %v, %v; want %v, %v", tt.name, tt.from, tt.to, clear, by, tt.wantClear, wantBy)
		}
	}
}

func TestLineOfSightRules(t *testing.T) {
	tests := []struct {
		name      string
		g         hex.Grid
		from, to  string
		blocking  []string
		wantClear bool
		wantBy    string
	}{
		{"nothing blocks", mons, "2301", "2305", nil, true, ""},
		{"a crossed hex blocks", mons, "2301", "2305", []string{"2303"}, false, "2303"},
		{"nearest blocking hex is reported", mons, "2301", "2305", []string{"2302", "2304"}, false, "2302"},
		{"nearest blocking hex is reported, reversed", mons, "2305", "2301", []string{"2302", "2304"}, false, "2304"},
		{"only the ends block", mons, "2301", "2305", []string{"2301", "2305"}, true, ""},
		{"off the line", mons, "2301", "2305", []string{"2201", "2202", "2203", "2204", "2205", "2401", "2402", "2403", "2404", "2405"}, true, ""},
		{"along: first hex of the side blocks", mons, "3514", "3714", []string{"3614"}, false, "3614"},
		{"along: second hex of the side blocks", mons, "3514", "3714", []string{"3615"}, false, "3615"},
		{"along: both block", mons, "3514", "3714", []string{"3614", "3615"}, false, "3614"},
		{"along: ends do not count", mons, "3514", "3714", []string{"3514", "3714"}, true, ""},
		{"along: hexes beside the side do not count", mons, "3514", "3714", []string{"3513", "3515", "3613", "3616", "3713", "3715"}, true, ""},
		// 2013 and 2213 sit in shifted columns, half a row below 2113, so
		// the line between them runs along 2113/2114.
		{"Soissons along: 2113 blocks", soissons, "2013", "2213", []string{"2113"}, false, "2113"},
		{"Soissons along: 2114 blocks", soissons, "2013", "2213", []string{"2114"}, false, "2114"},
		{"Soissons along: beside", soissons, "2013", "2213", []string{"2112", "2115", "2012", "2212"}, true, ""},
		{"Soissons crossed", soissons, "2310", "2511", []string{"2410"}, false, "2410"},
	}
	for _, tt := range tests {
		clear, by := tt.g.LineOfSight(h(tt.from), h(tt.to), blockSet(tt.blocking...))
		var wantBy hex.Hex
		if tt.wantBy != "" {
			wantBy = h(tt.wantBy)
		}
		if clear != tt.wantClear || by != wantBy {
			t.Errorf("%s: %s.LineOfSight(%s, %s) blocking %v = %v, %v; want %v, %v",
				tt.name, gridName(tt.g), tt.from, tt.to, tt.blocking, clear, by, tt.wantClear, wantBy)
		}
	}
	if clear, by := mons.LineOfSight(h("3714"), h("3911"), nil); !clear || by != (hex.Hex{}) {
		t.Errorf("LineOfSight with nil blocks = %v, %v; want true, zero", clear, by)
	}
}

// TestCornerExample pins a line that passes through points where three hexes
// meet: from 2010 to 2413 on the Mons grid it goes from 2110 straight into
// 2211, and from 2212 into 2312, touching 2111 and 2311 only at a corner
// each. Mons 10.3 blocks a line that passes "through even the slightest
// portion" of a blocking hex, so the corner hexes count as crossed.
func TestCornerExample(t *testing.T) {
	from, to := h("2010"), h("2413")
	tr := mons.Trace(from, to)
	if want := hexes("2110", "2111", "2211", "2212", "2311", "2312"); !slices.Equal(tr.Crossed, want) || tr.Along != nil {
		t.Errorf("Trace(2010, 2413) = %v, want crossed %v and nothing along", tr, want)
	}
	if got, want := mons.Corners(from, to), hexes("2111", "2311"); !slices.Equal(got, want) {
		t.Errorf("Corners(2010, 2413) = %v, want %v", got, want)
	}
	if clear, by := mons.LineOfSight(from, to, blockSet("2311")); clear || by != h("2311") {
		t.Errorf("LineOfSight(2010, 2413) with 2311 blocking = %v, %v; want false, 2311", clear, by)
	}
	if got := mons.Corners(h("3714"), h("3911")); got != nil {
		t.Errorf("Corners(3714, 3911) = %v, want none (the line runs along hexsides, not through corners)", got)
	}
}

// TestTraceWeaves: a long line that is nearly parallel to the columns weaves
// in and out of the next column, so it meets more hexes than a shortest path
// has. From 0000 to 0115 (16 hexes apart) it passes 20 hexes; sampling the
// line once per hex, as common line-drawing code does, would miss the five
// hexes of column 01 it clips on the way, 0105 to 0109, and a forest there
// would not block as Mons 10.3 requires.
func TestTraceWeaves(t *testing.T) {
	from, to := h("0000"), h("0115")
	want := hexes("0001", "0002", "0003", "0004", "0005", "0105", "0006", "0106", "0007", "0107",
		"0008", "0108", "0009", "0109", "0010", "0110", "0111", "0112", "0113", "0114")
	got := mons.Trace(from, to)
	if !slices.Equal(got.Crossed, want) || got.Along != nil {
		t.Errorf("Trace(0000, 0115) = %v, want crossed %v", got, want)
	}
	if d := mons.Distance(from, to); d != 16 {
		t.Errorf("Distance(0000, 0115) = %d, want 16", d)
	}
	if o, _ := oracle(mons, from, to); !slices.Equal(o.Crossed, want) {
		t.Errorf("geometry says Trace(0000, 0115) crosses %v, want %v", o.Crossed, want)
	}
}

func TestTraceStraightLines(t *testing.T) {
	tests := []struct {
		g        hex.Grid
		from, to string
		crossed  []hex.Hex
	}{
		{mons, "2301", "2305", hexes("2302", "2303", "2304")},
		{mons, "2305", "2301", hexes("2304", "2303", "2302")},
		// Mons 10.2: 2524 -> 2823 is a straight line of hexes.
		{mons, "2524", "2823", hexes("2624", "2723")},
		// Soissons: two steps south-east, 2310 -> 2410 -> 2511.
		{soissons, "2310", "2511", hexes("2410")},
		{soissons, "2310", "2313", hexes("2311", "2312")},
		{mons, "2524", "2524", nil},
		{mons, "2524", "2525", nil},
	}
	for _, tt := range tests {
		got := tt.g.Trace(h(tt.from), h(tt.to))
		if !slices.Equal(got.Crossed, tt.crossed) || got.Along != nil {
			t.Errorf("%s.Trace(%s, %s) = %v, want crossed %v", gridName(tt.g), tt.from, tt.to, got, tt.crossed)
		}
	}
}

// TestLineOfSightNeverAsksAboutEnds: blocks is never called for the two end
// hexes, and everything it is called for is on the Trace.
func TestLineOfSightNeverAsksAboutEnds(t *testing.T) {
	for _, g := range []hex.Grid{mons, soissons} {
		for _, p := range pairs(g) {
			a, b := p[0], p[1]
			tr := g.Trace(a, b)
			onTrace := map[hex.Hex]bool{}
			for _, x := range tr.Crossed {
				onTrace[x] = true
			}
			for _, s := range tr.Along {
				onTrace[s.A], onTrace[s.B] = true, true
			}
			asked := 0
			clear, _ := g.LineOfSight(a, b, func(x hex.Hex) bool {
				asked++
				if x == a || x == b {
					t.Fatalf("%s.LineOfSight(%v, %v) asked about end hex %v", gridName(g), a, b, x)
				}
				if !onTrace[x] {
					t.Fatalf("%s.LineOfSight(%v, %v) asked about %v, which is not on %v", gridName(g), a, b, x, tr)
				}
				return false
			})
			if !clear || asked != len(onTrace) {
				t.Fatalf("%s.LineOfSight(%v, %v) = %v after %d questions, want clear after %d", gridName(g), a, b, clear, asked, len(onTrace))
			}
			// Everything on the trace blocks except the ends: blocked by
			// the first thing on the line, unless nothing lies between.
			clear, by := g.LineOfSight(a, b, func(hex.Hex) bool { return true })
			if clear != (len(onTrace) == 0) {
				t.Fatalf("%s.LineOfSight(%v, %v) with everything blocking = %v, want %v", gridName(g), a, b, clear, len(onTrace) == 0)
			}
			if !clear && by != first(tr) {
				t.Fatalf("%s.LineOfSight(%v, %v) blocked by %v, want the first hex on %v", gridName(g), a, b, by, tr)
			}
		}
	}
}

// first returns the first hex a non-empty trace meets. A line runs along a
// hexside only when it heads for a "diagonal" hex, and then it leaves its
// first hex through a corner straight onto a hexside, so a trace with any
// hexside starts with one.
func first(tr hex.Trace) hex.Hex {
	if len(tr.Along) > 0 {
		return tr.Along[0].A
	}
	return tr.Crossed[0]
}

func TestTraceSymmetric(t *testing.T) {
	for _, g := range []hex.Grid{mons, soissons} {
		for _, p := range pairs(g) {
			a, b := p[0], p[1]
			ab, ba := g.Trace(a, b), g.Trace(b, a)
			slices.Reverse(ba.Crossed)
			slices.Reverse(ba.Along)
			if !slices.Equal(ab.Crossed, ba.Crossed) || !slices.Equal(ab.Along, ba.Along) {
				t.Fatalf("%s: Trace(%v, %v) = %v but reversed Trace(%v, %v) = %v", gridName(g), a, b, ab, b, a, ba)
			}
			ca, cb := g.Corners(a, b), g.Corners(b, a)
			slices.Reverse(cb)
			if !slices.Equal(ca, cb) {
				t.Fatalf("%s: Corners(%v, %v) = %v but reversed Corners(%v, %v) = %v", gridName(g), a, b, ca, b, a, cb)
			}
		}
	}
}

// TestTraceAgainstGeometry checks Trace against an independent floating-point
// model of the printed map: flat-topped hexes of circumradius 1, centres at
// x = 1.5*col, y = sqrt(3)*(row + 1/2 if the column is shifted). Each hex
// near the segment is clipped against the segment; the ones it passes
// through, touches at one point, or runs along an edge of, must be exactly
// Trace's Crossed, Corners and Along, in order.
func TestTraceAgainstGeometry(t *testing.T) {
	corners := 0
	alongs := 0
	for _, g := range []hex.Grid{mons, soissons} {
		for _, p := range pairs(g) {
			a, b := p[0], p[1]
			want, wantCorners := oracle(g, a, b)
			got := g.Trace(a, b)
			if !slices.Equal(got.Crossed, want.Crossed) || !slices.Equal(got.Along, want.Along) {
				t.Fatalf("%s.Trace(%v, %v) = %v, want %v", gridName(g), a, b, got, want)
			}
			if gc := g.Corners(a, b); !slices.Equal(gc, wantCorners) {
				t.Fatalf("%s.Corners(%v, %v) = %v, want %v", gridName(g), a, b, gc, wantCorners)
			}
			corners += len(wantCorners)
			alongs += len(want.Along)
		}
	}
	// Make sure the pairs exercised the special cases at all.
	if corners == 0 || alongs == 0 {
		t.Fatalf("only %d corners and %d hexsides seen; the pairs are too easy", corners, alongs)
	}
}

// pairs returns the hex pairs the property tests run over: every hex within
// 9 of two sources (every direction class at short range), long lines across
// a Mons-sized map, and lines off the map's edges.
func pairs(g hex.Grid) [][2]hex.Hex {
	var out [][2]hex.Hex
	for _, src := range []hex.Hex{h("2524"), h("2310")} {
		for _, b := range region(src.Col-9, src.Col+9, src.Row-9, src.Row+9) {
			if g.Distance(src, b) <= 9 {
				out = append(out, [2]hex.Hex{src, b})
			}
		}
	}
	rng := sampler(3)
	for range 1500 {
		a := hex.Hex{Col: rng.IntN(50), Row: rng.IntN(30)}
		b := hex.Hex{Col: rng.IntN(50), Row: rng.IntN(30)}
		out = append(out, [2]hex.Hex{a, b})
	}
	for range 200 {
		a := hex.Hex{Col: rng.IntN(12) - 6, Row: rng.IntN(12) - 6}
		b := hex.Hex{Col: rng.IntN(12) - 6, Row: rng.IntN(12) - 6}
		out = append(out, [2]hex.Hex{a, b})
	}
	return out
}

const eps = 1e-9

// centre is the centre of x on the printed map, computed from the rulebook
// definition of the parity rather than from the package.
func centre(g hex.Grid, x hex.Hex) (float64, float64) {
	odd := x.Col&1 == 1
	shifted := odd
	if g.Parity == hex.EvenColumnsShifted {
		shifted = !odd
	}
	y := float64(x.Row)
	if shifted {
		y += 0.5
	}
	return 1.5 * float64(x.Col), math.Sqrt(3) * y
}

type contact int

const (
	noContact contact = iota
	cornerContact
	edgeContact
	insideContact
)

// clip intersects the segment p(t) = (px,py) + t*(qx,qy), t in [0,1], with
// the closed hex centred at (cx,cy), whose sides lie half way to the six
// neighbouring centres. It returns how they meet and the middle of the
// t-interval where they do.
func clip(px, py, qx, qy, cx, cy float64) (contact, float64) {
	s3 := math.Sqrt(3)
	vs := [6][2]float64{{0, s3}, {0, -s3}, {1.5, s3 / 2}, {1.5, -s3 / 2}, {-1.5, s3 / 2}, {-1.5, -s3 / 2}}
	const half = 1.5 // |v|^2 / 2
	lo, hi := 0.0, 1.0
	for _, v := range vs {
		s0 := (px-cx)*v[0] + (py-cy)*v[1]
		q := qx*v[0] + qy*v[1]
		if math.Abs(q) < 1e-6 { // parallel to this side
			if s0 > half+eps {
				return noContact, 0
			}
			continue
		}
		t := (half - s0) / q
		if q > 0 {
			hi = min(hi, t)
		} else {
			lo = max(lo, t)
		}
	}
	mid := (lo + hi) / 2
	switch {
	case hi < lo-eps:
		return noContact, 0
	case hi-lo <= eps:
		return cornerContact, mid
	}
	mx, my := px+mid*qx, py+mid*qy
	slack := math.Inf(1)
	for _, v := range vs {
		slack = min(slack, half-((mx-cx)*v[0]+(my-cy)*v[1]))
	}
	if slack <= eps {
		return edgeContact, mid
	}
	return insideContact, mid
}

// oracle computes the expected Trace and Corners of the segment from a to b.
func oracle(g hex.Grid, a, b hex.Hex) (hex.Trace, []hex.Hex) {
	if a == b {
		return hex.Trace{}, nil
	}
	px, py := centre(g, a)
	bx, by := centre(g, b)
	qx, qy := bx-px, by-py
	type hit struct {
		x    hex.Hex
		kind contact
		mid  float64
	}
	var hits []hit
	for _, x := range region(min(a.Col, b.Col)-2, max(a.Col, b.Col)+2, min(a.Row, b.Row)-2, max(a.Row, b.Row)+2) {
		if x == a || x == b {
			continue
		}
		cx, cy := centre(g, x)
		if kind, mid := clip(px, py, qx, qy, cx, cy); kind != noContact {
			hits = append(hits, hit{x, kind, mid})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].mid < hits[j].mid })
	var tr hex.Trace
	var corners []hex.Hex
	for i, ht := range hits {
		switch ht.kind {
		case insideContact:
			tr.Crossed = append(tr.Crossed, ht.x)
		case cornerContact:
			tr.Crossed = append(tr.Crossed, ht.x)
			corners = append(corners, ht.x)
		case edgeContact:
			// The two hexes of a hexside share the same stretch of the
			// segment; pair each with the next one.
			if i+1 < len(hits) && hits[i+1].kind == edgeContact && math.Abs(hits[i+1].mid-ht.mid) < 1e-7 {
				x, y := ht.x, hits[i+1].x
				if hex.Compare(y, x) < 0 {
					x, y = y, x
				}
				tr.Along = append(tr.Along, hex.Hexside{A: x, B: y})
				hits[i+1].kind = noContact
			}
		}
	}
	return tr, corners
}
