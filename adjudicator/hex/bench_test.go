package hex_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

func BenchmarkDistance(b *testing.B) {
	from, to := h("2524"), h("2823")
	far := h("4827")
	for b.Loop() {
		mons.Distance(from, to)
		mons.Distance(from, far)
	}
}

func BenchmarkTrace(b *testing.B) {
	for _, bc := range []struct {
		name     string
		from, to string
	}{
		{"Mons 10.4 3714-3911", "3714", "3911"},
		{"across the map 0101-4827", "0101", "4827"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			from, to := h(bc.from), h(bc.to)
			for b.Loop() {
				mons.Trace(from, to)
			}
		})
	}
}

func BenchmarkLineOfSight(b *testing.B) {
	from, to := h("0101"), h("4827")
	never := func(hex.Hex) bool { return false }
	for b.Loop() {
		mons.LineOfSight(from, to, never)
	}
}
