package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkTable is `make bench`: the whole table, once (-benchtime 1x), with the
// bench's own flags after the test binary's: go test -run '^$' -bench '^BenchmarkTable$'
// -benchtime 1x ./cmd/adjutant/ -args -- --games 200 (-- -h lists them).
func BenchmarkTable(b *testing.B) {
	for b.Loop() {
		if err := cmdBench(&env{ctx: context.Background(), stdout: os.Stdout, stderr: os.Stderr}, flag.Args()); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchSmoke runs the bench table with tiny sizes: every end-to-end run, the floor and
// the peak-RSS child process (this test binary acting as adjutant, see TestMain), without
// `go test -bench`. It checks that the table is printed, never what it says about time.
func TestBenchSmoke(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb bytes.Buffer
	err := cmdBench(&env{ctx: ctx, stdout: &out, stderr: &errb}, []string{
		"--games", "2", "--mails", "6", "--rate", "50",
		"--default-cost-games", "1", "--default-cost-mails", "2",
		"--memory-games", "2", "--memory-mails", "1", "--store-games", "2", "--store-mails", "3", "--big-games", "3", "--go-test=false"})
	if err != nil {
		t.Fatalf("bench: %v\n%s\n%s", err, out.String(), errb.String())
	}
	for _, want := range []string{
		"| # ", "burst of 6 mails for 2 games", "floor: fetch 6 mails", "time / floor time",
		"paced at 50/s: latency p50 / p99", "floor + STORE + MOVE, sending the ", "burst time / that floor",
		"same burst: CPU time of the process", "burst time / (floor + STORE + MOVE)", "CPU time within the target", "polling every 1 s", "bcrypt default cost", "peak RSS (VmHWM)", "Machine: ",
		"pictures-on burst / text-only burst", "burst of 6 mails for 3 games", "bytes a mail in", "| V ",
		"store file, 2 games after 6 mails in (3 a game)", "peak RSS (VmHWM) of adjutant serve in that run", "verdict: burst of 6 mails for 2 games",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the table has no %q:\n%s", want, out.String())
		}
	}
}

func TestParseGoBench(t *testing.T) {
	out := `goos: linux
pkg: github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918
BenchmarkFullTurn-2            	    1164	    952006 ns/op	        12.00 phases/turn	       162.0 rolls/turn	  618829 B/op	    6060 allocs/op
BenchmarkRenderMap-2           	    4702	    252364 ns/op	   42860 B/op	    1537 allocs/op
PASS
pkg: github.com/adjutant-pbem/adjutant/store
BenchmarkGroupCommit/N=16-2  	     703	   1905250 ns/op	      8398 msgs/s	  370185 B/op	    2108 allocs/op
ok  	github.com/adjutant-pbem/adjutant/store	11.267s
`
	got := parseGoBench(out)
	if len(got) != 3 {
		t.Fatalf("parsed %d benchmarks, want 3: %+v", len(got), got)
	}
	turn := got[0]
	if turn.name != "BenchmarkFullTurn" || turn.n != 1164 || turn.metrics["ns/op"] != 952006 || turn.metrics["rolls/turn"] != 162 || turn.metrics["allocs/op"] != 6060 {
		t.Errorf("first benchmark %+v", turn)
	}
	if got[2].name != "BenchmarkGroupCommit/N=16" || got[2].pkg != "github.com/adjutant-pbem/adjutant/store" || got[2].metrics["msgs/s"] != 8398 {
		t.Errorf("third benchmark %+v", got[2])
	}
	for _, b := range got {
		if item, _, _, _, _ := describeGoBench(b); item == "" {
			t.Errorf("%s is not reported in the table", b.name)
		}
	}
}

// TestBenchLongGameRow: the row of a long game's last turn against its first, from
// BenchmarkHandleLong's sub-benchmarks in `go test -bench` output, and what it says when
// they are not there.
func TestBenchLongGameRow(t *testing.T) {
	const head = "pkg: github.com/adjutant-pbem/adjutant/adjudicator\n"
	tests := []struct {
		name, out     string
		value, verdct string
	}{
		{"flat", head + `BenchmarkHandleLong/first-2   10   900000 ns/op   1000000 cpu-ns/op   700000 B/op   5000 allocs/op
BenchmarkHandleLong/last-2    10   950000 ns/op   1200000 cpu-ns/op   800000 B/op   6000 allocs/op
`, "1.20 (1.2ms / 1ms)", "met"},
		{"grows with history", head + `BenchmarkHandleLong/first-2   10   900000 ns/op   1000000 cpu-ns/op
BenchmarkHandleLong/last-2    10   950000 ns/op   2500000 cpu-ns/op
`, "2.50 (2.5ms / 1ms)", "MISSED"},
		{"other names, ns/op only: the first and the last listed", head + `BenchmarkHandleLong/turn=1     10   1000000 ns/op
BenchmarkHandleLong/turn=9     10   1100000 ns/op
BenchmarkHandleLong/turn=17    10   1400000 ns/op
`, "1.40 (1.4ms / 1ms)", "met"},
		{"absent", head + "BenchmarkHandleText-2   10   900000 ns/op   1000000 cpu-ns/op\n", "not measured: no BenchmarkHandleLong (first and last)", "not measured"},
		{"one sub-benchmark only", head + "BenchmarkHandleLong/first-2   10   900000 ns/op\n", "not measured: no BenchmarkHandleLong (first and last)", "not measured"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			benches := parseGoBench(tt.out)
			item, measure, value, target, v := longGameRow(benches)
			if item != "4" || !strings.Contains(measure, "last turn / at its first") || target != "last <= 1.5 x first" {
				t.Errorf("row %q %q, target %q", item, measure, target)
			}
			if value != tt.value || v != tt.verdct {
				t.Errorf("value %q, verdict %q; want %q, %q", value, v, tt.value, tt.verdct)
			}
			for _, b := range benches {
				if item, _, _, _, _ := describeGoBench(b); item == "" {
					t.Errorf("%s has no row of its own", b.name)
				}
			}
		})
	}
}

// TestBenchOneCoreAuditRows: the audit benchmarks run again with -cpu 1 get rows of
// their own, against the same goal, and no other benchmark does.
func TestBenchOneCoreAuditRows(t *testing.T) {
	out := `pkg: github.com/adjutant-pbem/adjutant/adjudicator
BenchmarkVerifyChain   	       2	 765334267 ns/op	   1000000 rolls	   1306619 rolls/s	 1778920 B/op	   18116 allocs/op
BenchmarkVerifyAuditStore   	       4	 270882454 ns/op	    100000 rolls	    369164 rolls/s	51271320 B/op	  777916 allocs/op
BenchmarkHandleText   	       4	 2000000 ns/op
`
	benches := parseGoBench(out)
	want := []struct{ measure, value, verdict string }{
		{"  the same on one core (-cpu 1: GOMAXPROCS=1)", "1.31 M rolls/s, 0.02 allocs a roll", "met"},
		{"  audit verify from bbolt on one core (-cpu 1: GOMAXPROCS=1)", "369 k rolls/s, 7.78 allocs a roll", "MISSED"},
		{"", "", ""},
	}
	for i, b := range benches {
		b.oneCore = true
		item, measure, value, target, ok := describeGoBench(b)
		v := ""
		if target != "" {
			v = verdict(ok)
		}
		if measure != want[i].measure || value != want[i].value || v != want[i].verdict || (item == "") != (want[i].measure == "") {
			t.Errorf("%s on one core: %q %q %q %q; want %+v", b.name, item, measure, value, v, want[i])
		}
	}
}
