package adjudicator_test

import (
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// gameCountingStore counts the games read and the write transactions.
type gameCountingStore struct {
	store.Store
	games  map[string]int
	writes int
}

type gameCountingTx struct {
	store.Tx
	s *gameCountingStore
}

func (t gameCountingTx) Game(name string) (store.Game, error) {
	t.s.games[name]++
	return t.Tx.Game(name)
}

func (s *gameCountingStore) Read(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Read(ctx, func(tx store.Tx) error { return fn(gameCountingTx{tx, s}) })
}

func (s *gameCountingStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	s.writes++
	return s.Store.Write(ctx, func(tx store.Tx) error { return fn(gameCountingTx{tx, s}) })
}

// TestTickTouchesOnlyDueGames: a tick over 40 games of which one is due reads that
// game alone and writes one transaction for it (and one to purge throttles), whatever
// the number of games (issue 23: one write transaction per game, every minute).
func TestTickTouchesOnlyDueGames(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	ctx := context.Background()
	for i := 2; i <= 40; i++ {
		ng := adjudicator.NewGame{Name: fmt.Sprintf("g%d", i), Ruleset: soldiers1918.Name, PhaseLength: 48 * time.Hour,
			Players: map[rules.Side]string{"us": fmt.Sprintf("us%d@players.example", i), "de": fmt.Sprintf("de%d@players.example", i)}}
		if i == 17 {
			ng.PhaseLength = time.Hour
		}
		if _, err := f.desk.CreateGame(ctx, ng); err != nil {
			t.Fatal(err)
		}
	}
	counting := &gameCountingStore{Store: f.db, games: map[string]int{}}
	f.desk.Store = counting
	report, err := f.desk.Tick(ctx, f.now.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(report) == 0 || !strings.HasPrefix(report[0], "g17: ") {
		t.Errorf("report %q, want g17's deadline", report)
	}
	if len(counting.games) != 1 || counting.games["g17"] == 0 {
		t.Errorf("the tick read the games %v, want g17 alone", counting.games)
	}
	if counting.writes != 2 {
		t.Errorf("%d write transactions, want 2 (the throttles, g17)", counting.writes)
	}
}
