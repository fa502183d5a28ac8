package adjudicator

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"path/filepath"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestHostKeyDerivedOnce: the signing key is derived from the stored seed once, not at
// every signature; a new stored seed gives its own key at once; the key a caller gets
// is his to change.
func TestHostKeyDerivedOnce(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	d := &Desk{Store: db, Rand: bytes.NewReader(bytes.Repeat([]byte{7}, 64))}
	key := func() ed25519.PrivateKey {
		t.Helper()
		var k ed25519.PrivateKey
		if err := db.Write(context.Background(), func(tx store.Tx) (err error) {
			k, err = d.hostKey(tx)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return k
	}
	first := key()
	for range 3 {
		if k := key(); !k.Equal(first) {
			t.Fatal("the same stored seed gave another key")
		}
	}
	if n := d.keys.derived.Load(); n != 1 {
		t.Errorf("the key was derived %d times for four signatures, want once", n)
	}
	clear(first) // the caller's copy
	if k := key(); k.Equal(first) || !bytes.Equal(k.Seed(), bytes.Repeat([]byte{7}, 32)) {
		t.Error("a caller's change to his key reached the next caller")
	}
	seed := bytes.Repeat([]byte{9}, ed25519.SeedSize)
	if err := db.Write(context.Background(), func(tx store.Tx) error { return tx.PutHostKey(seed) }); err != nil {
		t.Fatal(err)
	}
	if k := key(); !k.Equal(ed25519.NewKeyFromSeed(seed)) {
		t.Error("a new stored seed was answered with the key of the old one")
	}
}
