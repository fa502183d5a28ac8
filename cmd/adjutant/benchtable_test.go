package main

// The bench table (make bench): the figures of BENCHMARKS.md, all measured in one run on
// the machine at hand, printed as one table. It lives in a test file: the daemon's binary
// carries no benchmark (issue 22); BenchmarkTable (bench_test.go) runs it.
//
//  1. End to end over loopback: the daemon in this process (as `demo` runs it) reads the
//     game mailbox of the embedded IMAP server (mail/devserver) and sends through a
//     go-smtp sink that records when it accepted each reply (by In-Reply-To). 2,000 order
//     mails of 200 games are delivered at once (a burst: messages handled per second) and
//     then, on fresh games, paced below capacity (latency from delivery into the mailbox
//     to the reply's acceptance, p50 and p99), with IDLE and with polling; then bursts
//     over many more games (--big-games), and with pictures on.
//  2. The floor: the same 2,000 mails fetched over one IMAP connection and 2,000 fixed
//     replies sent over one SMTP connection to the same sink, nothing else; and the floor
//     that sends as many mails as Adjutant did (the verdict row).
//  3-5. The store, adjudication and audit figures of `go test -bench` in store,
//     adjudicator/soldiers1918 and adjudicator, run and parsed here.
//  6. The peak RSS (VmHWM) of `adjutant serve` in a child process (this test binary acting
//     as adjutant, see TestMain) with 1,000 and 10,000 games, and the store's bytes per
//     mail.
//
// Nothing here runs in ordinary tests except bench_test.go's smoke test with tiny sizes.

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	netmail "net/mail"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-smtp"
	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/mail/devserver"
	"github.com/adjutant-pbem/adjutant/store"
)

// benchOpts are the sizes of a bench run; the defaults are issue 5's.
type benchOpts struct {
	games, mails   int     // end to end, low bcrypt cost
	cost           int     // bcrypt cost of the games' passwords in the end-to-end runs
	costGames      int     // the run at bcrypt.DefaultCost (0: skipped)
	costMails      int     // mails of that run
	picGames       int     // games of the run with pictures (0: none)
	picMails       int     // mails of that run
	rate           float64 // paced runs, mails/s; 0: half the burst throughput
	memGames       []int   // games of each RSS run (none: skipped)
	bigGames       []int   // games of the bursts over many games, two mails each (none: skipped)
	memMails       int     // order mails per game in the RSS run
	storeGames     int     // games of the store-size run (0: skipped)
	storeMails     int     // order mails per game in that run
	goTest         bool    // run and parse `go test -bench`
	cpuProfile     string  // CPU profile of the end-to-end runs
	timeout        time.Duration
	progress       io.Writer
	goTestPackages []string
}

func cmdBench(e *env, args []string) error {
	fs := newFlags(e, "bench")
	o := benchOpts{goTestPackages: []string{"./store/", "./adjudicator/soldiers1918/", "./adjudicator/"}}
	fs.IntVar(&o.games, "games", 200, "games of the end-to-end runs")
	fs.IntVar(&o.mails, "mails", 2000, "order mails of each end-to-end run")
	fs.IntVar(&o.cost, "cost", bcrypt.MinCost, "bcrypt cost of the games' passwords in the end-to-end runs (the default cost makes bcrypt dominate)")
	fs.IntVar(&o.costGames, "default-cost-games", 20, "games of the run at bcrypt's default cost (0: skip it)")
	fs.IntVar(&o.costMails, "default-cost-mails", 200, "order mails of the run at bcrypt's default cost")
	fs.IntVar(&o.picGames, "picture-games", 20, "games of the run with pictures of the map (0: skip it; the other runs are text only)")
	fs.IntVar(&o.picMails, "picture-mails", 200, "order mails of the run with pictures")
	fs.Float64Var(&o.rate, "rate", 0, "mails per second of the paced (latency) runs; 0: half the burst throughput of the same configuration")
	memGames := fs.String("memory-games", "1000,10000", "games in the database of each peak-RSS run, comma-separated (0: skip them)")
	bigGames := fs.String("big-games", "2000", "games of each burst over many games, two order mails a game, comma-separated (0: skip them)")
	fs.IntVar(&o.memMails, "memory-mails", 2, "order mails per game sent through the peak-RSS run")
	fs.IntVar(&o.storeGames, "store-games", 3000, "games of the store-size run, a peak-RSS run with more mails a game (0: skip it)")
	fs.IntVar(&o.storeMails, "store-mails", 10, "order mails per game sent through the store-size run")
	fs.BoolVar(&o.goTest, "go-test", true, "run `go test -bench` for the store, adjudication and audit figures (needs the source tree)")
	fs.StringVar(&o.cpuProfile, "cpuprofile", "", "write a CPU profile of the end-to-end runs to this file")
	fs.DurationVar(&o.timeout, "timeout", 80*time.Minute, "give up after this long")
	quiet := fs.Bool("quiet", false, "print only the table")
	if err := fs.Parse(args); err != nil {
		return err
	}
	var err error
	if o.memGames, err = benchSizes(*memGames); err != nil {
		return usageError("bench: --memory-games: " + err.Error())
	}
	if o.bigGames, err = benchSizes(*bigGames); err != nil {
		return usageError("bench: --big-games: " + err.Error())
	}
	if o.games < 1 || o.mails < 1 {
		return usageError("bench: --games and --mails must be at least 1")
	}
	if o.memMails < 1 || o.storeMails < 1 {
		return usageError("bench: --memory-mails and --store-mails must be at least 1")
	}
	o.progress = e.stderr
	if *quiet {
		o.progress = io.Discard
	}
	ctx, cancel := context.WithTimeout(e.ctx, o.timeout)
	defer cancel()
	sub := *e
	sub.ctx = ctx
	t, err := runBench(&sub, o)
	if t != nil {
		t.print(e.stdout)
	}
	return err
}

// benchSizes reads a comma-separated list of sizes; 0 or nothing is none.
func benchSizes(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%q is not a number of games", f)
		}
		if n > 0 {
			out = append(out, n)
		}
	}
	return out, nil
}

// benchTable is the one table the bench prints.
type benchTable struct {
	rows  [][5]string // item, measure, value, target, verdict
	notes []string
}

func (t *benchTable) add(item, measure, value, target, verdict string) {
	t.rows = append(t.rows, [5]string{item, measure, value, target, verdict})
}

func (t *benchTable) note(format string, args ...any) {
	t.notes = append(t.notes, fmt.Sprintf(format, args...))
}

func (t *benchTable) print(w io.Writer) {
	head := [5]string{"#", "measure", "value", "target", "verdict"}
	width := [5]int{}
	for _, r := range append([][5]string{head}, t.rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r [5]string) {
		var b strings.Builder
		b.WriteString("|")
		for i, c := range r {
			fmt.Fprintf(&b, " %s%s |", c, strings.Repeat(" ", width[i]-len([]rune(c))))
		}
		fmt.Fprintln(w, b.String())
	}
	line(head)
	var sep [5]string
	for i := range sep {
		sep[i] = strings.Repeat("-", width[i])
	}
	line(sep)
	for _, r := range t.rows {
		line(r)
	}
	for _, n := range t.notes {
		fmt.Fprintf(w, "\n%s", n)
	}
	if len(t.notes) > 0 {
		fmt.Fprintln(w)
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

func runBench(e *env, o benchOpts) (*benchTable, error) {
	t := &benchTable{}
	began := time.Now()
	logf := func(format string, args ...any) { // with the time since the start: what each run costs
		fmt.Fprintf(o.progress, "bench: %s "+format+"\n", append([]any{time.Since(began).Round(time.Second)}, args...)...)
	}
	t.note("Machine: %s; go %s %s/%s; GOMAXPROCS %d.", machine(), strings.TrimPrefix(runtime.Version(), "go"), runtime.GOOS, runtime.GOARCH, runtime.GOMAXPROCS(0))
	dir, err := os.MkdirTemp("", "adjutant-bench-")
	if err != nil {
		return t, err
	}
	defer os.RemoveAll(dir)

	sink, err := startBenchSink()
	if err != nil {
		return t, err
	}
	defer sink.close()

	if o.cpuProfile != "" {
		f, err := os.Create(o.cpuProfile)
		if err != nil {
			return t, err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return t, err
		}
		defer func() { pprof.StopCPUProfile(); f.Close() }()
	}

	// 2. The floor, then 1. the daemon, with IDLE.
	rc := benchRun{name: "idle", games: o.games, mails: o.mails, cost: o.cost, dir: dir, sink: sink, log: logf}
	floor, floorMove, err := rc.floor(e.ctx)
	if err != nil {
		return t, fmt.Errorf("floor: %w", err)
	}
	idleBurst, err := rc.burst(e, false)
	if err != nil {
		return t, fmt.Errorf("burst with IDLE: %w", err)
	}
	costNote := fmt.Sprintf("bcrypt cost %d", o.cost)
	t.add("1", fmt.Sprintf("end to end, IDLE, burst of %d mails for %d games (%s): handled", o.mails, o.games, costNote),
		fmt.Sprintf("%.0f mails/s (%s)", idleBurst.rate(), idleBurst.span.Round(time.Millisecond)), "", "")
	t.add("1", "  same burst: latency delivery -> reply accepted, p50 / p99", idleBurst.latency(), "", "")
	t.add("1", "  same burst: CPU time of the process (the daemon and the bench's IMAP and SMTP servers)",
		fmt.Sprintf("%s (%.2f of %d cores busy)", fmtDur(idleBurst.cpu), idleBurst.cpu.Seconds()/idleBurst.span.Seconds(), runtime.GOMAXPROCS(0)), "", "")
	t.add("2", fmt.Sprintf("floor: fetch %d mails on one IMAP connection, send %d fixed replies on one SMTP connection (median of %d)", o.mails, o.mails, floorRuns),
		fmt.Sprintf("%s (%.0f mails/s; CPU %s)", floor.took.Round(time.Millisecond), float64(o.mails)/floor.took.Seconds(), fmtDur(floor.cpu)), "", "")
	t.add("2", "  floor + UID STORE \\Seen + UID MOVE per mail (what the intake also does)",
		fmt.Sprintf("%s (%.0f mails/s; CPU %s)", floorMove.took.Round(time.Millisecond), float64(o.mails)/floorMove.took.Seconds(), fmtDur(floorMove.cpu)), "", "")
	// The target is against the floor with STORE and MOVE.
	ratio := idleBurst.span.Seconds() / floorMove.took.Seconds()
	t.add("2", "Adjutant's burst time / (floor + STORE + MOVE)", fmt.Sprintf("%.2f", ratio), "<= 1.5", verdict(ratio <= 1.5))
	t.add("2", "  Adjutant's burst time / floor time", fmt.Sprintf("%.2f", idleBurst.span.Seconds()/floor.took.Seconds()), "", "")
	// The floor sends one reply a mail; Adjutant also sends the results mails and
	// notices a mail causes: the floor again, with as many mails sent.
	traffic, err := rc.sameTraffic(e.ctx, idleBurst.sent)
	if err != nil {
		return t, fmt.Errorf("floor for the same traffic: %w", err)
	}
	t.add("2", fmt.Sprintf("  floor + STORE + MOVE, sending the %d mails Adjutant sent within its burst (%.1f a mail handled; median of %d)", idleBurst.sent, float64(idleBurst.sent)/float64(idleBurst.n), floorRuns),
		fmt.Sprintf("%s (CPU %s)", traffic.took.Round(time.Millisecond), fmtDur(traffic.cpu)), "", "")
	sameRatio := idleBurst.span.Seconds() / traffic.took.Seconds()
	t.add("2", "  Adjutant's burst time / that floor", fmt.Sprintf("%.2f", sameRatio), "<= 1.5", verdict(sameRatio <= 1.5))
	// CPU time against CPU time: what the burst costs whoever else uses the machine.
	t.add("2", "  Adjutant's burst CPU time / that floor's CPU time", fmt.Sprintf("%.2f (%s / %s)", idleBurst.cpu.Seconds()/traffic.cpu.Seconds(), fmtDur(idleBurst.cpu), fmtDur(traffic.cpu)), "", "")
	// What the target allows at most: every core busy for 1.5 times the floor.
	budget := time.Duration(1.5 * float64(floorMove.took) * float64(runtime.GOMAXPROCS(0)))
	t.add("2", fmt.Sprintf("  CPU time within the target: %d cores x 1.5 x (floor + STORE + MOVE), against the burst's", runtime.GOMAXPROCS(0)),
		fmt.Sprintf("%s, against %s", fmtDur(budget), fmtDur(idleBurst.cpu)), "", "")

	rate := o.rate
	if rate <= 0 {
		rate = idleBurst.rate() / 2
	}
	rc.name = "idle-paced"
	idlePaced, err := rc.paced(e, false, rate)
	if err != nil {
		return t, fmt.Errorf("paced with IDLE: %w", err)
	}
	p50 := idlePaced.pct(50)
	t.add("1", fmt.Sprintf("end to end, IDLE, %d mails paced at %.0f/s: latency p50 / p99", o.mails, rate), idlePaced.latency(), "p50 < 50 ms", verdict(p50 < 50*time.Millisecond))

	// 1. Polling (poll_interval 1 s, the least the configuration allows).
	rc.name = "poll"
	pollBurst, err := rc.burst(e, true)
	if err != nil {
		return t, fmt.Errorf("burst with polling: %w", err)
	}
	t.add("1", "end to end, polling every 1 s, same burst: handled", fmt.Sprintf("%.0f mails/s (%s)", pollBurst.rate(), pollBurst.span.Round(time.Millisecond)), "", "")
	pollRate := o.rate
	if pollRate <= 0 {
		pollRate = pollBurst.rate() / 2
	}
	rc.name = "poll-paced"
	pollPaced, err := rc.paced(e, true, pollRate)
	if err != nil {
		return t, fmt.Errorf("paced with polling: %w", err)
	}
	t.add("1", fmt.Sprintf("end to end, polling every 1 s, paced at %.0f/s: latency p50 / p99", pollRate), pollPaced.latency(), "", "")

	// 1. Once with bcrypt's default cost.
	if o.costGames > 0 && o.costMails > 0 {
		rd := benchRun{name: "cost", games: o.costGames, mails: o.costMails, cost: bcrypt.DefaultCost, dir: dir, sink: sink, log: logf}
		costBurst, err := rd.burst(e, false)
		if err != nil {
			return t, fmt.Errorf("burst at the default cost: %w", err)
		}
		t.add("1", fmt.Sprintf("end to end, IDLE, burst of %d mails for %d games, bcrypt default cost %d: handled", o.costMails, o.costGames, bcrypt.DefaultCost),
			fmt.Sprintf("%.1f mails/s (%s)", costBurst.rate(), costBurst.span.Round(time.Millisecond)), "", "")
		cr := o.rate
		if cr <= 0 {
			cr = costBurst.rate() / 2
		}
		rd.name = "cost-paced"
		costPaced, err := rd.paced(e, false, cr)
		if err != nil {
			return t, fmt.Errorf("paced at the default cost: %w", err)
		}
		t.add("1", fmt.Sprintf("  same, paced at %.1f/s: latency p50 / p99", cr), costPaced.latency(), "(p50 < 50 ms)", verdict(costPaced.pct(50) < 50*time.Millisecond))
	}
	// 1. Once with pictures, every player's default (issue 14): the sender draws a PNG
	// for each results mail and MAP reply.
	if o.picGames > 0 && o.picMails > 0 {
		rp := benchRun{name: "pics", games: o.picGames, mails: o.picMails, cost: o.cost, pictures: true, dir: dir, sink: sink, log: logf}
		picBurst, err := rp.burst(e, false)
		if err != nil {
			return t, fmt.Errorf("burst with pictures: %w", err)
		}
		t.add("1", fmt.Sprintf("end to end, IDLE, burst of %d mails for %d games, pictures on (the default; all runs above: text only): handled", o.picMails, o.picGames),
			fmt.Sprintf("%.1f mails/s (%s)", picBurst.rate(), picBurst.span.Round(time.Millisecond)), "", "")
		pr := picBurst.rate() / idleBurst.rate()
		t.add("1", "  pictures-on burst / text-only burst (mails handled a second)", fmt.Sprintf("%.2f", pr), ">= 0.5", verdict(pr >= 0.5))
	}
	// 1. Bursts over many games (issue 23): two mails a game, against the floor that
	// sends as many mails; no worse than over o.games games.
	for _, g := range o.bigGames {
		rb := benchRun{name: fmt.Sprintf("big%d-", g), games: g, mails: 2 * g, cost: o.cost, dir: dir, sink: sink, log: logf}
		burst, err := rb.burst(e, false)
		if err != nil {
			return t, fmt.Errorf("burst over %d games: %w", g, err)
		}
		tr, err := rb.sameTraffic(e.ctx, burst.sent)
		if err != nil {
			return t, fmt.Errorf("floor for the burst over %d games: %w", g, err)
		}
		r := burst.span.Seconds() / tr.took.Seconds()
		t.add("1", fmt.Sprintf("end to end, IDLE, burst of %d mails for %d games: handled", rb.mails, g),
			fmt.Sprintf("%.0f mails/s (%s; %d sent; CPU %s, the floor's %s)", burst.rate(), burst.span.Round(time.Millisecond), burst.sent, fmtDur(burst.cpu), fmtDur(tr.cpu)), "", "")
		t.add("2", fmt.Sprintf("  burst time / floor + STORE + MOVE sending the same %d mails (%s)", burst.sent, tr.took.Round(time.Millisecond)),
			fmt.Sprintf("%.2f", r), fmt.Sprintf("<= 1.5, and <= %.2f x 1.1 (%d games)", sameRatio, o.games), verdict(r <= 1.5 && r <= sameRatio*1.1))
	}
	if o.cpuProfile != "" {
		pprof.StopCPUProfile()
	}

	// 3, 4, 5: go test -bench.
	if o.goTest {
		logf("go test -bench %s", strings.Join(o.goTestPackages, " "))
		if err := benchGoTest(e.ctx, t, o.goTestPackages); err != nil {
			t.note("go test -bench failed: %v", err)
		}
	}

	// 6. Peak RSS of `adjutant serve` with each number of games, and the store's bytes a
	// mail; then the store's bytes a mail once each game has had more mails (issue 23
	// measured them at 10 a game: at 2, a game's own records weigh on few mails).
	type memRun struct {
		name         string
		games, mails int // mails a game
	}
	var memRuns []memRun
	for _, g := range o.memGames {
		memRuns = append(memRuns, memRun{"mem", g, o.memMails})
	}
	if o.storeGames > 0 {
		memRuns = append(memRuns, memRun{"store", o.storeGames, o.storeMails})
	}
	for _, r := range memRuns {
		g := r.games
		m, err := benchMemory(e, o, r.name, g, r.mails, dir, sink, logf)
		if err != nil {
			t.add("6", fmt.Sprintf("peak RSS (VmHWM) of adjutant serve, %d games, %d mails in", g, g*r.mails),
				"FAILED: "+strings.SplitN(err.Error(), "\n", 2)[0], "< 128 MiB, every mail answered", verdict(false))
			logf("memory, %d games: %v", g, err)
			continue
		}
		mib := float64(m.hwm) / (1 << 20)
		rss := fmt.Sprintf("%.1f MiB (at the end: VmRSS %.1f MiB = anon %.1f + file %.1f; CPU %.1fs)", mib, mb(m.rss), mb(m.anon), mb(m.file), m.cpu.Seconds())
		perMail := float64(m.dbSize) / float64(m.handled)
		if r.name == "store" {
			t.add("6", fmt.Sprintf("store file, %d games after %d mails in (%d a game), every one answered, %d sent: %.1f MiB, bytes a mail in", g, m.handled, r.mails, m.sent, mb(m.dbSize)),
				fmt.Sprintf("%.1f KB", perMail/1000), "<= 2 KB", verdict(perMail <= 2000))
			t.add("6", "  peak RSS (VmHWM) of adjutant serve in that run", rss, "", "")
			continue
		}
		t.add("6", fmt.Sprintf("peak RSS (VmHWM) of adjutant serve, %d games, %d mails in, every one answered, %d sent", g, m.handled, m.sent),
			rss, "< 128 MiB", verdict(mib < 128))
		t.add("6", fmt.Sprintf("  store file after it: %.1f MiB, bytes a mail in (the games' creation and invitations included)", mb(m.dbSize)),
			fmt.Sprintf("%.1f KB", perMail/1000), "<= 2 KB", verdict(perMail <= 2000))
	}
	// The verdict (issue 23): the burst against the floor that sends the same mails.
	t.add("V", fmt.Sprintf("verdict: burst of %d mails for %d games / floor + STORE + MOVE sending the same %d mails", o.mails, o.games, idleBurst.sent),
		fmt.Sprintf("%.2f", sameRatio), "<= 1.5", verdict(sameRatio <= 1.5))
	return t, nil
}

// machine describes the machine: CPUs, model and memory.
func machine() string {
	model := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	mem := ""
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(l, "MemTotal:") {
				f := strings.Fields(l)
				if len(f) >= 2 {
					kb, _ := strconv.ParseFloat(f[1], 64)
					mem = fmt.Sprintf(", %.1f GiB RAM", kb/(1<<20))
				}
			}
		}
	}
	return fmt.Sprintf("%d CPU(s), %s%s", runtime.NumCPU(), model, mem)
}

// ---- the SMTP sink ----

// benchSink is a go-smtp server on loopback that accepts every mail and records when it
// accepted each one, by the In-Reply-To it carries. devserver counts accepted mails but
// keeps no time per mail, hence this sink.
type benchSink struct {
	ln   net.Listener
	srv  *smtp.Server
	addr string

	mu       sync.Mutex
	accepted int
	floor    int                  // of them, the floor's fixed replies (floorMessageID)
	times    []time.Time          // when each mail was accepted
	replies  map[string]time.Time // In-Reply-To (without brackets) -> accepted at
	bad      []string             // replies that refused the orders or the password
	changed  chan struct{}        // closed and replaced at every accepted mail
}

func startBenchSink() (*benchSink, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	k := &benchSink{ln: ln, addr: ln.Addr().String(), replies: map[string]time.Time{}, changed: make(chan struct{})}
	k.srv = smtp.NewServer(k)
	k.srv.Domain = "localhost"
	k.srv.AllowInsecureAuth = true
	k.srv.MaxMessageBytes = 10 << 20
	k.srv.ReadTimeout = 5 * time.Minute
	k.srv.WriteTimeout = time.Minute
	k.srv.ErrorLog = benchNoLog{}
	go k.srv.Serve(ln)
	return k, nil
}

type benchNoLog struct{}

func (benchNoLog) Printf(string, ...any) {}
func (benchNoLog) Println(...any)        {}

func (k *benchSink) close() { k.srv.Close() }

// reset forgets what was accepted.
func (k *benchSink) reset() {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.accepted, k.floor, k.replies, k.bad, k.times = 0, 0, map[string]time.Time{}, nil, nil
}

// floorCount is how many of the floor's fixed replies were accepted since reset: a
// daemon stopped a moment before may still finish sending a mail of its own.
func (k *benchSink) floorCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.floor
}

// acceptedBy counts the mails accepted until t.
func (k *benchSink) acceptedBy(t time.Time) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := 0
	for _, at := range k.times {
		if !at.After(t) {
			n++
		}
	}
	return n
}

func (k *benchSink) NewSession(*smtp.Conn) (smtp.Session, error) { return &benchSinkSession{k: k}, nil }

type benchSinkSession struct{ k *benchSink }

func (s *benchSinkSession) Reset()                               {}
func (s *benchSinkSession) Logout() error                        { return nil }
func (s *benchSinkSession) Mail(string, *smtp.MailOptions) error { return nil }
func (s *benchSinkSession) Rcpt(string, *smtp.RcptOptions) error { return nil }
func (s *benchSinkSession) Data(r io.Reader) error               { return s.k.data(r) }

// waitChange returns a channel closed at the next accepted mail.
func (k *benchSink) waitChange() <-chan struct{} {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.changed
}

func (k *benchSink) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.accepted
}

// repliedCount is how many distinct mails were answered since reset.
func (k *benchSink) repliedCount() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return len(k.replies)
}

func (k *benchSink) replied(id string) (time.Time, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	t, ok := k.replies[id]
	return t, ok
}

func (k *benchSink) badReplies() []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	return slices.Clone(k.bad)
}

func (k *benchSink) countReplies(ids []string) (n int, last time.Time) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for _, id := range ids {
		if t, ok := k.replies[id]; ok {
			n++
			if t.After(last) {
				last = t
			}
		}
	}
	return n, last
}

func (k *benchSink) data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	at := time.Now()
	irt := ""
	bad := ""
	floor := false
	if m, err := netmail.ReadMessage(bytes.NewReader(raw)); err == nil {
		floor = m.Header.Get("Message-ID") == "<"+floorMessageID+">"
		irt = strings.Trim(strings.TrimSpace(m.Header.Get("In-Reply-To")), "<>")
		if irt != "" && strings.HasPrefix(irt, "bench-") {
			switch {
			case !bytes.Contains(raw, []byte("Password: accepted.")):
				bad = irt + ": " + m.Header.Get("Subject")
			case bytes.Contains(raw, []byte("YOUR ORDERS WERE REFUSED")):
				bad = irt + ": orders refused"
			}
		}
	}
	k.mu.Lock()
	k.accepted++
	if floor {
		k.floor++
	}
	k.times = append(k.times, at)
	if irt != "" {
		if _, dup := k.replies[irt]; !dup {
			k.replies[irt] = at
		}
	}
	if bad != "" {
		k.bad = append(k.bad, bad)
	}
	close(k.changed)
	k.changed = make(chan struct{})
	k.mu.Unlock()
	return nil
}

// ---- the games and their mails ----

const benchMailboxPassword = "game-mailbox-password"

// benchMail is one order mail of the bench.
type benchMail struct {
	id  string
	raw []byte
}

func benchGameName(run string, i int) string { return fmt.Sprintf("%s%04d", run, i) }
func benchAddr(side string, run string, i int) string {
	return fmt.Sprintf("%s-%s%04d@players.example", side, run, i)
}
func benchPassword(side string, i int) string { return fmt.Sprintf("%s-password-%04d", side, i) }

// benchScripts returns the mails of game i: the sample game of the demo, played with the
// game's name and players (the six-turn US plot, both set-ups, then each turn's orders and
// plots), and STATUS after its end, alternately from either side.
func benchScripts(run string, i, n int) []scripted {
	game := benchGameName(run, i)
	us, de := benchAddr("us", run, i), benchAddr("de", run, i)
	mails := script(game, us, benchPassword("us", i), de, benchPassword("de", i))
	for k := len(mails); k < n; k++ {
		side, from := "us", us
		if k%2 == 1 {
			side, from = "de", de
		}
		mails = append(mails, scripted{From: from, Subject: fmt.Sprintf("[%s] status", game),
			Body: fmt.Sprintf("GAME %s\nPASSWORD %s\nSTATUS\n", game, benchPassword(side, i))})
	}
	return mails[:n]
}

// benchMails returns n order mails for games games, in the order they are delivered:
// the first mail of every game, then the second of every game, and so on, so that every
// game's mails arrive in the order of its script.
func benchMails(run string, games, n int) []benchMail {
	perGame := (n + games - 1) / games
	scripts := make([][]scripted, games)
	for i := range scripts {
		scripts[i] = benchScripts(run, i, perGame)
	}
	out := make([]benchMail, 0, n)
	date := time.Date(2026, 11, 22, 12, 0, 0, 0, time.UTC)
	for k := 0; len(out) < n; k++ {
		for i := 0; i < games && len(out) < n; i++ {
			id := fmt.Sprintf("bench-%s-%d-%d@players.example", run, i, k)
			out = append(out, benchMail{id: id, raw: eml(scripts[i][k], sampleAddress, id, date)})
		}
	}
	return out
}

// benchCreateGames creates games in a new store at path, with their passwords hashed at
// cost, and marks their invitations sent (unless keepInvites), so that the runs measure
// order mails only. Without pictures every player is as if he had sent SET PICTURE OFF:
// text mails, as the floor sends.
func benchCreateGames(ctx context.Context, path, run string, games, cost int, keepInvites, pictures bool) error {
	db, err := store.Open(path)
	if err != nil {
		return err
	}
	defer db.Close()
	rs, err := rulesets.All()
	if err != nil {
		return err
	}
	desk := &adjudicator.Desk{Store: db, Rulesets: rs, Address: sampleAddress, PasswordCost: cost}
	// Hashing dominates at the default cost: one worker per CPU.
	work := make(chan int)
	errs := make(chan error, runtime.NumCPU())
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				_, err := desk.CreateGame(ctx, adjudicator.NewGame{
					Name: benchGameName(run, i), Ruleset: "soldiers1918",
					Players:   map[rules.Side]string{"us": benchAddr("us", run, i), "de": benchAddr("de", run, i)},
					Passwords: map[rules.Side]string{"us": benchPassword("us", i), "de": benchPassword("de", i)},
				})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	var ferr error
feed:
	for i := range games {
		select {
		case work <- i:
		case ferr = <-errs:
			break feed
		}
	}
	close(work)
	wg.Wait()
	close(errs)
	for err := range errs {
		ferr = errors.Join(ferr, err)
	}
	if ferr != nil {
		return ferr
	}
	if !pictures {
		if err := benchPicturesOff(ctx, db); err != nil {
			return err
		}
	}
	if keepInvites {
		return nil
	}
	return db.Write(ctx, func(tx store.Tx) error {
		mails, err := tx.Outbox()
		if err != nil {
			return err
		}
		for _, m := range mails {
			m.Sent, m.SentAt = true, time.Now()
			if err := tx.PutOutMail(m); err != nil {
				return err
			}
		}
		return nil
	})
}

// ---- one end-to-end configuration ----

type benchRun struct {
	name     string // prefix of the games and message ids; one per run
	games    int
	mails    int
	cost     int
	pictures bool // players keep the default, pictures of the map in results and MAP
	dir      string
	sink     *benchSink
	log      func(string, ...any)
}

// benchResult is what one run measured.
type benchResult struct {
	span      time.Duration   // first delivery to the last reply accepted
	latencies []time.Duration // sorted
	n         int
	sent      int           // mails the sink accepted within span: replies, results, notices
	cpu       time.Duration // CPU time of this process (daemon and servers) over the run
}

// processCPU is the CPU time this process has used so far, user and system.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func (r benchResult) rate() float64 { return float64(r.n) / r.span.Seconds() }

func (r benchResult) pct(p float64) time.Duration {
	if len(r.latencies) == 0 {
		return 0
	}
	i := int(float64(len(r.latencies)-1) * p / 100)
	return r.latencies[i]
}

func (r benchResult) latency() string {
	return fmt.Sprintf("%s / %s", fmtDur(r.pct(50)), fmtDur(r.pct(99)))
}

func fmtDur(d time.Duration) string {
	switch {
	case d >= 10*time.Second:
		return d.Round(100 * time.Millisecond).String()
	case d >= time.Second:
		return d.Round(10 * time.Millisecond).String()
	case d >= 10*time.Millisecond:
		return d.Round(100 * time.Microsecond).String()
	}
	return d.Round(10 * time.Microsecond).String()
}

// setup starts the embedded IMAP server, creates the games and the daemon's config.
func (rc *benchRun) setup(e *env, noIdle bool) (*devserver.Server, *Config, []benchMail, error) {
	rc.log("%s: creating %d games (bcrypt cost %d)", rc.name, rc.games, rc.cost)
	path := filepath.Join(rc.dir, rc.name+".db")
	if err := benchCreateGames(e.ctx, path, rc.name, rc.games, rc.cost, false, rc.pictures); err != nil {
		return nil, nil, nil, err
	}
	srv, err := devserver.Start(devserver.Options{NoIdle: noIdle, Users: map[string]string{sampleAddress: benchMailboxPassword}})
	if err != nil {
		return nil, nil, nil, err
	}
	return srv, benchConfig(srv.IMAPAddr(), rc.sink.addr, path), benchMails(rc.name, rc.games, rc.mails), nil
}

// benchPicturesOff sets every player of the store's games to text mails only.
func benchPicturesOff(ctx context.Context, db *store.DB) error {
	return db.Write(ctx, func(tx store.Tx) error {
		names, err := tx.GameNames()
		if err != nil {
			return err
		}
		for _, n := range names {
			g, err := tx.Game(n)
			if err != nil {
				return err
			}
			for i := range g.Players {
				g.Players[i].Picture = "off"
			}
			if err := tx.PutGame(g); err != nil {
				return err
			}
		}
		return nil
	})
}

// benchConfig is the daemon's configuration against the embedded IMAP server and the sink.
func benchConfig(imapAddr, smtpAddr, db string) *Config {
	host, port := splitAddr(imapAddr)
	shost, sport := splitAddr(smtpAddr)
	c := &Config{
		Address: sampleAddress, Database: db,
		PollInterval: Duration{time.Second}, TickInterval: Duration{time.Minute}, LogLevel: "warn",
		IMAP: IMAPSection{Host: host, Port: port, Security: "none", Username: sampleAddress, Password: benchMailboxPassword, MoveTo: "Processed"},
		SMTP: SMTPSection{Host: shost, Port: sport, Security: "none"},
	}
	if err := c.check(); err != nil {
		panic(fmt.Sprintf("bench config: %v", err)) // built here, always valid
	}
	return c
}

// start runs the daemon in this process and waits until it has answered a first mail
// (a HELP from a stranger), so that it is connected and idle when the measure begins.
func (rc *benchRun) start(e *env, srv *devserver.Server, cfg *Config, logs io.Writer) (func() error, error) {
	_, stop, err := startDaemon(e, cfg, logs)
	if err != nil {
		return nil, err
	}
	id := "warmup-" + rc.name + "@stranger.example"
	raw := eml(scripted{From: "someone@stranger.example", Subject: "help", Body: "HELP\n"}, sampleAddress, id, time.Now())
	if err := srv.Deliver(sampleAddress, raw); err != nil {
		stop()
		return nil, err
	}
	if err := rc.waitReplies(e.ctx, []string{id}); err != nil {
		stop()
		return nil, fmt.Errorf("the daemon did not answer its first mail: %w", err)
	}
	rc.sink.reset()
	return stop, nil
}

// waitReplies waits until the sink has accepted a reply to every id.
func (rc *benchRun) waitReplies(ctx context.Context, ids []string) error {
	last := -1
	stall := time.Now()
	for {
		ch := rc.sink.waitChange()
		n, _ := rc.sink.countReplies(ids)
		if n == len(ids) {
			return nil
		}
		if n != last {
			last, stall = n, time.Now()
		}
		if time.Since(stall) > time.Minute {
			return fmt.Errorf("no progress for a minute: %d of %d replies", n, len(ids))
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%d of %d replies: %w", n, len(ids), ctx.Err())
		case <-ch:
		case <-time.After(time.Second):
		}
	}
}

// measure delivers the mails (all at once when rate is 0, else rate a second) to the
// running daemon and waits for every reply.
func (rc *benchRun) measure(ctx context.Context, srv *devserver.Server, mails []benchMail, rate float64) (benchResult, error) {
	ids := make([]string, len(mails))
	delivered := make([]time.Time, len(mails))
	start, cpu := time.Now(), processCPU()
	for i, m := range mails {
		if rate > 0 {
			due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(due); d > 0 {
				time.Sleep(d)
			}
		}
		ids[i] = m.id
		delivered[i] = time.Now()
		if err := srv.Deliver(sampleAddress, m.raw); err != nil {
			return benchResult{}, err
		}
	}
	if err := rc.waitReplies(ctx, ids); err != nil {
		return benchResult{}, err
	}
	res := benchResult{n: len(mails), cpu: processCPU() - cpu}
	if bad := rc.sink.badReplies(); len(bad) > 0 {
		return benchResult{}, fmt.Errorf("%d replies refused the mail, e.g. %s", len(bad), bad[0])
	}
	for i, id := range ids {
		at, _ := rc.sink.replied(id)
		res.latencies = append(res.latencies, at.Sub(delivered[i]))
		res.span = max(res.span, at.Sub(delivered[0]))
	}
	res.sent = rc.sink.acceptedBy(delivered[0].Add(res.span))
	slices.Sort(res.latencies)
	return res, nil
}

func (rc *benchRun) run(e *env, noIdle bool, rate float64) (benchResult, error) {
	srv, cfg, mails, err := rc.setup(e, noIdle)
	if err != nil {
		return benchResult{}, err
	}
	defer srv.Close()
	var logs syncLog
	stop, err := rc.start(e, srv, cfg, &logs)
	if err != nil {
		return benchResult{}, fmt.Errorf("%w\ndaemon log:\n%s", err, logs.tail())
	}
	how := "at once"
	if rate > 0 {
		how = fmt.Sprintf("at %.1f/s", rate)
	}
	rc.log("%s: %d mails %s (idle %v)", rc.name, len(mails), how, !noIdle)
	res, err := rc.measure(e.ctx, srv, mails, rate)
	if serr := stop(); serr != nil && !errors.Is(serr, context.Canceled) && err == nil {
		err = serr
	}
	if err != nil {
		return res, fmt.Errorf("%w\ndaemon log:\n%s", err, logs.tail())
	}
	rc.log("%s: %.1f mails/s, latency p50 %s p99 %s", rc.name, res.rate(), fmtDur(res.pct(50)), fmtDur(res.pct(99)))
	return res, nil
}

func (rc *benchRun) burst(e *env, noIdle bool) (benchResult, error) { return rc.run(e, noIdle, 0) }
func (rc *benchRun) paced(e *env, noIdle bool, rate float64) (benchResult, error) {
	return rc.run(e, noIdle, rate)
}

// syncLog keeps the daemon's log lines for an error report.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncLog) tail() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b.Bytes()
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

// ---- 2. the floor ----

// floor measures the floor on the same mails: fetch each over one IMAP connection and
// send a fixed reply over one SMTP connection; and again with the \Seen flag and the move
// the intake also makes per mail.
func (rc *benchRun) floor(ctx context.Context) (plain, withMove floorRun, err error) {
	if plain, err = rc.medianFloor(ctx, 0, false); err != nil {
		return plain, withMove, err
	}
	if withMove, err = rc.medianFloor(ctx, 0, true); err != nil {
		return plain, withMove, err
	}
	rc.log("floor: %s, with STORE and MOVE %s", plain.took.Round(time.Millisecond), withMove.took.Round(time.Millisecond))
	return plain, withMove, nil
}

// floorRun is one measure of the floor: how long it took and the CPU time it used.
type floorRun struct{ took, cpu time.Duration }

// sameTraffic is the floor for the traffic of a run that sent sends mails for the
// same mails: each fetched, flagged and moved as in floor, and sends fixed mails sent
// spread over them.
func (rc *benchRun) sameTraffic(ctx context.Context, sends int) (floorRun, error) {
	d, err := rc.medianFloor(ctx, sends, true)
	if err == nil {
		rc.log("floor for %d mails sent: %s", sends, d.took.Round(time.Millisecond))
	}
	return d, err
}

// medianFloor runs benchFloor floorRuns times on the run's mails, sending sends
// replies (0: one a mail), with or without the \Seen flag and the move, and gives the median. Without
// the move a run only peeks, so one mailbox serves every run; with it each run has a
// mailbox of its own.
func (rc *benchRun) medianFloor(ctx context.Context, sends int, move bool) (floorRun, error) {
	users := map[string]string{}
	for r := range floorRuns {
		users[fmt.Sprintf("floor%d@localhost", r)] = "floor"
	}
	srv, err := devserver.Start(devserver.Options{Users: users})
	if err != nil {
		return floorRun{}, err
	}
	defer srv.Close()
	mails := benchMails(rc.name, rc.games, rc.mails)
	if sends <= 0 {
		sends = len(mails)
	}
	var runs []floorRun
	for r := range floorRuns {
		user := fmt.Sprintf("floor%d@localhost", r)
		if !move {
			user = "floor0@localhost"
		}
		if move || r == 0 {
			for _, m := range mails {
				if err := srv.Deliver(user, m.raw); err != nil {
					return floorRun{}, err
				}
			}
		}
		cpu := processCPU()
		d, err := benchFloor(ctx, srv.IMAPAddr(), user, rc.sink, len(mails), sends, move)
		if err != nil {
			return floorRun{}, err
		}
		runs = append(runs, floorRun{took: d, cpu: processCPU() - cpu})
	}
	slices.SortFunc(runs, func(a, b floorRun) int { return cmp.Compare(a.took, b.took) })
	return runs[floorRuns/2], nil
}

// floorMessageID is the Message-ID of the floor's fixed reply.
const floorMessageID = "floor@localhost"

// floorRuns is how many times the floor is measured; the median is reported.
const floorRuns = 3

// benchFloor fetches the n mails of user's INBOX one by one over one IMAP connection
// and sends sends fixed replies over one SMTP connection, spread evenly over them (one
// each when sends is n); with move, each mail is flagged \Seen and moved as well.
func benchFloor(ctx context.Context, imapAddr, user string, sink *benchSink, n, sends int, move bool) (time.Duration, error) {
	reply := []byte("From: " + sampleAddress + "\r\nTo: player@players.example\r\nSubject: Re: your orders\r\n" +
		"Message-ID: <" + floorMessageID + ">\r\nMIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n" +
		strings.Repeat("Order check for game g0001: your orders are accepted and on file.\r\n", 30))
	sink.reset()
	start := time.Now()
	c, err := imapclient.DialInsecure(imapAddr, nil)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	if err := c.Login(user, "floor").Wait(); err != nil {
		return 0, err
	}
	if move {
		c.Create("Processed", nil).Wait()
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		return 0, err
	}
	res, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen, imap.FlagDeleted}}, nil).Wait()
	if err != nil {
		return 0, err
	}
	uids := res.AllUIDs()
	if len(uids) != n {
		return 0, fmt.Errorf("%d messages in the mailbox, %d expected", len(uids), n)
	}
	s, err := smtp.Dial(sink.addr)
	if err != nil {
		return 0, err
	}
	defer s.Close()
	if err := s.Hello("localhost"); err != nil {
		return 0, err
	}
	for i, uid := range uids {
		if err := ctx.Err(); err != nil {
			return 0, err
		}
		set := imap.UIDSetNum(uid)
		msgs, err := c.Fetch(set, &imap.FetchOptions{UID: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
		if err != nil {
			return 0, err
		}
		if len(msgs) != 1 || len(msgs[0].BodySection) != 1 || len(msgs[0].BodySection[0].Bytes) == 0 {
			return 0, fmt.Errorf("uid %d: no body fetched", uid)
		}
		for range (i+1)*sends/n - i*sends/n {
			if err := s.SendMail(sampleAddress, []string{"player@players.example"}, bytes.NewReader(reply)); err != nil {
				return 0, err
			}
		}
		if move {
			if err := c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close(); err != nil {
				return 0, err
			}
			if _, err := c.Move(set, "Processed").Wait(); err != nil {
				return 0, err
			}
		}
	}
	took := time.Since(start)
	if got := sink.floorCount(); got != sends {
		return 0, fmt.Errorf("the sink accepted %d replies, %d expected", got, sends)
	}
	s.Quit()
	c.Logout().Wait()
	return took, nil
}

// ---- 3, 4, 5: go test -bench ----

// benchGoTest runs the Go benchmarks of pkgs and adds their figures to the table.
func benchGoTest(ctx context.Context, t *benchTable, pkgs []string) error {
	gomod, err := exec.CommandContext(ctx, "go", "env", "GOMOD").Output()
	if err != nil {
		return fmt.Errorf("go env GOMOD: %w", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(gomod)))
	if strings.TrimSpace(string(gomod)) == "" || strings.TrimSpace(string(gomod)) == os.DevNull {
		return errors.New("not in the source tree (no go.mod): run it from the repository")
	}
	run := func(args []string) ([]goBench, error) {
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = root
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return nil, fmt.Errorf("go %s: %w\n%s", strings.Join(args, " "), err, out.String())
		}
		t.note("Go benchmarks: go %s", strings.Join(args, " "))
		return parseGoBench(out.String()), nil
	}
	benches, err := run(append([]string{"test", "-run", "^$", "-bench", ".", "-benchmem", "-count", "1"}, pkgs...))
	if err != nil {
		return err
	}
	// Audit verification again on one core (issue 23): the goal must hold when the
	// other core is busy, not only by spreading over two.
	if slices.Contains(pkgs, "./adjudicator/") {
		one, err := run([]string{"test", "-run", "^$", "-bench", "^(BenchmarkVerifyChain|BenchmarkVerifyAuditStore)$", "-benchmem", "-count", "1", "-cpu", "1", "./adjudicator/"})
		if err != nil {
			return err
		}
		for i := range one {
			one[i].oneCore = true
		}
		benches = append(benches, one...)
	}
	for _, r := range benches {
		item, measure, value, target, ok := describeGoBench(r)
		if item == "" {
			continue
		}
		v := ""
		if target != "" {
			v = verdict(ok)
		}
		t.add(item, measure, value, target, v)
	}
	if slices.Contains(pkgs, "./adjudicator/") {
		t.add(longGameRow(benches))
	}
	return nil
}

// longGameTarget is the most a long game's last turn may cost against its first. Flat
// (issue 23: cost independent of history) is 1.0 with nothing that grows with the turns
// played; the two turns still differ in their own work (units left, phases, the length
// of the results), so the bench allows what the other ratios allow.
const longGameTarget = 1.5

// longGameRow is the row of a long game's last turn against its first, from
// BenchmarkHandleLong's sub-benchmarks ("first" and "last", or else the first and the
// last listed): the desk's CPU per order mail (cpu-ns/op, or ns/op without it).
func longGameRow(benches []goBench) (item, measure, value, target, verdictText string) {
	item, target = "4", fmt.Sprintf("last <= %.1f x first", longGameTarget)
	measure = "  a long game (Soissons 1918): the desk's CPU per order mail at its last turn / at its first (BenchmarkHandleLong)"
	var subs []goBench
	for _, b := range benches {
		if strings.HasPrefix(b.name, "BenchmarkHandleLong/") {
			subs = append(subs, b)
		}
	}
	if len(subs) < 2 {
		return item, measure, "not measured: no BenchmarkHandleLong (first and last)", target, "not measured"
	}
	first, last := subs[0], subs[len(subs)-1]
	for _, b := range subs {
		switch strings.TrimPrefix(b.name, "BenchmarkHandleLong/") {
		case "first":
			first = b
		case "last":
			last = b
		}
	}
	cost := func(b goBench) float64 {
		if v, ok := b.metrics["cpu-ns/op"]; ok {
			return v
		}
		return b.metrics["ns/op"]
	}
	f, l := cost(first), cost(last)
	if f <= 0 {
		return item, measure, fmt.Sprintf("not measured: %s reports no time", first.name), target, "not measured"
	}
	r := l / f
	return item, measure, fmt.Sprintf("%.2f (%s / %s)", r, fmtNs(l), fmtNs(f)), target, verdict(r <= longGameTarget)
}

// goBench is one line of `go test -bench` output.
type goBench struct {
	pkg     string
	name    string // without the -GOMAXPROCS suffix
	n       int
	metrics map[string]float64 // unit -> value
	oneCore bool               // run with -cpu 1
}

func parseGoBench(out string) []goBench {
	var res []goBench
	pkg := ""
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		f := strings.Fields(line)
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		n, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		b := goBench{pkg: pkg, name: name, n: n, metrics: map[string]float64{}}
		for i := 2; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				break
			}
			b.metrics[f[i+1]] = v
		}
		res = append(res, b)
	}
	return res
}

func fmtNs(ns float64) string { return fmtDur(time.Duration(ns)) }

func fmtRate(v float64, unit string) string {
	switch {
	case v >= 1e6:
		return fmt.Sprintf("%.2f M %s", v/1e6, unit)
	case v >= 1e4:
		return fmt.Sprintf("%.0f k %s", v/1e3, unit)
	}
	return fmt.Sprintf("%.0f %s", v, unit)
}

// describeGoBench turns a benchmark into a row of the table; "" for those not reported.
func describeGoBench(b goBench) (item, measure, value, target string, ok bool) {
	m := b.metrics
	allocs := fmt.Sprintf(", %.0f allocs/op", m["allocs/op"])
	allocsPerRoll := func() string { return fmt.Sprintf(", %.2f allocs a roll", m["allocs/op"]/max(m["rolls"], 1)) }
	switch {
	case b.oneCore && b.name == "BenchmarkVerifyChain":
		return "5", "  the same on one core (-cpu 1: GOMAXPROCS=1)", fmtRate(m["rolls/s"], "rolls/s") + allocsPerRoll(), ">= 500,000 rolls/s", m["rolls/s"] >= 500000
	case b.oneCore && b.name == "BenchmarkVerifyAuditStore":
		return "5", "  audit verify from bbolt on one core (-cpu 1: GOMAXPROCS=1)", fmtRate(m["rolls/s"], "rolls/s") + allocsPerRoll(), ">= 500,000 rolls/s", m["rolls/s"] >= 500000
	case b.oneCore:
		return "", "", "", "", false
	case b.name == "BenchmarkGroupCommit/N=1":
		return "3", "store: one Write (one fsync) per message, as today: processed mark + reply in the outbox + 2 audit entries",
			fmtRate(m["msgs/s"], "msgs/s") + fmt.Sprintf(" (%s per commit)", fmtNs(m["ns/op"])), "", false
	case strings.HasPrefix(b.name, "BenchmarkGroupCommit/N="):
		n := strings.TrimPrefix(b.name, "BenchmarkGroupCommit/N=")
		return "3", "  group commit: the writes of " + n + " messages in one Write",
			fmtRate(m["msgs/s"], "msgs/s") + fmt.Sprintf(" (%s per commit)", fmtNs(m["ns/op"])), "", false
	case b.name == "BenchmarkMarkSent/one-tx-per-mail" || b.name == "BenchmarkMarkSent/one-tx-per-pass":
		return "3", "store: sender marks mails sent, " + strings.TrimPrefix(b.name, "BenchmarkMarkSent/"),
			fmtRate(m["mails/s"], "mails/s"), "", false
	case b.name == "BenchmarkOutboxRead":
		return "3", fmt.Sprintf("store: Tx.Outbox() with %.0f mails (adjutant outbox; the sender reads the pending heads only)", m["mails"]),
			fmtNs(m["ns/op"]) + fmt.Sprintf(", %.1f MB/op", m["B/op"]/1e6), "", false
	case b.name == "BenchmarkGameOutboxRead":
		return "3", fmt.Sprintf("  Tx.GameOutbox(): one game's %.0f mails of the same %.0f (replay, audit verify)", m["game-mails"], m["mails"]),
			fmtNs(m["ns/op"]) + fmt.Sprintf(", %.1f KB/op", m["B/op"]/1e3), "", false
	case b.name == "BenchmarkFullTurn":
		ms := m["ns/op"] / 1e6
		return "4", fmt.Sprintf("a full Soldiers 1918 turn, every unit on the map, all phases so far (%.0f phases, %.0f rolls)", m["phases/turn"], m["rolls/turn"]),
			fmtNs(m["ns/op"]) + allocs, "< 5 ms", ms < 5
	case b.name == "BenchmarkFullTurnWithCodec":
		return "4", "  the same with the state's JSON decode/encode around each phase (as the desk does)", fmtNs(m["ns/op"]) + allocs, "", false
	case b.name == "BenchmarkHandle":
		return "4", "the desk's CPU per order mail of the sample game, in groups of 32 (BenchmarkHandle: process CPU time)",
			fmtNs(m["cpu-ns/op"]) + allocs, "", false
	case b.name == "BenchmarkHandleText":
		return "4", "  the same, both players on SET PICTURE OFF as in the end-to-end runs (BenchmarkHandleText)",
			fmtNs(m["cpu-ns/op"]) + allocs, "", false
	case b.name == "BenchmarkRenderMap":
		return "4", "text map rendering (BenchmarkRenderMap, mapview_test.go)", fmtNs(m["ns/op"]) + allocs, "", false
	case b.name == "BenchmarkVerifyChain":
		return "5", fmt.Sprintf("audit verification, in memory, a game of %.0f rolls (VerifyChain)", m["rolls"]),
			fmtRate(m["rolls/s"], "rolls/s") + allocsPerRoll(), ">= 500,000 rolls/s", m["rolls/s"] >= 500000
	case b.name == "BenchmarkVerifyAuditStore":
		return "5", fmt.Sprintf("  audit verify from bbolt (Desk.VerifyAudit, %.0f rolls)", m["rolls"]),
			fmtRate(m["rolls/s"], "rolls/s") + allocsPerRoll(), ">= 500,000 rolls/s", m["rolls/s"] >= 500000
	case strings.HasPrefix(b.name, "BenchmarkHandleLong/"):
		v := m["cpu-ns/op"]
		if v == 0 {
			v = m["ns/op"]
		}
		return "4", "  a long game (Soissons 1918): the desk's CPU per order mail, " + strings.TrimPrefix(b.name, "BenchmarkHandleLong/") + " (BenchmarkHandleLong)",
			fmtNs(v) + allocs, "", false
	case b.name == "BenchmarkAuditAppend":
		return "5", fmt.Sprintf("bbolt file size per 1,000 rolls (%.0f rolls appended in Writes of %.0f)", m["rolls"], m["batch"]),
			fmt.Sprintf("%.0f KiB (%s appended)", m["B/1000rolls"]/1024, fmtRate(m["rolls/s"], "rolls/s")), "", false
	}
	return "", "", "", "", false
}

// ---- 6. memory ----

type benchMem struct {
	hwm, rss, anon, file, dbSize int64
	handled, sent                int
	cpu                          time.Duration // serve's CPU time (user and system), its start and stop included
	// peak is the sample of the largest VmRSS (taken every 100 ms): when the peak came
	// and whether it was the heap (anon) or the mapped store (file).
	peak memSample
}

// memSample is one reading of a child's /proc/<pid>/status during a memory run, with
// the run's progress at that moment.
type memSample struct {
	at              time.Duration // since the child started
	rss, anon, file int64
	sent, replies   int // mails the sink accepted; of the mails in, those answered
}

// sampleMemory reads pid's memory every 100 ms until stop is closed, and returns the
// series: the shape of the run's memory over time, its peak and what it was made of.
func sampleMemory(pid int, start time.Time, sink *benchSink, stop <-chan struct{}) []memSample {
	var series []memSample
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return series
		case <-t.C:
		}
		_, rss, anon, file, err := procMemory(pid)
		if err != nil {
			return series
		}
		series = append(series, memSample{at: time.Since(start), rss: rss, anon: anon, file: file, sent: sink.count(), replies: sink.repliedCount()})
	}
}

// logMemorySeries prints the series one line every second (the largest VmRSS of that
// second) and its peak.
func logMemorySeries(series []memSample, logf func(string, ...any)) (peak memSample) {
	var window memSample
	for i, s := range series {
		if s.rss > peak.rss {
			peak = s
		}
		if s.rss >= window.rss {
			window = s
		}
		if i == len(series)-1 || series[i+1].at/time.Second != s.at/time.Second {
			logf("memory series: %5.1fs rss %6.1f = anon %6.1f + file %6.1f MiB; sent %d, answered %d",
				window.at.Seconds(), mb(window.rss), mb(window.anon), mb(window.file), window.sent, window.replies)
			window = memSample{}
		}
	}
	logf("memory peak: %.1fs rss %.1f = anon %.1f + file %.1f MiB; sent %d, answered %d",
		peak.at.Seconds(), mb(peak.rss), mb(peak.anon), mb(peak.file), peak.sent, peak.replies)
	return peak
}

// benchMemory runs `adjutant serve` in a child process against a store of games games
// (named after name), sends perGame order mails a game through it and reads its peak
// RSS and the store's size.
func benchMemory(e *env, o benchOpts, name string, games, perGame int, dir string, sink *benchSink, logf func(string, ...any)) (benchMem, error) {
	var res benchMem
	run := fmt.Sprintf("%s%d-", name, games)
	path := filepath.Join(dir, run+".db")
	logf("memory: creating %d games", games)
	if err := benchCreateGames(e.ctx, path, run, games, o.cost, true, false); err != nil {
		return res, err
	}
	srv, err := devserver.Start(devserver.Options{Users: map[string]string{sampleAddress: benchMailboxPassword}})
	if err != nil {
		return res, err
	}
	defer srv.Close()
	cfg := benchConfig(srv.IMAPAddr(), sink.addr, path)
	host, port := splitAddr(srv.IMAPAddr())
	shost, sport := splitAddr(sink.addr)
	toml := fmt.Sprintf("address = %q\ndatabase = %q\npoll_interval = \"1s\"\ntick_interval = \"1m\"\nlog_level = \"warn\"\n\n"+
		"[imap]\nhost = %q\nport = %d\nsecurity = \"none\"\nusername = %q\npassword = %q\nmove_to = \"Processed\"\n\n"+
		"[smtp]\nhost = %q\nport = %d\nsecurity = \"none\"\n",
		cfg.Address, path, host, port, sampleAddress, benchMailboxPassword, shost, sport)
	cfgPath := filepath.Join(dir, run+".toml")
	if err := os.WriteFile(cfgPath, []byte(toml), 0o600); err != nil {
		return res, err
	}
	exe, err := os.Executable()
	if err != nil {
		return res, err
	}
	sink.reset()
	var logs syncLog
	cmd := exec.Command(exe, "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1") // lets a test binary act as adjutant
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		return res, err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	stopSampling, sampled := make(chan struct{}), make(chan []memSample, 1)
	go func(start time.Time) { sampled <- sampleMemory(cmd.Process.Pid, start, sink, stopSampling) }(time.Now())
	defer func() { // a run that failed stops its sampler too
		select {
		case <-stopSampling:
		default:
			close(stopSampling)
		}
	}()
	stopped := false
	defer func() {
		if !stopped {
			cmd.Process.Kill()
			<-done
		}
	}()
	mails := benchMails(run, games, games*perGame)
	logf("memory: adjutant serve (pid %d), %d mails", cmd.Process.Pid, len(mails))
	ids := make([]string, len(mails))
	for i, m := range mails {
		ids[i] = m.id
		if err := srv.Deliver(sampleAddress, m.raw); err != nil {
			return res, err
		}
	}
	rc := benchRun{sink: sink}
	werr := make(chan error, 1)
	go func() { werr <- rc.waitReplies(e.ctx, ids) }()
	select {
	case err := <-werr:
		if err != nil {
			return res, fmt.Errorf("%w\nserve log:\n%s", err, logs.tail())
		}
	case err := <-done:
		stopped = true
		return res, fmt.Errorf("adjutant serve stopped: %v\n%s", err, logs.tail())
	}
	// Let the sender drain what the last mails queued (notices, results).
	quiet := time.Now()
	for n := sink.count(); time.Since(quiet) < time.Second; {
		time.Sleep(200 * time.Millisecond)
		if m := sink.count(); m != n {
			n, quiet = m, time.Now()
		}
	}
	res.handled, res.sent = len(mails), sink.count()
	close(stopSampling)
	res.peak = logMemorySeries(<-sampled, logf)
	if res.hwm, res.rss, res.anon, res.file, err = procMemory(cmd.Process.Pid); err != nil {
		return res, err
	}
	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		<-done
	}
	stopped = true
	if ps := cmd.ProcessState; ps != nil {
		res.cpu = ps.UserTime() + ps.SystemTime()
	}
	if st, err := os.Stat(path); err == nil {
		res.dbSize = st.Size()
	}
	logf("memory: VmHWM %.1f MiB, serve's CPU %.2fs", float64(res.hwm)/(1<<20), res.cpu.Seconds())
	return res, nil
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

// procMemory reads VmHWM, VmRSS, RssAnon and RssFile of a process, in bytes.
func procMemory(pid int) (hwm, rss, anon, file int64, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmHWM:":
			hwm = v << 10
		case "VmRSS:":
			rss = v << 10
		case "RssAnon:":
			anon = v << 10
		case "RssFile:":
			file = v << 10
		}
	}
	if hwm == 0 {
		return 0, 0, 0, 0, fmt.Errorf("no VmHWM in /proc/%d/status", pid)
	}
	return hwm, rss, anon, file, nil
}
