package mapimage

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"math"
	"slices"
	"sync"

	"github.com/fogleman/gg"
)

// The base of a picture is what every picture of one map shares: its terrain, grid,
// hexsides, features, hex ids and places (drawMap), two thirds of the time a picture
// takes. It is drawn once per map, always at the same place in an image of its own,
// and kept (bases); each picture copies it and draws its counters, arrows, title and
// legend on the copy. Every picture's map comes from a base, kept or drawn anew, so
// the cache changes how fast a picture is drawn, never its bytes. Two are kept, 10-13
// MB each: a daemon's games mostly share a map or two, and memory is what a small
// host runs out of.
var bases = &lru[*base]{max: 2}

// base is a map's base and how many of its pixels have each colour (see histogram).
type base struct {
	img  *image.RGBA
	hist map[uint32]int
}

// pictures are the last pictures RenderEncoded drew, by the hash of their view: the
// mails of one advance often carry the same view (in Soldiers both sides see the same
// map, 6.5), and a PNG is 80-200 KB.
var pictures = &lru[[]byte]{max: 4}

// lru keeps the last few values made, most recent last. A value is never changed once
// made, so callers at once may share it; a value asked for while it is being made is
// waited for, not made twice (the sender builds a few mails at once, and the two
// results mails of one advance often carry the same view).
type lru[V any] struct {
	mu      sync.Mutex
	max     int
	entries []*lruEntry[V]
}

type lruEntry[V any] struct {
	key   [32]byte
	ready chan struct{} // closed once val and err are set
	val   V
	err   error
}

// get is the value of key, made by build if it is not kept.
func (c *lru[V]) get(key [32]byte, build func() (V, error)) (V, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			<-e.ready
			return e.val, e.err
		}
	}
	e := &lruEntry[V]{key: key, ready: make(chan struct{})}
	c.entries = append(c.entries, e)
	if len(c.entries) > c.max {
		c.entries = c.entries[len(c.entries)-c.max:]
	}
	c.mu.Unlock()
	e.val, e.err = build()
	close(e.ready)
	if e.err != nil {
		// Not kept: the next caller tries again.
		c.mu.Lock()
		c.entries = slices.DeleteFunc(c.entries, func(x *lruEntry[V]) bool { return x == e })
		c.mu.Unlock()
	}
	return e.val, e.err
}

// clear forgets every value (for tests).
func (c *lru[V]) clear() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}

// baseKey names everything drawMap draws from, and the base's size.
func (p *picture) baseKey() ([32]byte, error) {
	s := p.s
	l := s.legend
	b, err := json.Marshal(struct {
		W, H             float64
		RowsUp           bool
		Geo              any
		Terrain, Feature any
		Sides            map[string][]string
		Legend           []any
	}{p.w, p.mapH, s.rowsUp, s.geo, sortedTerrain(s), sortedFeatures(s), sortedSides(s),
		[]any{l.Terrain, l.Sides, l.Features}})
	if err != nil {
		return [32]byte{}, fmt.Errorf("map picture: %w", err)
	}
	return sha256.Sum256(b), nil
}

// drawBase copies the map's base into the picture, drawing it first if it is not kept.
func (p *picture) drawBase() error {
	key, err := p.baseKey()
	if err != nil {
		return err
	}
	band := p.band()
	w, h := band.Dx(), band.Dy()
	b, err := bases.get(key, func() (*base, error) {
		q := *p
		q.y0 = basePad
		q.dc = gg.NewContext(w, h)
		q.dc.SetColor(paper)
		q.dc.Clear()
		q.drawMap()
		img := q.dc.Image().(*image.RGBA)
		hist := map[uint32]int{}
		countPix(hist, img.Pix, 1)
		return &base{img, hist}, nil
	})
	if err != nil {
		return err
	}
	p.base = b
	draw.Draw(p.dc.Image().(*image.RGBA), band, b.img, image.Point{}, draw.Src)
	return nil
}

// basePad is the rows above and below the map that the base has too, where the map's
// outer lines and their antialiasing reach.
const basePad = 4

// band is where the base goes in the picture: the whole width, the map's rows and
// basePad more above and below.
func (p *picture) band() image.Rectangle {
	y0 := int(p.y0) - basePad
	return image.Rect(0, y0, int(math.Ceil(p.w)), y0+int(math.Ceil(p.mapH))+2*basePad)
}

// sortedTerrain and its kin give the scene's maps as lists in hex order, for the key.
func sortedTerrain(s *scene) []string {
	var out []string
	for _, h := range s.hexes() {
		out = append(out, s.terrain[h])
	}
	return out
}

func sortedFeatures(s *scene) [][]string {
	var out [][]string
	for _, h := range s.hexes() {
		out = append(out, s.features[h])
	}
	return out
}

func sortedSides(s *scene) map[string][]string {
	out := map[string][]string{}
	for side, f := range s.sides {
		out[side.A.String()+"/"+side.B.String()] = f
	}
	return out
}
