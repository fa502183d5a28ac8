package store

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"
)

// FuzzDecodeAuditEntry: the hand-written decoder of audit entries gives what
// encoding/json gives, for any input that encoding/json accepts, and refuses what it
// refuses.
func FuzzDecodeAuditEntry(f *testing.F) {
	for _, e := range []AuditEntry{
		{Seq: 1, Time: time.Date(2026, 11, 28, 9, 0, 0, 123456789, time.UTC), Kind: "roll", Turn: 3, Phase: "VIII fire", Index: 2,
			Purpose: "10.8 fire into 2305 at 3:1", Rule: "10.8", Count: 2, Sides: 6, Values: []int{4, 1}, Modifier: -1, Result: 4,
			OrdersDigest: "abc", Prev: "00ff", Hash: "ff00"},
		{Seq: 2, Kind: "commit", Turn: -1, Value: "c0ffee", Deck: "artillery", Values: []int{}},
		{Seq: 3, Kind: "card", Purpose: "quote \" <b> & é\n", Prev: "x"},
	} {
		raw, _ := json.Marshal(e)
		f.Add(raw)
	}
	f.Add([]byte(`{"seq":01}`))
	f.Add([]byte(`{"seq":1.5,"turn":1e2}`))
	f.Add([]byte(`{"values":null,"kind":null}`))
	f.Add([]byte(` {"seq":1} `))
	f.Fuzz(func(t *testing.T, raw []byte) {
		if len(raw) > 0 && (raw[0] == auditBinary || raw[0] == auditChained) {
			return // the binary forms, no JSON (FuzzAuditBinary)
		}
		var want AuditEntry
		werr := json.Unmarshal(raw, &want)
		var got AuditEntry
		gerr := decodeAuditEntry(raw, &got)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("%q: encoding/json %v, decodeAuditEntry %v", raw, werr, gerr)
		}
		if werr == nil && !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\n got %+v\nwant %+v", raw, got, want)
		}
	})
}

// FuzzAuditBinary: an entry written in the binary form reads back as it was written
// (its time in UTC, as AppendAudit keeps it), and hashes the same; no bytes, however
// malformed, make the decoder panic or read past them.
func FuzzAuditBinary(f *testing.F) {
	f.Add(int64(1764320400), int64(123456789), "roll", 3, "VIII fire", "10.8 fire into 2305 at 3:1", 4, -1, "abc", "c0ffee", strings.Repeat("0f", 32), strings.Repeat("a1", 32))
	f.Add(int64(-62135596800), int64(0), "", 0, "", "quote \" <b> & é\n", 0, 0, "", "5 4 3", "", "x")
	f.Add(int64(0), int64(0), "card", -1, "", "", 1<<40, 1<<62, "ABCDEF", "0", "00", "")
	f.Fuzz(func(t *testing.T, sec, ns int64, kind string, turn int, phase, purpose string, value, mod int, digest, val, prev, hash string) {
		if ns < 0 || ns >= int64(time.Second) {
			ns = 0
		}
		e := AuditEntry{Seq: uint64(turn) * 3, Time: time.Unix(sec, ns).UTC(), Kind: kind, Turn: turn, Phase: phase, Index: mod, Purpose: purpose,
			Rule: phase, Count: turn, Sides: mod, Values: []int{value, mod}, Modifier: mod, Result: value, OrdersDigest: digest, Value: val, Deck: kind, Prev: prev, Hash: hash}
		raw := encodeAuditEntry(e)
		var got AuditEntry
		if err := decodeAuditEntry(raw, &got); err != nil {
			t.Fatalf("decode %+v: %v", e, err)
		}
		if !reflect.DeepEqual(got, e) {
			t.Fatalf("round trip:\n got %+v\nwant %+v", got, e)
		}
		if e.Time.Year() >= 0 && e.Time.Year() <= 9999 && got.ComputeHash() != e.ComputeHash() {
			t.Fatalf("hash changed in the round trip: %+v", e)
		}
		// The chained form reads back the same without its prev.
		chained := encodeChained(e)
		var gotc AuditEntry
		if err := decodeAuditEntry(chained, &gotc); err != nil {
			t.Fatalf("decode the chained form of %+v: %v", e, err)
		}
		gotc.Prev = e.Prev
		if !reflect.DeepEqual(gotc, e) {
			t.Fatalf("chained round trip:\n got %+v\nwant %+v", gotc, e)
		}
		// Every cut and every change of a byte is refused or read, never a panic.
		for i := range chained {
			decodeAuditEntry(chained[:i], &got)
		}
		for i := range raw {
			decodeAuditEntry(raw[:i], &got)
			mut := append([]byte(nil), raw...)
			mut[i] ^= 0xff
			decodeAuditEntry(mut, &got)
		}
	})
}
