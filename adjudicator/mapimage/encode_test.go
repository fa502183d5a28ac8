package mapimage

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"testing"
)

// testPaletted is a map-like paletted picture: fills in a few colours, a grid.
func testPaletted() *image.Paletted {
	pal := color.Palette{paper, ink, grid, idInk, neutral, changedInk, lostInk}
	img := image.NewPaletted(image.Rect(0, 0, 1024, 768), pal)
	for y := range 768 {
		for x := range 1024 {
			i := uint8((x/40 + y/35) % len(pal))
			if x%40 == 0 || y%35 == 0 {
				i = 2
			}
			img.Pix[y*img.Stride+x] = i
		}
	}
	return img
}

// TestEncodePNG: a picture encodes to a PNG that decodes to the same pixels, and once
// the encoder is warm an encode allocates little more than the file it writes: its
// zlib writer and buffers are reused (a new one is hundreds of KB a picture).
func TestEncodePNG(t *testing.T) {
	img := testPaletted()
	b, err := encodePNG(img)
	if err != nil {
		t.Fatal(err)
	}
	back, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range []image.Point{{0, 0}, {17, 3}, {1023, 767}, {400, 35}} {
		if r1, g1, b1, _ := back.At(pt.X, pt.Y).RGBA(); true {
			r2, g2, b2, _ := img.At(pt.X, pt.Y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				t.Errorf("pixel %v: %v, want %v", pt, back.At(pt.X, pt.Y), img.At(pt.X, pt.Y))
			}
		}
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	const n = 5
	var size int
	for range n {
		b, err := encodePNG(img)
		if err != nil {
			t.Fatal(err)
		}
		size = len(b)
	}
	runtime.ReadMemStats(&after)
	perEncode := int(after.TotalAlloc-before.TotalAlloc) / n
	if limit := 4*size + 64<<10; perEncode > limit {
		t.Errorf("an encode allocates %d bytes for a file of %d, want at most %d", perEncode, size, limit)
	}
}
