package mapimage

import (
	"bytes"
	"encoding/binary"
	"image/color"
	"math"
	"slices"
	"sync"
)

// A picture is drawn over its base layer, which it shares with every picture of the
// same part of the same map. Copying the whole base layer into each picture's canvas,
// comparing it back and converting it to palette indexes was most of a picture's
// time (issue 23): what a picture draws (title, counters, arrows, news, legend)
// covers a small part of it. So the canvas is tiles: a tile is copied from the base
// layer when something is first drawn on it (touch, which every drawing primitive
// calls with what it may cover before it draws), only the tiles drawn on are
// converted to indexes, and a band of rows with no tile drawn on is the base layer's
// band, compressed once for every picture on that base layer (baseLayer.band).

// tile is a tile's side in pixels: a band of rows is one row of tiles.
const tile = bandRows

// wholeCanvas makes every picture copy its whole base layer and convert every pixel,
// as if it had drawn on every tile (for tests: the tiles drawn on must give the same
// bytes).
var wholeCanvas = false

// touch says that what is drawn next may cover the rectangle from (x0, y0) to (x1, y1)
// (with a few pixels more for antialiasing): the tiles it meets are copied into the
// canvas from the base layer, if they were not yet. Without a canvas of tiles (the
// base layer, a legend drawn on its own) it does nothing.
func (p *picture) touch(x0, y0, x1, y1 float64) {
	if p.tiles == nil {
		return
	}
	const pad = 3
	w, h := p.canvas.Rect.Dx(), p.canvas.Rect.Dy()
	tx0, ty0 := max(int(math.Floor(x0))-pad, 0)/tile, max(int(math.Floor(y0))-pad, 0)/tile
	tx1, ty1 := min(int(math.Ceil(x1))+pad, w-1)/tile, min(int(math.Ceil(y1))+pad, h-1)/tile
	if math.IsNaN(x0 + y0 + x1 + y1) {
		tx0, ty0, tx1, ty1 = 0, 0, (w-1)/tile, (h-1)/tile
	}
	for ty := ty0; ty <= ty1; ty++ {
		for tx := tx0; tx <= tx1; tx++ {
			if i := ty*p.tcols + tx; !p.tiles[i] {
				p.tiles[i] = true
				p.initTile(tx, ty)
			}
		}
	}
}

// touchLine is touch for a line from (x1, y1) to (x2, y2) and pad either side of it:
// the tiles along it, not its whole bounding box.
func (p *picture) touchLine(x1, y1, x2, y2, pad float64) {
	if p.tiles == nil {
		return
	}
	n := int(math.Ceil(math.Hypot(x2-x1, y2-y1) / tile))
	for i := 0; i <= n; i++ {
		t := float64(i) / float64(max(n, 1))
		x, y := x1+(x2-x1)*t, y1+(y2-y1)*t
		p.touch(x-pad-tile/2, y-pad-tile/2, x+pad+tile/2, y+pad+tile/2)
	}
}

// initTile copies the base layer's pixels of a tile into the canvas: paper below it.
func (p *picture) initTile(tx, ty int) {
	img, base := p.canvas, p.baseLayer.img
	x0, x1 := tx*tile*4, min((tx+1)*tile, img.Rect.Dx())*4
	baseH := base.Rect.Dy()
	for y := ty * tile; y < min((ty+1)*tile, img.Rect.Dy()); y++ {
		row := img.Pix[y*img.Stride+x0 : y*img.Stride+x1]
		if y < baseH {
			copy(row, base.Pix[y*base.Stride+x0:y*base.Stride+x1])
		} else {
			copy(row, paperBlock[:len(row)])
		}
	}
}

// fillCanvas makes the canvas the whole picture: the tiles not drawn on copied from
// the base layer, and the legend kept copied in.
func (p *picture) fillCanvas() {
	img := p.canvas
	for i, on := range p.tiles {
		if !on {
			p.initTile(i%p.tcols, i/p.tcols)
		}
	}
	if p.legendKept != nil {
		copy(img.Pix[p.legendTop*img.Stride:], p.legendKept.img.Pix)
	}
}

// tileOn reports whether the tile at pixel column x of the row of tiles ty was drawn on.
func (p *picture) tileOn(x, ty int) bool { return p.tiles[ty*p.tcols+x/tile] }

// blankFrom reports whether the picture is blank paper from row top down, as drawn so
// far: its tiles drawn on, the base layer's pixels elsewhere.
func (p *picture) blankFrom(top int) bool {
	img, base := p.canvas, p.baseLayer.img
	w := img.Rect.Dx()
	for y := top; y < img.Rect.Dy(); y++ {
		for x := 0; x < w; x += tile {
			n := 4 * min(tile, w-x)
			var seg []byte
			switch {
			case p.tileOn(x, y/tile):
				seg = img.Pix[y*img.Stride+4*x:][:n]
			case y < base.Rect.Dy():
				seg = base.Pix[y*base.Stride+4*x:][:n]
			default:
				continue // paper
			}
			if !bytes.Equal(seg, paperBlock[:n]) {
				return false
			}
		}
	}
	return true
}

// span is a run of tiles drawn on in one row of pixels: from x0 to x1.
type span struct{ y, x0, x1 int }

// spans are the runs of tiles drawn on, row by row of pixels, above row end.
func (p *picture) spans(end int, out []span) []span {
	var row []span
	for y := 0; y < end; y++ {
		if y%tile == 0 {
			row = p.spansOf(y/tile, row[:0])
		}
		for _, sp := range row {
			out = append(out, span{y, sp.x0, sp.x1})
		}
	}
	return out
}

// spansOf appends to out the runs of tiles drawn on in the row of tiles ty (their y
// not set).
func (p *picture) spansOf(ty int, out []span) []span {
	w := p.canvas.Rect.Dx()
	for tx := 0; tx < p.tcols; tx++ {
		if !p.tiles[ty*p.tcols+tx] {
			continue
		}
		x0 := tx * tile
		for tx+1 < p.tcols && p.tiles[ty*p.tcols+tx+1] {
			tx++
		}
		out = append(out, span{0, x0, min((tx+1)*tile, w)})
	}
	return out
}

// encodeOnBase is the picture as a palette PNG: the base layer's palette, and after
// it the inks and commonest colours of what the picture draws over its base layer,
// 256 colours in all; where the picture is its base layer, the base layer's indexes.
// Only the tiles drawn on are counted and looked up, and a band of rows with none is
// the base layer's band, compressed once.
func (p *picture) encodeOnBase() ([]byte, error) {
	img, base := p.canvas, p.baseLayer
	w, h := img.Rect.Dx(), img.Rect.Dy()
	// The palette: the base layer's colours, then the picture's inks, always, in the
	// legend's order, then its commonest other colours. The base layer's and the
	// inks' indexes are the same in every picture of one map and legend, and so are
	// the bands of rows that show only them.
	prefix := slices.Clip(base.pal)
	inks := append(p.inks(), newsInks()...)
	inPal := map[uint32]bool{}
	for _, c := range prefix {
		inPal[rgbaKey(c.(color.RGBA))] = true
	}
	for _, c := range inks {
		if k := rgbaKey(c); !inPal[k] && len(prefix) < 256 {
			prefix, inPal[k] = append(prefix, c), true
		}
	}
	// The rows of a legend kept (drawLegendKept) are the legend's indexes, kept with
	// it for this palette's first colours; the rows above, the base layer's indexes
	// where no tile was drawn on, and the tiles drawn on.
	end := h
	var legend []uint8
	var legendAt [32]byte
	if p.legendKept != nil {
		idx, at, err := p.legendKept.indexes(base, prefix)
		if err == nil && len(idx) == (h-p.legendTop)*w {
			legend, legendAt, end = idx, at, p.legendTop
		} else {
			// Drawn in the canvas instead, as the tiles of its rows.
			p.touch(0, float64(p.legendTop), float64(w), float64(h))
			copy(img.Pix[p.legendTop*img.Stride:], p.legendKept.img.Pix)
		}
	}
	kept, _ := spanPool.Get().(*[]span)
	if kept == nil {
		kept = new([]span)
	}
	spans := p.spans(end, (*kept)[:0])
	defer func() { *kept = spans; spanPool.Put(kept) }()
	// The colours there, each given an id, by runs of one colour, and counted.
	var ids colourIDs
	keptRuns, _ := runPool.Get().(*[]colourRun)
	if keptRuns == nil {
		keptRuns = new([]colourRun)
	}
	runs := (*keptRuns)[:0]
	defer func() { *keptRuns = runs; runPool.Put(keptRuns) }()
	// Where a tile drawn on is still its base layer's pixels (most of it), they are
	// a run of the base layer's indexes, looked at no further: the base layer's
	// colours keep its indexes, unless an ink the base layer has in no index of its
	// own came into the palette (baseSafe).
	baseH := base.img.Rect.Dy()
	safe := base.prefixNear(prefix).baseSafe
	for _, sp := range spans {
		pix := img.Pix[sp.y*img.Stride+4*sp.x0 : sp.y*img.Stride+4*sp.x1]
		var under []byte
		if safe && sp.y < baseH {
			under = base.img.Pix[sp.y*base.img.Stride+4*sp.x0 : sp.y*base.img.Stride+4*sp.x1]
		}
		isBase := func(j int) bool {
			return under != nil && binary.LittleEndian.Uint32(pix[j:]) == binary.LittleEndian.Uint32(under[j:])
		}
		for i := 0; i < len(pix); {
			j := i + 4
			if isBase(i) {
				for j+64 <= len(pix) && bytes.Equal(pix[j:j+64], under[j:j+64]) {
					j += 64
				}
				for j < len(pix) && isBase(j) {
					j += 4
				}
				runs = append(runs, colourRun{fromBase, uint32(j-i) / 4})
				i = j
				continue
			}
			k := pixKey(pix, i)
			if k == paperKey {
				// Blank paper (most of the title's rows) a block at a time.
				for j+len(paperBlock) <= len(pix) && bytes.Equal(pix[j:j+len(paperBlock)], paperBlock) {
					j += len(paperBlock)
				}
			}
			for j < len(pix) && pixKey(pix, j) == k && !isBase(j) {
				j += 4
			}
			runs = append(runs, colourRun{uint32(ids.id(k)), uint32(j-i) / 4})
			i = j
		}
	}
	count := make([]int, len(ids.colours))
	for _, r := range runs {
		if r.id != fromBase {
			count[r.id] += int(r.n)
		}
	}
	var pal color.Palette
	var at []uint8
	if opaque(ids.colours) {
		pal, at = paletteOnBase(base, prefix, ids.colours, count)
		if comparePalettes != nil {
			slow, slowAt := quantiseOnBase(base, prefix, inPal, ids.colours, count)
			comparePalettes(pal, slow, at, slowAt)
		}
	} else {
		pal, at = quantiseOnBase(base, prefix, inPal, ids.colours, count)
	}
	// The runs again, in the same order, by index, into the tiles' indexes.
	idx := canvasPix(&indexPix, w*h)
	defer putCanvas(&indexPix, idx)
	r := 0
	for _, sp := range spans {
		for j, e := sp.y*w+sp.x0, sp.y*w+sp.x1; j < e; r++ {
			run := idx[j : j+int(runs[r].n)]
			if runs[r].id == fromBase {
				copy(run, base.pix[j:])
			} else {
				fill(run, at[runs[r].id])
			}
			j += len(run)
		}
	}
	paperRow := bytes.Repeat([]byte{base.index[paperKey]}, w)
	var rowSpans []span
	code := base.quickCode()
	raw := make([]byte, 0, tile*(w+1))
	return writeBands(w, h, pal, func(y0 int) (*band, error) {
		ty, y1 := y0/tile, min(y0+tile, h)
		clean := y1 <= baseH && y1 <= end && y1-y0 == tile
		for tx := 0; clean && tx < p.tcols; tx++ {
			clean = !p.tiles[ty*p.tcols+tx]
		}
		if clean {
			return base.band(ty)
		}
		if y0 >= end {
			return p.legendKept.band(legendAt, legend, y0-end)
		}
		rowSpans = rowSpans[:0]
		if y0 < end {
			rowSpans = p.spansOf(ty, rowSpans)
		}
		raw = raw[:0]
		for y := y0; y < y1; y++ {
			raw = append(raw, 0) // no filter: a palette image gains nothing from one
			if y >= end {
				raw = append(raw, legend[(y-end)*w:(y-end+1)*w]...)
				continue
			}
			// The row of the base layer (or paper below it), then the runs of tiles
			// drawn on over it.
			row := len(raw)
			if y < baseH {
				raw = append(raw, base.pix[y*w:(y+1)*w]...)
			} else {
				raw = append(raw, paperRow[:w]...)
			}
			for _, sp := range rowSpans {
				copy(raw[row+sp.x0:row+sp.x1], idx[y*w+sp.x0:y*w+sp.x1])
			}
		}
		return bandOf(raw, code)
	})
}

// quickCode is the Huffman code of the bands pictures on b draw on (quickBand), made
// once from b's own bands.
func (b *baseLayer) quickCode() *quickCode {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.code == nil {
		w := b.img.Rect.Dx()
		var bands [][]byte
		for y0 := 0; y0 < b.img.Rect.Dy(); y0 += tile {
			raw := make([]byte, 0, tile*(w+1))
			for y := y0; y < min(y0+tile, b.img.Rect.Dy()); y++ {
				raw = append(raw, 0)
				raw = append(raw, b.pix[y*w:(y+1)*w]...)
			}
			bands = append(bands, raw)
		}
		b.code = newQuickCode(bands, w+1)
	}
	return b.code
}

// fromBase is the id of a run of pixels that are the base layer's.
const fromBase = math.MaxUint32

// spanPool keeps the spans of a picture for the next.
var spanPool sync.Pool // *[]span

// band is the base layer's band of rows ty*tile to (ty+1)*tile, by palette index,
// compressed once: every picture on the base layer that draws nothing on it has it.
func (b *baseLayer) band(ty int) (*band, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if ty < len(b.bands) && b.bands[ty] != nil {
		return b.bands[ty], nil
	}
	w := b.img.Rect.Dx()
	raw := make([]byte, 0, tile*(w+1))
	for y := ty * tile; y < (ty+1)*tile; y++ {
		raw = append(raw, 0)
		raw = append(raw, b.pix[y*w:(y+1)*w]...)
	}
	z, err := compressBand(raw)
	if err != nil {
		return nil, err
	}
	if len(b.bands) <= ty {
		b.bands = append(b.bands, make([]*band, ty+1-len(b.bands))...)
	}
	b.bands[ty] = z
	return z, nil
}

// comparePalettes, when set (by a test), is given each picture's palette and indexes
// made by paletteOnBase and by quantiseOnBase.
var comparePalettes func(fast, slow color.Palette, fastAt, slowAt []uint8)

// opaque reports whether every colour (pixKey) is opaque.
func opaque(colours []uint32) bool {
	for _, k := range colours {
		if k&0xff != 0xff {
			return false
		}
	}
	return true
}

// quantiseOnBase is paletteOnBase by quantise, for any colours: the base layer's
// colours keep their indexes (a shade the base layer has is given what the base
// layer gives it), the picture's inks and other colours are counted for the rest of
// the palette.
func quantiseOnBase(base *baseLayer, prefix color.Palette, inPal map[uint32]bool, colours []uint32, count []int) (color.Palette, []uint8) {
	own := map[uint32]int{}
	for id, k := range colours {
		if _, ok := base.index[k]; !ok || inPal[k] {
			own[k] = count[id]
		}
	}
	pal, index := quantise(own, nil, prefix, 256)
	at := make([]uint8, len(colours))
	for id, k := range colours {
		i, ok := index[k]
		if !ok {
			i = base.index[k]
		}
		at[id] = i
	}
	return pal, at
}
