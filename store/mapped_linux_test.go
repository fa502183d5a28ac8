package store_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// mappedBytes is store.MappedResident, or the test's end.
func mappedBytes(t *testing.T) int64 {
	t.Helper()
	n, err := store.MappedResident()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReleaseMapped: a read of the whole store (Space walks every page) leaves the
// file's pages in the process's resident set; ReleaseMapped takes them out of it, and
// the store reads the same afterwards.
func TestReleaseMapped(t *testing.T) {
	db, _ := open(t)
	ctx := t.Context()
	const mails = 600 // of 12 KB, deflated to about 9: a file of about 6 MB
	for i := range mails / 50 {
		err := db.Write(ctx, func(tx store.Tx) error {
			for j := range 50 {
				noise := make([]byte, 12<<10)
				rand.Read(noise)
				if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d-%d@x", i, j), Kind: "reply", To: []string{"a@x"}, Body: base64.StdEncoding.EncodeToString(noise)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	read := func() (store.Space, int) {
		t.Helper()
		space, err := db.Space(ctx) // every page of every bucket
		if err != nil {
			t.Fatal(err)
		}
		var heads []store.OutMail
		if err := db.Read(ctx, func(tx store.Tx) (err error) { heads, err = tx.PendingHeads(); return err }); err != nil {
			t.Fatal(err)
		}
		return space, len(heads)
	}
	space, pending := read()
	if pending != mails {
		t.Fatalf("%d pending mails, want %d", pending, mails)
	}
	before := mappedBytes(t)
	if err := db.ReleaseMapped(); err != nil {
		t.Fatal(err)
	}
	after := mappedBytes(t)
	// Most of the file's pages leave the resident set (the rest of it, the test
	// binary's pages, is not touched here).
	if released := before - after; released < space.FileSize*3/4 {
		t.Errorf("ReleaseMapped released %d bytes of a %d-byte store read whole (mapped before %d, after %d)", released, space.FileSize, before, after)
	}
	if again, pending := read(); pending != mails || again.FileSize != space.FileSize {
		t.Errorf("after ReleaseMapped: %d pending mails in %d bytes, want %d in %d", pending, again.FileSize, mails, space.FileSize)
	}
}
