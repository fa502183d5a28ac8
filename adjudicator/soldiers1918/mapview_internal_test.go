package soldiers1918

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
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
			cell, full, counter := mvCellText(s, works, s.scHexes[h], h, v)
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
