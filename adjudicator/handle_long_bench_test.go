package adjudicator_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sync"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// longGames is how many Soissons games BenchmarkHandleLong plays at once. Their mails
// are handled in groups, one mail of each game a group (HandleBatch, as the intake
// handles a backlog): the scripted players write each mail from the game as the mail
// before it left it.
const longGames = 4

// longTurn is one turn of longGames games of Soissons 1918 as the demo's scripted
// players (soissons1918 Bot) play it: the store as it stood when the turn began, and
// the turn's mails in the groups they were handled in.
type longTurn struct {
	snapshot []byte
	groups   [][]adjudicator.Message
	mails    int
}

var (
	longMu    sync.Mutex
	longTurns = map[int]*longTurn{}
)

// longDesk is a desk of Soissons 1918 over the store at path, on a fixed clock and
// deterministic entropy: the same mails on the same store give the same games.
func longDesk(tb testing.TB, path string) (*adjudicator.Desk, *store.DB) {
	tb.Helper()
	db, err := store.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	rs, err := soissons1918.New()
	if err != nil {
		tb.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	return &adjudicator.Desk{Store: db, Rulesets: map[string]rules.Ruleset{rs.Name(): rs}, Address: home,
		Now: func() time.Time { return now }, Rand: &detRand{}, PasswordCost: 4}, db
}

// longName, longAddress and longPassword are game i's name and its player's of side.
func longName(i int) string { return fmt.Sprintf("long%02d", i) }
func longAddress(i int, side rules.Side) string {
	return fmt.Sprintf("%s%02d@players.example", side, i)
}
func longPassword(side rules.Side) string { return "pw-" + string(side) + "-1" }
func longText(i int, side rules.Side, body string) string {
	return rules.BotMail{Side: side, Body: body}.Text(longName(i), longPassword(side))
}

// prepareLong plays longGames games to the start of turn (the first mail of the turn
// after the set-up's), keeps the store as it then is, plays the turn and keeps its
// mails. It is done once per turn and process: a game's last turn takes all of it.
func prepareLong(tb testing.TB, turn int) *longTurn {
	tb.Helper()
	longMu.Lock()
	defer longMu.Unlock()
	if lt := longTurns[turn]; lt != nil {
		return lt
	}
	path := filepath.Join(tb.TempDir(), "long.db")
	desk, db := longDesk(tb, path)
	rs := desk.Rulesets[soissons1918.Name]
	bots := make([]rules.Bot, longGames)
	next := make([]int, longGames) // the number of each game's next scripted mail
	var setup []adjudicator.Message
	for i := range longGames {
		ng := adjudicator.NewGame{Name: longName(i), Ruleset: soissons1918.Name, Players: map[rules.Side]string{}, Passwords: map[rules.Side]string{}}
		for _, s := range rs.Sides() {
			ng.Players[s.ID], ng.Passwords[s.ID] = longAddress(i, s.ID), longPassword(s.ID)
			// Text only, as BenchmarkHandleText: the pictures are the sender's work.
			setup = append(setup, adjudicator.Message{ID: fmt.Sprintf("long-off-%d-%s@players.example", i, s.ID), From: longAddress(i, s.ID),
				Subject: "[" + longName(i) + "] pictures", Text: longText(i, s.ID, "SET PICTURE OFF\n")})
		}
		if _, err := desk.CreateGame(context.Background(), ng); err != nil {
			tb.Fatal(err)
		}
		bots[i] = rs.(rules.Botter).Bot(longName(i))
	}
	handleAll(tb, desk, setup)
	// round is one mail of each game that has not reached stop, handled as one group.
	round := func(stop func(st rules.State, n int) bool) []adjudicator.Message {
		var group []adjudicator.Message
		for i := range longGames {
			var st rules.State
			if err := db.Read(context.Background(), func(tx store.Tx) error {
				g, err := tx.Game(longName(i))
				if err == nil {
					st, err = rs.Decode(g.State)
				}
				return err
			}); err != nil {
				tb.Fatal(err)
			}
			if stop(st, next[i]) {
				continue
			}
			m, ok, err := bots[i].Next(next[i], st)
			if err != nil {
				tb.Fatal(err)
			}
			if !ok {
				continue
			}
			group = append(group, adjudicator.Message{ID: fmt.Sprintf("long-%d-%d@players.example", i, next[i]),
				From: longAddress(i, m.Side), Subject: m.Subject, Text: longText(i, m.Side, m.Body)})
			next[i]++
		}
		handleAll(tb, desk, group)
		return group
	}
	atTurn := func(st rules.State, n int) bool { return st.Over() || (n >= 2 && st.Turn() >= turn) }
	for len(round(atTurn)) > 0 {
	}
	if err := db.Close(); err != nil {
		tb.Fatal(err)
	}
	snapshot, err := os.ReadFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	// The turn, on a desk that starts from the snapshot as each run of the benchmark
	// does (its entropy from the start).
	desk, db = longDesk(tb, path)
	lt := &longTurn{snapshot: snapshot}
	afterTurn := func(st rules.State, _ int) bool { return st.Over() || st.Turn() > turn }
	for {
		group := round(afterTurn)
		if len(group) == 0 {
			break
		}
		lt.groups = append(lt.groups, group)
		lt.mails += len(group)
	}
	db.Close()
	if lt.mails == 0 {
		tb.Fatalf("turn %d of Soissons has no mails", turn)
	}
	longTurns[turn] = lt
	return lt
}

// BenchmarkHandleLong is the desk's CPU per order mail of a long game at its first
// turn against its last: Soissons 1918 (17 turns) as the demo's scripted players play
// it, longGames games at once, text only. One op is one mail; cpu-ns/op is the process
// CPU per mail, as in BenchmarkHandle. Each run starts from the store as it stood when
// the turn began, with every password checked once before the timer (a STATUS mail), so
// that the figure holds the handling alone; last against first shows what the game's
// history (its audit chain, journal, outbox) adds to a mail's cost. `make bench` shows
// both rows.
func BenchmarkHandleLong(b *testing.B) {
	for _, c := range []struct {
		name string
		turn int
	}{{"first", 1}, {"last", soissons1918.LastTurn}} {
		b.Run(c.name, func(b *testing.B) { benchLong(b, c.turn) })
	}
}

func benchLong(b *testing.B, turn int) {
	lt := prepareLong(b, turn)
	b.ReportAllocs()
	b.ResetTimer()
	var cpu time.Duration
	for run, done := 0, 0; done < b.N; run++ {
		b.StopTimer()
		path := filepath.Join(b.TempDir(), fmt.Sprintf("run%d.db", run))
		if err := os.WriteFile(path, lt.snapshot, 0o600); err != nil {
			b.Fatal(err)
		}
		desk, db := longDesk(b, path)
		var warm []adjudicator.Message
		for i := range longGames {
			for _, s := range desk.Rulesets[soissons1918.Name].Sides() {
				warm = append(warm, adjudicator.Message{ID: fmt.Sprintf("long-warm-%d-%s@players.example", i, s.ID), From: longAddress(i, s.ID),
					Subject: "[" + longName(i) + "] status", Text: longText(i, s.ID, "STATUS\n")})
			}
		}
		handleAll(b, desk, warm)
		b.StartTimer()
		for _, group := range lt.groups {
			if done == b.N {
				break
			}
			group = group[:min(len(group), b.N-done)]
			start := processCPU()
			pprof.Do(context.Background(), pprof.Labels("bench", "handle"), func(context.Context) {
				handleAll(b, desk, group)
			})
			cpu += processCPU() - start
			done += len(group)
		}
		b.StopTimer()
		db.Close()
		b.StartTimer()
	}
	b.ReportMetric(float64(cpu)/float64(b.N), "cpu-ns/op")
	b.ReportMetric(float64(lt.mails)/longGames, "mails/turn")
}
