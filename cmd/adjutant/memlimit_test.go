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
