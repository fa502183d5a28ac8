package mapimage

import (
	"cmp"
	"crypto/sha256"
	"hash/fnv"
	"image/color"
	"math"
	"slices"
	"sync"
)

// The palette of a picture over its base layer: the base layer's colours and the
// inks (the prefix, the same in every picture on the base layer with the same
// legend), then the commonest of the other colours the picture draws, and every other
// colour given the nearest. Telling each of the thousand-odd shades of a picture's
// antialiased text its nearest colour was most of the palette's time (issue 23): the
// nearest in the prefix is kept from picture to picture (prefixNear), and only the
// picture's own colours are looked through for each.

// prefixNear is what pictures with one palette prefix share: each prefix colour's
// index, and the nearest prefix colour of each colour asked for so far.
type prefixNear struct {
	// baseSafe: no colour of the prefix after the base layer's palette is a colour
	// of the base layer, so that every base layer colour keeps its base index.
	baseSafe bool
	mu       sync.Mutex
	at       map[uint32]uint8 // a prefix colour's index
	near     *nearest
	memo     map[uint32]nearHit
	// told are the indexes of the colours of pictures whose own colours, after the
	// prefix, were the same, by those colours' hash.
	told map[uint64]*toldColours
}

// nearHit is what a colour is on a prefix: a colour of the prefix or of the base
// layer, its index i; another (own), the nearest prefix colour i at distance d.
type nearHit struct {
	i   uint8
	own bool
	d   uint32
}

// maxMemo is the most colours a prefix keeps told (a few hundred KB), and maxPrefixes
// the most prefixes a base layer keeps (one a legend's inks: one or two a game).
const (
	maxMemo     = 1 << 13
	maxPrefixes = 2
)

// prefixNear is the prefixNear of prefix, which starts with b's palette.
func (b *baseLayer) prefixNear(prefix color.Palette) *prefixNear {
	k := b.prefixKey(prefix)
	b.mu.Lock()
	defer b.mu.Unlock()
	if pn, ok := b.near[k]; ok {
		return pn
	}
	if b.near == nil || len(b.near) >= maxPrefixes {
		b.near = map[[32]byte]*prefixNear{}
	}
	pn := &prefixNear{baseSafe: true, at: make(map[uint32]uint8, len(prefix)), near: newNearest(prefix), memo: map[uint32]nearHit{}}
	for _, c := range prefix[len(b.pal):] {
		if _, ok := b.index[rgbaKey(c.(color.RGBA))]; ok {
			pn.baseSafe = false
		}
	}
	for i, c := range prefix {
		if k := rgbaKey(c.(color.RGBA)); !hasKey(pn.at, k) {
			pn.at[k] = uint8(i)
		}
	}
	b.near[k] = pn
	return pn
}

// prefixKey names a palette prefix on b: b's key and the colours after b's palette.
func (b *baseLayer) prefixKey(prefix color.Palette) [32]byte {
	h := sha256.New()
	h.Write(b.key[:])
	for _, c := range prefix[len(b.pal):] {
		r, g, bl, _ := c.RGBA()
		h.Write([]byte{byte(r >> 8), byte(g >> 8), byte(bl >> 8)})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

func hasKey(m map[uint32]uint8, k uint32) bool { _, ok := m[k]; return ok }

// paletteOnBase is the palette of a picture whose colours (by id) are colours,
// count[id] pixels of each, over base with the palette prefix (base's palette, then
// the inks), and each colour's index in it: a prefix colour its own, another colour
// of the base layer the base layer's, the commonest others (most first, then by
// value) after the prefix, up to 256 colours, and the rest the nearest (the first of
// equals). It is quantise's palette and indexes (TestPaletteOnBase), for opaque
// colours.
func paletteOnBase(base *baseLayer, prefix color.Palette, colours []uint32, count []int) (color.Palette, []uint8) {
	pn := base.prefixNear(prefix)
	at := make([]uint8, len(colours))
	hits := make([]nearHit, len(colours))
	var own []int // ids of colours neither the prefix's nor the base layer's
	// What each colour is, told once a prefix: one lookup a colour.
	pn.mu.Lock()
	if len(pn.memo) > maxMemo {
		clear(pn.memo)
	}
	for id, k := range colours {
		hit, ok := pn.memo[k]
		if !ok {
			if i, ok := pn.at[k]; ok {
				hit.i = i
			} else if i, ok := base.index[k]; ok {
				hit.i = i
			} else {
				hit.own = true
				hit.i, hit.d, _ = pn.near.below(color.RGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)}, math.MaxUint32)
			}
			pn.memo[k] = hit
		}
		if hits[id] = hit; hit.own {
			own = append(own, id)
		} else {
			at[id] = hit.i
		}
	}
	pn.mu.Unlock()
	before := func(a, b int) int {
		return cmp.Or(cmp.Compare(count[b], count[a]), cmp.Compare(colours[a], colours[b]))
	}
	room := 256 - len(prefix)
	top := own
	if len(own) > room {
		top = topOf(own, room, before)
	}
	slices.SortFunc(top, before)
	pal := slices.Clip(prefix)
	extra := make(color.Palette, len(top))
	chosen := make(map[int]bool, len(top))
	for j, id := range top {
		k := colours[id]
		extra[j] = color.RGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)}
		at[id] = uint8(len(prefix) + j)
		chosen[id] = true
	}
	pal = append(pal, extra...)
	if len(top) == len(own) {
		return pal, at
	}
	// The pictures of a game often choose the same colours of their own: the
	// indexes found for them are kept too.
	told := pn.toldFor(extra)
	var near *nearest
	told.mu.Lock()
	defer told.mu.Unlock()
	if len(told.at) >= maxMemo {
		clear(told.at)
	}
	for _, id := range own {
		if chosen[id] {
			continue
		}
		k := colours[id]
		if i, ok := told.at[k]; ok {
			at[id] = i
			continue
		}
		if near == nil {
			near = newNearest(extra)
			for i := range near.byRed {
				near.byRed[i].i += uint8(len(prefix))
			}
		}
		c := color.RGBA{uint8(k >> 24), uint8(k >> 16), uint8(k >> 8), uint8(k)}
		hit := hits[id]
		// A colour of the picture's own nearer than the prefix's nearest; at the
		// same distance, the prefix's, which comes first.
		if i, _, ok := near.below(c, hit.d); ok {
			at[id] = i
		} else {
			at[id] = hit.i
		}
		told.at[k] = at[id]
	}
	return pal, at
}

// toldColours are the indexes found for colours with one palette (a prefix and the
// colours after it).
type toldColours struct {
	mu sync.Mutex
	at map[uint32]uint8
}

// toldFor is the toldColours of the palette of pn's prefix then extra.
func (pn *prefixNear) toldFor(extra color.Palette) *toldColours {
	h := fnv.New64a()
	for _, c := range extra {
		r, g, b, _ := c.RGBA()
		h.Write([]byte{byte(r >> 8), byte(g >> 8), byte(b >> 8)})
	}
	k := h.Sum64()
	pn.mu.Lock()
	defer pn.mu.Unlock()
	if t, ok := pn.told[k]; ok {
		return t
	}
	if pn.told == nil || len(pn.told) >= maxPrefixes {
		pn.told = map[uint64]*toldColours{}
	}
	t := &toldColours{at: map[uint32]uint8{}}
	pn.told[k] = t
	return t
}

// topOf are the n first of ids in the order before, in no order: the ids kept in a
// heap of n whose root is the last of them.
func topOf(ids []int, n int, before func(a, b int) int) []int {
	h := slices.Clone(ids[:n])
	down := func(i int) {
		for {
			l, r, last := 2*i+1, 2*i+2, i
			if l < n && before(h[l], h[last]) > 0 {
				last = l
			}
			if r < n && before(h[r], h[last]) > 0 {
				last = r
			}
			if last == i {
				return
			}
			h[i], h[last] = h[last], h[i]
			i = last
		}
	}
	for i := n/2 - 1; i >= 0; i-- {
		down(i)
	}
	for _, id := range ids[n:] {
		if before(id, h[0]) < 0 {
			h[0] = id
			down(0)
		}
	}
	return h
}

// below is the index and distance of the colour of the palette nearest c (opaque),
// the first of equals, among those nearer than bound; ok is false when none is.
func (n *nearest) below(c color.RGBA, bound uint32) (i uint8, d uint32, ok bool) {
	r, g, b := int32(c.R), int32(c.G), int32(c.B)
	at, _ := slices.BinarySearchFunc(n.byRed, r, func(e nearColour, r int32) int { return cmp.Compare(e.r, r) })
	best := bound
	try := func(e nearColour) {
		if dd := term(r, e.r) + term(g, e.g) + term(b, e.b); dd < best || dd == best && ok && e.i < i {
			best, i, ok = dd, e.i, true
		}
	}
	for lo, hi := at-1, at; lo >= 0 || hi < len(n.byRed); lo, hi = lo-1, hi+1 {
		if hi < len(n.byRed) {
			if term(r, n.byRed[hi].r) > best {
				hi = len(n.byRed)
			} else {
				try(n.byRed[hi])
			}
		}
		if lo >= 0 {
			if term(r, n.byRed[lo].r) > best {
				lo = -1
			} else {
				try(n.byRed[lo])
			}
		}
	}
	return i, best, ok
}
