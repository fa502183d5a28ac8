package store

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// FuzzZstdBody: a stored body that is not what zstd wrote (cut, flipped, made up)
// decodes to an error or to some text, never a panic nor more than zstdMaxBody; one
// that is comes back whole.
func FuzzZstdBody(f *testing.F) {
	d := []byte(strings.Repeat("Your move: fire and movement by the deadline. Map of 2301-2410.\n", 40))
	id := dictID(d)
	enc := func(body string, dict bool) ([]byte, error) {
		if dict {
			return zstdEncode(body, id, d)
		}
		return zstdEncode(body, "", nil)
	}
	dec := func(z []byte, dict bool) (string, error) {
		if dict {
			return zstdDecode(z, id, d)
		}
		return zstdDecode(z, "", nil)
	}
	for _, body := range []string{"", "short", strings.Repeat("Your move: fire at 2305.\n", 30), string(d[:900])} {
		for _, dict := range []bool{false, true} {
			z, err := enc(body, dict)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(z, dict)
		}
	}
	f.Fuzz(func(t *testing.T, z []byte, dict bool) {
		got, err := dec(z, dict)
		if err != nil {
			return
		}
		if len(got) > zstdMaxBody {
			t.Fatalf("%d bytes decoded, more than %d", len(got), zstdMaxBody)
		}
		// What decodes, encoded again, decodes to the same text.
		z2, err := enc(got, dict)
		if err != nil {
			t.Fatal(err)
		}
		if back, err := dec(z2, dict); err != nil || back != got {
			t.Fatalf("re-encoded %d bytes come back as %d bytes, %v", len(got), len(back), err)
		}
	})
}

// FuzzUnpackRecord: a game's record that is not what packRecord wrote (cut, flipped,
// made up) unpacks to an error or to some bytes, never a panic.
func FuzzUnpackRecord(f *testing.F) {
	db, err := Open(filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	defer db.Close()
	sample := []byte(`{"phase":"move","side":"us","key":"2301","kind":"move","text":"MOVE 2301-2302-2402 ` + strings.Repeat("x", 100) + `"}`)
	err = db.bolt.Update(func(tx *bolt.Tx) error {
		bt := newTx(tx)
		for _, raw := range [][]byte{sample, []byte(`{"a":1}`), bytes.Repeat(sample, 3)} {
			v, err := bt.packRecord(recJournal, raw)
			if err != nil {
				return err
			}
			f.Add(v)
			if z, err := packRaw(bytes.Repeat(raw, 4)); err == nil {
				f.Add(z)
			}
		}
		return nil
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, v []byte) {
		db.bolt.View(func(tx *bolt.Tx) error {
			unpack(tx, v)
			return nil
		})
	})
}
