package store

import (
	"bytes"
	"context"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxResultsBytes: the results mails of a Soissons game, queued one a
// transaction, take on average at most 2,700 bytes a record after the first six
// (2,948 deflated with the first body as dictionary, 2,519 with zstd and the six), the
// kind's dictionary grows with those six and no further, and every mail comes back
// whole from a store opened again.
func TestOutboxResultsBytes(t *testing.T) {
	bodies := sampleBodies(t)
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var seqs []uint64
	for _, body := range bodies {
		if err := db.Write(ctx, func(tx Tx) error {
			m, err := tx.Enqueue(OutMail{To: []string{"p@example.org"}, Kind: "results", Game: "g", Body: body})
			seqs = append(seqs, m.Seq)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	total, dictionaries := 0, 0
	db.bolt.View(func(tx *bolt.Tx) error {
		for _, s := range seqs[zdictSamples:] {
			total += len(tx.Bucket(bucketOutbox).Get(u64(s)))
		}
		return tx.Bucket(bucketMeta).ForEach(func(k, _ []byte) error {
			if bytes.HasPrefix(k, []byte("zdict:")) {
				dictionaries++
			}
			return nil
		})
	})
	if avg := total / (len(seqs) - zdictSamples); avg > 2700 {
		t.Errorf("a results mail takes %d bytes on average, want at most 2,700", avg)
	}
	if dictionaries != zdictSamples {
		t.Errorf("%d dictionaries stored for results mails, want %d", dictionaries, zdictSamples)
	}
	db.Close()
	ForgetDictionaries()
	if db, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.Read(ctx, func(tx Tx) error {
		for i, s := range seqs {
			if m, err := tx.OutMailAt(s); err != nil || m.Body != bodies[i] {
				t.Errorf("results mail %d reads %.40q, %v", i, m.Body, err)
			}
		}
		return nil
	})
}
