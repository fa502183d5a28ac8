package store

import (
	"encoding/json"
	"reflect"
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
