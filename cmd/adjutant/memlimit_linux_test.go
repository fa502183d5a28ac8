package main

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// mappedBytes is this process's resident memory that is not anonymous: its mapped
// files, the store among them (RssShmem where the temporary directory is a tmpfs).
func mappedBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) >= 2 && (f[0] == "RssFile:" || f[0] == "RssShmem:") {
			v, err := strconv.ParseInt(f[1], 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			n += v << 10
		}
	}
	return n
}

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
		read := mappedBytes(t)
		for range 40 {
			if read-mappedBytes(t) >= space.FileSize*3/4 {
				return
			}
			select {
			case <-ctx.Done():
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
}
