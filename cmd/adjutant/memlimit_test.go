package main

import "testing"

// TestMemoryLimitFor: the soft limit is the configured one until the live heap passes
// half of it, then twice the live heap: never under the live heap, where the collector
// would run without pause.
func TestMemoryLimitFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct{ configured, live, want int64 }{
		{64 * mib, 0, 64 * mib},
		{64 * mib, 20 * mib, 64 * mib},
		{64 * mib, 32 * mib, 64 * mib},
		{64 * mib, 60 * mib, 120 * mib},
		{64 * mib, 400 * mib, 800 * mib},
	} {
		got := memoryLimitFor(tc.configured, tc.live)
		if got != tc.want {
			t.Errorf("memoryLimitFor(%d MiB, live %d MiB) = %d MiB, want %d MiB", tc.configured/mib, tc.live/mib, got/mib, tc.want/mib)
		}
		if got <= tc.live {
			t.Errorf("limit %d MiB at or under the live heap %d MiB", got/mib, tc.live/mib)
		}
	}
}

// TestCollectorSettings: serve sizes the heap's limit unless GOMEMLIMIT is set, and
// under that limit runs the collector at GOGC 400 unless the host set GOGC.
func TestCollectorSettings(t *testing.T) {
	for _, tc := range []struct {
		env       map[string]string
		sizeLimit bool
		percent   int
	}{
		{map[string]string{}, true, gcPercent},
		{map[string]string{"GOGC": "100"}, true, 0},
		{map[string]string{"GOGC": "off"}, true, 0},
		{map[string]string{"GOMEMLIMIT": "off"}, false, 0},
		{map[string]string{"GOMEMLIMIT": "200MiB", "GOGC": "50"}, false, 0},
	} {
		sizeLimit, percent := collectorSettings(func(k string) string { return tc.env[k] })
		if sizeLimit != tc.sizeLimit || percent != tc.percent {
			t.Errorf("environment %v: size the limit %v, GOGC %d; want %v, %d", tc.env, sizeLimit, percent, tc.sizeLimit, tc.percent)
		}
	}
	if gcPercent <= 100 {
		t.Errorf("gcPercent %d: want more than the runtime's 100", gcPercent)
	}
}
