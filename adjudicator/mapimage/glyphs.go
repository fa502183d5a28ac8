package mapimage

import (
	"fmt"
	"image"
	"image/draw"
	"sync"

	"golang.org/x/image/font"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"
)

// maxGlyphs is the most glyphs a face keeps: a face draws a hundred-odd runes, each at
// a few sub-pixel offsets; a few hundred KB a face.
const maxGlyphs = 2048

// glyphFace is a font face that keeps the glyphs it rasterised: an opentype face
// rasterises each glyph from its outline every time it is drawn, which was a third of
// a picture's time (the same hex ids, legend and counter letters in every picture).
// A glyph is rasterised the same at any whole-pixel offset of the dot, so it is kept
// by rune and the dot's sub-pixel part, and the picture is the same as the opentype
// face's. It is safe for concurrent use (the pictures of a pass are drawn at once);
// the opentype face under it is used under mu only.
type glyphFace struct {
	mu       sync.RWMutex
	f        font.Face
	metrics  font.Metrics
	glyphs   map[glyphKey]glyph
	advances map[rune]glyphAdvance
	kerns    map[[2]rune]fixed.Int26_6
}

type glyphKey struct {
	r      rune
	fx, fy fixed.Int26_6 // the dot's sub-pixel part
}

type glyph struct {
	dr      image.Rectangle // at the dot's whole pixel (0, 0)
	mask    *image.Alpha    // never changed once kept
	advance fixed.Int26_6
	ok      bool
}

type glyphAdvance struct {
	advance fixed.Int26_6
	ok      bool
}

func newGlyphFace(f font.Face) *glyphFace {
	return &glyphFace{f: f, metrics: f.Metrics(), glyphs: map[glyphKey]glyph{}, advances: map[rune]glyphAdvance{}, kerns: map[[2]rune]fixed.Int26_6{}}
}

// Glyph implements font.Face. The mask it returns is shared: the caller only reads it.
func (c *glyphFace) Glyph(dot fixed.Point26_6, r rune) (image.Rectangle, image.Image, image.Point, fixed.Int26_6, bool) {
	k := glyphKey{r, dot.X & 63, dot.Y & 63}
	at := image.Pt(dot.X.Floor(), dot.Y.Floor())
	c.mu.RLock()
	g, ok := c.glyphs[k]
	c.mu.RUnlock()
	if !ok {
		c.mu.Lock()
		if g, ok = c.glyphs[k]; !ok {
			dr, mask, maskp, advance, found := c.f.Glyph(fixed.Point26_6{X: k.fx, Y: k.fy}, r)
			g = glyph{dr: dr, advance: advance, ok: found}
			if mask != nil && !dr.Empty() {
				// The opentype face reuses its mask for the next glyph.
				g.mask = image.NewAlpha(image.Rect(0, 0, dr.Dx(), dr.Dy()))
				draw.Draw(g.mask, g.mask.Rect, mask, maskp, draw.Src)
			}
			if len(c.glyphs) >= maxGlyphs {
				clear(c.glyphs)
			}
			c.glyphs[k] = g
		}
		c.mu.Unlock()
	}
	if g.mask == nil {
		return g.dr.Add(at), nil, image.Point{}, g.advance, g.ok
	}
	return g.dr.Add(at), g.mask, image.Point{}, g.advance, g.ok
}

// GlyphAdvance implements font.Face.
func (c *glyphFace) GlyphAdvance(r rune) (fixed.Int26_6, bool) {
	c.mu.RLock()
	a, ok := c.advances[r]
	c.mu.RUnlock()
	if ok {
		return a.advance, a.ok
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	a.advance, a.ok = c.f.GlyphAdvance(r)
	if len(c.advances) < maxGlyphs {
		c.advances[r] = a
	}
	return a.advance, a.ok
}

// Kern implements font.Face.
func (c *glyphFace) Kern(r0, r1 rune) fixed.Int26_6 {
	k := [2]rune{r0, r1}
	c.mu.RLock()
	d, ok := c.kerns[k]
	c.mu.RUnlock()
	if ok {
		return d
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	d = c.f.Kern(r0, r1)
	if len(c.kerns) >= 4*maxGlyphs {
		clear(c.kerns)
	}
	c.kerns[k] = d
	return d
}

// GlyphBounds implements font.Face.
func (c *glyphFace) GlyphBounds(r rune) (fixed.Rectangle26_6, fixed.Int26_6, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.f.GlyphBounds(r)
}

// Metrics implements font.Face.
func (c *glyphFace) Metrics() font.Metrics { return c.metrics }

// Close implements font.Face: a kept face stays open.
func (c *glyphFace) Close() error { return nil }

type faceKey struct {
	name string
	size float64
}

// keptFaces are the faces made, by font and size: a few, kept for good.
var keptFaces = struct {
	sync.Mutex
	m map[faceKey]*glyphFace
}{m: map[faceKey]*glyphFace{}}

// face is the embedded font name at size, keeping its glyphs.
func face(name string, size float64) (font.Face, error) {
	keptFaces.Lock()
	defer keptFaces.Unlock()
	k := faceKey{name, size}
	if f, ok := keptFaces.m[k]; ok {
		return f, nil
	}
	fs, err := faces()
	if err != nil {
		return nil, err
	}
	ft, ok := fs[name]
	if !ok {
		return nil, fmt.Errorf("no font %q", name)
	}
	f, err := opentype.NewFace(ft, &opentype.FaceOptions{Size: size, DPI: 72, Hinting: font.HintingFull})
	if err != nil {
		return nil, err
	}
	keptFaces.m[k] = newGlyphFace(f)
	return keptFaces.m[k], nil
}
