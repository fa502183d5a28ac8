package mapimage

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"sync"

	"github.com/fogleman/gg"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// bases are the base layers of the last pictures drawn, by what they were drawn from
// (baseKey). A base layer is a few MB; games on one map share it: 16 MB in all.
var bases = &lru[*baseLayer]{max: 16, sizeOf: func(b *baseLayer) int { return len(b.img.Pix) + len(b.pix) }, maxSize: 16 << 20}

// baseOverflow is how far below the map's last row what drawMap draws reaches: a
// point feature's bar across a hexside of the edge.
const baseOverflow = 24

// baseLayer is what drawMap draws of a picture (terrain, patterns, grid, hexsides,
// works, hex ids, places) on paper, the picture's width and from its top to
// baseOverflow below the map: the same for every picture of the same part of the
// same map at the same scale, whoever's view it is. It is drawn from the map alone
// (scene.static), so it holds nothing a side may not see. Never changed once made.
type baseLayer struct {
	key [32]byte // baseKey
	img *image.RGBA
	// As a palette image: basePalette colours, each colour of img's index, img's pixels
	// by index.
	pal   color.Palette
	index map[uint32]uint8
	pix   []uint8
	// bands are pix's bands of rows compressed (band), each once asked for; code is
	// the code of the bands pictures draw on (quickCode).
	mu    sync.Mutex
	bands []*band
	code  *quickCode
	near  map[[32]byte]*prefixNear // by palette prefix (prefixNear)
	shown *mapNames                // what its hexes show (names), once listed
}

// names are the names of the terrain, works and hexside features of the hexes of b,
// a base layer of p's part of the map: the same for every picture on it.
func (b *baseLayer) names(p *picture) mapNames {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.shown == nil {
		n := p.mapNames()
		b.shown = &n
	}
	return *b.shown
}

// static is the part of s that is the map's, not the view's: what the base layer is
// drawn from. A view's units, counters, labels, arrows, news and title are not in it.
func (s *scene) static() *scene {
	return &scene{
		rowsUp: s.rowsUp, digest: s.digest, mapWire: s.mapWire, hexList: s.hexList, geo: s.geo, terrain: s.terrain, features: s.features, sides: s.sides,
		legend:   mapview.Legend{Terrain: s.legend.Terrain, Sides: s.legend.Sides, Features: s.legend.Features},
		counters: map[hex.Hex]string{}, labels: map[hex.Hex]string{}, forces: map[hex.Hex][]string{},
		changed: map[hex.Hex]bool{}, lost: map[hex.Hex]bool{},
	}
}

// baseKey is what the base layer of p is drawn from: the map (static: the digest of
// its geometry, each hex's terrain, works and hexsides), the legend of what drawMap
// draws, and the picture's layout.
func (p *picture) baseKey(static *scene) ([32]byte, error) {
	h := sha256.New()
	head, err := json.Marshal(struct {
		Map    string
		RowsUp bool
		Legend mapview.Legend
	}{static.digest, static.rowsUp, static.legend})
	if err != nil {
		return [32]byte{}, fmt.Errorf("map picture: the base layer's key: %w", err)
	}
	h.Write(head)
	fmt.Fprintf(h, "\x00%v %v %d %d %d %d %v %v %v %v", p.k, p.ids, p.c0, p.c1, p.h0, p.h1, p.x0, p.y0, p.w, p.mapH)
	var k [32]byte
	h.Sum(k[:0])
	return k, nil
}

// base is the base layer of p, drawn once for every picture with the same one.
func (p *picture) base() (*baseLayer, error) {
	static := p.s.static()
	key, err := p.baseKey(static)
	if err != nil {
		return nil, err
	}
	return bases.get(key, func() (*baseLayer, error) {
		b := p.drawBase(static)
		b.key = key
		return b, nil
	})
}

// drawBase draws the base layer of p from static, p's scene's static part.
func (p *picture) drawBase(static *scene) *baseLayer {
	q := *p
	q.s, q.tiles = static, nil
	img := image.NewRGBA(image.Rect(0, 0, int(p.w), int(math.Ceil(p.y0+p.mapH))+baseOverflow))
	fillPaper(img.Pix)
	q.dc = gg.NewContextForRGBA(img)
	q.drawMap()
	count := map[uint32]int{}
	countPix(count, img.Pix, 1)
	pal, index := quantise(count, q.inks(), nil, basePalette)
	pix := make([]uint8, len(img.Pix)/4)
	mapPix(pix, img.Pix, func(k uint32) uint8 { return index[k] })
	return &baseLayer{img: img, pal: pal, index: index, pix: pix}
}

// fillPaper paints pix (RGBA) with the paper's colour.
func fillPaper(pix []byte) {
	if len(pix) < 4 {
		return
	}
	pix[0], pix[1], pix[2], pix[3] = paper.R, paper.G, paper.B, paper.A
	for n := 4; n < len(pix); n *= 2 {
		copy(pix[n:], pix[:n])
	}
}

// basePalette is how many colours of a picture's palette are its base layer's: its
// inks and commonest shades; the others are the picture's own (the counters' colours
// and the edges of their text, arrows, news, the legend).
const basePalette = 192

// paperKey is the paper's colour as pixKey gives it, and paperBlock 64 pixels of it.
var (
	paperKey   = rgbaKey(paper)
	paperBlock = bytes.Repeat([]byte{paper.R, paper.G, paper.B, paper.A}, 64)
)

// fill sets every byte of b to v.
func fill(b []byte, v byte) {
	if len(b) < 64 {
		for i := range b {
			b[i] = v
		}
		return
	}
	b[0] = v
	for n := 1; n < len(b); n *= 2 {
		copy(b[n:], b[:n])
	}
}

// colourRun is a run of pixels of one colour, by its id (colourIDs).
type colourRun struct{ id, n uint32 }

// runPool keeps the runs of a picture for the next (a hundred thousand, a MB).
var runPool sync.Pool // *[]colourRun

// colourIDs numbers colours from 0 in the order first seen, in an open table by
// hash (linear probing, at most half full): the runs of a picture's text and edges
// are short, and a map lookup a run was most of what telling their colours took.
type colourIDs struct {
	slots   []struct{ k, id uint32 } // id+1, 0 for none
	colours []uint32                 // by id
}

func (c *colourIDs) id(k uint32) int {
	if 2*(len(c.colours)+1) > len(c.slots) {
		c.grow()
	}
	mask := uint32(len(c.slots) - 1)
	for i := (k * 0x9e3779b1) >> 16 & mask; ; i = (i + 1) & mask {
		s := &c.slots[i]
		if s.id == 0 {
			c.colours = append(c.colours, k)
			s.k, s.id = k, uint32(len(c.colours))
			return len(c.colours) - 1
		}
		if s.k == k {
			return int(s.id - 1)
		}
	}
}

// grow doubles the table (from 4096 slots), the colours in it put back.
func (c *colourIDs) grow() {
	n := max(2*len(c.slots), 1<<12)
	c.slots = make([]struct{ k, id uint32 }, n)
	mask := uint32(n - 1)
	for id, k := range c.colours {
		i := (k * 0x9e3779b1) >> 16 & mask
		for c.slots[i].id != 0 {
			i = (i + 1) & mask
		}
		c.slots[i].k, c.slots[i].id = k, uint32(id+1)
	}
}

// nearest finds the colour of a palette nearest a colour, as [color.Palette.Index]
// does (the same distance, the first of equals), for opaque colours, without
// comparing with every colour: the palette by red, from the colour's red outwards,
// until the red alone is further than the nearest found. Palette.Index of the
// thousands of shades of a picture's antialiased edges was a quarter of its time.
type nearest struct {
	byRed []nearColour
	pal   color.Palette // when a colour is not opaque: Palette.Index
}

type nearColour struct {
	r, g, b int32
	i       uint8
}

func newNearest(pal color.Palette) *nearest {
	n := &nearest{byRed: make([]nearColour, len(pal))}
	for i, c := range pal {
		r, g, b, a := c.RGBA()
		if a != 0xffff {
			n.pal = pal
		}
		n.byRed[i] = nearColour{int32(r >> 8), int32(g >> 8), int32(b >> 8), uint8(i)}
	}
	slices.SortFunc(n.byRed, func(a, b nearColour) int { return cmp.Or(cmp.Compare(a.r, b.r), cmp.Compare(a.i, b.i)) })
	return n
}

// term is Palette.Index's distance in one channel of two 8-bit values: the square
// of their 16-bit difference, a quarter.
func term(a, b int32) uint32 {
	d := uint32(max(a-b, b-a)) * 0x101
	return d * d >> 2
}

// index is the index in the palette of the colour nearest c (opaque).
func (n *nearest) index(c color.RGBA) uint8 {
	if n.pal != nil || c.A != 0xff {
		return uint8(n.pal.Index(c))
	}
	i, _, _ := n.below(c, math.MaxUint32)
	return i
}

// rgbaPix and indexPix are the pixels of pictures drawn (RGBA, and by palette
// index), for the next ones: a picture's canvas is a few MB, allocated and cleared
// each time otherwise.
var rgbaPix, indexPix sync.Pool // *[]byte

// canvasPix is n bytes for a picture's pixels from pool, not cleared: the caller sets
// each.
func canvasPix(pool *sync.Pool, n int) []byte {
	if b, ok := pool.Get().(*[]byte); ok && cap(*b) >= n {
		return (*b)[:n]
	}
	return make([]byte, n)
}

// newCanvas is an RGBA picture of bounds r whose pixels the caller sets, every one.
func newCanvas(r image.Rectangle) *image.RGBA {
	return &image.RGBA{Pix: canvasPix(&rgbaPix, 4*r.Dx()*r.Dy()), Stride: 4 * r.Dx(), Rect: r}
}

// putCanvas gives pix back to pool for another picture: nothing refers to it any more.
func putCanvas(pool *sync.Pool, pix []byte) { pool.Put(&pix) }

// legends are the legends drawn lately, by what they show and where (legendKey): the
// pictures of one game show the same terrain, units and marks, and a legend is a
// fifth of what a picture draws over its base layer.
var legends = &lru[*keptLegend]{max: 16, sizeOf: func(l *keptLegend) int { return 3 * len(l.img.Pix) / 2 }, maxSize: 4 << 20}

// keptLegend is a legend drawn, and its pixels by index for the last palette prefix
// (a base layer's colours and the inks) it was asked for.
type keptLegend struct {
	img *image.RGBA
	mu  sync.Mutex
	at  [32]byte // the prefix idx is for
	idx []uint8
	// bands are idx's bands of rows compressed, by their first row, for the prefix
	// bandsAt: the bands of a picture's legend, the same in every picture with it.
	bands   map[int]*band
	bandsAt [32]byte
}

// band is the band of idx's rows from row r on, tile of them or to its end, compressed
// once for the prefix at (idx and at are what indexes gave).
func (l *keptLegend) band(at [32]byte, idx []uint8, r int) (*band, error) {
	w := l.img.Rect.Dx()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.bands == nil || l.bandsAt != at {
		l.bands, l.bandsAt = map[int]*band{}, at
	}
	if b, ok := l.bands[r]; ok {
		return b, nil
	}
	raw := make([]byte, 0, tile*(w+1))
	for y := r; y < min(r+tile, len(idx)/w); y++ {
		raw = append(raw, 0)
		raw = append(raw, idx[y*w:(y+1)*w]...)
	}
	b, err := compressBand(raw)
	if err != nil {
		return nil, err
	}
	l.bands[r] = b
	return b, nil
}

// indexes are l's pixels as indexes of prefix, which starts with base's palette: a
// colour of the base layer its index there, an ink its own, another the nearest of
// prefix. The same for every picture of one base layer and legend.
func (l *keptLegend) indexes(base *baseLayer, prefix color.Palette) ([]uint8, [32]byte, error) {
	at := base.prefixKey(prefix)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.idx != nil && l.at == at {
		return l.idx, at, nil
	}
	exact := map[uint32]uint8{}
	for i, c := range prefix[len(base.pal):] {
		exact[rgbaKey(c.(color.RGBA))] = uint8(len(base.pal) + i)
	}
	near := newNearest(prefix)
	idx := make([]uint8, len(l.img.Pix)/4)
	mapPix(idx, l.img.Pix, func(k uint32) uint8 {
		if i, ok := exact[k]; ok {
			return i
		}
		if i, ok := base.index[k]; ok {
			return i
		}
		return near.index(color.RGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)})
	})
	l.at, l.idx = at, idx
	return idx, at, nil
}

// newsInks are the colours of what News draws, in the palette of every picture.
func newsInks() []color.RGBA {
	out := []color.RGBA{changedInk, lostInk}
	for i, s := range newsArrows {
		out = append(out, arrowColour(s, i))
	}
	return out
}

// drawLegendKept draws the legend as drawLegend does, copied from the legend kept for
// the same items at the same place when the rows it takes are blank paper (the map's
// last hexsides may reach into its first rows: then it is drawn over them).
func (p *picture) drawLegendKept() error {
	img := p.canvas
	y := p.y0 + p.mapH + 10
	top := int(math.Floor(y))
	if !p.blankFrom(top) {
		p.touch(0, float64(top), float64(img.Rect.Dx()), float64(img.Rect.Dy()))
		p.drawLegend()
		return nil
	}
	h := sha256.New()
	fmt.Fprintf(h, "%q %v %v %v %v %v %v\x00", p.legendTitle(), p.w, y-float64(top), img.Rect.Dy()-top, p.ids, p.terrainColour(p.s.geo.Default), textSz)
	for _, row := range p.items() {
		fmt.Fprintf(h, "%q\x00", row)
	}
	var key [32]byte
	h.Sum(key[:0])
	l, err := legends.get(key, func() (*keptLegend, error) {
		l := image.NewRGBA(image.Rect(0, 0, img.Rect.Dx(), img.Rect.Dy()-top))
		fillPaper(l.Pix)
		q := *p
		q.dc, q.canvas, q.tiles = gg.NewContextForRGBA(l), l, nil
		q.drawLegendAt(y - float64(top))
		return &keptLegend{img: l}, nil
	})
	if err != nil {
		return err
	}
	// Its rows are the legend's indexes (encodeOnBase), or copied in by fillCanvas.
	p.legendKept, p.legendTop = l, top
	return nil
}
