package store

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"testing"
	"time"
)

// TestProcessedRecord: a processed mark takes at most 30 bytes of its record (70 as
// JSON) and reads back as written, and one written as JSON still reads.
func TestProcessedRecord(t *testing.T) {
	p := Processed{At: time.Date(2026, 11, 28, 10, 0, 1, 234567891, time.UTC), Game: "game00042", Outcome: "handled"}
	db, err := Open(filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var v []byte
	if err := db.Write(context.Background(), func(tx Tx) error {
		if err := tx.MarkProcessed("<m1@players.example>", p); err != nil {
			return err
		}
		v = bytes.Clone(tx.(*btx).tx.Bucket(bucketProcessed).Get([]byte("<m1@players.example>")))
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if len(v) > 30 {
		t.Errorf("a processed mark takes %d bytes, want at most 30", len(v))
	}
	old, _ := json.Marshal(p)
	for _, raw := range [][]byte{v, old} {
		got, err := DecodeProcessedRecord(raw)
		if err != nil || !got.At.Equal(p.At) || got.Game != p.Game || got.Outcome != p.Outcome {
			t.Errorf("%q reads %+v, %v; want %+v", raw, got, err, p)
		}
	}
	for i := range v { // cut short: an error, never a panic
		if _, err := DecodeProcessedRecord(v[:i]); err == nil && i > 0 {
			t.Errorf("%d bytes of %d read without an error", i, len(v))
		}
	}
}
