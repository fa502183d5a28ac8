package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"testing"
	"time"
)

// jsonHash is the definition ComputeHash must keep: SHA-256 of encoding/json's output.
func jsonHash(e AuditEntry) string {
	e.Hash = ""
	e.Time = e.Time.UTC()
	b, err := json.Marshal(e)
	if err != nil {
		panic(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestComputeHashIsJSON(t *testing.T) {
	when := time.Date(2026, 11, 22, 3, 7, 51, 123456789, time.FixedZone("x", 3600))
	for _, e := range []AuditEntry{
		{},
		{Seq: 1, Time: when, Kind: "roll", Turn: 2, Phase: "I", Index: 3, Purpose: "12.2 US bombardment of 4300 at 2:1, German infantry platoon 1 of 2", Rule: "10.8", Count: 1, Sides: 6, Values: []int{4}, Modifier: -2, Result: 2, OrdersDigest: "abc", Prev: "00ff", Hash: "ignored"},
		{Kind: "commit", Value: "f00d", Purpose: `quotes " and \ and <html> & more`},
		{Kind: "card", Turn: 3, Phase: "us", Index: 17, Value: "10H", Deck: "us", Rule: "1", Purpose: "the HE shell aimed at 0619"},
		{Kind: "deck-shuffle", Index: 1, Count: 3, Value: "AS 2S 3S", Deck: "de <x>"},
		{Kind: "shuffle", Purpose: "tab\tnewline\nreturn\rbell\x07\b\f del\x7f", Values: []int{0, 2, 1}},
		{Purpose: "unicode é ü 中 \u2028 \u2029 and bad \xff\xfe bytes", Time: time.Unix(0, 0)},
	} {
		if got, want := e.ComputeHash(), jsonHash(e); got != want {
			b := e.appendJSON(nil)
			j, _ := json.Marshal(e)
			t.Errorf("ComputeHash = %s, want %s\nhand: %s\njson: %s", got, want, b, j)
		}
	}
}

func FuzzComputeHash(f *testing.F) {
	f.Add(uint64(1), int64(0), "roll", 1, "I", 0, "purpose <&>", "10.8", 1, 6, 4, -1, 3, "digest", "", "prev")
	f.Add(uint64(9), int64(1795318169), "reveal", 0, "", 5, "\u2028\x00\"\\", "", 0, 0, 0, 0, 0, "", "\xff", "")
	f.Fuzz(func(t *testing.T, seq uint64, unix int64, kind string, turn int, phase string, index int, purpose, rule string, count, sides, v, mod, res int, digest, value, prev string) {
		e := AuditEntry{Seq: seq, Time: time.Unix(unix%(1<<33), 0), Kind: kind, Turn: turn, Phase: phase, Index: index, Purpose: purpose, Rule: rule,
			Count: count, Sides: sides, Modifier: mod, Result: res, OrdersDigest: digest, Value: value, Prev: prev}
		if v != 0 {
			e.Values = []int{v, -v}
		}
		if got, want := e.ComputeHash(), jsonHash(e); got != want {
			t.Fatalf("ComputeHash differs from encoding/json for %+v:\nhand: %s", e, e.appendJSON(nil))
		}
	})
}
