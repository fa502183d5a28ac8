package mapimage

import (
	"bytes"
	"hash/adler32"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/opentype"
	"golang.org/x/image/math/fixed"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestNearest: the palette colour nearest a colour is the one color.Palette.Index
// gives (the same distance, the first of equals), for palettes of map-like colours
// (greys, shades of a few fills, repeated reds) and colours near and far from them.
func TestNearest(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 1))
	for _, tc := range []struct {
		name   string
		colour func() color.RGBA
	}{
		{"any", func() color.RGBA {
			return color.RGBA{uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), 0xff}
		}},
		{"greys", func() color.RGBA { g := uint8(rnd.IntN(256)); return color.RGBA{g, g, g, 0xff} }},
		{"few reds", func() color.RGBA {
			return color.RGBA{uint8(rnd.IntN(4) * 60), uint8(rnd.IntN(256)), uint8(rnd.IntN(256)), 0xff}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 20 {
				var pal color.Palette
				for range 1 + rnd.IntN(256) {
					pal = append(pal, tc.colour())
				}
				n := newNearest(pal)
				for range 200 {
					c := tc.colour()
					if got, want := n.index(c), pal.Index(c); int(got) != want {
						t.Fatalf("nearest of %v: %d (%v), Palette.Index %d (%v)", c, got, pal[got], want, pal[want])
					}
				}
			}
		})
	}
}

// TestAdlerCombine: the Adler-32 of two parts, from theirs, is that of the whole.
func TestAdlerCombine(t *testing.T) {
	rnd := rand.New(rand.NewPCG(23, 2))
	for _, n := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {5, 7}, {65521, 3}, {17000, 65522}, {200000, 100000}} {
		a, b := make([]byte, n[0]), make([]byte, n[1])
		for i := range a {
			a[i] = byte(rnd.IntN(256))
		}
		for i := range b {
			b[i] = 0xff - byte(rnd.IntN(3))
		}
		if got, want := adlerCombine(adler32.Checksum(a), adler32.Checksum(b), len(b)), adler32.Checksum(append(a, b...)); got != want {
			t.Errorf("lengths %v: %08x, want %08x", n, got, want)
		}
	}
}

// TestEncodeBands: a palette picture written by bands is a PNG that decodes to the
// same pixels, whether its height is a whole number of bands or not, and its bands
// kept from before give the very bytes compressed anew.
func TestEncodeBands(t *testing.T) {
	base := testPaletted()
	for _, h := range []int{1, bandRows, 3*bandRows + 5, 768} {
		img := image.NewPaletted(image.Rect(0, 0, 1024, h), base.Palette)
		draw.Draw(img, img.Rect, base, image.Point{}, draw.Src)
		forgetBands()
		cold, err := encodeBands(img)
		if err != nil {
			t.Fatal(err)
		}
		warm, err := encodeBands(img)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(cold, warm) {
			t.Errorf("height %d: the bands kept give other bytes", h)
		}
		back, err := png.Decode(bytes.NewReader(warm))
		if err != nil {
			t.Fatalf("height %d: %v", h, err)
		}
		p, ok := back.(*image.Paletted)
		if !ok || p.Rect != img.Rect || !bytes.Equal(p.Pix, img.Pix) {
			t.Errorf("height %d: decodes to other pixels", h)
		}
		for i := range img.Palette {
			if r1, g1, b1, _ := p.Palette[i].RGBA(); true {
				if r2, g2, b2, _ := img.Palette[i].RGBA(); r1 != r2 || g1 != g2 || b1 != b2 {
					t.Errorf("height %d: colour %d is %v, want %v", h, i, p.Palette[i], img.Palette[i])
				}
			}
		}
	}
}

// TestGlyphFace: text drawn through the face that keeps its glyphs is the text the
// opentype face draws, at any sub-pixel position, drawn first or again.
func TestGlyphFace(t *testing.T) {
	ft, err := opentype.Parse(goregular.TTF)
	if err != nil {
		t.Fatal(err)
	}
	opts := &opentype.FaceOptions{Size: 13, DPI: 72, Hinting: font.HintingFull}
	plain, err := opentype.NewFace(ft, opts)
	if err != nil {
		t.Fatal(err)
	}
	under, err := opentype.NewFace(ft, opts)
	if err != nil {
		t.Fatal(err)
	}
	kept := newGlyphFace(under)
	draw := func(f font.Face, x, y fixed.Int26_6) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, 200, 40))
		fillPaper(img.Pix)
		d := font.Drawer{Dst: img, Src: image.NewUniform(ink), Face: f, Dot: fixed.Point26_6{X: x, Y: y}}
		d.DrawString("2206 Légende, AVWAY 0123456789 éß")
		return img
	}
	for _, at := range [][2]fixed.Int26_6{{640, 1280}, {641, 1280}, {671, 1301}, {640 + 64*7 + 33, 1280 + 64*3 + 63}, {640, 1280}} {
		for round := range 2 {
			if !bytes.Equal(draw(kept, at[0], at[1]).Pix, draw(plain, at[0], at[1]).Pix) {
				t.Errorf("text at %v (round %d) differs", at, round)
			}
		}
		if a, b := font.MeasureString(kept, "AVWAY 2206"), font.MeasureString(plain, "AVWAY 2206"); a != b {
			t.Errorf("width %v, want %v", a, b)
		}
	}
}

// TestLRUSize: values kept weigh at most maxSize, the oldest forgotten first, the
// newest kept whatever it weighs.
func TestLRUSize(t *testing.T) {
	c := &lru[[]byte]{max: 10, sizeOf: func(b []byte) int { return len(b) }, maxSize: 100}
	made := 0
	get := func(k byte, n int) {
		c.get([32]byte{k}, func() ([]byte, error) { made++; return make([]byte, n), nil })
	}
	get(1, 40)
	get(2, 40)
	get(3, 40) // 120: 1 goes
	get(2, 40) // kept
	if made != 3 {
		t.Fatalf("made %d values, want 3 (2 kept)", made)
	}
	get(1, 40)
	if made != 4 {
		t.Errorf("made %d values, want 4 (1 forgotten)", made)
	}
	get(4, 500) // alone over: kept, the others go
	get(4, 500)
	if made != 5 || len(c.entries) != 1 {
		t.Errorf("made %d values, %d kept, want 5 and 1", made, len(c.entries))
	}
}

// TestBaseKey: the key of a base layer tells apart maps that differ in anything the
// base layer draws (a hex's terrain, a work, a hexside feature, a place, a legend
// colour, the rows' direction) and layouts (scale, ids), and not views that differ only
// in what is drawn over it (units, title).
func TestBaseKey(t *testing.T) {
	key := func(v mapview.View, ids bool) [32]byte {
		t.Helper()
		s, err := sceneOf(v)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPicture(s, false, ids)
		if err != nil {
			t.Fatal(err)
		}
		k, err := p.baseKey(s.static())
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	parse := func(text string) *board.Map {
		m, err := board.ParseMap("test.txt", []byte(text), testVocab)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	v := testView(t, false)
	want := key(v, true)
	same := v
	same.Title, same.Cells = "Another map\nof two lines too", map[hex.Hex]string{hex.MustParse("0203"): "A7"}
	same.Forces = map[hex.Hex][]string{hex.MustParse("0203"): {"us"}}
	if key(same, true) != want {
		t.Error("a view with other units and title has another base layer")
	}
	for name, edit := range map[string]func(v *mapview.View){
		"terrain": func(v *mapview.View) {
			v.Map = parse(strings.Replace(testMap, "forest 0102 0203", "forest 0102 0204", 1))
		},
		"work":    func(v *mapview.View) { v.Map = parse(strings.Replace(testMap, "bunker 0304", "bunker 0305", 1)) },
		"hexside": func(v *mapview.View) { v.Map = parse(strings.Replace(testMap, "0201/0202", "0202/0203", 1)) },
		"place":   func(v *mapview.View) { v.Map = parse(strings.Replace(testMap, "Ville", "Bourg", 1)) },
		"colour": func(v *mapview.View) {
			v.Legend.Terrain = slices.Clone(v.Legend.Terrain)
			v.Legend.Terrain[1].Colour = color.RGBA{1, 2, 3, 0xff}
		},
		"rows up": func(v *mapview.View) { v.RowsUp = true },
	} {
		w := testView(t, false)
		edit(&w)
		if key(w, true) == want {
			t.Errorf("a map with another %s has the same base layer", name)
		}
	}
	if key(v, false) == want {
		t.Error("the base layer without ids has the key of the one with")
	}
}
