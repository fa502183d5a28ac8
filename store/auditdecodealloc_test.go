package store

import (
	"encoding/json"
	"testing"
	"time"
)

// TestDecodeAuditEntryAllocations: a roll as the desk writes it decodes in two
// allocations, its strings together and its values (issue 23: eight made a trail of
// 100,000 rolls read from bbolt a 51 MB verification); and the strings are its own.
func TestDecodeAuditEntryAllocations(t *testing.T) {
	want := AuditEntry{Seq: 12345, Time: time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC), Kind: "roll", Turn: 7, Phase: "VIII", Index: 117,
		Purpose: "10.8 fire into 2317 at 3:1, unit 2", Rule: "10.8", Count: 1, Sides: 6, Values: []int{4}, Modifier: 1, Result: 5,
		OrdersDigest: "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
		Prev:         "d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35",
		Hash:         "4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f640b7e4729b49fce"}
	raw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var e AuditEntry
	n := testing.AllocsPerRun(100, func() {
		if err := decodeAuditEntry(raw, &e); err != nil {
			t.Fatal(err)
		}
	})
	if n > 2 {
		t.Errorf("decoding a roll allocates %.0f times, want at most 2", n)
	}
	for i := range raw {
		raw[i] = 'x' // the entry must not share raw's memory, which bbolt reuses
	}
	if e.Kind != want.Kind || e.Purpose != want.Purpose || e.Prev != want.Prev || e.Hash != want.Hash || e.OrdersDigest != want.OrdersDigest {
		t.Errorf("decoded %+v, want %+v", e, want)
	}
}
