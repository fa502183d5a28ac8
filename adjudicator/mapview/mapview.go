// Package mapview draws the one text map every hex-and-counter ruleset mails: a
// [board.Map] seen by one side, in a monospace font, no line longer than 78 columns
// (DESIGN.md, "Text maps"). The ruleset decides what the side may see (its [View]); this
// package only draws it.
//
// # Layout
//
// Hexes are drawn as in the classic text hex grid, flat-topped, each two text lines tall:
//
//	   12    13    14
//	 _____       _____
//	/f 1B \_____/     \
//	\_____/.  G2\_____/
//
// The first line of a hex holds its content (a terrain symbol, then the ruleset's text
// for the hex: markers, a stack); the second is its lower border. The columns that sit
// half a hex lower (see package hex) are drawn one line lower. Every hexside is drawn:
// "/" and "\" for the slanting ones, "_____" for the one between a hex and the hex below
// it, and a hexside with a feature (a canal, a river, a bridge, barbed wire) shows the
// feature's symbol instead, so that what lies between hexes is as visible as what lies
// in them. Each line starts with the row of the hexes whose content it holds, and every
// column's number is printed above and below it, so a hex's id is its column then the
// row on its content line.
//
// A map wider than 78 columns is cut into strips of whole columns, as even as they can
// be, each labelled "Strip 1 of 3: columns 12-23". A legend follows the last strip.
package mapview

import (
	"bytes"
	"fmt"
	"image/color"
	"strconv"
	"strings"
	"sync"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Width is the longest line a map may have.
const Width = 78

// Symbol is how one terrain, marker or feature is drawn, and its legend text.
type Symbol struct {
	Name string // the map file's word ("forest"), or any name for a marker
	Char byte
	Text string // legend text, e.g. "forest"
	// Colour is the picture's colour for it (package mapimage): a terrain's fill, a
	// side's counters. The zero colour leaves the choice to the picture, which knows
	// the common names ("forest", "clear") and otherwise picks from a palette.
	Colour color.RGBA
	// Pattern is how the picture draws a terrain or an in-hex feature over the fill
	// (package mapimage). The zero pattern leaves the choice to the picture, which
	// knows the common terrain names ("forest", "village", "ravine", "nomansland").
	Pattern Pattern
}

// Pattern is how the picture draws a terrain or an in-hex feature (package mapimage):
// the text map has its symbol instead.
type Pattern string

// The patterns of the picture. A line pattern (trench, zigzag, wire) joins each hex
// that has the feature to its neighbours with a feature of the same pattern and
// colour, so that a trench line reads as a line from hex to hex.
const (
	PatternNone    Pattern = "none"    // the fill alone
	PatternTrees   Pattern = "trees"   // forest, woods
	PatternBuilt   Pattern = "built"   // built-up ground, villages, towns, cities
	PatternRavine  Pattern = "ravine"  // a ravine: a gully with hatched banks
	PatternCraters Pattern = "craters" // shell holes: No Man's Land
	PatternMarsh   Pattern = "marsh"   // short horizontal strokes
	PatternTrench  Pattern = "trench"  // a crenellated fire trench line
	PatternZigzag  Pattern = "zigzag"  // a zigzag communication trench
	PatternWire    Pattern = "wire"    // a line of barbed wire crosses
	PatternBunker  Pattern = "bunker"  // a blockhouse in the middle of the hex
)

// SideSymbol is how one hexside feature is drawn. A Point feature (a bridge, a road
// crossing) is drawn as one character in the middle of the hexside; a line feature (a
// canal, a river) fills it. The first feature of [Legend.Sides] present on a hexside
// wins, points before lines on a slanting hexside, where there is room for one.
type SideSymbol struct {
	Name  string
	Char  byte
	Point bool
	Text  string
	// Colour is the picture's colour for the hexside's line (package mapimage); the
	// zero colour leaves the choice to the picture, as for [Symbol].
	Colour color.RGBA
}

// Legend is how a ruleset draws its map.
type Legend struct {
	Terrain []Symbol     // by terrain word; a terrain not listed is drawn as ' '
	Sides   []SideSymbol // by priority
	Marks   []Symbol     // explained in the legend; the ruleset puts them in Cells
	// Forces are the sides whose units are on the map, by name ("de"), with the
	// colour of their counters in the picture. The text map does not list them (its
	// Marks say which letters are whose); nil draws every stack in one colour.
	Forces []Symbol
	// Features are the map's in-hex features (board.Map.Features) the picture draws,
	// each with its Pattern and Colour: trenches, bunkers, wire. The text map does not
	// draw them (a ruleset spells them in its Cells); the picture's legend leaves out
	// a Mark whose Name is a Feature's, since the pattern stands for it.
	Features []Symbol
	// Arrows are the kinds of [View.Arrows], by Name, with their colour and legend
	// text (the picture's; the text map's key says the same in words).
	Arrows []Symbol
	// CounterMarks are marks only the picture's counters carry ([View.Counters]): the
	// picture's legend explains them; the text map, which does not show them, does not.
	CounterMarks []Symbol
}

// Arrow is a marker that points from one hex to another (Soissons 19.4.1: an
// Improvised Attack marker points at the enemy it targets).
type Arrow struct {
	From, To hex.Hex
	Name     string // its kind, one of [Legend.Arrows]
}

// The kinds of arrow ([Arrow.Name]) a picture draws of what happened, each with its
// colour and its line in the picture's legend.
const (
	ArrowMove    = "move"    // a unit moved from one hex to another
	ArrowRetreat = "retreat" // a unit retreated (or was displaced)
	ArrowAttack  = "attack"  // fire or combat from one hex at another
)

// View is what one side may see.
type View struct {
	// Title is the first line, e.g. "Mons map -- turn 3, German movement". A ruleset
	// whose title may be long wraps it itself (Wrap): each of its lines is cut at 78.
	Title  string
	Map    *board.Map
	Legend Legend
	// CellWidth is the width of a hex's content, terrain symbol included; 0 means 5.
	CellWidth int
	// Cells is the text of each hex after its terrain symbol: markers and stacks, as the
	// ruleset writes them. Text longer than CellWidth-1 is cut and ends in "+".
	Cells map[hex.Hex]string
	// Key is printed after the legend, e.g. the stacks behind each cell's tag.
	Key []string
	// LegendTitle is the line of its own before the legend; "" means "Legend". It must
	// start with "Legend": the desk's SET MAP CHANGES (adjudicator/results.go) cuts a map
	// there, so that the legend and key are never taken for part of the last strip.
	LegendTitle string
	// RowsUp draws the highest row at the top, for maps whose rows grow to the north
	// (Soldiers 1918, whose No Man's Land is row 00 on the south edge).
	RowsUp bool
	// Forces names, for each hex with units, the [Legend.Forces] whose units are in it,
	// in the order the cell's text gives them: the picture colours the hex's counter
	// by them. The text map ignores it; nil draws every cell as a neutral box.
	Forces map[hex.Hex][]string
	// Counters, when not nil, is the text of each hex's counter in the picture, for a
	// ruleset whose Cells also spell what the picture draws as patterns (Soldiers'
	// trench letters, [Legend.Features]); nil shows each hex's Cell. The text map
	// ignores it.
	Counters map[hex.Hex]string
	// Labels, when not nil, is the line the picture prints on each hex's counter above
	// its text: what the rulebook's counter shows (a unit's id or strength, e.g. Mons's
	// "III/48/5"), where the counter's text is the text map's symbols (a count, "G2").
	// Only the picture reads it: not the text map, nor the picture's legend, which
	// explains the symbols of the counter's text.
	Labels map[hex.Hex]string
	// Arrows are the picture's markers that point at a hex ([Legend.Arrows]); the
	// text map ignores them (the ruleset's Key says the same in words).
	Arrows []Arrow
}

// HalfLower reports whether column c is drawn half a hex lower than the columns beside
// it: the columns package hex shifts towards higher rows ("Column parity"), or the
// others when rows grow upwards. The text map and the picture lay hexes out alike.
func (v View) HalfLower(c int) bool {
	odd := c&1 == 1
	if v.Map.Grid.Parity == hex.EvenColumnsShifted {
		odd = !odd
	}
	return odd != v.RowsUp
}

const label = 3 // "07 "

type layout struct {
	v     View
	m     *board.Map
	w     int // cell width
	r0    int // first row
	r1    int // last row
	lines int
}

// row is the map row in the k-th slot from the top.
func (l *layout) row(k int) int {
	if l.v.RowsUp {
		return l.r1 - k
	}
	return l.r0 + k
}

// shifted is 1 if column c is drawn half a hex (one line) lower, else 0.
func (l *layout) shifted(c int) int {
	if l.v.HalfLower(c) {
		return 1
	}
	return 0
}

// content returns the hex of column c whose content is on line y.
func (l *layout) content(c, y int) (hex.Hex, bool) {
	k := y - l.shifted(c) - 1
	if k < 0 || k%2 != 0 {
		return hex.Hex{Col: -1, Row: -1}, false // on no map
	}
	return hex.Hex{Col: c, Row: l.row(k / 2)}, true
}

// Render draws the view: the title, the map in strips, the legend and the key.
//
// Each line of a strip is laid out in one buffer and written once: a map is drawn for
// every results mail, and building it from a string per hex made it cost as much as
// resolving a turn.
func Render(v View) string {
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
	// Drawn in a buffer kept from map to map, the map's string made of it at its
	// size: a buffer grown to the most a map may take, and cut down to what it took,
	// made two copies of every map.
	b := renderBuffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxRenderBuffer {
			b.Reset()
			renderBuffers.Put(b)
		}
	}()
	b.Reset()
	// The grid's lines (two a row, four more a strip, and the headers), at most a
	// full line each, and the legend and key after them.
	b.Grow((l.lines+8)*nstrips*(Width+1) + 2048)
	for _, line := range strings.Split(strings.TrimRight(v.Title, "\n"), "\n") {
		b.WriteString(cut(line, Width) + "\n")
	}
	l.strips(b) // grid.go
	b.WriteString("\n")
	title := v.LegendTitle
	if title == "" {
		title = "Legend"
	}
	wrapTo(b, title, Width, "  ")
	l.legend(b)
	for _, k := range v.Key {
		wrapTo(b, k, Width, "  ")
	}
	return b.String()
}

// renderBuffers are the buffers maps are drawn in (Render).
var renderBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxRenderBuffer is the largest buffer kept for the next map: a map of a few
// hundred hexes takes about 20 KB.
const maxRenderBuffer = 256 << 10

func cut(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n])
	}
	return s
}

// writeLine writes row without its trailing spaces, and a newline; nothing when it is
// all spaces and skipBlank.
func writeLine(b *bytes.Buffer, row []byte, skipBlank bool) {
	row = bytes.TrimRight(row, " ")
	if len(row) == 0 && skipBlank {
		return
	}
	b.Write(row)
	b.WriteByte('\n')
}

// twoDigits is n as fmt's %02d writes it.
func twoDigits(dst []byte, n int) []byte {
	if n >= 0 && n < 10 {
		dst = append(dst, '0')
	}
	return strconv.AppendInt(dst, int64(n), 10)
}

// slant draws the slanting hexside between a and b.
func (l *layout) slant(a, b hex.Hex, def byte) byte {
	if !l.m.OnMap(a) && !l.m.OnMap(b) {
		return ' '
	}
	feats := l.m.Side(a, b)
	for _, point := range []bool{true, false} {
		for _, s := range l.v.Legend.Sides {
			if s.Point == point && contains(feats, s.Name) {
				return s.Char
			}
		}
	}
	return def
}

// border draws into dst the hexside between a and the hex below it, b.
func (l *layout) border(dst []byte, a, b hex.Hex) {
	if !l.m.OnMap(a) && !l.m.OnMap(b) {
		return // left blank
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
	dst = dst[:min(l.w, len(dst))]
	for i := range dst {
		dst[i] = fill
	}
	if point != 0 && l.w/2 < len(dst) {
		dst[l.w/2] = point
	}
}

// Cell is the ruleset's text for h as the map shows it: cut to CellWidth-1 characters,
// the last of them "+", when it is longer.
func (v View) Cell(h hex.Hex) string {
	w := v.CellWidth
	if w < 2 {
		w = 5
	}
	text := v.Cells[h]
	if len(text) > w-1 {
		text = text[:w-2] + "+"
	}
	return text
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

func (l *layout) legend(b *bytes.Buffer) {
	var items []string
	for _, s := range l.v.Legend.Terrain {
		items = append(items, fmt.Sprintf("%q %s", string(s.Char), s.Text))
	}
	wrapTo(b, "Terrain: "+strings.Join(items, ", ")+".", Width, "  ")
	items = nil
	for _, s := range l.v.Legend.Sides {
		items = append(items, fmt.Sprintf("%q %s", string(s.Char), s.Text))
	}
	if len(items) > 0 {
		wrapTo(b, "Hexsides: "+strings.Join(items, ", ")+".", Width, "  ")
	}
	items = nil
	for _, s := range l.v.Legend.Marks {
		items = append(items, fmt.Sprintf("%q %s", string(s.Char), s.Text))
	}
	if len(items) > 0 {
		wrapTo(b, "In a hex: "+strings.Join(items, ", ")+".", Width, "  ")
	}
	items = nil
	for _, p := range l.m.Places {
		items = append(items, p.Name+" "+p.Hex.String())
	}
	if len(items) > 0 {
		wrapTo(b, "Places: "+strings.Join(items, ", ")+".", Width, "  ")
	}
}

// wrap breaks s into lines of at most width columns at spaces, continuation lines
// indented; it ends with a newline.
func wrap(s string, width int, indent string) string {
	var b bytes.Buffer
	b.Grow(len(s) + 1 + (len(s)/max(width/2, 1)+1)*(len(indent)+1))
	wrapTo(&b, s, width, indent)
	return b.String()
}

// wrapTo writes wrap(s, width, indent) to b: a map's key and legend are written
// where they go, not made a string each first.
func wrapTo(b *bytes.Buffer, s string, width int, indent string) {
	n := -1 // the length of the line being written; -1 before the first word
	for w := range strings.FieldsSeq(s) {
		switch {
		case n < 0:
			n = len(w)
		case n+1+len(w) <= width:
			b.WriteByte(' ')
			n += 1 + len(w)
		default:
			b.WriteByte('\n')
			b.WriteString(indent)
			n = len(indent) + len(w)
		}
		b.WriteString(w)
	}
	b.WriteByte('\n')
}

// Wrap is the line breaking the map's legend uses, for rulesets' keys and status text:
// s broken at spaces into lines of at most 78 columns, continuation lines indented.
func Wrap(s, indent string) string { return wrap(s, Width, indent) }
