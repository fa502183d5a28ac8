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
