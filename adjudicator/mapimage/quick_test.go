package mapimage

import (
	"bytes"
	"compress/flate"
	"image"
	"image/color"
	"image/png"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"testing"
)

// inflate is the bytes of a band as a decoder reads them, after the bands before it.
func inflate(t testing.TB, z []byte) []byte {
	t.Helper()
	r := flate.NewReader(io.MultiReader(bytes.NewReader(z), bytes.NewReader([]byte{0x03, 0x00})))
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatalf("the band does not inflate: %v", err)
	}
	return got
}

// goldenBands are the bands of rows of a golden picture, each with its filter byte,
// and the rows' length with it.
func goldenBands(t testing.TB, name string) ([][]byte, int) {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name + ".png")
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	pi := img.(*image.Paletted)
	w, h := pi.Rect.Dx(), pi.Rect.Dy()
	var bands [][]byte
	for y0 := 0; y0 < h; y0 += tile {
		var raw []byte
		for y := y0; y < min(y0+tile, h); y++ {
			raw = append(append(raw, 0), pi.Pix[y*pi.Stride:y*pi.Stride+w]...)
		}
		bands = append(bands, raw)
	}
	return bands, w + 1
}

// TestQuickBand: a band quickBand compresses inflates to its bytes and its checksum
// is theirs, whatever the band (a map's, one of noise, of one colour, one row, a band
// of colours its code was not made from); a picture's bands weigh at most a tenth
// more than deflate's at its fastest level, its code made from the top two thirds.
func TestQuickBand(t *testing.T) {
	for _, name := range []string{"soldiers1918", "mons1914", "teaching", "soissons1918"} {
		bands, stride := goldenBands(t, name)
		code := newQuickCode(bands[:len(bands)*2/3], stride)
		quick, deflate := 0, 0
		for i, raw := range bands {
			b := quickBand(raw, code)
			if got := inflate(t, b.z); !bytes.Equal(got, raw) {
				t.Fatalf("%s band %d inflates to other bytes", name, i)
			}
			d, err := compressBand(raw)
			if err != nil {
				t.Fatal(err)
			}
			if b.adler != d.adler || b.n != d.n {
				t.Errorf("%s band %d: checksum %x of %d bytes, want %x of %d", name, i, b.adler, b.n, d.adler, d.n)
			}
			quick, deflate = quick+len(b.z), deflate+len(d.z)
		}
		if 10*quick > 11*deflate {
			t.Errorf("%s: the bands weigh %d bytes, deflate's %d", name, quick, deflate)
		}
	}
	rnd := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 16*301)
	for i := range noise {
		noise[i] = byte(rnd.IntN(256))
	}
	code := newQuickCode([][]byte{make([]byte, 16*301)}, 301)
	for name, raw := range map[string][]byte{
		"noise": noise, "one colour": make([]byte, 16*301), "one row": noise[:301], "a few bytes": noise[:3], "none": nil,
		"runs":                  bytes.Repeat([]byte{0, 7, 7, 7, 7, 7, 200, 200, 200, 200, 1}, 500),
		"further than a window": append(append(slices.Clone(noise[:40000%len(noise)]), make([]byte, 36000)...), noise[:4000]...),
	} {
		if got := inflate(t, quickBand(raw, code).z); !bytes.Equal(got, raw) {
			t.Errorf("%s: inflates to other bytes", name)
		}
	}
}

// FuzzQuickBand: any band, coded with a code made from any other, inflates to itself.
func FuzzQuickBand(f *testing.F) {
	f.Add([]byte{0, 1, 1, 1, 1, 2, 0, 1, 1, 1, 1, 2}, []byte{0, 5, 5, 5}, uint8(6))
	f.Add(bytes.Repeat([]byte{3, 4, 5, 6}, 300), []byte{}, uint8(1))
	f.Fuzz(func(t *testing.T, raw, from []byte, stride uint8) {
		s := int(stride) + 1
		code := newQuickCode([][]byte{from}, s)
		if got := inflate(t, quickBand(raw, code).z); !bytes.Equal(got, raw) {
			t.Fatalf("%x inflates to %x", raw, got)
		}
	})
}

// TestBandsOfOtherBases: a picture's bytes do not depend on the pictures drawn before
// it: a band with the same bytes as one a picture on another base layer compressed
// (its title, the same on both) is compressed with this base layer's code, not taken
// from the other.
func TestBandsOfOtherBases(t *testing.T) {
	a := testView(t, false)
	b := testView(t, false)
	b.Legend.Terrain = slices.Clone(b.Legend.Terrain)
	b.Legend.Terrain[1].Colour = color.RGBA{0x30, 0x90, 0x30, 0xff}
	ForgetAll()
	cold, err := Render(b)
	if err != nil {
		t.Fatal(err)
	}
	ForgetAll()
	if _, err := Render(a); err != nil {
		t.Fatal(err)
	}
	warm, err := Render(b)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(warm, cold) {
		t.Error("a picture drawn after one on another base layer differs from the picture drawn first")
	}
}
