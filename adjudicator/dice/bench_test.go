package dice_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// BenchmarkStreamD6 measures one recorded 1d6 roll from a Stream, the common
// case of a ruleset. A fresh stream every 4096 rolls keeps the record from
// growing without bound; its cost (one HMAC key setup) is included.
func BenchmarkStreamD6(b *testing.B) {
	seed := testSeed(b)
	ctx := dice.Context{Game: "bench", Turn: 1, Phase: "fire", OrdersDigest: "digest"}
	req := dice.Request{Purpose: "10.8 fire into 2305 at 3:1", Rule: "10.8", Count: 1, Sides: 6}
	var s *dice.Stream
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if n%4096 == 0 {
			s = dice.NewStream(seed, ctx)
		}
		s.Roll(req)
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rolls/s")
}

// BenchmarkVerify measures verifying one 1d6 roll from the revealed seed, as
// `adjutant audit verify` does for every entry of an archive.
func BenchmarkVerify(b *testing.B) {
	seed := testSeed(b)
	ctx := dice.Context{Game: "bench", Turn: 1, Phase: "fire", OrdersDigest: "digest"}
	s := dice.NewStream(seed, ctx)
	rolls := make([]dice.Roll, 1024)
	for i := range rolls {
		rolls[i] = s.Roll(dice.Request{Purpose: "10.8 fire into 2305 at 3:1", Rule: "10.8", Count: 1, Sides: 6, Modifier: 1})
	}
	n := 0
	b.ReportAllocs()
	for b.Loop() {
		if err := dice.Verify(seed, ctx, rolls[n%len(rolls)]); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "rolls/s")
}
