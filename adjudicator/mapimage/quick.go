package mapimage

import (
	"encoding/binary"
	"hash/adler32"
	"math/bits"
	"slices"
	"sync"
	"sync/atomic"
)

// The bands a picture draws on are new in nearly every picture, and deflate at its
// fastest level spent most of a picture's time on them (half of it building a
// Huffman code for each band, issue 23). quickBand compresses them in one pass that
// knows what a map's rows are made of: runs of one colour and the row above again
// (fills, lines straight down), and otherwise a colour of the base layer. Its
// Huffman code is the base layer's, built once from the base layer's own bands
// (quickCode), and written at the head of each band: a band stands alone, as
// deflate's do.

// Deflate's length codes from 257 and distance codes from 0: the least length or
// distance of each and its extra bits (RFC 1951 3.2.5).
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint16{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	// lengthSym is the length code (less 257) of each length from 3 to 258.
	lengthSym = func() (t [259]uint8) {
		for n := 3; n <= 258; n++ {
			l := 28
			for int(lengthBase[l]) > n {
				l--
			}
			t[n] = uint8(l)
		}
		return t
	}()
	// clOrder is the order of the code length code's lengths in a block's header.
	clOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

const (
	numLit  = 286 // literal and length symbols
	numDist = 30
)

// distSym is the distance code of d (1 to 32768).
func distSym(d int) int {
	s := 29
	for int(distBase[s]) > d {
		s--
	}
	return s
}

// quickCode is a dynamic Huffman code for quickBand: the codes of every literal and
// length symbol and every distance (each has one, however rare), and the block
// header that describes them, as bits.
type quickCode struct {
	id              uint64 // unique, not 0
	lit, dist       []huffCode
	header          []byte // the header's bits, least first, after the block's 3
	headerBits      int
	stride, strideD int // the distance of the row above, its code
}

// huffCode is a symbol's code, reversed for writing least bit first, and its length.
type huffCode struct {
	code uint16
	n    uint8
}

// hashBits is the size of the table of where each 4 bytes were last seen; maxDist is
// the furthest back deflate copies from.
const (
	hashBits = 13
	maxDist  = 32768
)

// A token is a byte written as a literal (below 256), or a copy: isCopy, its length
// from bit 16, its distance in the low 16 bits (less one: 32768 is 1<<15).
const isCopy = 1 << 31

// tokens appends to out the tokens quickBand writes raw as: literals, and copies of
// the byte before (a run of one colour), of the byte stride before (the row above),
// or of the last place the next four bytes were seen (a hex, a pattern or a letter
// seen before in the band), the longest.
func tokens(raw []byte, stride int, out []uint32) []uint32 {
	var seen [1 << hashBits]int32 // position+1, 0 for none
	hash := func(i int) uint32 { return binary.LittleEndian.Uint32(raw[i:]) * 0x1e35a7bd >> (32 - hashBits) }
	up := stride <= maxDist
	for i := 0; i < len(raw); {
		n, dist := 0, 0
		// Three bytes the same are the least copy: looked at before same is called.
		if i > 0 && i+2 < len(raw) && raw[i] == raw[i-1] && raw[i+1] == raw[i] && raw[i+2] == raw[i] {
			n, dist = same(raw, i, 1), 1
		}
		if up && i >= stride && n < 258 && i+2 < len(raw) && raw[i] == raw[i-stride] && raw[i+1] == raw[i+1-stride] && raw[i+2] == raw[i+2-stride] {
			if m := same(raw, i, stride); m > n {
				n, dist = m, stride
			}
		}
		if i+4 <= len(raw) {
			h := hash(i)
			if at := int(seen[h]) - 1; at >= 0 && n < 258 && i-at != 1 && i-at != stride && i-at <= maxDist {
				if m := same(raw, i, i-at); m > n && m >= 4 {
					n, dist = m, i-at
				}
			}
			seen[h] = int32(i + 1)
		}
		if n < 3 {
			out = append(out, uint32(raw[i]))
			i++
			continue
		}
		out = append(out, isCopy|uint32(n)<<16|uint32(dist-1))
		if e := i + n - 1; e+4 <= len(raw) {
			seen[hash(e)] = int32(e + 1)
		}
		i += n
	}
	return out
}

// same is how many bytes from raw[i] on repeat those dist before them, at most 258.
func same(raw []byte, i, dist int) int {
	n, end := 0, min(len(raw)-i, 258)
	for n+8 <= end {
		a := binary.LittleEndian.Uint64(raw[i+n:])
		b := binary.LittleEndian.Uint64(raw[i+n-dist:])
		if x := a ^ b; x != 0 {
			return n + bits.TrailingZeros64(x)/8
		}
		n += 8
	}
	for n < end && raw[i+n] == raw[i+n-dist] {
		n++
	}
	return n
}

// newQuickCode is the code for bands of rows stride bytes long like those of bands
// (raw bands of a base layer): symbols counted as quickBand writes them, then every
// literal given a share, for the colours a picture draws over its base layer.
func newQuickCode(bands [][]byte, stride int) *quickCode {
	litFreq, distFreq := make([]int, numLit), make([]int, numDist)
	sd := distSym(stride)
	total := 0
	var toks []uint32
	for _, raw := range bands {
		toks = tokens(raw, stride, toks[:0])
		for _, t := range toks {
			if t&isCopy == 0 {
				litFreq[t]++
			} else {
				litFreq[257+int(lengthSym[t>>16&0x1ff])]++
				distFreq[distSym(int(t&0xffff)+1)]++
			}
			total++
		}
	}
	litFreq[256]++ // the end of the block
	share := 1 + total/(8*256)
	for i := range 256 {
		litFreq[i] += share
	}
	for i := range litFreq {
		litFreq[i]++
	}
	for i := range distFreq {
		distFreq[i]++
	}
	c := &quickCode{id: codeIDs.Add(1), lit: huffCodes(huffLengths(litFreq, 15)), dist: huffCodes(huffLengths(distFreq, 15)), stride: stride, strideD: sd}
	// The header: the numbers of codes, the code length code, the lengths.
	lens := make([]uint8, 0, numLit+numDist)
	for _, h := range c.lit {
		lens = append(lens, h.n)
	}
	for _, h := range c.dist {
		lens = append(lens, h.n)
	}
	clFreq := make([]int, 19)
	for _, l := range lens {
		clFreq[l]++
	}
	cl := huffCodes(huffLengths(clFreq, 7))
	var w bitWriter
	w.write(numLit-257, 5)
	w.write(numDist-1, 5)
	w.write(19-4, 4)
	for _, s := range clOrder {
		w.write(uint64(cl[s].n), 3)
	}
	for _, l := range lens {
		w.write(uint64(cl[l].code), uint(cl[l].n))
	}
	c.headerBits = len(w.buf)*8 + int(w.nbits)
	w.flush()
	c.header = w.buf
	return c
}

// quickBand is raw, a band of rows each c.stride bytes long (the filter byte and the
// row's indexes), compressed as compressBand does (deflate blocks ending
// byte-aligned, not final), with code c.
func quickBand(raw []byte, c *quickCode) *band {
	var w bitWriter
	w.buf = make([]byte, 0, len(raw)/4+len(c.header)+16)
	w.write(0b100, 3) // not the last block; dynamic Huffman codes (10, least bit first)
	for i := 0; i < c.headerBits; i += 8 {
		w.write(uint64(c.header[i/8]), uint(min(8, c.headerBits-i)))
	}
	toks := tokenPool.Get().(*[]uint32)
	*toks = tokens(raw, c.stride, (*toks)[:0])
	for _, t := range *toks {
		if t&isCopy == 0 {
			h := c.lit[t]
			w.write(uint64(h.code), uint(h.n))
			continue
		}
		n, dist := int(t>>16&0x1ff), int(t&0xffff)+1
		l := lengthSym[n]
		h := c.lit[257+int(l)]
		w.write(uint64(h.code), uint(h.n))
		w.write(uint64(n-int(lengthBase[l])), uint(lengthExtra[l]))
		d := c.strideD
		if dist != c.stride {
			d = distSym(dist)
		}
		h = c.dist[d]
		w.write(uint64(h.code), uint(h.n))
		w.write(uint64(dist-int(distBase[d])), uint(distExtra[d]))
	}
	tokenPool.Put(toks)
	end := c.lit[256]
	w.write(uint64(end.code), uint(end.n))
	// An empty stored block ends the band on a byte boundary, as a sync flush does.
	w.write(0, 3)
	w.flush()
	w.buf = append(w.buf, 0, 0, 0xff, 0xff)
	return &band{z: w.buf, adler: adler32.Checksum(raw), n: len(raw)}
}

// codeIDs numbers the codes made.
var codeIDs atomic.Uint64

// tokenPool keeps a band's tokens for the next band.
var tokenPool = sync.Pool{New: func() any { return new([]uint32) }}

// bitWriter writes deflate's bits, least significant first.
type bitWriter struct {
	buf   []byte
	acc   uint64
	nbits uint
}

// write writes the n (at most 32) low bits of v.
func (w *bitWriter) write(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	if w.nbits >= 32 {
		w.buf = binary.LittleEndian.AppendUint32(w.buf, uint32(w.acc))
		w.acc >>= 32
		w.nbits -= 32
	}
}

// flush writes the bits left, padded to a byte.
func (w *bitWriter) flush() {
	for w.nbits > 0 {
		w.buf = append(w.buf, byte(w.acc))
		w.acc >>= 8
		w.nbits = max(w.nbits, 8) - 8
	}
	w.acc = 0
}

// huffLengths are the lengths of a Huffman code for symbols of frequencies freq, at
// most maxBits long: none for a symbol of frequency 0. Where the code would be
// longer, the frequencies are flattened and the code made again.
func huffLengths(freq []int, maxBits int) []uint8 {
	f := slices.Clone(freq)
	for {
		l := huffDepths(f)
		if slices.Max(l) <= uint8(maxBits) {
			return l
		}
		for i := range f {
			if f[i] > 0 {
				f[i] = f[i]/2 + 1
			}
		}
	}
}

// huffDepths are the depths of the symbols of frequencies freq in a Huffman tree (0
// for frequency 0; 1 for a symbol alone).
func huffDepths(freq []int) []uint8 {
	type node struct {
		f           int
		left, right int // children, -1 for a leaf
		sym         int
	}
	var nodes []node
	for s, f := range freq {
		if f > 0 {
			nodes = append(nodes, node{f, -1, -1, s})
		}
	}
	depth := make([]uint8, len(freq))
	if len(nodes) == 1 {
		depth[nodes[0].sym] = 1
		return depth
	}
	// Two queues: the leaves by frequency, the merged nodes in the order made.
	leaves := make([]int, len(nodes))
	for i := range leaves {
		leaves[i] = i
	}
	slices.SortStableFunc(leaves, func(a, b int) int { return nodes[a].f - nodes[b].f })
	var merged []int
	li, mi := 0, 0
	pop := func() int {
		if li < len(leaves) && (mi >= len(merged) || nodes[leaves[li]].f <= nodes[merged[mi]].f) {
			li++
			return leaves[li-1]
		}
		mi++
		return merged[mi-1]
	}
	for (len(leaves)-li)+(len(merged)-mi) > 1 {
		a, b := pop(), pop()
		nodes = append(nodes, node{nodes[a].f + nodes[b].f, a, b, -1})
		merged = append(merged, len(nodes)-1)
	}
	var walk func(i int, d uint8)
	walk = func(i int, d uint8) {
		if n := nodes[i]; n.left < 0 {
			depth[n.sym] = d
		} else {
			walk(n.left, d+1)
			walk(n.right, d+1)
		}
	}
	walk(len(nodes)-1, 0)
	return depth
}

// huffCodes are the canonical codes of lengths (RFC 1951 3.2.2), reversed for
// writing least bit first.
func huffCodes(lengths []uint8) []huffCode {
	var count [16]int
	for _, l := range lengths {
		if l > 0 {
			count[l]++
		}
	}
	var next [16]int
	code := 0
	for b := 1; b < 16; b++ {
		code = (code + count[b-1]) << 1
		next[b] = code
	}
	out := make([]huffCode, len(lengths))
	for s, l := range lengths {
		if l == 0 {
			continue
		}
		out[s] = huffCode{uint16(bits.Reverse16(uint16(next[l])) >> (16 - l)), l}
		next[l]++
	}
	return out
}
