package mapview

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// refRender is Render as it was before it drew each line in one buffer, kept to
// check that the faster Render draws the same bytes.
func refRender(v View) string {
	l := &layout{v: v, m: v.Map, w: v.CellWidth}
	if l.w < 2 {
		l.w = 5
	}
	r0, r1 := l.m.Rows()
	l.r0, l.r1 = r0, r1
	l.lines = 2*(r1-r0) + 4
	pitch := l.w + 1
	per := (Width - label - 1) / pitch
	cols := l.m.Cols
	ncols := cols[1] - cols[0] + 1
	nstrips := (ncols + per - 1) / per
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimRight(v.Title, "\n"), "\n") {
		b.WriteString(cut(line, Width) + "\n")
	}
	for i := range nstrips {
		first := cols[0] + i*(ncols/nstrips) + min(i, ncols%nstrips)
		n := ncols / nstrips
		if i < ncols%nstrips {
			n++
		}
		fmt.Fprintf(&b, "\nStrip %d of %d: columns %02d-%02d\n", i+1, nstrips, first, first+n-1)
		l.refStrip(&b, first, first+n-1)
	}
	b.WriteString("\n")
	title := v.LegendTitle
	if title == "" {
		title = "Legend"
	}
	b.WriteString(wrap(title, Width, "  "))
	var legend bytes.Buffer
	l.legend(&legend)
	b.Write(legend.Bytes())
	for _, k := range v.Key {
		b.WriteString(wrap(k, Width, "  "))
	}
	return b.String()
}

func (l *layout) refHeader(b *strings.Builder, c0, c1 int) {
	row := []byte(strings.Repeat(" ", label+(c1-c0+1)*(l.w+1)+1))
	for c := c0; c <= c1; c++ {
		x := label + (c-c0)*(l.w+1) + 1 + (l.w-2)/2
		copy(row[x:], fmt.Sprintf("%02d", c))
	}
	b.WriteString(strings.TrimRight(string(row), " ") + "\n")
}

func (l *layout) refStrip(b *strings.Builder, c0, c1 int) {
	l.refHeader(b, c0, c1)
	for y := range l.lines {
		row := []byte(strings.Repeat(" ", label+(c1-c0+1)*(l.w+1)+1))
		labelled := false
		for c := c0; c <= c1+1; c++ {
			x := label + (c-c0)*(l.w+1)
			if h, ok := l.content(c, y); ok {
				// Content line of h: its NW side, then its content.
				nw, _ := l.content(c-1, y-1)
				row[x] = l.slant(h, nw, '/')
				if c <= c1 && l.m.OnMap(h) {
					copy(row[x+1:], l.refCell(h))
					labelled = true
				}
				continue
			}
			// Border line between above and below: the SW side of above, then the
			// hexside between them.
			k := y - l.shifted(c)
			if k < 0 {
				continue // above the column's top border
			}
			below := hex.Hex{Col: c, Row: l.row(k / 2)}
			above := hex.Hex{Col: c, Row: l.row(k/2 - 1)}
			sw, _ := l.content(c-1, y)
			row[x] = l.slant(above, sw, '\\')
			if c <= c1 {
				copy(row[x+1:], l.refBorder(above, below))
			}
		}
		lab := "   "
		if labelled {
			lab = fmt.Sprintf("%02d ", l.row((y-1)/2))
		}
		copy(row, lab)
		if s := strings.TrimRight(string(row), " "); s != "" {
			b.WriteString(s + "\n")
		}
	}
	l.refHeader(b, c0, c1)
}

// refBorder draws the hexside between a and the hex below it, b.
func (l *layout) refBorder(a, b hex.Hex) string {
	if !l.m.OnMap(a) && !l.m.OnMap(b) {
		return strings.Repeat(" ", l.w)
	}
	feats := l.m.Side(a, b)
	fill, point := byte('_'), byte(0)
	for _, s := range l.v.Legend.Sides {
		if !contains(feats, s.Name) {
			continue
		}
		if s.Point && point == 0 {
			point = s.Char
		}
		if !s.Point && fill == '_' {
			fill = s.Char
		}
	}
	out := []byte(strings.Repeat(string(fill), l.w))
	if point != 0 {
		out[l.w/2] = point
	}
	return string(out)
}

func (l *layout) refCell(h hex.Hex) string {
	t := byte(' ')
	for _, s := range l.v.Legend.Terrain {
		if s.Name == l.m.Terrain(h) {
			t = s.Char
		}
	}
	return string(t) + l.v.Cell(h)
}

// refWrap is wrap as it was before it wrote into one builder.
func refWrap(s string, width int, indent string) string {
	var b strings.Builder
	line := ""
	for _, w := range strings.Fields(s) {
		switch {
		case line == "":
			line = w
		case len(line)+1+len(w) <= width:
			line += " " + w
		default:
			b.WriteString(line + "\n")
			line = indent + w
		}
	}
	b.WriteString(line + "\n")
	return b.String()
}

// TestGridsBounded: the grids kept are at most maxGrids, however many maps are drawn
// (the teaching game draws a map of its own for every state with cut wire).
func TestGridsBounded(t *testing.T) {
	m, err := board.ParseMap("map.txt", []byte("columns 10-12 | reconstructed: test\nrows odd 00-02 | reconstructed: test\nrows even 01-03 | reconstructed: test\nparity odd-columns-shifted | reconstructed: test\ndefault clear | reconstructed: test\n"),
		board.Vocabulary{Terrain: []string{"clear"}, Sides: []string{"wire"}})
	if err != nil {
		t.Fatal(err)
	}
	for range 3 * maxGrids {
		m = m.WithSides("wire", nil) // a new map, as the teaching game makes
		refRender(View{Map: m})
		Render(View{Map: m})
	}
	grids.Lock()
	n := len(grids.byKey)
	grids.Unlock()
	if n > maxGrids {
		t.Errorf("%d grids kept, want at most %d", n, maxGrids)
	}
}
