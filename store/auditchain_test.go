package store

import (
	"context"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestAuditChainedForm: a Soissons game's audit entries, appended again, take at most
// 140 bytes a record (170 with each entry's prev stored), and read back as a chain:
// each entry's Prev the hash before it and its Hash its own, the head with its Prev;
// an entry taken out of the middle makes the hash of the next one differ from the
// hash stored with it, as a verifier recomputes it.
func TestAuditChainedForm(t *testing.T) {
	src, err := Open(openSoissons(t))
	if err != nil {
		t.Fatal(err)
	}
	var sample []AuditEntry
	src.Read(context.Background(), func(tx Tx) error {
		sample, err = tx.Audit("soissons")
		return err
	})
	src.Close()
	db, err := Open(filepath.Join(t.TempDir(), "audit.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	for i := 0; i < len(sample); i += 8 { // eight rolls a Write, as a mail appends them
		if err := db.Write(ctx, func(tx Tx) error {
			for _, e := range sample[i:min(i+8, len(sample))] {
				if _, err := tx.AppendAudit("g", e); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	db.bolt.View(func(tx *bolt.Tx) error {
		return newTx(tx).recordsOf("g", recAudit).each(func(_, v []byte) error {
			total += len(v)
			return nil
		})
	})
	if avg := total / len(sample); avg > 140 {
		t.Errorf("an audit entry takes %d bytes on average, want at most 140", avg)
	}
	chain := func() (es []AuditEntry, head AuditEntry) {
		db.Read(ctx, func(tx Tx) error {
			if es, err = tx.Audit("g"); err != nil {
				t.Fatal(err)
			}
			if head, err = tx.AuditHead("g"); err != nil {
				t.Fatal(err)
			}
			return nil
		})
		return es, head
	}
	es, head := chain()
	if len(es) != len(sample) {
		t.Fatalf("%d entries read, %d appended", len(es), len(sample))
	}
	prev := ""
	for i, e := range es {
		if e.Prev != prev || e.Hash != e.ComputeHash() {
			t.Fatalf("entry %d: prev %.8s (want %.8s), hash %.8s (recomputed %.8s)", i+1, e.Prev, prev, e.Hash, e.ComputeHash())
		}
		prev = e.Hash
	}
	if last := es[len(es)-1]; head.Hash != last.Hash || head.Prev != last.Prev || head.Seq != last.Seq {
		t.Errorf("head seq %d prev %.8s hash %.8s, want %d %.8s %.8s", head.Seq, head.Prev, head.Hash, last.Seq, last.Prev, last.Hash)
	}
	// Take entry 40 out, as a host hiding a roll would.
	db.bolt.Update(func(tx *bolt.Tx) error { return newTx(tx).recordsOf("g", recAudit).delete(u64(40)) })
	es, _ = chain()
	if next := es[39]; next.Seq != 41 || next.Hash == next.ComputeHash() {
		t.Errorf("with entry 40 taken out, entry %d still hashes to its stored hash", next.Seq)
	}
}
