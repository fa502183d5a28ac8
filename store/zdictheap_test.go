package store

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"testing"
)

// TestCodersHeap: the zstd coders of five kinds of mail and four of records, every
// kind's last dictionary made, keep at most 10 MB of heap (6.5 MB measured; 15.9 MB
// with every encoder at the bodies' 256 KB window and the heads' in full-memory mode).
func TestCodersHeap(t *testing.T) {
	db, bodies := freshStore(t)
	var ms runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms)
	before := ms.HeapAlloc
	ctx := context.Background()
	for i := range 20 {
		game := fmt.Sprint("g", i)
		text := bodies[i+30]
		if err := db.Write(ctx, func(tx Tx) error {
			for _, k := range []string{"invite", "reply", "results", "notice", "record"} {
				if _, err := tx.Enqueue(OutMail{To: []string{"p@example.org"}, Kind: k, Game: game, Body: bodies[(i*5+len(k))%len(bodies)]}); err != nil {
					return err
				}
			}
			st, _ := json.Marshal(map[string]any{"turn": i, "units": text[:2000]})
			if err := tx.PutGame(Game{Name: game, State: st, Initial: st}); err != nil {
				return err
			}
			if _, err := tx.AppendJournal(game, JournalEntry{Notes: []string{text[:1500]}}); err != nil {
				return err
			}
			return tx.PutOrder(game, Order{Phase: "p", Side: "us", Key: "k", Text: text[:500]})
		}); err != nil {
			t.Fatal(err)
		}
		if err := db.Read(ctx, func(tx Tx) error { // a decoder of each
			if _, err := tx.Outbox(); err != nil {
				return err
			}
			if _, err := tx.Game(game); err != nil {
				return err
			}
			_, err := tx.Journal(game)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&ms)
	if grown := int64(ms.HeapAlloc) - int64(before); grown > 10<<20 {
		t.Errorf("the coders keep %d KB of heap, want at most 10 MB", grown>>10)
	}
}
