package store_test

import (
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestFileFollowsItsPages: the file is no longer than its pages in use and a MB more
// (bbolt grew it 16 MB at a time), and Space accounts for the outbox's pages; a
// compacted file is as short.
func TestFileFollowsItsPages(t *testing.T) {
	db, path := open(t)
	ctx := t.Context()
	for i := range 6 {
		err := db.Write(ctx, func(tx store.Tx) error {
			for j := range 50 {
				noise := make([]byte, 12<<10) // deflates to 3/4: the file grows
				rand.Read(noise)
				if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d-%d@x", i, j), Kind: "reply", Body: base64.StdEncoding.EncodeToString(noise)}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	space, err := db.Space(ctx)
	if err != nil {
		t.Fatal(err)
	}
	outbox := 0
	for _, b := range space.Buckets {
		if b.Name == "outbox" {
			outbox = b.Alloc
		}
	}
	if outbox < 300*12<<10 || int64(outbox) > space.FileSize {
		t.Errorf("Space: the outbox's 300 mails of 12 KB take %d bytes of pages in a file of %d:\n%s", outbox, space.FileSize, space)
	}
	check := func(when string) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Size() > space.FileSize+1<<20+int64(space.PageSize) {
			t.Errorf("%s: the file is %d bytes for %d bytes of pages", when, fi.Size(), space.FileSize)
		}
	}
	check("open")
	db.Close()
	if _, err := store.Compact(path); err != nil {
		t.Fatal(err)
	}
	check("compacted")
}
