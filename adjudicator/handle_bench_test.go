package adjudicator_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// benchScript is the sample game's thirteen mails for game i (soldiers1918.Script,
// as `make bench` and the demo play it): both set-ups with the US six-turn plot, the
// German plot for turn 2, then each turn's moves, fire and plots, to the game's end.
func benchScript(i int) []adjudicator.Message {
	game := fmt.Sprintf("bench%04d", i)
	usAddr, deAddr := fmt.Sprintf("us%04d@players.example", i), fmt.Sprintf("de%04d@players.example", i)
	var out []adjudicator.Message
	from := map[rules.Side]string{soldiers1918.US: usAddr, soldiers1918.DE: deAddr}
	pass := map[rules.Side]string{soldiers1918.US: passU, soldiers1918.DE: passD}
	for k, m := range soldiers1918.Script(game) {
		out = append(out, adjudicator.Message{ID: fmt.Sprintf("bench-%d-%d@players.example", i, k), From: from[m.Side], Subject: m.Subject, Text: m.Text(game, pass[m.Side])})
	}
	return out
}

// benchDesk is a desk over a fresh store with games games of Soldiers 1918 created, on a
// fixed clock and deterministic entropy, and returns their mails in the order the bench
// delivers them: the first mail of every game, then the second of every game, and so on.
func benchDesk(tb testing.TB, games int) (*adjudicator.Desk, *store.DB, []adjudicator.Message) {
	tb.Helper()
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	desk, db := soldiersDesk(tb, func() time.Time { return now })
	// As the daemon's (serve reads it from <db>.key): the games are created with
	// their players' password verifiers, and each mail's password is recognised by
	// its verifier, read in the transaction, as in the burst of `make bench`.
	desk.PasswordKey = []byte("bench password key, 32 bytes...")
	ctx := context.Background()
	scripts := make([][]adjudicator.Message, games)
	for i := range games {
		scripts[i] = benchScript(i)
		_, err := desk.CreateGame(ctx, adjudicator.NewGame{
			Name: fmt.Sprintf("bench%04d", i), Ruleset: soldiers1918.Name,
			Players:   map[rules.Side]string{"us": scripts[i][0].From, "de": scripts[i][1].From},
			Passwords: map[rules.Side]string{"us": passU, "de": passD},
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	var mails []adjudicator.Message
	for k := range scripts[0] {
		for i := range scripts {
			mails = append(mails, scripts[i][k])
		}
	}
	return desk, db, mails
}

// handleAll hands mails to the desk in groups of 32, as the intake does (group commit).
func handleAll(tb testing.TB, desk *adjudicator.Desk, mails []adjudicator.Message) {
	tb.Helper()
	for len(mails) > 0 {
		n := min(32, len(mails))
		outcomes, err := desk.HandleBatch(context.Background(), mails[:n])
		if err != nil {
			tb.Fatalf("HandleBatch: %v", err)
		}
		for k, o := range outcomes {
			if o != adjudicator.Handled {
				tb.Fatalf("mail %s: %s", mails[k].ID, o)
			}
		}
		mails = mails[n:]
	}
}

// BenchmarkHandle is the desk's cost per order mail in the burst of `make bench`:
// the sample game's mails of many games, interleaved, handled in groups of 32. One op
// is one mail; cpu-ns/op is the CPU time the process used per mail (user and system,
// the garbage collector's included), steadier than ns/op on a busy machine. The games
// are created, and each player sends a first mail (STATUS, or SET PICTURE OFF), before
// the timer starts: the set-up is no part of the figure, nor of a profile's label
// bench=handle. The desk has a password key, as the daemon has: bcrypt runs when a game
// is created (cost 4, the burst's), never for a mail, whose password its verifier
// recognises, as in the burst.
func BenchmarkHandle(b *testing.B) { benchHandle(b, false) }

// BenchmarkHandleText is BenchmarkHandle with both players of every game on SET PICTURE
// OFF, as the end-to-end runs of `make bench` play (the floor sends text).
func BenchmarkHandleText(b *testing.B) { benchHandle(b, true) }

func benchHandle(b *testing.B, textOnly bool) {
	// Enough games that the b.N mails play each one to its end (the last results, the
	// records of the finished game): the mean is that of a whole game's mails.
	perGame := len(soldiers1918.Script(""))
	games := (b.N + perGame - 1) / perGame
	desk, mails := warmDesk(b, games, textOnly)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	// The label sets the handling apart from the set-up in a CPU profile:
	// go tool pprof -tagfocus bench=handle.
	pprof.Do(context.Background(), pprof.Labels("bench", "handle"), func(context.Context) {
		handleAll(b, desk, mails[:b.N])
	})
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
}

// warmDesk is benchDesk with each player's first mail handled: STATUS, or with
// textOnly SET PICTURE OFF.
func warmDesk(tb testing.TB, games int, textOnly bool) (*adjudicator.Desk, []adjudicator.Message) {
	tb.Helper()
	desk, _, mails := benchDesk(tb, games)
	extra := "\nSTATUS\n"
	if textOnly {
		extra = "\nSET PICTURE OFF\n"
	}
	var warm []adjudicator.Message
	for i := range games {
		for _, m := range benchScript(i)[:2] {
			text, _, _ := strings.Cut(m.Text, "\nPLOT")
			warm = append(warm, adjudicator.Message{ID: "warm-" + m.ID, From: m.From, Subject: m.Subject, Text: text + extra})
		}
	}
	handleAll(tb, desk, warm)
	return desk, mails
}

// TestHandleTextAllocs: the desk handles an order mail of the sample game, text only,
// in groups of 32 as the burst does, within a budget of allocations (the store's
// included): about 3,970 a mail before issue 23's cuts to the desk, 3,000 after them.
// The bytes are logged, not held: the pools' buffers, emptied by each collection,
// make them vary by a fifth from run to run.
func TestHandleTextAllocs(t *testing.T) {
	// A game played first, so that what a process makes once (the map's grid and
	// base, the tables, the pools' buffers) is not counted, as in the benchmark.
	first, firstMails := warmDesk(t, 1, true)
	handleAll(t, first, firstMails)
	const games = 6
	desk, mails := warmDesk(t, games, true)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	handleAll(t, desk, mails)
	runtime.ReadMemStats(&after)
	n := float64(len(mails))
	allocs, bytes := float64(after.Mallocs-before.Mallocs)/n, float64(after.TotalAlloc-before.TotalAlloc)/n
	t.Logf("%d mails: %.0f allocations, %.0f KB a mail", len(mails), allocs, bytes/1024)
	if allocs > 3300 {
		t.Errorf("%.0f allocations a mail, want at most 3,300", allocs)
	}
}

// TestHandleBenchGame: the benchmark's game is played to its end with every mail
// handled, and prints a digest of every mail it queued (compare before and after a
// change meant to leave every mail's text as it was: go test -run HandleBenchGame -v).
func TestHandleBenchGame(t *testing.T) {
	desk, db, mails := benchDesk(t, 2)
	handleAll(t, desk, mails)
	var out []store.OutMail
	var over bool
	if err := db.Read(context.Background(), func(tx store.Tx) error {
		g, err := tx.Game("bench0000")
		over = g.Over
		if err != nil {
			return err
		}
		out, err = tx.Outbox()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if !over {
		t.Error("the sample game did not end")
	}
	h := sha256.New()
	for _, m := range out {
		// Not the Message-ID, which the store's random identity makes different each run.
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00", strings.Join(m.To, ","), m.Subject, m.Body)
	}
	t.Logf("%d mails, digest %s", len(out), hex.EncodeToString(h.Sum(nil)))
}
