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
		"--memory-games", "2", "--memory-mails", "1", "--big-games", "3", "--go-test=false"})
	if err != nil {
		t.Fatalf("bench: %v\n%s\n%s", err, out.String(), errb.String())
	}
	for _, want := range []string{
		"| # ", "burst of 6 mails for 2 games", "floor: fetch 6 mails", "time / floor time",
		"paced at 50/s: latency p50 / p99", "floor + STORE + MOVE, sending the ", "burst time / that floor",
		"same burst: CPU time of the process", "burst time / (floor + STORE + MOVE)", "CPU time within the target", "polling every 1 s", "bcrypt default cost", "peak RSS (VmHWM)", "Machine: ",
		"pictures-on burst / text-only burst", "burst of 6 mails for 3 games", "bytes a mail in", "| V ", "verdict: burst of 6 mails for 2 games",
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
