package main

import (
	"context"
	"log/slog"
	"runtime/debug"
	"runtime/metrics"
	"time"
)

// memoryLimitFor is the heap's soft limit for a live heap of live bytes, given the
// configured limit: the configured one, or twice the live heap when that is more.
// A soft limit under the live heap makes the collector run without pause (issue 23:
// 37 % of the CPU, and the fold of 20,000 sent marks four times slower); at twice the
// live heap it asks no more of the collector than the default GOGC does, so the limit
// bounds idle growth and is never the reason work stalls.
func memoryLimitFor(configured, live int64) int64 {
	return max(configured, 2*live)
}

// gcPercent is serve's GOGC under the limit it sizes: the collector runs when the heap
// reaches five times the live heap or the limit, whichever comes first. The desk's
// work is short-lived garbage (a mail's state, texts and encodings), and at GOGC 100
// the collector took about a tenth of its CPU (BenchmarkHandleText under a 64 MiB
// limit: 2.32-2.36 ms of CPU a mail against 2.03-2.13 at 400; serve with 1,000 games,
// 2,000 mails in: 8.9 s of CPU against 8.1-8.6, its peak RSS 70 -> 82 MiB). The limit
// keeps the heap near the configured size whatever the live heap, and at twice the
// live heap when that is more, as GOGC 100 would (memoryLimitFor).
const gcPercent = 400

// collectorSettings says whether serve sizes the heap's limit (GOMEMLIMIT unset) and
// which GOGC it sets (0: the runtime's, as the environment says). A GOGC of the host's
// is kept, and so is the runtime's 100 under a GOMEMLIMIT of the host's, which serve
// does not size: gcPercent without a limit lets the heap grow to five times the live.
func collectorSettings(getenv func(string) string) (sizeLimit bool, percent int) {
	sizeLimit = getenv("GOMEMLIMIT") == ""
	if sizeLimit && getenv("GOGC") == "" {
		percent = gcPercent
	}
	return sizeLimit, percent
}

// memoryLimitEvery is how often the daemon sizes its memory limit to the live heap.
const memoryLimitEvery = 2 * time.Second

// sizeMemoryLimit keeps the heap's soft limit at memoryLimitFor(configured, live heap)
// until ctx is done, saying in the log when it rises above the configured one and when it
// is back.
func sizeMemoryLimit(ctx context.Context, configured int64, log *slog.Logger) {
	debug.SetMemoryLimit(configured)
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	t := time.NewTicker(memoryLimitEvery)
	defer t.Stop()
	current := configured
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		metrics.Read(sample)
		if sample[0].Value.Kind() != metrics.KindUint64 {
			return // not measured by this runtime: keep the configured limit
		}
		limit := memoryLimitFor(configured, int64(sample[0].Value.Uint64()))
		if limit == current {
			continue
		}
		switch {
		case limit > configured && current == configured:
			log.Info("memory limit raised above memory_limit_mib to twice the live heap", "limit_mib", limit>>20, "configured_mib", configured>>20)
		case limit == configured:
			log.Info("memory limit back to memory_limit_mib", "limit_mib", limit>>20)
		}
		debug.SetMemoryLimit(limit)
		current = limit
	}
}

// mappedReleaseEvery is how often serve takes the store file's pages out of its
// resident set (store.DB.ReleaseMapped): what the mails of that time read stays
// mapped until then, and a read maps them again at the cost of a minor fault.
const mappedReleaseEvery = time.Second

// releaseMapped calls release every interval until ctx is done. A failure is logged
// once: it costs memory, not mail.
func releaseMapped(ctx context.Context, release func() error, every time.Duration, log *slog.Logger) {
	t := time.NewTicker(every)
	defer t.Stop()
	failed := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := release(); err != nil && !failed {
			log.Warn("the store's mapped pages stay resident", "err", err)
			failed = true
		}
	}
}
