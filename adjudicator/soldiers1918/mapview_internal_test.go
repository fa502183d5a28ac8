package soldiers1918

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// refCellText is mvCellText as it was before it spelt the items in a buffer: it
// returns the text of h after its ground symbol, which may be longer
// than the cell, the hex spelt out with spaces for the key, and the text of its
// counter in the picture (units and markers: the picture draws the trenches).
func refCellText(s *Scenario, works map[string]byte, info *HexInfo, h hex.Hex, v MapView) (cell, full, counter string) {
	trenches := mvTrenches(s, works, info)
	var units, marks []string
	if st, ok := v.Stacks[h]; ok {
		if st.DeInf > 0 {
			units = append(units, strconv.Itoa(st.DeInf)+"g")
		}
		if st.DeHMG > 0 {
			units = append(units, strconv.Itoa(st.DeHMG)+"h")
		}
		if st.USArmy > 0 {
			a := strconv.Itoa(st.USArmy) + "a"
			if st.York {
				a += "y"
			}
			units = append(units, a)
		}
		if st.USMC > 0 {
			units = append(units, strconv.Itoa(st.USMC)+"m")
		}
	}
	if v.COWed[h] {
		marks = append(marks, "!")
	}
	if n := v.Bombardment[h]; n > 0 {
		marks = append(marks, "*"+strconv.Itoa(n))
	}
	if n := v.Carnage[h]; n > 0 {
		marks = append(marks, "x"+strconv.Itoa(n))
	}
	ground := "."
	if info.Has(NoMansLand) {
		ground = "~"
	}
	rest := strings.Join(units, "") + strings.Join(marks, "")
	full = strings.TrimSpace(ground + trenches + " " + strings.Join(append(units, marks...), " "))
	if rest == "" {
		return trenches, full, ""
	}
	cell = trenches + " " + rest
	if len(cell) > mvCellWidth-1 {
		cell = trenches + rest // squeeze out the space
	}
	return cell, full, rest
}

// TestCellTextAsBefore: every hex's cell, counter and (for a cell too long for its
// hex) key line are what they were before mvCellText spelt them in a buffer, for
// stacks, markers and carnage of every size in every hex, in both revisions.
func TestCellTextAsBefore(t *testing.T) {
	s, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1918, 23))
	n := func() int { return []int{0, 0, 1, 2, 9, 10, 123}[r.IntN(7)] }
	long := 0
	for round := range 20 {
		v := MapView{Stacks: map[hex.Hex]Stack{}, Carnage: map[hex.Hex]int{}, COWed: map[hex.Hex]bool{}, Bombardment: map[hex.Hex]int{}, Revision: round % 3}
		for _, h := range s.scOrder {
			if r.IntN(3) == 0 {
				v.Stacks[h] = Stack{DeInf: n(), DeHMG: n(), USArmy: n(), USMC: n(), York: r.IntN(2) == 0}
			}
			if r.IntN(3) == 0 {
				v.Carnage[h] = n()
			}
			v.COWed[h] = r.IntN(4) == 0
			if r.IntN(4) == 0 {
				v.Bombardment[h] = n()
			}
		}
		works := mvWorks(v.Revision)
		for _, h := range s.scOrder {
			cell, full, counter := mvCellText(mvTrenches(s, works, s.scHexes[h]), s.scHexes[h], h, v)
			wantCell, wantFull, wantCounter := refCellText(s, works, s.scHexes[h], h, v)
			if len(wantCell) <= mvCellWidth-1 {
				wantFull = "" // the key spells out only a cell too long for its hex
			} else {
				long++
			}
			if cell != wantCell || full != wantFull || counter != wantCounter {
				t.Fatalf("hex %s of %+v: mvCellText = %q, %q, %q, want %q, %q, %q", h, v.Stacks[h], cell, full, counter, wantCell, wantFull, wantCounter)
			}
		}
	}
	if long == 0 {
		t.Error("no cell was too long for its hex: the key lines were not compared")
	}
}

// refView is Scenario.View as it was before the views shared a base (mvBaseOf): every
// hex's cell spelt, and the legend and key made, for each view.
func refView(s *Scenario, v MapView) mapview.View {
	cells := make(map[hex.Hex]string, len(s.scOrder))
	counters := make(map[hex.Hex]string, len(v.Stacks)+len(v.Carnage))
	forces := make(map[hex.Hex][]string, len(v.Stacks))
	for h, st := range v.Stacks {
		if st.DeInf+st.DeHMG > 0 {
			forces[h] = append(forces[h], string(DE))
		}
		if st.USArmy+st.USMC > 0 {
			forces[h] = append(forces[h], string(US))
		}
	}
	works := mvWorks(v.Revision)
	var notes []string
	for _, h := range s.scOrder {
		cell, full, counter := mvCellText(mvTrenches(s, works, s.scHexes[h]), s.scHexes[h], h, v)
		if cell != "" {
			cells[h] = cell
		}
		if counter != "" {
			counters[h] = counter
		}
		if len(cell) > mvCellWidth-1 {
			notes = append(notes, fmt.Sprintf("+ column %02d, row %02d: %s", h.Col, h.Row, full))
		}
	}
	base := s.mvMakeBase(v.Revision) // the legend and the key, as made before
	key := slices.Clone(base.key)
	if len(notes) > 0 {
		key = append(key, "A cell ending in + is spelt out here:")
		key = append(key, notes...)
	}
	return mapview.View{
		Title: mvHeader(v), Map: s.Map, Legend: base.legend, CellWidth: mvCellWidth, Cells: cells, Key: key,
		LegendTitle: "Legend (defence strength in brackets)", RowsUp: true, Forces: forces, Counters: counters,
	}
}

// randomMapView is a view with stacks, markers and carnage of every size in about one
// hex of three, and some hexes off the map.
func randomMapView(s *Scenario, r *rand.Rand, rev int) MapView {
	n := func() int { return []int{0, 0, 1, 2, 9, 10, 123}[r.IntN(7)] }
	v := MapView{Turn: r.IntN(7), Stacks: map[hex.Hex]Stack{}, Carnage: map[hex.Hex]int{}, COWed: map[hex.Hex]bool{}, Bombardment: map[hex.Hex]int{}, Revision: rev}
	for _, h := range append(slices.Clone(s.scOrder), hex.Hex{Col: 99, Row: 99}, hex.Hex{Col: -1, Row: 3}) {
		if r.IntN(3) == 0 {
			v.Stacks[h] = Stack{DeInf: n(), DeHMG: n(), USArmy: n(), USMC: n(), York: r.IntN(2) == 0}
		}
		if r.IntN(5) == 0 {
			v.Carnage[h] = n()
		}
		if r.IntN(6) == 0 {
			v.COWed[h] = r.IntN(2) == 0
		}
		if r.IntN(8) == 0 {
			v.Bombardment[h] = n()
		}
	}
	return v
}

// TestViewAsBefore: a view filled in on the shared base of its revision is the view
// spelt hex by hex, for empty maps, crowded ones and hexes off the map, in every
// revision, and rendered the same.
func TestViewAsBefore(t *testing.T) {
	s, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1918, 24))
	for round := range 24 {
		v := randomMapView(s, r, round%3)
		if round < 3 {
			v = MapView{Revision: round} // nothing on the map
		}
		got, want := s.View(v), refView(s, v)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("round %d (revision %d): View differs from the view spelt hex by hex:\n got key %q\nwant key %q", round, v.Revision, got.Key, want.Key)
		}
		if g, w := mapview.Render(got), mapview.Render(want); g != w {
			t.Fatalf("round %d: the maps differ:\n%s\nwant\n%s", round, g, w)
		}
	}
}

// TestViewAllocs: a view of the default set-up (66 stacks) spells only the hexes that
// hold something, each cell and counter in one string; the hexes of trenches alone,
// the legend and the key are made once a scenario (before: 287 allocations, now 81).
func TestViewAllocs(t *testing.T) {
	s, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	v := MapView{Turn: 1, Revision: 2, Stacks: map[hex.Hex]Stack{}}
	for _, ps := range [][]Placement{s.DefaultGerman, s.DefaultUS} {
		for _, p := range ps {
			v.Stacks[p.Hex] = Stack{DeInf: p.Count}
		}
	}
	s.View(v) // the base, made once
	if n := testing.AllocsPerRun(20, func() { s.View(v) }); n > 100 {
		t.Errorf("View: %.0f allocations, want at most 100", n)
	}
}

// TestRenderBytes: a map is drawn in a buffer kept from map to map and made a string
// of its own size, about all a render allocates (before: a buffer for the most a map
// may take, then a copy cut to size, about 2.5 times the map).
func TestRenderBytes(t *testing.T) {
	s, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	v := s.View(randomMapView(s, rand.New(rand.NewPCG(5, 6)), 2))
	text := mapview.Render(v) // the buffer, made once
	const n = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range n {
		mapview.Render(v)
	}
	runtime.ReadMemStats(&after)
	if per := float64(after.TotalAlloc-before.TotalAlloc) / n; per > 1.5*float64(len(text)) {
		t.Errorf("Render allocates %.0f bytes a map of %d, want at most 1.5 times the map", per, len(text))
	}
}
