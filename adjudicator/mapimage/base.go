package mapimage

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"math"
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
var bases = &baseCache{max: 2}

// baseCache keeps the bases of the last few maps drawn, most recent last. A base is
// never changed once made, so pictures drawn at once may share it.
type baseCache struct {
	mu      sync.Mutex
	max     int
	entries []baseEntry
}

type baseEntry struct {
	key [32]byte
	img *image.RGBA
}

func (c *baseCache) get(key [32]byte, make func() (*image.RGBA, error)) (*image.RGBA, error) {
	c.mu.Lock()
	for i, e := range c.entries {
		if e.key == key {
			c.entries = append(append(c.entries[:i:i], c.entries[i+1:]...), e)
			c.mu.Unlock()
			return e.img, nil
		}
	}
	c.mu.Unlock()
	img, err := make()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = append(c.entries, baseEntry{key, img})
	if len(c.entries) > c.max {
		c.entries = c.entries[len(c.entries)-c.max:]
	}
	return img, nil
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
	base, err := bases.get(key, func() (*image.RGBA, error) {
		q := *p
		q.y0 = basePad
		q.dc = gg.NewContext(w, h)
		q.dc.SetColor(paper)
		q.dc.Clear()
		q.drawMap()
		return q.dc.Image().(*image.RGBA), nil
	})
	if err != nil {
		return err
	}
	dst := p.dc.Image().(*image.RGBA)
	draw.Draw(dst, band, base, image.Point{}, draw.Src)
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
