package store

import (
	"testing"

	bolt "go.etcd.io/bbolt"
)

// CodecCalls is the number of compressions and decompressions of outbox bodies so far.
func CodecCalls() int64 { return codecCalls.Load() }

// SeqKey is the key of the outbox mail seq.
func SeqKey(seq uint64) []byte { return u64(seq) }

// ForgetDictionaries empties the process's cache of deflate dictionaries.
func ForgetDictionaries() {
	dicts.Clear()
	zencoders.Clear()
	zdecoders.Clear()
	dictWriters.Clear()
}

// OutboxPages returns the bytes of the outbox's leaf pages and the bytes they hold.
func (d *DB) OutboxPages() (alloc, inuse int) {
	d.bolt.View(func(tx *bolt.Tx) error {
		st := tx.Bucket(bucketOutbox).Stats()
		alloc, inuse = st.LeafAlloc, st.LeafInuse
		return nil
	})
	return alloc, inuse
}

// SetMigrateBatch sets the games a migration transaction moves, and returns the undo.
func SetMigrateBatch(n int) func() {
	old := migrateBatch
	migrateBatch = n
	return func() { migrateBatch = old }
}

// OpenSoissons writes the store of the old Soissons game into a temporary file and
// returns its path.
func OpenSoissons(tb testing.TB) string { return openSoissons(tb) }
