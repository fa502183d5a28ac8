// Package mapimage draws a side's map as a PNG picture: the same [mapview.View] the text
// map is drawn from (DESIGN.md, "Text maps"), so that a ruleset adds no drawing code,
// only legend entries and view data, and the picture shows nothing a side may not see.
//
// The picture is for a phone: it shows the part of the map that matters to the mail,
// the hexes with units and every hex that changed since the previous results, with one
// hex of margin, at most [MaxWidth] pixels wide (smaller hexes when that part is wider,
// never smaller counters), as a palette PNG. It has the view's title, the hex grid
// (flat-topped hexes laid out as the text map lays them out, with their ids where the
// hexes are large enough, else the ids of the hexes that matter), terrain as fills and
// patterns (trees, built-up ground, ravines, shell holes), in-hex features as patterns
// (trench lines from hex to hex, communication trenches, wire, bunkers), hexside
// features as coloured lines (a point feature, a bridge, as a bar across the hexside),
// each hex's counter text on a counter coloured by the sides whose units are in it
// ([mapview.View.Forces]), under the counter's label ([mapview.View.Labels]), arrows from a hex to another (an Improvised Attack marker),
// place names, and a legend of what it shows. What happened ([News]) is drawn on it:
// changed hexes outlined, moves as arrows, losses crossed. The unit list and the
// view's key are the text map's, not the picture's.
//
// Rendering is a pure function: the same view and news give the same bytes. [Encode]
// turns them into bytes a mail can store, and [RenderEncoded] draws the picture from
// them later (the mail sender draws it just before it sends the mail). A map compiled
// into the program ([RegisterMaps]) is named in those bytes by its digest, not
// written out.
//
// What does not change from picture to picture of one map is made once and kept,
// within a few MB: the base layer of a part of a map at a scale (terrain, grid,
// hexsides, works, hex ids, places: drawn from the map alone, never from a side's
// view), its bands of rows compressed and the Huffman code of the bands pictures
// draw on, the fonts' glyphs, legends, and the compressed bands of rows a picture
// shares with one written before. A picture draws its title, counters, arrows, news
// and legend over the tiles of its base layer they touch, copied in (tiles.go); its
// palette is the base layer's colours, then its own. Kept or not, the bytes are the
// same.
package mapimage

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/fogleman/gg"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/gomonobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// Geometry, in pixels. A hex is R from its centre to a corner: 64 pixels across and 55
// from flat side to flat side, room for a hex id, a counter of seven characters and a
// place name, each legible without zooming on a phone.
const (
	R      = 32.0 // a hex's centre to a corner
	margin = 12.0
	idSize = 10.0 // hex ids
	cellSz = 12.0 // counter text
	textSz = 13.0 // legend and key
	titleS = 17.0
)

var (
	ink     = color.RGBA{0x20, 0x20, 0x20, 0xff}
	grid    = color.RGBA{0x80, 0x80, 0x80, 0xff}
	idInk   = color.RGBA{0x50, 0x50, 0x50, 0xff}
	paper   = color.RGBA{0xff, 0xff, 0xff, 0xff}
	neutral = color.RGBA{0xfa, 0xfa, 0xf2, 0xff} // a counter with markers only
)

// named are the colours of common symbol names, used when a legend gives none.
var named = map[string]color.RGBA{
	// terrain
	"clear":       {0xf1, 0xec, 0xd8, 0xff},
	"open":        {0xf1, 0xec, 0xd8, 0xff},
	"forest":      {0x9c, 0xc5, 0x8a, 0xff},
	"woods":       {0x9c, 0xc5, 0x8a, 0xff},
	"industrial":  {0xb4, 0xae, 0xa8, 0xff},
	"residential": {0xde, 0xb0, 0x98, 0xff},
	"village":     {0xde, 0xb0, 0x98, 0xff},
	"town":        {0xde, 0xb0, 0x98, 0xff},
	"nomansland":  {0xc9, 0xb4, 0x8e, 0xff},
	"ravine":      {0xb8, 0x9f, 0x7a, 0xff},
	"marsh":       {0xb8, 0xd4, 0xc8, 0xff},
	// hexsides
	"canal":      {0x1f, 0x5f, 0xb0, 0xff},
	"river":      {0x3b, 0x8b, 0xd9, 0xff},
	"stream":     {0x6f, 0xb3, 0xe8, 0xff},
	"wire":       {0x6a, 0x1b, 0x1b, 0xff},
	"cut":        {0xf0, 0x8a, 0x00, 0xff},
	"bridge":     {0x6b, 0x3e, 0x1e, 0xff},
	"railbridge": {0x20, 0x20, 0x20, 0xff},
	"road":       {0xd0, 0x8a, 0x4a, 0xff},
	"rail":       {0x20, 0x20, 0x20, 0xff},
	// in-hex features: trench lines and bunkers (wire is the hexside's colour)
	"main":          {0x3a, 0x22, 0x10, 0xff},
	"outpost":       {0x3a, 0x22, 0x10, 0xff}, // a Main Trench hex: joins its line
	"support":       {0x8a, 0x55, 0x22, 0xff},
	"communication": {0x6b, 0x4a, 0x2a, 0xff},
	"comm":          {0x6b, 0x4a, 0x2a, 0xff},
	"bunker":        {0x30, 0x30, 0x30, 0xff},
	// forces
	"de":  {0x9a, 0xa8, 0xb8, 0xff}, // field grey
	"us":  {0xb5, 0xc9, 0x7a, 0xff}, // olive drab, lightened for dark text
	"bef": {0xd9, 0xbb, 0x74, 0xff}, // khaki
	"fr":  {0x8f, 0xb4, 0xe8, 0xff}, // horizon blue
	"en":  {0x8f, 0xb4, 0xe8, 0xff}, // the Entente (Soissons): horizon blue
}

// palette is for names with neither a colour nor an entry in named, in legend order.
var palette = []color.RGBA{
	{0xe6, 0xd5, 0xa8, 0xff}, {0xa8, 0xc8, 0xe6, 0xff}, {0xe6, 0xa8, 0xb8, 0xff},
	{0xb8, 0xe6, 0xa8, 0xff}, {0xd0, 0xa8, 0xe6, 0xff}, {0xe6, 0xc8, 0xa8, 0xff},
}

func colourOf(name string, c color.RGBA, i int) color.RGBA {
	if c.A != 0 {
		return c
	}
	if n, ok := named[name]; ok {
		return n
	}
	return palette[i%len(palette)]
}

// faces are the embedded Go fonts (BSD licence), parsed once.
var faces = sync.OnceValues(func() (map[string]*opentype.Font, error) {
	out := map[string]*opentype.Font{}
	for name, ttf := range map[string][]byte{"regular": goregular.TTF, "bold": gobold.TTF, "mono": gomonobold.TTF} {
		f, err := opentype.Parse(ttf)
		if err != nil {
			return nil, fmt.Errorf("font %s: %w", name, err)
		}
		out[name] = f
	}
	return out, nil
})

// picture is one render in progress.
type picture struct {
	s     *scene
	dc    *gg.Context
	fonts map[string]font.Face
	// k is the scale of the map: a hex is k*R from its centre to a corner. Counters
	// and text keep their size whatever k is, so that they stay legible.
	k, r   float64
	c0, c1 int // the columns drawn
	h0, h1 int // the half rows drawn (see slot)
	x0, y0 float64
	w      float64 // the picture's width
	mapH   float64 // the map's height
	ids    bool    // hexes are large enough for every hex's id
	focus  map[hex.Hex]bool
	// baseLayer is what the canvas was made from (base), nil before.
	baseLayer *baseLayer
	// legendItems are items(), once listed; shownHexes shown().
	legendItems [][]item
	shownHexes  []hex.Hex
	// legendKept is the legend copied into the canvas from its row legendTop down
	// (drawLegendKept), nil when it was drawn there.
	legendKept *keptLegend
	legendTop  int
	// The canvas is made of tiles of its base layer, each copied in when something is
	// first drawn on it (see touch): the rest of the picture is its base layer's.
	canvas *image.RGBA
	tiles  []bool // by row of tiles, then column: drawn on
	tcols  int
}

// slot is the half row of h from the map's top: a hex is two half rows tall, and the
// columns drawn half a hex lower start one half row lower.
func (p *picture) slot(h hex.Hex) int {
	r0, r1 := p.s.geo.Rows()
	k := h.Row - r0
	if p.s.rowsUp {
		k = r1 - h.Row
	}
	k *= 2
	if p.s.halfLower(h.Col) {
		k++
	}
	return k
}

// in reports whether the picture shows h.
func (p *picture) in(h hex.Hex) bool {
	k := p.slot(h)
	return p.s.onMap(h) && h.Col >= p.c0 && h.Col <= p.c1 && k >= p.h0 && k <= p.h1
}

// center is the centre of h in the picture.
func (p *picture) center(h hex.Hex) (float64, float64) {
	half := math.Sqrt(3) / 2 * p.r
	x := float64(h.Col-p.c0)*1.5*p.r + p.r
	y := float64(p.slot(h)-p.h0)*half + half
	return p.x0 + x, p.y0 + y
}

// shown are the hexes the picture shows, in map order (listed once: the caller does
// not change them).
func (p *picture) shown() []hex.Hex {
	if p.shownHexes != nil {
		return p.shownHexes
	}
	out := []hex.Hex{}
	for _, h := range p.s.hexes() {
		if p.in(h) {
			out = append(out, h)
		}
	}
	p.shownHexes = out
	return out
}

// Center is where the centre of h is in the picture [RenderEncoded] draws from b, in
// pixels from the top left corner, and whether the picture shows h: for tests and
// for anything that points into the picture.
func Center(b []byte, h hex.Hex) (x, y int, shown bool, err error) {
	s, err := decode(b)
	if err != nil {
		return 0, 0, false, err
	}
	p, err := newPicture(s, false, true)
	if err != nil {
		return 0, 0, false, err
	}
	fx, fy := p.center(h)
	return int(fx), int(fy), p.in(h), nil
}

// Render draws v as a PNG picture, with nothing of what happened on it: the picture
// of Encode(v, News{}).
func Render(v mapview.View) ([]byte, error) {
	b, err := Encode(v, News{})
	if err != nil {
		return nil, err
	}
	return RenderEncoded(b)
}

// RenderEncoded draws the view and news [Encode] gave these bytes for.
// The last few pictures are kept: the same bytes give the same picture. The caller
// must not change the picture it gets.
func RenderEncoded(b []byte) ([]byte, error) {
	return pictures.get(sha256.Sum256(b), func() ([]byte, error) {
		s, err := decode(b)
		if err != nil {
			return nil, err
		}
		drawn.Add(1)
		return render(s)
	})
}

// drawn counts the pictures RenderEncoded drew, not taken from those kept (for tests).
var drawn atomic.Int64

// MaxBytes is the most a picture may weigh: a mail with one stays light.
const MaxBytes = 150 << 10

// tries are the ways render draws a picture, the first that fits MaxBytes: every
// hex's id (where the hexes are large enough), then only the ids of the hexes that
// matter, then fewer colours for the edges of text and lines. A part of the map wide
// and full of units spends a hundred KB on hex ids alone.
var tries = []struct {
	ids     bool
	colours int
}{{true, 256}, {false, 256}, {false, 64}, {false, 32}}

func render(s *scene) ([]byte, error) {
	var out []byte
	for i := range tries {
		b, same, err := renderTry(s, i)
		if err != nil {
			return nil, err
		}
		if !same {
			out = b
		}
		if len(out) <= MaxBytes {
			break
		}
	}
	return out, nil
}

// renderTry draws s the way tries[i] says; same reports that this way draws what the
// way before it did (no ids to leave out), and nothing was drawn.
func renderTry(s *scene, i int) (b []byte, same bool, err error) {
	try := tries[i]
	p, err := newPicture(s, true, try.ids)
	if err != nil {
		return nil, false, err
	}
	if i > 0 && tries[i-1].ids && !try.ids && try.colours == tries[i-1].colours && !p.couldHaveIDs() {
		return nil, true, nil
	}
	p.drawNews()
	p.drawCounters()
	if err := p.drawLegendKept(); err != nil {
		return nil, false, err
	}
	img := p.canvas
	defer putCanvas(&rgbaPix, img.Pix)
	if try.colours == 256 && len(p.baseLayer.img.Pix) <= len(img.Pix) {
		b, err = p.encodeOnBase()
		return b, false, err
	}
	p.fillCanvas()
	count := map[uint32]int{}
	countPix(count, img.Pix, 1)
	b, err = encodePNG(paletted(img, p.inks(), count, try.colours))
	return b, false, err
}

// pngEncoder writes the pictures: the fastest compression level, which on a paletted
// map costs a fifth of the default level's time for a quarter more bytes (the default
// was a fifth of a picture's CPU, issue 23), with its buffers and zlib writer reused.
var pngEncoder = png.Encoder{CompressionLevel: png.BestSpeed, BufferPool: make(pngBuffers, runtime.GOMAXPROCS(0)+1)}

// pngBuffers keeps the encoder's buffers between pictures (png.EncoderBufferPool): a
// few, for the pictures drawn at once; a channel rather than a sync.Pool, which the
// collector empties.
type pngBuffers chan *png.EncoderBuffer

func (p pngBuffers) Get() *png.EncoderBuffer {
	select {
	case b := <-p:
		return b
	default:
		return nil
	}
}

func (p pngBuffers) Put(b *png.EncoderBuffer) {
	select {
	case p <- b:
	default:
	}
}

// encodePNG is img as a PNG file.
func encodePNG(img *image.Paletted) ([]byte, error) {
	var buf bytes.Buffer
	if err := pngEncoder.Encode(&buf, img); err != nil {
		return nil, fmt.Errorf("map picture: %w", err)
	}
	return buf.Bytes(), nil
}

// The picture's bounds: at most MaxWidth pixels wide, for a phone's mail reader to
// show it whole at its width (the HTML part shows it at max-width 100%), and at least
// minWidth, room for the title and legend; a map at least minRows half rows tall.
const (
	MaxWidth = 1280
	minWidth = 640
	minRows  = 10
	// idScale is the smallest scale at which every hex's id is drawn; below it, only
	// the ids of the hexes that matter are, over their counters.
	idScale = 0.9
)

// focusOf are the hexes that matter to the picture: those with units of either side
// (the view has only those the side may see; not in a close-up), those that changed,
// lost units or are the ends of arrows. None means the whole map.
func focusOf(s *scene) map[hex.Hex]bool {
	f := map[hex.Hex]bool{}
	add := func(h hex.Hex) {
		if s.onMap(h) {
			f[h] = true
		}
	}
	for h, fs := range s.forces {
		if len(fs) > 0 && !s.closeUp {
			add(h)
		}
	}
	for h := range s.changed {
		add(h)
	}
	for h := range s.lost {
		add(h)
	}
	for _, a := range s.arrows {
		add(a.From)
		add(a.To)
	}
	return f
}

// couldHaveIDs reports whether the hexes are large enough for every hex's id.
func (p *picture) couldHaveIDs() bool { return p.k >= idScale }

// newPicture lays the picture out: the part of the map around the hexes that matter,
// one hex of margin around them, at the largest scale up to 1 that fits MaxWidth;
// with ids, every hex's id where the hexes are large enough. With canvas, it also
// makes its canvas and draws the title.
func newPicture(s *scene, canvas, ids bool) (*picture, error) {
	p := &picture{s: s, fonts: map[string]font.Face{}, k: 1}
	p.focus = focusOf(s)
	// The map's extent, and the extent of what matters with one ring of margin.
	all := s.hexes()
	if len(all) == 0 {
		return nil, fmt.Errorf("map picture: the map has no hexes")
	}
	mc0, mc1, mh0, mh1 := math.MaxInt, math.MinInt, math.MaxInt, math.MinInt
	for _, h := range all {
		k := p.slot(h)
		mc0, mc1, mh0, mh1 = min(mc0, h.Col), max(mc1, h.Col), min(mh0, k), max(mh1, k)
	}
	p.c0, p.c1, p.h0, p.h1 = mc0, mc1, mh0, mh1
	if len(p.focus) > 0 {
		p.c0, p.c1, p.h0, p.h1 = math.MaxInt, math.MinInt, math.MaxInt, math.MinInt
		for h := range p.focus {
			ns := s.geo.Grid.Neighbours(h)
			for _, n := range append(ns[:], h) {
				if !s.onMap(n) {
					continue
				}
				k := p.slot(n)
				p.c0, p.c1, p.h0, p.h1 = min(p.c0, n.Col), max(p.c1, n.Col), min(p.h0, k), max(p.h1, k)
			}
		}
	}
	mapW := func(c0, c1 int, k float64) float64 { return float64(c1-c0+1)*1.5*R*k + R*k/2 }
	if need := mapW(p.c0, p.c1, 1) + 2*margin; need > MaxWidth {
		p.k = math.Floor((MaxWidth-2*margin)/mapW(p.c0, p.c1, 1)*1000) / 1000
	}
	// Widen a narrow part, then heighten a low one, by whole columns and rows, as
	// evenly as the map's edges let.
	for mapW(p.c0, p.c1, p.k)+2*margin < minWidth && (p.c0 > mc0 || p.c1 < mc1) {
		if p.c1 < mc1 && (p.c1-p.c0)%2 == 0 || p.c0 == mc0 {
			p.c1++
		} else {
			p.c0--
		}
	}
	for p.h1-p.h0 < minRows && (p.h0 > mh0 || p.h1 < mh1) {
		if p.h1 < mh1 && (p.h1-p.h0)%2 == 0 || p.h0 == mh0 {
			p.h1++
		} else {
			p.h0--
		}
	}
	p.r = R * p.k
	p.ids = ids && p.couldHaveIDs()
	cell, id := cellSz, idSize
	if !p.ids {
		cell, id = cellSz-1, idSize-1
	}
	for _, f := range []struct {
		key, name string
		size      float64
	}{{"id", "regular", id}, {"cell", "mono", cell}, {"text", "regular", textSz}, {"title", "bold", titleS}, {"place", "bold", idSize},
		{"label", "bold", cell}, {"label-small", "bold", cell - 2}} {
		ff, err := face(f.name, f.size)
		if err != nil {
			return nil, fmt.Errorf("map picture: %w", err)
		}
		p.fonts[f.key] = ff
	}
	half := math.Sqrt(3) / 2 * p.r
	p.w = math.Ceil(max(mapW(p.c0, p.c1, p.k)+2*margin, minWidth))
	p.mapH = float64(p.h1-p.h0)*half + 2*half
	// Measure the title, then the legend, to size the canvas.
	measure := gg.NewContext(1, 1)
	title := p.wrapped(measure, "title", s.title)
	p.x0 = math.Round((p.w - mapW(p.c0, p.c1, p.k)) / 2)
	p.y0 = math.Round(margin + float64(len(title))*titleS*1.3 + 6)
	if !canvas {
		// The layout alone (a close-up's scale, where a hex is): the legend's
		// items and height only size the canvas.
		return p, nil
	}
	// The map from its base layer, drawn once for every picture of this part of the
	// map (a third to a half of a picture's time), then the title over it.
	base, err := p.base()
	if err != nil {
		return nil, err
	}
	p.baseLayer = base
	h := p.y0 + p.mapH + p.legendHeight(measure) + margin
	img := newCanvas(image.Rect(0, 0, int(p.w), int(math.Ceil(h))))
	p.canvas, p.tcols = img, (img.Rect.Dx()+tile-1)/tile
	p.tiles = make([]bool, p.tcols*((img.Rect.Dy()+tile-1)/tile))
	if wholeCanvas {
		p.touch(0, 0, float64(img.Rect.Dx()), float64(img.Rect.Dy()))
	}
	p.dc = gg.NewContextForRGBA(img)
	for i, line := range title {
		p.text(line, margin, margin+titleS+float64(i)*titleS*1.3, 0, 0, "title", ink)
	}
	return p, nil
}

// wrapped breaks s (lines separated by newlines) into lines that fit the picture in
// the font of key.
func (p *picture) wrapped(dc *gg.Context, key, s string) []string {
	dc.SetFontFace(p.fonts[key])
	var out []string
	for _, para := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		lead := len(para) - len(strings.TrimLeft(para, " "))
		lines := dc.WordWrap(strings.TrimSpace(para), p.w-2*margin-float64(lead)*4)
		for i, l := range lines {
			if i == 0 {
				l = strings.Repeat(" ", lead) + l
			} else {
				l = "    " + l
			}
			out = append(out, l)
		}
	}
	return out
}

// hairline draws a line one pixel wide from (x1, y1) to (x2, y2) without
// antialiasing: a pixel a step along its longer axis.
func (p *picture) hairline(x1, y1, x2, y2 float64, c color.RGBA) {
	img := p.dc.Image().(*image.RGBA)
	n := int(math.Ceil(max(math.Abs(x2-x1), math.Abs(y2-y1))))
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(max(n, 1))
		img.SetRGBA(int(math.Round(x1+(x2-x1)*t-0.5)), int(math.Round(y1+(y2-y1)*t-0.5)), c)
	}
}

// hexPathR is the path of a hex of radius r centred on x, y.
func (p *picture) hexPathR(x, y, r float64) {
	p.dc.NewSubPath()
	for i := range 6 {
		a := float64(i) * math.Pi / 3
		p.dc.LineTo(x+r*math.Cos(a), y+r*math.Sin(a))
	}
	p.dc.ClosePath()
}

func (p *picture) terrainColour(name string) color.RGBA {
	for i, s := range p.s.legend.Terrain {
		if s.Name == name {
			return colourOf(s.Name, s.Colour, i)
		}
	}
	return paper
}

func (p *picture) forceColour(name string) color.RGBA {
	for i, s := range p.s.legend.Forces {
		if s.Name == name {
			return colourOf(s.Name, s.Colour, i)
		}
	}
	return neutral
}

// drawMap draws the map the picture shows: terrain, grid, hexsides, features, hex ids
// and places.
func (p *picture) drawMap() {
	s := p.s
	hexes := p.shown()
	dc := p.dc
	// Terrain fills and patterns, then the grid, the hexsides and the features.
	// Each fill reaches a little into its neighbours, and the grid is drawn without
	// antialiasing: the seams and shades of antialiased hex edges were a fifth of the
	// bytes of a picture, and showed nothing.
	for _, h := range hexes {
		x, y := p.center(h)
		p.hexPathR(x, y, p.r+0.75)
		dc.SetColor(p.terrainColour(s.terrain[h]))
		dc.Fill()
	}
	p.drawTerrainPatterns(hexes)
	for _, h := range hexes {
		x, y := p.center(h)
		for i := range 6 {
			a, b := float64(i)*math.Pi/3, float64(i+1)*math.Pi/3
			p.hairline(x+p.r*math.Cos(a), y+p.r*math.Sin(a), x+p.r*math.Cos(b), y+p.r*math.Sin(b), grid)
		}
	}
	p.drawSides(hexes)
	p.drawFeatures(hexes)
	// Hex ids and places.
	places := map[hex.Hex][]string{}
	for _, pl := range s.geo.Places {
		places[pl.Hex] = append(places[pl.Hex], pl.Name)
	}
	half := math.Sqrt(3) / 2 * p.r
	for _, h := range hexes {
		x, y := p.center(h)
		if p.ids {
			p.halo(h.String(), x, y-half+13, "id", idInk)
		}
		if names := places[h]; len(names) > 0 {
			p.halo(strings.Join(names, ", "), x, y+half-4, "place", ink)
		}
	}
}

// drawCounters draws what the view puts on the map: counters, then arrows and the
// crosses of losses over them. When the hexes are too small for every hex's id, the
// ids of the hexes that matter are drawn above their counters.
func (p *picture) drawCounters() {
	half := math.Sqrt(3) / 2 * p.r
	// What happened under the counters, which stay legible where a long move or a
	// bombardment's arrow crosses them (each ends outside its target's counter); the
	// view's own markers (an Improvised Attack) over.
	under := func(a mapview.Arrow) bool {
		return a.Name == mapview.ArrowMove || a.Name == mapview.ArrowRetreat || a.Name == mapview.ArrowAttack
	}
	p.drawArrows(under)
	for _, h := range p.shown() {
		x, y := p.center(h)
		if !p.ids && (p.focus[h] || p.s.counters[h] != "") {
			p.halo(h.String(), x, y-half+10, "id", ink)
		}
		if p.s.counters[h] != "" {
			p.drawCounter(x, y+p.counterDrop(h), h)
		}
	}
	p.drawArrows(func(a mapview.Arrow) bool { return !under(a) })
	for _, h := range p.shown() {
		if p.ids && p.focus[h] {
			// Again, over an arrow that ends or starts here, without the white
			// outline that would hide the arrow's head.
			x, y := p.center(h)
			p.text(h.String(), x, y-half+13, 0.5, 0, "id", idInk)
		}
		if p.s.lost[h] {
			x, y := p.center(h)
			switch {
			case p.s.labels[h] != "":
				// Right of the taller counter, which fills the hex's lower half: below
				// or on it the cross would hide the count or the label.
				w, _ := p.counterBox(h)
				x, y = x+w/2+8, y+p.counterDrop(h)
			case p.s.counters[h] != "":
				y += half * 0.62
			}
			p.cross(x, y, 6)
		}
	}
}

// counterDrop is how far below its hex's centre the counter of h is: clear of the hex
// id above it, the taller labelled counter a little lower.
func (p *picture) counterDrop(h hex.Hex) float64 {
	d := 2.0
	if !p.ids {
		d = 3
	}
	if p.s.labels[h] != "" {
		d += 3
	}
	return d
}

// labelMax is the widest a counter's label is drawn: its counter no wider than its hex
// at full size. Mons's longest ids ("IX/FA60/17") fit in the smaller font.
const labelMax = 56.0

// label is how the label of h is drawn: its text, in the font of the key it returns.
// A label too wide for labelMax is drawn smaller, and cut ("+") if it still is.
func (p *picture) label(h hex.Hex) (string, string) {
	l := p.s.labels[h]
	if l == "" {
		return "", ""
	}
	for _, key := range []string{"label", "label-small"} {
		if p.width(key, l) <= labelMax {
			return l, key
		}
	}
	r := []rune(l)
	for len(r) > 1 && p.width("label-small", string(r)+"+") > labelMax {
		r = r[:len(r)-1]
	}
	return string(r) + "+", "label-small"
}

// width is how wide s is in the font of key.
func (p *picture) width(key, s string) float64 {
	return float64(font.MeasureString(p.fonts[key], s)) / 64
}

// counterSize is a counter's height, and its least width.
func (p *picture) counterSize() (h, w float64) {
	if p.ids {
		return 21, 28
	}
	return 18, 28
}

// counterBox is the size of the counter of h: one line of its text, or two with its
// label above.
func (p *picture) counterBox(hx hex.Hex) (w, h float64) {
	h, least := p.counterSize()
	tw := p.width("cell", p.s.counters[hx])
	if l, key := p.label(hx); l != "" {
		tw = max(tw, p.width(key, l))
		h += labelLine(p.ids)
	}
	return max(tw+8, least), h
}

// labelLine is the height a label's line adds to a counter.
func labelLine(ids bool) float64 {
	if ids {
		return 11
	}
	return 10
}

// reach is how far from the centre of h an arrow along (ux, uy) starts or ends: just
// outside its counter, or near the centre of a hex without one.
func (p *picture) reach(h hex.Hex, ux, uy, bare float64) float64 {
	if p.s.counters[h] == "" {
		return bare
	}
	w, ht := p.counterBox(h)
	if p.s.labels[h] != "" {
		ht += 6 // a labelled counter sits lower: clear of its bottom too
	}
	t := math.Inf(1)
	if ux != 0 {
		t = w / 2 / math.Abs(ux)
	}
	if uy != 0 {
		t = min(t, ht/2/math.Abs(uy))
	}
	return t + 3
}

// Colours of what happened (News).
var (
	changedInk = color.RGBA{0xd6, 0x1a, 0x9c, 0xff} // outline of a changed hex: no map's colour
	lostInk    = color.RGBA{0xd0, 0x00, 0x00, 0xff} // cross of a loss
)

// drawNews outlines the hexes that changed since the previous results, inside their
// borders, under the counters.
func (p *picture) drawNews() {
	dc := p.dc
	for _, h := range p.shown() {
		if !p.s.changed[h] {
			continue
		}
		x, y := p.center(h)
		p.touch(x-p.r, y-p.r, x+p.r, y+p.r)
		p.hexPathR(x, y, p.r-2.5)
		dc.SetColor(changedInk)
		dc.SetLineWidth(4)
		dc.Stroke()
	}
}

// cross draws a bold red X of half size d centred on x, y, on a white outline.
func (p *picture) cross(x, y, d float64) {
	p.touch(x-d-3, y-d-3, x+d+3, y+d+3)
	dc := p.dc
	for _, pass := range []struct {
		c color.Color
		w float64
	}{{paper, 6}, {lostInk, 3}} {
		dc.SetColor(pass.c)
		dc.SetLineWidth(pass.w)
		dc.DrawLine(x-d, y-d, x+d, y+d)
		dc.DrawLine(x-d, y+d, x+d, y-d)
		dc.Stroke()
	}
}

// halo draws s centred on x with its baseline at y, on a white outline so that it
// reads over any fill or line.
func (p *picture) halo(s string, x, y float64, key string, c color.Color) {
	// Eight directions, so that a line crossing the text diagonally (a trench from hex
	// to hex) leaves no gap in the outline.
	for _, d := range [][2]float64{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-1, -1}, {1, 1}, {-1, 1}, {1, -1}} {
		p.text(s, x+d[0], y+d[1], 0.5, 0, key, paper)
	}
	p.text(s, x, y, 0.5, 0, key, c)
}

// text draws s in the font of key with its left end (ax 0) or middle (ax 0.5) at x,
// its baseline at y raised by ay of the font's height. It draws glyph masks straight
// onto the canvas: gg's own text drawing resamples every glyph, which took half the
// time of a picture.
func (p *picture) text(s string, x, y, ax, ay float64, key string, c color.Color) {
	f := p.fonts[key]
	w := float64(font.MeasureString(f, s)) / 64
	m := f.Metrics()
	h := float64(m.Height) / 64
	dot := fixed.Point26_6{X: fixed.Int26_6(math.Round((x - ax*w) * 64)), Y: fixed.Int26_6(math.Round((y + ay*h) * 64))}
	if p.tiles != nil {
		// The glyphs' boxes reach at most a pixel or two past the advance and the
		// font's ascent and descent; touch pads them.
		left, base := float64(dot.X)/64, float64(dot.Y)/64
		p.touch(left, base-float64(m.Ascent)/64, left+w, base+float64(m.Descent)/64)
	}
	d := font.Drawer{Dst: p.dc.Image().(*image.RGBA), Src: image.NewUniform(c), Face: f, Dot: dot}
	d.DrawString(s)
}

// drawCounter draws the counter of h on a box centred on x, y, coloured by the forces
// in the hex: one colour a side, split left to right when sides share the hex. Its
// text is under its label, when it has one.
func (p *picture) drawCounter(x, y float64, hx hex.Hex) {
	dc := p.dc
	text, forces := p.s.counters[hx], p.s.forces[hx]
	w, h := p.counterBox(hx)
	left, top := x-w/2, y-h/2
	p.box(left, top, w, h, neutral, ink)
	for i, f := range forces {
		// inside the border
		dc.SetColor(p.forceColour(f))
		dc.DrawRectangle(left+0.5+(w-1)*float64(i)/float64(len(forces)), top+0.5, (w-1)/float64(len(forces)), h-1)
		dc.Fill()
	}
	if l, key := p.label(hx); l != "" {
		line := labelLine(p.ids)
		p.text(l, x, top+2+line/2, 0.5, 0.35, key, ink)
		y += line / 2
	}
	p.text(text, x, y, 0.5, 0.35, "cell", ink)
}

// drawSides draws each hexside feature the legend knows: lines along the hexside,
// then points across it, in reverse legend order so that the first wins on top.
func (p *picture) drawSides(hexes []hex.Hex) {
	s := p.s
	shown := map[hex.Hex]bool{}
	for _, h := range hexes {
		shown[h] = true
	}
	dc := p.dc
	for _, point := range []bool{false, true} {
		for _, h := range hexes {
			for _, n := range s.geo.Grid.Neighbours(h) {
				if shown[n] && hex.Compare(n, h) < 0 {
					continue // drawn from n
				}
				feats := s.side(h, n)
				if len(feats) == 0 {
					continue
				}
				x1, y1 := p.center(h)
				x2, y2 := p.center(n)
				mx, my := (x1+x2)/2, (y1+y2)/2
				ux, uy := (x2-x1)/math.Hypot(x2-x1, y2-y1), (y2-y1)/math.Hypot(x2-x1, y2-y1)
				for i := len(s.legend.Sides) - 1; i >= 0; i-- {
					sym := s.legend.Sides[i]
					if sym.Point != point || !contains(feats, sym.Name) {
						continue
					}
					dc.SetColor(colourOf(sym.Name, sym.Colour, i))
					if point {
						// A bar across the hexside, from one hex into the other.
						w, l := pointStyle(sym.Name)
						dc.SetLineWidth(max(w*p.k, 2))
						dc.DrawLine(mx-ux*p.r*l, my-uy*p.r*l, mx+ux*p.r*l, my+uy*p.r*l)
						dc.Stroke()
						continue
					}
					// Along the hexside: perpendicular to the line between the centres.
					dc.SetLineWidth(max(5*p.k, 3))
					if sym.Name == "wire" {
						dc.SetDash(4, 3)
					}
					dc.DrawLine(mx-uy*p.r/2, my+ux*p.r/2, mx+uy*p.r/2, my-ux*p.r/2)
					dc.Stroke()
					dc.SetDash()
				}
			}
		}
	}
}

// pointStyle is the width of a point feature's bar and its length each side of the
// hexside, in R: a road thin and long, so that roads read as lines from hex to hex, a
// bridge short and bold.
func pointStyle(name string) (width, length float64) {
	if strings.Contains(name, "road") {
		return 3, 0.45
	}
	return 7, 0.3
}

// box draws a filled rectangle with a one-pixel border.
func (p *picture) box(x, y, w, h float64, fill, border color.Color) {
	p.touch(x, y, x+w, y+h)
	p.dc.DrawRectangle(x, y, w, h)
	p.dc.SetColor(fill)
	p.dc.FillPreserve()
	p.dc.SetColor(border)
	p.dc.SetLineWidth(1)
	p.dc.Stroke()
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// item is one legend entry: a swatch and its text.
type item struct {
	kind    string // "terrain", "side", "point", "mark", "force", "feature", "arrow", "changed", "lost"
	name    string
	char    byte
	colour  color.RGBA
	pattern mapview.Pattern
	text    string
}

// items are the legend's entries by row, each only when the picture shows it: the
// terrain, features and hexsides of the hexes shown, the forces and arrows on them,
// the marks their counters carry, and what happened.
func (p *picture) items() [][]item {
	if p.legendItems == nil {
		p.legendItems = p.listItems()
	}
	return p.legendItems
}

func (p *picture) listItems() [][]item {
	l := p.s.legend
	// The terrain, works and hexside features of the hexes shown are the base
	// layer's, listed once with it.
	var shownMap mapNames
	if p.baseLayer != nil {
		shownMap = p.baseLayer.names(p)
	} else {
		shownMap = p.mapNames()
	}
	terrain, feats, sides := shownMap.terrain, shownMap.features, shownMap.sides
	forces, chars := map[string]bool{}, map[rune]bool{}
	for h, fs := range p.s.forces {
		if len(fs) > 0 && p.in(h) {
			for _, f := range fs {
				forces[f] = true
			}
		}
	}
	for h, c := range p.s.counters {
		if p.in(h) {
			for _, r := range c {
				chars[r] = true
			}
		}
	}
	arrows := map[string]bool{}
	for _, a := range p.s.arrows {
		if p.in(a.From) || p.in(a.To) {
			arrows[a.Name] = true
		}
	}
	var out [][]item
	var row []item
	for i, s := range l.Terrain {
		if terrain[s.Name] {
			row = append(row, item{"terrain", s.Name, s.Char, colourOf(s.Name, s.Colour, i), patternOf(s), s.Text})
		}
	}
	out = append(out, row)
	row = nil
	features := map[string]bool{}
	for _, s := range l.Features {
		features[s.Name] = true
		if feats[s.Name] {
			row = append(row, item{"feature", s.Name, s.Char, featureColour(s), patternOf(s), s.Text})
		}
	}
	out = append(out, row)
	row = nil
	for i, s := range l.Sides {
		k := "side"
		if s.Point {
			k = "point"
		}
		if sides[s.Name] {
			row = append(row, item{k, s.Name, s.Char, colourOf(s.Name, s.Colour, i), "", s.Text})
		}
	}
	out = append(out, row)
	row = nil
	for i, s := range l.Forces {
		if forces[s.Name] {
			row = append(row, item{"force", s.Name, s.Char, colourOf(s.Name, s.Colour, i), "", s.Text})
		}
	}
	for i, s := range l.Arrows {
		if arrows[s.Name] {
			row = append(row, item{"arrow", s.Name, s.Char, arrowColour(s, i), "", s.Text})
		}
	}
	out = append(out, row)
	row = nil
	for _, s := range append(slices.Clone(l.Marks), l.CounterMarks...) {
		if s.Name != "" && features[s.Name] || !chars[rune(s.Char)] {
			continue // drawn as the feature's pattern, in the legend above; or on no counter
		}
		row = append(row, item{"mark", s.Name, s.Char, neutral, "", s.Text})
	}
	out = append(out, row)
	row = nil
	if len(p.s.changed) > 0 {
		row = append(row, item{kind: "changed", colour: changedInk, text: "changed since the last results"})
	}
	if len(p.s.lost) > 0 {
		row = append(row, item{kind: "lost", colour: lostInk, text: "units lost"})
	}
	return append(out, row)
}

const (
	swatch = 22.0
	lineH  = textSz * 1.45
)

// mapNames are the names of the terrain, works and hexside features of the hexes a
// picture shows.
type mapNames struct{ terrain, features, sides map[string]bool }

// mapNames lists them.
func (p *picture) mapNames() mapNames {
	n := mapNames{map[string]bool{}, map[string]bool{}, map[string]bool{}}
	for _, h := range p.shown() {
		n.terrain[p.s.terrain[h]] = true
		for _, f := range p.s.features[h] {
			n.features[f] = true
		}
		for _, nb := range p.s.geo.Grid.Neighbours(h) {
			for _, f := range p.s.side(h, nb) {
				n.sides[f] = true
			}
		}
	}
	return n
}

// flow lays out items from left to right, wrapping; it returns each item's top left
// corner and the height used.
func (p *picture) flow(dc *gg.Context, items []item, top float64) ([][2]float64, float64) {
	dc.SetFontFace(p.fonts["text"])
	x, y := margin, top
	var at [][2]float64
	for _, it := range items {
		tw, _ := dc.MeasureString(it.text)
		w := swatch + 6 + tw + 18
		if x > margin && x+w > p.w-margin {
			x, y = margin, y+lineH+4
		}
		at = append(at, [2]float64{x, y})
		x += w
	}
	if len(items) == 0 {
		return nil, 0
	}
	return at, y + lineH + 4 - top
}

func (p *picture) legendTitle() string {
	if p.s.legendTitle != "" {
		return p.s.legendTitle
	}
	return "Legend"
}

func (p *picture) legendHeight(dc *gg.Context) float64 {
	h := 10 + lineH
	for _, row := range p.items() {
		_, rh := p.flow(dc, row, 0)
		h += rh
	}
	return h + 6
}

func (p *picture) drawLegend() {
	p.drawLegendAt(p.y0 + p.mapH + 10)
}

// drawLegendAt draws the legend with its top at y.
func (p *picture) drawLegendAt(y float64) {
	dc := p.dc
	p.text(p.legendTitle(), margin, y+textSz, 0, 0, "title", ink)
	y += lineH
	for _, row := range p.items() {
		at, rh := p.flow(dc, row, y)
		for i, it := range row {
			p.drawItem(it, at[i][0], at[i][1])
		}
		y += rh
	}
}

func (p *picture) drawItem(it item, x, y float64) {
	dc := p.dc
	cy := y + lineH/2
	switch it.kind {
	case "terrain":
		p.box(x, cy-8, swatch, 16, it.colour, grid)
		p.drawPatternSwatch(it, x, cy)
	case "side":
		dc.SetColor(it.colour)
		dc.SetLineWidth(5)
		if it.name == "wire" {
			dc.SetDash(4, 3)
		}
		dc.DrawLine(x, cy, x+swatch, cy)
		dc.Stroke()
		dc.SetDash()
	case "point":
		dc.SetColor(grid)
		dc.SetLineWidth(1)
		dc.DrawLine(x, cy, x+swatch, cy)
		dc.Stroke()
		w, l := pointStyle(it.name)
		dc.SetColor(it.colour)
		dc.SetLineWidth(w)
		dc.DrawLine(x+swatch/2, cy-min(l*R, 7), x+swatch/2, cy+min(l*R, 7))
		dc.Stroke()
	case "force":
		p.box(x, cy-8, swatch, 16, it.colour, ink)
	case "feature":
		p.box(x, cy-8, swatch, 16, p.terrainColour(p.s.geo.Default), grid)
		p.drawPatternSwatch(it, x, cy)
	case "arrow":
		p.arrow(x, cy, x+swatch, cy, it.colour)
	case "mark":
		p.box(x, cy-9, swatch, 18, neutral, ink)
		p.text(string(it.char), x+swatch/2, cy, 0.5, 0.35, "cell", ink)
	case "changed":
		p.box(x, cy-8, swatch, 16, paper, grid)
		p.dc.DrawRectangle(x+2, cy-6, swatch-4, 12)
		p.dc.SetColor(it.colour)
		p.dc.SetLineWidth(3)
		p.dc.Stroke()
	case "lost":
		p.cross(x+swatch/2, cy, 6)
	}
	p.text(it.text, x+swatch+6, cy, 0, 0.35, "text", ink)
}

// inks are the colours the picture draws with: kept in its palette however few pixels
// have them (an arrow, a lone counter).
func (p *picture) inks() []color.RGBA {
	out := []color.RGBA{paper, ink, grid, idInk, neutral, changedInk, lostInk}
	l := p.s.legend
	for i, s := range l.Terrain {
		c := colourOf(s.Name, s.Colour, i)
		out = append(out, c, darker(c, 0.35))
	}
	for i, s := range l.Sides {
		out = append(out, colourOf(s.Name, s.Colour, i))
	}
	for i, s := range l.Forces {
		out = append(out, colourOf(s.Name, s.Colour, i))
	}
	for _, s := range l.Features {
		out = append(out, featureColour(s))
	}
	for i, s := range l.Arrows {
		out = append(out, arrowColour(s, i))
	}
	return out
}

// paletted keeps the picture's inks and its commonest other colours, colours in all, and
// gives every other pixel (the edges of antialiased text and lines) the nearest of
// them: a third of the bytes of a full-colour PNG for the largest map, with no visible
// change, since the fills and inks are few.
//
// count is how many pixels of img have each colour (histogram).
func paletted(img *image.RGBA, inks []color.RGBA, count map[uint32]int, colours int) *image.Paletted {
	pal, index := quantise(count, inks, nil, colours)
	out := image.NewPaletted(img.Bounds(), pal)
	mapPix(out.Pix, img.Pix, func(k uint32) uint8 { return index[k] })
	return out
}

// quantise is the palette of a picture whose pixels have the colours count counts:
// first, the colours of pal (a palette to extend, nil for none), then its inks,
// then its commonest other colours, colours in all; and the index of the palette's
// colour nearest each counted colour.
func quantise(count map[uint32]int, inks []color.RGBA, pal color.Palette, colours int) (color.Palette, map[uint32]uint8) {
	type colourCount struct {
		c uint32
		n int
	}
	byCount := make([]colourCount, 0, len(count))
	for c, n := range count {
		if n > 0 {
			byCount = append(byCount, colourCount{c, n})
		}
	}
	// Commonest first; ties by value, so that the palette is the same every time.
	slices.SortFunc(byCount, func(a, b colourCount) int {
		if n := cmp.Compare(b.n, a.n); n != 0 {
			return n
		}
		return cmp.Compare(a.c, b.c)
	})
	rgba := func(c uint32) color.RGBA { return color.RGBA{uint8(c >> 24), uint8(c >> 16), uint8(c >> 8), uint8(c)} }
	pal = slices.Clip(pal)
	in := map[uint32]bool{}
	for _, c := range pal {
		in[rgbaKey(c.(color.RGBA))] = true
	}
	for _, c := range inks {
		k := rgbaKey(c)
		if count[k] > 0 && !in[k] && len(pal) < colours {
			pal, in[k] = append(pal, c), true
		}
	}
	for _, c := range byCount {
		if len(pal) == colours {
			break
		}
		if !in[c.c] {
			pal, in[c.c] = append(pal, rgba(c.c)), true
		}
	}
	// A colour of the palette is its own nearest; the others are looked for.
	index := make(map[uint32]uint8, len(byCount))
	for i, c := range pal {
		index[rgbaKey(c.(color.RGBA))] = uint8(i)
	}
	near := newNearest(pal)
	for _, c := range byCount {
		if _, ok := index[c.c]; !ok {
			index[c.c] = near.index(rgba(c.c))
		}
	}
	return pal, index
}

// mapPix sets dst (indexes) to the index of the colour of each pixel of src (RGBA),
// looking up only where the colour changes.
func mapPix(dst []uint8, src []byte, index func(uint32) uint8) {
	if len(src) == 0 {
		return
	}
	last := pixKey(src, 0)
	at := index(last)
	for i, j := 0, 0; i < len(src); i, j = i+4, j+1 {
		if k := pixKey(src, i); k != last {
			last, at = k, index(k)
		}
		dst[j] = at
	}
}

func rgbaKey(c color.RGBA) uint32 {
	return uint32(c.R)<<24 | uint32(c.G)<<16 | uint32(c.B)<<8 | uint32(c.A)
}

// pixKey is the colour of the pixel at i of pix as one number.
func pixKey(pix []byte, i int) uint32 {
	return uint32(pix[i])<<24 | uint32(pix[i+1])<<16 | uint32(pix[i+2])<<8 | uint32(pix[i+3])
}

// countPix adds the colours of pix to count, by runs of one colour: fills are long
// runs, and a map lookup a pixel was most of the time a palette took.
func countPix(count map[uint32]int, pix []byte, sign int) {
	if len(pix) == 0 {
		return
	}
	run, n := pixKey(pix, 0), 0
	for i := 0; i < len(pix); i += 4 {
		if k := pixKey(pix, i); k != run {
			count[run] += sign * n
			run, n = k, 0
		}
		n++
	}
	count[run] += sign * n
}
