// The text map of Soldiers 1918, for mails read in a monospace font on
// anything down to a phone held sideways.
//
// Layout. North (the German side, high rows) is at the top. Every hex row
// takes two text lines, because the columns are staggered by half a hex:
// the shifted columns (odd columns on this map, see scenario.go) sit half a
// hex north of the others, so the upper line of a row shows the odd columns'
// hexes of that row and the lower line the even columns'. Each line starts
// with its row number; each column has its number printed above (and below)
// the strip, exactly over the first character of its hexes. A hex's id is
// its column number then its row number, but no four-digit id is printed
// anywhere in the map (mails are searched for hex ids).
//
// Each hex is a cell of up to mvCell characters:
//
//	terrain [space] units markers        e.g.  "MC 2g1h!"  "~ 4a"  "S x2"
//
// terrain is one letter or symbol per feature, the one it defends with
// first (10.11); units are counts by kind; markers are COWed, bombardment
// and carnage. A cell that cannot hold everything ends in "+" and is spelt
// out under its strip (by column and row, not by hex id).
//
// Strips. Same-line cells are two map columns apart, so a map column costs
// mvPitch text columns. With a row label of mvLabel characters a strip holds
// as many map columns as fit in mvWidth; the 40 columns of this map make
// three strips, labelled "Strip 1 of 3: columns 10-23" and so on.

package soldiers1918

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// MapView is what one side may see, for rendering.
type MapView struct {
	Turn       int    // 0 is set-up
	Phase      string // as it should be printed, e.g. "VII US Movement"
	Visibility int    // 0 = not yet determined
	Stacks     map[hex.Hex]Stack
	Carnage    map[hex.Hex]int
	COWed      map[hex.Hex]bool
	// Bombardment is the number of bombardment markers in place in a hex.
	Bombardment map[hex.Hex]int
}

// Stack is the units of both sides in one hex. USArmy counts every US Army
// platoon in the hex, the Sergeant York unit included; York says that one
// of them is Sergeant York (12.5).
type Stack struct {
	DeInf, DeHMG, USArmy, USMC int
	York                       bool
}

const (
	mvWidth = 78 // no line longer than this (DESIGN.md, "Text maps")
	mvLabel = 3  // "19 " before the first cell
	mvPitch = 5  // text columns per map column
	mvCell  = 2*mvPitch - 1
)

// mvTerrainChar is the map symbol of each terrain; an outpost shows 'O'
// instead of 'M'.
var mvTerrainChar = map[Terrain]byte{
	Open: '.', NoMansLand: '~', MainTrench: 'M', SupportTrench: 'S',
	CommTrench: 'C', Bunker: 'B', Wire: '#',
}

// RenderMap draws v on s's map as plain text: a header line, the map in
// labelled strips, and a legend.
func RenderMap(s *Scenario, v MapView) string {
	var b strings.Builder
	b.Grow(16 << 10)
	b.WriteString(mvHeader(v))
	b.WriteString("\n\n")

	cols := s.scCols
	ncols := cols[1] - cols[0] + 1
	per := (mvWidth-mvLabel-mvCell)/mvPitch + 1
	nstrips := (ncols + per - 1) / per
	overflow := false
	for i := range nstrips {
		// Strips as even as they can be: the first ones take the spare columns.
		first := cols[0] + i*(ncols/nstrips) + min(i, ncols%nstrips)
		width := ncols / nstrips
		if i < ncols%nstrips {
			width++
		}
		if mvStrip(&b, s, v, i+1, nstrips, first, first+width-1) {
			overflow = true
		}
	}
	mvLegend(&b, s, overflow)
	return b.String()
}

func mvHeader(v MapView) string {
	turn := "set-up"
	if v.Turn > 0 {
		turn = "turn " + strconv.Itoa(v.Turn)
	}
	vis := "visibility not yet determined"
	if v.Visibility > 0 {
		vis = "visibility " + strconv.Itoa(v.Visibility)
	}
	phase := strings.Join(strings.Fields(v.Phase), " ")
	if phase == "" {
		phase = "-"
	}
	return mvWrap("Soldiers map -- "+turn+", "+vis+", phase "+phase, "    ")
}

// mvWrap breaks text into lines of at most mvWidth characters at spaces, the following
// lines indented; a word longer than a line is cut into pieces, never lost.
func mvWrap(text, indent string) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		for {
			switch {
			case line == "" && len(lines) == 0:
				line = w
			case line == "":
				line = indent + w
			case len(line)+1+len(w) <= mvWidth:
				line += " " + w
			default:
				lines, line = append(lines, line), ""
				continue
			}
			break
		}
		for len(line) > mvWidth {
			lines, line = append(lines, line[:mvWidth]), indent+line[mvWidth:]
		}
	}
	return strings.Join(append(lines, line), "\n")
}

// mvStrip draws columns first..last and reports whether a cell overflowed.
func mvStrip(b *strings.Builder, s *Scenario, v MapView, n, of, first, last int) bool {
	fmt.Fprintf(b, "Strip %d of %d: columns %02d-%02d\n", n, of, first, last)
	shifted := mvShiftedParity(s)
	parities := [2]int{shifted, 1 - shifted} // upper line first
	labels := func() {
		for _, par := range parities {
			line := mvBlank()
			for c := first; c <= last; c++ {
				if c&1 == par {
					copy(line[mvX(c, first):], fmt.Sprintf("%02d", c))
				}
			}
			mvFlush(b, line)
		}
	}
	labels()
	lo := min(s.scRows[0][0], s.scRows[1][0])
	hi := max(s.scRows[0][1], s.scRows[1][1])
	var notes []string
	for r := hi; r >= lo; r-- {
		for _, par := range parities {
			line := mvBlank()
			seen := false
			for c := first; c <= last; c++ {
				h := hex.Hex{Col: c, Row: r}
				info, ok := s.scHexes[h]
				if c&1 != par || !ok {
					continue
				}
				seen = true
				cell, full := mvCellText(s, info, h, v)
				if len(cell) > mvCell {
					notes = append(notes, fmt.Sprintf("+ column %02d, row %02d: %s", c, r, full))
					cell = cell[:mvCell-1] + "+"
				}
				copy(line[mvX(c, first):], cell)
			}
			if seen {
				copy(line, fmt.Sprintf("%02d", r))
				mvFlush(b, line)
			}
		}
	}
	labels()
	for _, note := range notes {
		for len(note) > mvWidth {
			b.WriteString(note[:mvWidth] + "\n")
			note = "    " + note[mvWidth:]
		}
		b.WriteString(note + "\n")
	}
	b.WriteString("\n")
	return len(notes) > 0
}

// mvShiftedParity is the parity (0 even, 1 odd) of the columns that sit half
// a hex towards higher rows, i.e. north, and so are drawn on the upper line.
func mvShiftedParity(s *Scenario) int {
	if s.Grid.Parity == hex.EvenColumnsShifted {
		return 0
	}
	return 1
}

func mvX(col, first int) int { return mvLabel + (col-first)*mvPitch }

func mvBlank() []byte { return []byte(strings.Repeat(" ", mvWidth)) }

func mvFlush(b *strings.Builder, line []byte) {
	b.Write([]byte(strings.TrimRight(string(line), " ")))
	b.WriteByte('\n')
}

// mvCellText returns the cell for h, which may be longer than mvCell, and
// the same spelt out with spaces for a footnote.
func mvCellText(s *Scenario, info *HexInfo, h hex.Hex, v MapView) (cell, full string) {
	terrain := mvTerrain(s, info)
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
	rest := strings.Join(units, "") + strings.Join(marks, "")
	full = strings.TrimSpace(terrain + " " + strings.Join(append(units, marks...), " "))
	if rest == "" {
		return terrain, full
	}
	cell = terrain + " " + rest
	if len(cell) > mvCell {
		cell = terrain + rest // squeeze out the space
	}
	return cell, full
}

// mvTerrain spells a hex's terrain: the feature it defends with first, then
// its other features in the order of HexInfo.Features, wire last. Open
// ground is left out when the hex has other terrain.
func mvTerrain(s *Scenario, info *HexInfo) string {
	_, primary := s.scDefence(info)
	char := func(t Terrain) byte {
		if t == MainTrench && info.Outpost {
			return 'O'
		}
		return mvTerrainChar[t]
	}
	out := []byte{char(primary)}
	for _, t := range info.Features {
		if t != primary && t != Wire && t != Open {
			out = append(out, char(t))
		}
	}
	if slices.Contains(info.Features, Wire) {
		if primary == Open {
			out = out[:0]
		}
		out = append(out, '#')
	}
	return string(out)
}

func mvLegend(b *strings.Builder, s *Scenario, overflow bool) {
	def := func(t Terrain) string {
		if v, ok := s.DefenceStrength[t]; ok {
			return " (" + strconv.Itoa(v.N) + ")"
		}
		return ""
	}
	lines := []string{
		"Legend (defence strength in brackets)",
		"Terrain  .  open" + def(Open) + "      ~  No Man's Land" + def(NoMansLand) + "      #  wire (adds nothing)",
		"         M  Main Trench" + def(MainTrench) + "     O  outpost: a Main Trench hex",
		"         S  Support Trench" + def(SupportTrench) + "  C  communication trench" + def(CommTrench),
		"         B  bunker" + def(Bunker),
		"         Several letters: the hex has each; it defends with the first.",
		"Units    3g German infantry    1h German HMG",
		"         4a US Army (4ay: one of them is Sergeant York)    4m USMC",
		"Markers  !  COWed    *2 bombardment markers    x3 carnage",
		"Hexes    Each hex row takes two lines: odd columns (upper line) sit",
		"         half a hex north of even columns (lower line). A hex's id is",
		"         its column number (above it) then its row number (at left).",
	}
	if s.Grid.Parity == hex.EvenColumnsShifted {
		lines[9] = "Hexes    Each hex row takes two lines: even columns (upper line) sit"
		lines[10] = "         half a hex north of odd columns (lower line). A hex's id is"
	}
	if mvExitsOnTop(s) {
		lines = append(lines, "Exits    The top hex of every column is a north-edge exit hex (4.1).")
	}
	if overflow {
		lines = append(lines, "         A cell ending in + is spelt out under its strip.")
	}
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
}

// mvExitsOnTop reports whether the exit hexes are exactly the top hex of
// every column, which the legend can then say in one line.
func mvExitsOnTop(s *Scenario) bool {
	n := 0
	for h, info := range s.scHexes {
		if info.Exit {
			if h.Row != s.scRows[h.Col&1][1] {
				return false
			}
			n++
		}
	}
	return n == s.scCols[1]-s.scCols[0]+1
}
