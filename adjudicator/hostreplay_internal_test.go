package adjudicator

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestHostDigestBounded: the digest of a host mail is kept for hostDigestKept after its
// Date, and then the throttle purge (Tick's) deletes it, so that the store keeps no more
// of them than a week of host mail.
func TestHostDigestBounded(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	date := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	lines, _ := orders.Split("HOST PASSWORD x\nEXTEND g1 24h\n")
	key := hostDigestKey(date, lines)
	if err := db.Write(ctx, func(tx store.Tx) error {
		return (&handling{tx: tx, msg: Message{Date: date}}).markHostMail(key)
	}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		now  time.Time
		kept bool
	}{
		{date.Add(hostDigestKept - time.Minute), true},
		{date.Add(hostDigestKept + time.Minute), false},
	} {
		var th store.Throttle
		if err := db.Write(ctx, func(tx store.Tx) error {
			if _, err := tx.PurgeThrottles(tc.now.Add(-24 * time.Hour)); err != nil { // as Tick purges
				return err
			}
			th, err = tx.Throttle(key)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if kept := th.Count > 0; kept != tc.kept {
			t.Errorf("at %v after the Date: kept %v, want %v", tc.now.Sub(date), kept, tc.kept)
		}
	}
}
