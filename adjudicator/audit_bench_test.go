package adjudicator_test

// Benchmarks of the audit trail for BENCHMARKS.md (issue 5, item 5): verification speed in
// rolls per second over a game of 1,000,000 rolls, and the bbolt file size per 1,000 rolls.
// `make bench` runs them and prints their figures in its table.

import (
	"context"
	"crypto/sha256"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/store"
)

const (
	auditBenchGame    = "bench"
	auditRollsPerTurn = 1000 // in four phases of 250
)

var auditBenchPhases = []string{"I", "III", "VIII", "IX"}

// auditTurns yields the entries of a game of rolls rolls, turn by turn, as the desk writes
// them (a commitment to the turn's seed, the rolls of each phase, the reveal), without
// Seq, Prev and Hash; emit returns false to stop.
func auditTurns(rolls int, emit func(store.AuditEntry) bool) {
	base := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	digest := fmt.Sprintf("%x", sha256.Sum256([]byte("orders")))
	for turn := 1; rolls > 0; turn++ {
		seed := dice.Seed(sha256.Sum256(fmt.Appendf(nil, "seed of turn %d", turn)))
		now := base.Add(time.Duration(turn) * time.Hour)
		if !emit(store.AuditEntry{Time: now, Kind: "commit", Turn: turn, Value: seed.Commitment(), Purpose: fmt.Sprintf("commitment to the dice seed of turn %d", turn)}) {
			return
		}
		n := min(rolls, auditRollsPerTurn)
		rolls -= n
		per := (n + len(auditBenchPhases) - 1) / len(auditBenchPhases)
		for _, phase := range auditBenchPhases {
			s := dice.NewStream(seed, dice.Context{Game: auditBenchGame, Turn: turn, Phase: phase, OrdersDigest: digest})
			for k := 0; k < per && n > 0; k++ {
				n--
				r := s.Roll(dice.Request{Purpose: fmt.Sprintf("10.8 fire into %d at 3:1, unit %d", 2300+k%40, k%4+1), Rule: "10.8", Count: 1, Sides: 6, Modifier: k % 2})
				if !emit(store.AuditEntry{Time: now, Kind: r.Kind, Turn: turn, Phase: phase, Index: r.Index, Purpose: r.Purpose, Rule: r.Rule,
					Count: r.Count, Sides: r.Sides, Values: r.Values, Modifier: r.Modifier, Result: r.Result, OrdersDigest: digest}) {
					return
				}
			}
		}
		if !emit(store.AuditEntry{Time: now, Kind: "reveal", Turn: turn, Value: seed.String(), Purpose: fmt.Sprintf("the dice seed of turn %d, revealed", turn)}) {
			return
		}
	}
}

// auditChain builds the hash-chained audit trail of a game of rolls rolls in memory.
func auditChain(rolls int) []store.AuditEntry {
	chain := make([]store.AuditEntry, 0, rolls+rolls/auditRollsPerTurn*2+2)
	prev := ""
	auditTurns(rolls, func(e store.AuditEntry) bool {
		e.Seq, e.Prev = uint64(len(chain)+1), prev
		e.Hash = e.ComputeHash()
		prev = e.Hash
		chain = append(chain, e)
		return true
	})
	return chain
}

// BenchmarkVerifyChain verifies the whole trail of a game of 1,000,000 rolls, every hash
// and every roll re-derived from its revealed seed, as a player does on the archive.
func BenchmarkVerifyChain(b *testing.B) {
	const rolls = 1_000_000
	chain := auditChain(rolls)
	runtime.GC() // the garbage of building the chain is not the verification's
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		rep, err := adjudicator.VerifyChain(auditBenchGame, chain)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Verified != rolls {
			b.Fatalf("%d rolls verified, want %d", rep.Verified, rolls)
		}
	}
	// CPU time, every core's, says what the work costs on a shared machine.
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/rolls, "cpu-ns/roll")
	b.ReportMetric(float64(rolls)*float64(b.N)/b.Elapsed().Seconds(), "rolls/s")
	b.ReportMetric(rolls, "rolls")
}

const (
	auditStoreRolls = 100_000
	auditBatch      = 1000
)

// auditStore appends rolls rolls to a new bbolt file through Tx.AppendAudit, batch entries
// per Write, and returns it.
func auditStore(tb testing.TB, dir string, rolls, batch int) *store.DB {
	tb.Helper()
	db, err := store.Open(filepath.Join(dir, "audit.db"))
	if err != nil {
		tb.Fatal(err)
	}
	ctx := context.Background()
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.PutGame(store.Game{Name: auditBenchGame, Ruleset: "soldiers1918"}) }); err != nil {
		tb.Fatal(err)
	}
	var pending []store.AuditEntry
	flush := func() {
		err := db.Write(ctx, func(tx store.Tx) error {
			for _, e := range pending {
				if _, err := tx.AppendAudit(auditBenchGame, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
		pending = pending[:0]
	}
	auditTurns(rolls, func(e store.AuditEntry) bool {
		if pending = append(pending, e); len(pending) == batch {
			flush()
		}
		return true
	})
	flush()
	return db
}

// BenchmarkAuditAppend appends 100,000 rolls to a bbolt file in Writes of 1,000 and
// reports the file size per 1,000 rolls.
func BenchmarkAuditAppend(b *testing.B) {
	var size int64
	b.ReportAllocs()
	for b.Loop() {
		db := auditStore(b, b.TempDir(), auditStoreRolls, auditBatch)
		var err error
		if size, err = db.Size(); err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
	b.ReportMetric(float64(size)*1000/auditStoreRolls, "B/1000rolls")
	b.ReportMetric(float64(auditStoreRolls)*float64(b.N)/b.Elapsed().Seconds(), "rolls/s")
	b.ReportMetric(auditStoreRolls, "rolls")
	b.ReportMetric(auditBatch, "batch")
}

// BenchmarkVerifyAuditStore is `adjutant audit verify` on a game of 100,000 rolls: the
// trail read from bbolt and verified.
func BenchmarkVerifyAuditStore(b *testing.B) {
	db := auditStore(b, b.TempDir(), auditStoreRolls, auditBatch)
	defer db.Close()
	desk := &adjudicator.Desk{Store: db}
	runtime.GC() // the garbage of filling the store is not the verification's
	b.ReportAllocs()
	cpu := processCPU()
	for b.Loop() {
		rep, err := desk.VerifyAudit(context.Background(), auditBenchGame)
		if err != nil {
			b.Fatal(err)
		}
		if rep.Verified != auditStoreRolls {
			b.Fatalf("%d rolls verified, want %d", rep.Verified, auditStoreRolls)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N)/auditStoreRolls, "cpu-ns/roll")
	b.ReportMetric(float64(auditStoreRolls)*float64(b.N)/b.Elapsed().Seconds(), "rolls/s")
	b.ReportMetric(auditStoreRolls, "rolls")
}

// TestAuditBenchChain checks what the benchmarks verify: a small chain of the same shape
// verifies, every roll re-derived.
func TestAuditBenchChain(t *testing.T) {
	chain := auditChain(2500)
	rep, err := adjudicator.VerifyChain(auditBenchGame, chain)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rolls != 2500 || rep.Verified != 2500 || rep.Entries != 2500+3*2 {
		t.Errorf("report %+v: want 2500 rolls verified in %d entries", rep, 2500+3*2)
	}
}

// TestVerifyChainAllocations: verifying a chain allocates per turn and per call, not
// per roll (issue 23: 11.5 allocations a roll made a million-roll archive a 607 MB
// verification). Re-deriving a roll and hashing a link allocate nothing; what is left
// is a few maps and one Verifier a turn, well under one allocation in twenty rolls.
func TestVerifyChainAllocations(t *testing.T) {
	for _, rolls := range []int{2000, 20_000} { // one goroutine, and one a CPU
		chain := auditChain(rolls)
		allocs := testing.AllocsPerRun(3, func() {
			if rep, err := adjudicator.VerifyChain(auditBenchGame, chain); err != nil || rep.Verified != rolls {
				t.Fatalf("VerifyChain: %d of %d rolls verified, %v", rep.Verified, rolls, err)
			}
		})
		t.Logf("%d rolls: %.0f allocations", rolls, allocs)
		if allocs > float64(rolls)/20 {
			t.Errorf("VerifyChain of %d rolls: %.0f allocations, want at most %d", rolls, allocs, rolls/20)
		}
	}
}

// TestVerifyAuditAllocations: `adjutant audit verify` from bbolt allocates about once a
// roll, the decoded entry's strings (issue 23: 18 a roll).
func TestVerifyAuditAllocations(t *testing.T) {
	const rolls = 5000
	db := auditStore(t, t.TempDir(), rolls, auditBatch)
	defer db.Close()
	desk := &adjudicator.Desk{Store: db}
	allocs := testing.AllocsPerRun(2, func() {
		if rep, err := desk.VerifyAudit(context.Background(), auditBenchGame); err != nil || rep.Verified != rolls {
			t.Fatalf("VerifyAudit: %d of %d rolls verified, %v", rep.Verified, rolls, err)
		}
	})
	t.Logf("%d rolls: %.0f allocations", rolls, allocs)
	if allocs > rolls*1.1 {
		t.Errorf("VerifyAudit of %d rolls: %.0f allocations, want at most %d", rolls, allocs, rolls*11/10)
	}
}

// TestVerifyChainLargeNamesTheFirstBadEntry: a chain long enough to be checked on
// several goroutines still verifies whole, and of two bad entries the error names the
// first, whichever goroutine found each.
func TestVerifyChainLargeNamesTheFirstBadEntry(t *testing.T) {
	const rolls = 20_000
	chain := auditChain(rolls)
	rep, err := adjudicator.VerifyChain(auditBenchGame, chain)
	if err != nil || rep.Verified != rolls {
		t.Fatalf("VerifyChain of a good chain: %d of %d rolls verified, %v", rep.Verified, rolls, err)
	}
	// rechain recomputes the hashes and links from entry i on, as a forger would.
	rechain := func(c []store.AuditEntry, i int) {
		for ; i < len(c); i++ {
			c[i].Prev = ""
			if i > 0 {
				c[i].Prev = c[i-1].Hash
			}
			c[i].Hash = c[i].ComputeHash()
		}
	}
	roll := func(c []store.AuditEntry, from int) int {
		for i := from; i < len(c); i++ {
			if c[i].Kind == dice.KindRoll {
				return i
			}
		}
		t.Fatalf("no roll after entry %d", from)
		return 0
	}
	// Two rolls changed and the chain rehashed: the seeds give neither.
	bad := slices.Clone(chain)
	first, second := roll(bad, 6000), roll(bad, 15000)
	for _, i := range []int{second, first} {
		bad[i].Values = []int{bad[i].Values[0]%6 + 1}
		bad[i].Result = bad[i].Values[0] + bad[i].Modifier
		rechain(bad, i)
	}
	_, err = adjudicator.VerifyChain(auditBenchGame, bad)
	if want := fmt.Sprintf("audit entry #%d (roll,", bad[first].Seq); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("two changed rolls: %v; want an error naming %s", err, want)
	}
	// Two entries whose contents no longer match their hash.
	bad = slices.Clone(chain)
	bad[14000].Purpose += "!"
	bad[5000].Purpose += "!"
	_, err = adjudicator.VerifyChain(auditBenchGame, bad)
	if want := fmt.Sprintf("audit entry #%d ", bad[5000].Seq); err == nil || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "hash does not match") {
		t.Errorf("two changed entries: %v; want an error naming %s", err, want)
	}
}
