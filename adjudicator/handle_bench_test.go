package adjudicator_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// The sample game of `adjutant bench` and the demo (cmd/adjutant/demo.go, script):
// its plots, Chaos of War lists and moves, copied here since package main cannot be
// imported. Ten mails a game: both set-ups with the US six-turn plot, the German plot
// for turn 2, then each turn's moves, fire and plots.
var (
	benchUSPlots = []string{
		"1911x3, 3603x3, 1401x3, 2901x3",
		"4701x3, 1402x3, 2902x3, 3802x3",
		"1602x4, 4403x4, 1102x4",
		"NONE",
		"1802x3, 2103x3, 2502x2, 1015x1, 4519x1",
		"3202x3, 3502x3, 4002x3, 4303x3",
	}
	benchDEPlots = []string{
		"2000x4, 2100x4, 2200x4",
		"3500x4, 3600x4, 3700x4",
		"1200x3, 1300x3, 1400x3, 1500x3",
		"NONE",
		"4000x4, 4100x4, 4200x4",
		"3300x6, 3400x6",
	}
)

func benchMarineMoves(turn int) string {
	var b strings.Builder
	for _, col := range []int{30, 31} {
		fmt.Fprintf(&b, "MOVE USMC %d%02d-%d%02d\n", col, turn-1, col, turn)
	}
	if turn == 1 {
		b.WriteString("MOVE USMC 3200-3201\n")
	}
	return b.String()
}

// benchScript is the sample game's ten mails for game i, as `adjutant bench` plays it.
func benchScript(i int) []adjudicator.Message {
	game := fmt.Sprintf("bench%04d", i)
	usAddr, deAddr := fmt.Sprintf("us%04d@players.example", i), fmt.Sprintf("de%04d@players.example", i)
	head := func(pass string) string { return fmt.Sprintf("GAME %s\nPASSWORD %s\n", game, pass) }
	var us strings.Builder
	us.WriteString(head(passU))
	for t, p := range benchUSPlots {
		fmt.Fprintf(&us, "PLOT TURN %d %s\n", t+1, p)
	}
	us.WriteString("PLOT COMPLETE\nSETUP DEFAULT\nCOW 2303 4802\n" + benchMarineMoves(1) + "FIRE NONE\n")
	type mail struct{ from, subject, body string }
	mails := []mail{
		{usAddr, "[" + game + "] orders", us.String()},
		{deAddr, "Re: [" + game + "] You are invited to play German", head(passD) +
			fmt.Sprintf("PLOT TURN 1 %s\nSETUP DEFAULT\nCOW 1600 1700 1800\nFIRE NONE\nMOVE NONE\nSTATUS\n", benchDEPlots[0])},
		{deAddr, "[" + game + "] plot for turn 2", head(passD) + "PLOT " + benchDEPlots[1] + "\n"},
	}
	for turn := 2; turn <= 6; turn++ {
		mails = append(mails, mail{usAddr, fmt.Sprintf("[%s] turn %d", game, turn), head(passU) + benchMarineMoves(turn) + "FIRE NONE\n"})
		de := head(passD) + "FIRE NONE\nMOVE NONE\n"
		if turn < 6 {
			de += "PLOT " + benchDEPlots[turn] + "\n"
		}
		mails = append(mails, mail{deAddr, fmt.Sprintf("[%s] turn %d", game, turn), de})
	}
	out := make([]adjudicator.Message, len(mails))
	for k, m := range mails {
		out[k] = adjudicator.Message{ID: fmt.Sprintf("bench-%d-%d@players.example", i, k), From: m.from, Subject: m.subject, Text: m.body}
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
	ctx := context.Background()
	scripts := make([][]adjudicator.Message, games)
	for i := range games {
		scripts[i] = benchScript(i)
		_, err := desk.CreateGame(ctx, adjudicator.NewGame{
			Name: fmt.Sprintf("bench%04d", i), Ruleset: soldiers1918.Name,
			Players:   map[adjudicator.Side]string{"us": scripts[i][0].From, "de": scripts[i][1].From},
			Passwords: map[adjudicator.Side]string{"us": passU, "de": passD},
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

// BenchmarkHandle is the desk's cost per order mail in the burst of `adjutant bench`:
// the sample game's mails of many games, interleaved, handled in groups of 32. One op
// is one mail; cpu-ns/op is the CPU time the process used per mail (user and system,
// the garbage collector's included), steadier than ns/op on a busy machine. Each
// player's password is checked once before the timer starts (a STATUS mail), as the
// daemon's password cache does after a player's first mail.
func BenchmarkHandle(b *testing.B) {
	games := (b.N + 9) / 10
	desk, _, mails := benchDesk(b, games)
	var warm []adjudicator.Message
	for i := range games {
		for _, m := range benchScript(i)[:2] {
			text, _, _ := strings.Cut(m.Text, "\nPLOT")
			warm = append(warm, adjudicator.Message{ID: "warm-" + m.ID, From: m.From, Subject: m.Subject, Text: text + "\nSTATUS\n"})
		}
	}
	handleAll(b, desk, warm)
	b.ReportAllocs()
	b.ResetTimer()
	cpu := processCPU()
	handleAll(b, desk, mails[:b.N])
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
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
		fmt.Fprintf(h, "%s\x00%s\x00%s\x00%s\x00", m.MessageID, strings.Join(m.To, ","), m.Subject, m.Body)
	}
	t.Logf("%d mails, digest %s", len(out), hex.EncodeToString(h.Sum(nil)))
}
