package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestServeReleasesStoreMapping: the store's pages a read maps leave the daemon's
// resident set while it serves (issue 23: at 10,000 games, 183 MB of its 262 MB peak
// were the store file's pages, kept mapped since the mapping's last growth).
func TestServeReleasesStoreMapping(t *testing.T) {
	r := newRig(t)
	// Grow the store by 600 sent mails of 12 KB of noise (about 9 MB).
	db, err := store.Open(r.db)
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(r.ctx, func(tx store.Tx) error {
		var marks []store.SentMark
		for i := range 600 {
			noise := make([]byte, 12<<10)
			rand.Read(noise)
			m, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("noise%d@x", i), Kind: "reply", To: []string{"a@x"}, Body: base64.StdEncoding.EncodeToString(noise)})
			if err != nil {
				return err
			}
			marks = append(marks, store.SentMark{Seq: m.Seq, At: time.Now()})
		}
		_, err := store.FoldSentMarks(tx, marks)
		return err
	})
	db.Close()
	if err != nil {
		t.Fatal(err)
	}
	d := r.start(nil)
	ctx, cancel := context.WithTimeout(r.ctx, 20*time.Second)
	defer cancel()
	for {
		space, err := d.db.Space(ctx) // maps every page of the store
		if err != nil {
			t.Fatalf("the store was not released within 20 s of a whole read (%v)", err)
		}
		// Three seconds, three releases: else the store is read whole again (a release
		// between the read and this measure leaves nothing to see go).
		read, err := store.MappedResident()
		for i := 0; i < 30 && err == nil && ctx.Err() == nil; i++ {
			var now int64
			if now, err = store.MappedResident(); err == nil && read-now >= space.FileSize*3/4 {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}
