package store

import (
	"encoding/json"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"
)

func decodeTestRoll(seq uint64, values ...int) AuditEntry {
	return AuditEntry{Seq: seq, Time: time.Date(2026, 11, 22, 13, 0, 0, 0, time.UTC), Kind: "roll", Turn: 7, Phase: "VIII", Index: 117,
		Purpose: "10.8 fire into 2317 at 3:1, unit 2", Rule: "10.8", Count: len(values), Sides: 6, Values: values, Modifier: 1, Result: 5,
		OrdersDigest: "6b86b273ff34fce19d6b804eff5a3f5747ada4eaa22f1d49c01e52ddb7875b4b",
		Prev:         "d4735e3a265e16eee03f59718b9b5d03019c07d8b6c51f90da3a666eec13ab35",
		Hash:         "4e07408562bedb8b60ce05c1decfe3ad16b72230967de01f640b7e4729b49fce"}
}

// TestDecodeAuditEntryAllocations: a roll as the desk writes it decodes in one
// allocation, its strings together, its values from the trail's slab (issue 23: eight
// made a trail of 100,000 rolls read from bbolt a 51 MB verification); and the strings
// are its own, not raw's.
func TestDecodeAuditEntryAllocations(t *testing.T) {
	want := decodeTestRoll(12345, 4)
	raw, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var d auditDecoder
	var e AuditEntry
	n := testing.AllocsPerRun(100, func() {
		if err := d.decode(raw, &e); err != nil {
			t.Fatal(err)
		}
	})
	if n > 1 {
		t.Errorf("decoding a roll allocates %.0f times, want at most 1", n)
	}
	for i := range raw {
		raw[i] = 'x' // the entry must not share raw's memory, which bbolt reuses
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("decoded %+v, want %+v", e, want)
	}
}

// TestAuditDecoderSharesNoValues: the entries of one trail take their values from one
// slab, each entry's its own: appending to one changes no other, across slabs too.
func TestAuditDecoderSharesNoValues(t *testing.T) {
	var d auditDecoder
	var got, want []AuditEntry
	for i := range 3 * slabInts / 2 { // rolls of 1 to 5 dice, and a shuffle of 52 cards, over several slabs
		e := decodeTestRoll(uint64(i+1), make([]int, i%5+1)...)
		if i%100 == 7 {
			e.Values = make([]int, 52)
		}
		for k := range e.Values {
			e.Values[k] = i*10 + k
		}
		raw, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		var g AuditEntry
		if err := d.decode(raw, &g); err != nil {
			t.Fatal(err)
		}
		got, want = append(got, g), append(want, e)
	}
	for i := range got {
		got[i].Values = append(got[i].Values, -1) // must reallocate, not write into got[i+1]
	}
	for i := range got {
		if w := append(want[i].Values, -1); !reflect.DeepEqual(got[i].Values, w) {
			t.Fatalf("entry %d: values %v, want %v", i, got[i].Values, w)
		}
	}
	// Empty and null values decode as encoding/json decodes them.
	for _, raw := range []string{`{"seq":1,"values":[]}`, `{"seq":1,"values":null}`} {
		var g, w AuditEntry
		if err := d.decode([]byte(raw), &g); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(raw), &w); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(g, w) || (g.Values == nil) != (w.Values == nil) {
			t.Errorf("%s: %#v, want %#v", raw, g.Values, w.Values)
		}
	}
}

// TestDecodeOneAuditEntryBytes: decoding one entry alone (the chain's head, read on each
// append) allocates about what the entry holds, not a slab of a thousand values.
func TestDecodeOneAuditEntryBytes(t *testing.T) {
	e := AuditEntry{Seq: 7, Kind: "roll", Turn: 2, Phase: "fire", Purpose: "fire at 4301", Rule: "10.8",
		Count: 1, Sides: 6, Values: []int{4}, Result: 4, Value: strings.Repeat("ab", 32),
		Prev: strings.Repeat("cd", 32), Hash: strings.Repeat("ef", 32)}
	raw, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	for name, v := range map[string][]byte{"binary": encodeAuditEntry(e), "json": raw} {
		var ms0, ms1 runtime.MemStats
		var got AuditEntry
		runtime.ReadMemStats(&ms0)
		for range 100 {
			if err := decodeAuditEntry(v, &got); err != nil {
				t.Fatal(err)
			}
		}
		runtime.ReadMemStats(&ms1)
		if per := (ms1.TotalAlloc - ms0.TotalAlloc) / 100; per > 2048 {
			t.Errorf("%s: one entry decoded alone allocates %d bytes, want at most 2048", name, per)
		}
		if got.Values[0] != 4 || got.Hash != e.Hash {
			t.Errorf("%s: decoded %+v", name, got)
		}
	}
}
