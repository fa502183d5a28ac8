package mapimage

import (
	"slices"
	"sync"
)

// pictures are the last pictures RenderEncoded drew, by the hash of their view: the
// mails of one advance often carry the same view (in Soldiers both sides see the same
// map, 6.5), and the games of a club that play the same scenario draw the same
// opening pictures. Enough for the distinct pictures of a pass of the sender (four
// a results advance: each side's map and close-up), 4 MB at most.
var pictures = &lru[[]byte]{max: maxPictures, sizeOf: func(b []byte) int { return len(b) }, maxSize: 4 << 20}

// maxPictures is the most pictures kept.
const maxPictures = 64

// lru keeps the last few values made, most recent last. A value is never changed once
// made, so callers at once may share it; a value asked for while it is being made is
// waited for, not made twice (the sender builds a few mails at once, and the two
// results mails of one advance often carry the same view).
type lru[V any] struct {
	mu      sync.Mutex
	max     int
	entries []*lruEntry[V]
	// With sizeOf, the values kept weigh at most maxSize in all (the newest is kept
	// whatever it weighs).
	sizeOf  func(V) int
	maxSize int
}

type lruEntry[V any] struct {
	key   [32]byte
	ready chan struct{} // closed once val and err are set
	val   V
	err   error
	size  int // sizeOf(val), once made
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
	size := 0
	if e.err == nil && c.sizeOf != nil {
		size = c.sizeOf(e.val)
	}
	close(e.ready)
	c.mu.Lock()
	e.size = size // under mu: shrink reads the sizes of entries others made
	if e.err != nil {
		// Not kept: the next caller tries again.
		c.entries = slices.DeleteFunc(c.entries, func(x *lruEntry[V]) bool { return x == e })
	}
	c.shrink(e)
	c.mu.Unlock()
	return e.val, e.err
}

// shrink forgets the oldest values made until those kept weigh at most maxSize, never
// keep (the value just made). Values being made weigh nothing yet.
func (c *lru[V]) shrink(keep *lruEntry[V]) {
	if c.sizeOf == nil {
		return
	}
	total := 0
	for _, e := range c.entries {
		total += e.size
	}
	for i := 0; total > c.maxSize && i < len(c.entries); {
		if e := c.entries[i]; e != keep && e.size > 0 {
			total -= e.size
			c.entries = slices.Delete(c.entries, i, i+1)
			continue
		}
		i++
	}
}

// clear forgets every value (for tests).
func (c *lru[V]) clear() {
	c.mu.Lock()
	c.entries = nil
	c.mu.Unlock()
}
