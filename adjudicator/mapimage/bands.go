package mapimage

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"fmt"
	"hash/adler32"
	"hash/crc32"
	"hash/maphash"
	"image"
	"image/color"
	"sync"
)

// A picture's PNG is written a band of rows at a time, each band compressed on its
// own (a new deflate window, ended by a sync flush, byte-aligned), so that a band
// the same as one written before is not compressed again: the bands of the map away
// from the counters are the base layer's, and the legend and the counters are often
// those of the picture before (the other side's, the game's last). Deflate of a whole
// picture, at its fastest level, was the largest part of a picture's time once the
// map was drawn once.

// bandRows is the rows of a band: small enough that a counter leaves most bands
// alone, large enough that a new window each band costs little (a few per cent).
const bandRows = 16

// maxBandBytes is the most the compressed bands kept weigh, in two generations.
const maxBandBytes = 4 << 20

// band is a band compressed: its deflate blocks and the Adler-32 of its bytes.
type band struct {
	z     []byte
	adler uint32
	n     int // its bytes, uncompressed
}

// bandKey is a band's bytes as two hashes of independent seeds and its length: two
// bands with the same key are the same (a chance of 2^-128 otherwise).
type bandKey struct {
	h1, h2 uint64
	n      int
	// code is the code the band was compressed with (quickCode's id), 0 for deflate's:
	// a band's bytes depend on it, and a picture's must not depend on the pictures
	// before it.
	code uint64
}

var bandSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

// bands are the bands compressed lately: a lookup finds one in either generation; a
// new one goes into the newer, which becomes the older once it weighs half of
// maxBandBytes (the older then forgotten).
var bands = struct {
	sync.Mutex
	now, old map[bandKey]*band
	size     int
}{now: map[bandKey]*band{}, old: map[bandKey]*band{}}

func keptBand(k bandKey) (*band, bool) {
	bands.Lock()
	defer bands.Unlock()
	if b, ok := bands.now[k]; ok {
		return b, true
	}
	b, ok := bands.old[k]
	if ok {
		bands.now[k] = b
		bands.size += len(b.z)
	}
	return b, ok
}

func keepBand(k bandKey, b *band) {
	bands.Lock()
	defer bands.Unlock()
	if _, ok := bands.now[k]; ok {
		return
	}
	if bands.size+len(b.z) > maxBandBytes/2 {
		bands.old, bands.now, bands.size = bands.now, map[bandKey]*band{}, 0
	}
	bands.now[k] = b
	bands.size += len(b.z)
}

// forgetBands empties the bands kept (for tests).
func forgetBands() {
	bands.Lock()
	bands.now, bands.old, bands.size = map[bandKey]*band{}, map[bandKey]*band{}, 0
	bands.Unlock()
}

// flaters are deflate writers at the fastest level, reused (a new one is hundreds of KB).
var flaters = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, flate.BestSpeed)
	return w
}}

// compressBand is raw as deflate blocks that start a new window and end byte-aligned
// (a sync flush), not final: bands follow one another in one stream.
func compressBand(raw []byte) (*band, error) {
	var buf bytes.Buffer
	w := flaters.Get().(*flate.Writer)
	defer flaters.Put(w)
	w.Reset(&buf)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return &band{z: bytes.Clone(buf.Bytes()), adler: adler32.Checksum(raw), n: len(raw)}, nil
}

// adlerCombine is the Adler-32 of a then b, from a's, b's and b's length (zlib's
// adler32_combine).
func adlerCombine(a, b uint32, n int) uint32 {
	const mod = 65521
	rem := uint64(n % mod)
	s1 := uint64(a & 0xffff)
	s2 := rem * s1 % mod
	s1 += uint64(b&0xffff) + mod - 1
	s2 += uint64(a>>16) + uint64(b>>16) + mod - rem
	s1 %= mod
	s2 %= mod
	return uint32(s2<<16 | s1)
}

// encodeBands is img (at most 256 colours, opaque) as an 8-bit palette PNG, written
// by bands.
func encodeBands(img *image.Paletted) ([]byte, error) {
	w, h := img.Rect.Dx(), img.Rect.Dy()
	raw := make([]byte, 0, bandRows*(w+1))
	return writeBands(w, h, img.Palette, func(y0 int) (*band, error) {
		raw = raw[:0]
		for y := y0; y < min(y0+bandRows, h); y++ {
			raw = append(raw, 0) // no filter: a palette image gains nothing from one
			raw = append(raw, img.Pix[y*img.Stride:y*img.Stride+w]...)
		}
		return bandOf(raw, nil)
	})
}

// bandOf is raw (a band's rows, each with its filter byte) compressed: the band kept
// with the same bytes compressed the same way, or raw compressed now (with code,
// quickBand; without, deflate) and kept.
func bandOf(raw []byte, code *quickCode) (*band, error) {
	k := bandKey{maphash.Bytes(bandSeeds[0], raw), maphash.Bytes(bandSeeds[1], raw), len(raw), 0}
	if code != nil {
		k.code = code.id
	}
	if b, ok := keptBand(k); ok {
		return b, nil
	}
	var b *band
	if code != nil {
		b = quickBand(raw, code)
	} else {
		var err error
		if b, err = compressBand(raw); err != nil {
			return nil, fmt.Errorf("map picture: compress: %w", err)
		}
	}
	keepBand(k, b)
	return b, nil
}

// writeBands is the 8-bit palette PNG of a picture w by h pixels of the colours pal
// (at most 256, opaque), whose band of rows from y0 down bandAt gives, compressed.
func writeBands(w, h int, pal color.Palette, bandAt func(y0 int) (*band, error)) ([]byte, error) {
	if len(pal) == 0 || len(pal) > 256 {
		return nil, fmt.Errorf("map picture: a palette of %d colours", len(pal))
	}
	var out bytes.Buffer
	out.Grow(64 << 10)
	out.WriteString("\x89PNG\r\n\x1a\n")
	var ihdr [13]byte
	binary.BigEndian.PutUint32(ihdr[0:], uint32(w))
	binary.BigEndian.PutUint32(ihdr[4:], uint32(h))
	ihdr[8], ihdr[9] = 8, 3 // 8 bits an index, a palette
	writeChunk(&out, "IHDR", ihdr[:])
	plte := make([]byte, 0, 3*len(pal))
	for _, c := range pal {
		r, g, b, a := c.RGBA()
		if a != 0xffff {
			return nil, fmt.Errorf("map picture: a colour not opaque")
		}
		plte = append(plte, uint8(r>>8), uint8(g>>8), uint8(b>>8))
	}
	writeChunk(&out, "PLTE", plte)
	// The zlib stream: its header (the fastest level), the bands, an empty final
	// block, the Adler-32 of all the rows.
	z := make([]byte, 2, 64<<10)
	z[0], z[1] = 0x78, 0x01
	adler := uint32(1)
	for y0 := 0; y0 < h; y0 += bandRows {
		b, err := bandAt(y0)
		if err != nil {
			return nil, err
		}
		z = append(z, b.z...)
		adler = adlerCombine(adler, b.adler, b.n)
	}
	z = append(z, 0x03, 0x00)
	z = binary.BigEndian.AppendUint32(z, adler)
	writeChunk(&out, "IDAT", z)
	writeChunk(&out, "IEND", nil)
	return out.Bytes(), nil
}

// writeChunk writes a PNG chunk: length, type, data, CRC of type and data.
func writeChunk(out *bytes.Buffer, kind string, data []byte) {
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(data)))
	out.Write(n[:])
	crc := crc32.NewIEEE()
	crc.Write([]byte(kind))
	crc.Write(data)
	out.WriteString(kind)
	out.Write(data)
	binary.BigEndian.PutUint32(n[:], crc.Sum32())
	out.Write(n[:])
}
