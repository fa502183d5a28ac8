package store_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestOutboxPagesFilled: mails queued one transaction after another, as a burst queues
// them, and then marked sent, fill the outbox's pages to at least 80 % (bbolt's default
// split leaves appended pages half empty: a third of the outbox's file was air).
func TestOutboxPagesFilled(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	body := strings.Repeat("Order check: your orders are accepted.\n", 10)
	for i := range 400 {
		var m store.OutMail
		if err := db.Write(ctx, func(tx store.Tx) error {
			var err error
			m, err = tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@x", i), To: []string{"p@example.org"}, Kind: "reply", Game: "g", Body: body + fmt.Sprint(i)})
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.Write(ctx, func(tx store.Tx) error {
			_, err := tx.MarkSent(m.Seq, time.Unix(1, 0))
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	alloc, inuse := db.OutboxPages()
	if fill := float64(inuse) / float64(alloc); fill < 0.8 {
		t.Errorf("the outbox's leaf pages are %.0f %% full (%d of %d bytes), want at least 80 %%", 100*fill, inuse, alloc)
	}
}

// TestRecordsPagesFilled: games that each append to their audit chain in turn, a
// transaction a mail as the desk does, append in the middle of the bucket of records:
// its pages stay at least 70 % full (split at bbolt's default half, they were 52 %).
func TestRecordsPagesFilled(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	for round := range 10 {
		for g := range 60 {
			if err := db.Write(ctx, func(tx store.Tx) error {
				for k := range 8 {
					e := store.AuditEntry{Kind: "roll", Turn: round, Index: k, Purpose: "10.8 fire into 2305 at 3:1", Rule: "10.8", Count: 1, Sides: 6, Values: []int{k + 1}, Result: k + 1}
					if _, err := tx.AppendAudit(fmt.Sprintf("game%03d", g), e); err != nil {
						return err
					}
				}
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	space, err := db.Space(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range space.Buckets {
		if b.Name != "game-records" {
			continue
		}
		if fill := float64(b.Inuse) / float64(b.Alloc); fill < 0.7 {
			t.Errorf("the records' pages are %.0f %% full (%d of %d bytes), want at least 70 %%", 100*fill, b.Inuse, b.Alloc)
		}
		return
	}
	t.Errorf("no bucket game-records in %v", space)
}
