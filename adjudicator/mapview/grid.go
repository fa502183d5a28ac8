package mapview

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// grid is a map's strips drawn without their cells: every line as the layout draws it
// (slants, hexsides, terrain symbols, column numbers, row labels), and where each hex's
// cell goes. It depends on the map, the cell width, the row order and the legend's
// terrain and hexside symbols only, so that a map drawn for every results mail is laid
// out once and then only filled in (grids).
type grid struct {
	lines []gridLine
	width int // the longest line
}

// gridLine is one line of a grid. A fixed line is written as text is; another has its
// cells written into text at their places, then its label over its start, and is
// written without its trailing spaces, and not at all when that leaves nothing.
type gridLine struct {
	text  []byte
	fixed bool
	cells []gridCell
	label []byte
}

// gridCell is where the text of h's cell starts on its line (after its terrain symbol).
type gridCell struct {
	x int
	h hex.Hex
}

// gridKey is what a grid depends on: the map (a board.Map is not changed once loaded;
// WithSides makes a new one) and how the view draws it.
type gridKey struct {
	m      *board.Map
	w      int
	rowsUp bool
	legend string // the legend's terrain and hexside symbols
}

// grids are the grids drawn lately, at most maxGrids (the maps of the rulesets in play).
var grids struct {
	sync.Mutex
	byKey map[gridKey]*grid
}

const maxGrids = 32

// gridOf returns l's grid, laid out once.
func (l *layout) gridOf() *grid {
	var sym strings.Builder
	for _, s := range l.v.Legend.Terrain {
		sym.WriteString(s.Name)
		sym.WriteByte(0)
		sym.WriteByte(s.Char)
	}
	sym.WriteByte(1)
	for _, s := range l.v.Legend.Sides {
		sym.WriteString(s.Name)
		sym.WriteByte(0)
		sym.WriteByte(s.Char)
		if s.Point {
			sym.WriteByte(1)
		}
	}
	key := gridKey{m: l.m, w: l.w, rowsUp: l.v.RowsUp, legend: sym.String()}
	grids.Lock()
	g := grids.byKey[key]
	grids.Unlock()
	if g != nil {
		return g
	}
	g = l.layOut()
	grids.Lock()
	if grids.byKey == nil || len(grids.byKey) >= maxGrids {
		grids.byKey = map[gridKey]*grid{}
	}
	grids.byKey[key] = g
	grids.Unlock()
	return g
}

// layOut draws l's grid: each strip's heading, its column numbers, its lines, its
// column numbers again.
func (l *layout) layOut() *grid {
	g := &grid{}
	add := func(gl gridLine) {
		g.lines = append(g.lines, gl)
		g.width = max(g.width, len(gl.text))
	}
	cols := l.m.Cols
	ncols := cols[1] - cols[0] + 1
	per := (Width - label - 1) / (l.w + 1)
	nstrips := (ncols + per - 1) / per
	for i := range nstrips {
		first := cols[0] + i*(ncols/nstrips) + min(i, ncols%nstrips)
		n := ncols / nstrips
		if i < ncols%nstrips {
			n++
		}
		c0, c1 := first, first+n-1
		add(gridLine{text: fmt.Appendf(nil, "\nStrip %d of %d: columns %02d-%02d\n", i+1, nstrips, c0, c1), fixed: true})
		header := l.header(c0, c1)
		add(header)
		for y := range l.lines {
			row := bytes.Repeat([]byte{' '}, label+(c1-c0+1)*(l.w+1)+1)
			var gl gridLine
			for c := c0; c <= c1+1; c++ {
				x := label + (c-c0)*(l.w+1)
				if h, ok := l.content(c, y); ok {
					// Content line of h: its NW side, then its content.
					nw, _ := l.content(c-1, y-1)
					row[x] = l.slant(h, nw, '/')
					if c <= c1 && l.m.OnMap(h) {
						row[x+1] = l.terrain(h)
						gl.cells = append(gl.cells, gridCell{x: x + 2, h: h})
					}
					continue
				}
				// Border line between above and below: the SW side of above, then
				// the hexside between them.
				k := y - l.shifted(c)
				if k < 0 {
					continue // above the column's top border
				}
				below := hex.Hex{Col: c, Row: l.row(k / 2)}
				above := hex.Hex{Col: c, Row: l.row(k/2 - 1)}
				sw, _ := l.content(c-1, y)
				row[x] = l.slant(above, sw, '\\')
				if c <= c1 {
					l.border(row[x+1:], above, below)
				}
			}
			gl.label = []byte("   ")
			if len(gl.cells) > 0 {
				gl.label = append(twoDigits(nil, l.row((y-1)/2)), ' ')
			}
			gl.text = row
			if len(gl.cells) == 0 {
				// Nothing to fill in: the line as it is written, or none.
				copy(row, gl.label)
				row = bytes.TrimRight(row, " ")
				if len(row) == 0 {
					continue
				}
				gl = gridLine{text: append(row, '\n'), fixed: true}
			}
			add(gl)
		}
		add(header)
	}
	return g
}

// header is the line of column numbers above and below the strip of columns c0-c1.
func (l *layout) header(c0, c1 int) gridLine {
	row := bytes.Repeat([]byte{' '}, label+(c1-c0+1)*(l.w+1)+1)
	var num [24]byte
	for c := c0; c <= c1; c++ {
		x := label + (c-c0)*(l.w+1) + 1 + (l.w-2)/2
		copy(row[x:], twoDigits(num[:0], c))
	}
	return gridLine{text: append(bytes.TrimRight(row, " "), '\n'), fixed: true}
}

// terrain is the symbol of h's terrain.
func (l *layout) terrain(h hex.Hex) byte {
	t := byte(' ')
	name := l.m.Terrain(h)
	for _, s := range l.v.Legend.Terrain {
		if s.Name == name {
			t = s.Char
		}
	}
	return t
}

// strips writes the map's strips, its grid filled in with v's cells.
func (l *layout) strips(b *bytes.Buffer) {
	g := l.gridOf()
	buf := make([]byte, g.width)
	for _, gl := range g.lines {
		if gl.fixed {
			b.Write(gl.text)
			continue
		}
		row := buf[:len(gl.text)]
		copy(row, gl.text)
		for _, c := range gl.cells {
			copy(row[c.x:], l.v.Cell(c.h))
		}
		copy(row, gl.label)
		writeLine(b, row, true)
	}
}
