package store_test

import (
	"context"
	"slices"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestDueGames: the deadline index gives the games whose tick is due (a game with
// beacon dice at every tick), follows each PutGame (a reminder sent, a deadline moved, a
// game paused or over), and is built on open for a store from before it.
func TestDueGames(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	game := func(name string, deadline time.Duration, edit func(*store.Game)) store.Game {
		g := store.Game{Name: name, Ruleset: "r", NoOrders: "wait", Deadline: t0.Add(deadline), RemindAt: t0.Add(deadline - time.Hour)}
		if edit != nil {
			edit(&g)
		}
		return g
	}
	games := []store.Game{
		game("soon", 2*time.Hour, nil),
		game("later", 48*time.Hour, nil),
		game("reminded", 3*time.Hour, func(g *store.Game) { g.Reminded = true }),
		game("waiting", -time.Hour, func(g *store.Game) { g.Reminded, g.LateNotified = true, true }),
		game("bouncing", -time.Hour, func(g *store.Game) { g.Reminded, g.LateNotified, g.NoOrders = true, true, "default" }),
		game("paused", time.Hour, func(g *store.Game) { g.PausedAt = t0 }),
		game("over", time.Hour, func(g *store.Game) { g.Over = true }),
		game("none", 0, func(g *store.Game) { g.Deadline = time.Time{} }),
		game("beacon", 0, func(g *store.Game) { g.Deadline, g.Dice = time.Time{}, "beacon" }),
	}
	put := func(gs ...store.Game) {
		t.Helper()
		if err := db.Write(ctx, func(tx store.Tx) error {
			for _, g := range gs {
				if err := tx.PutGame(g); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	due := func(at time.Time) []string {
		t.Helper()
		var names []string
		if err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			names, err = tx.DueGames(at)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		slices.Sort(names)
		return names
	}
	put(games...)
	for _, tc := range []struct {
		at   time.Duration
		want []string
	}{
		{0, []string{"beacon", "bouncing"}},
		{time.Hour, []string{"beacon", "bouncing", "soon"}},
		{3 * time.Hour, []string{"beacon", "bouncing", "reminded", "soon"}},
		{48 * time.Hour, []string{"beacon", "bouncing", "later", "reminded", "soon"}},
	} {
		if got := due(t0.Add(tc.at)); !slices.Equal(got, tc.want) {
			t.Errorf("due at +%v: %v, want %v", tc.at, got, tc.want)
		}
	}
	// "soon" reminded: due again at its deadline, not before.
	put(game("soon", 2*time.Hour, func(g *store.Game) { g.Reminded = true }))
	if got := due(t0.Add(time.Hour)); !slices.Equal(got, []string{"beacon", "bouncing"}) {
		t.Errorf("after the reminder, due at +1h: %v, want [beacon bouncing]", got)
	}

	// A store from before the index: built on open.
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error {
		tx.DeleteBucket([]byte("due"))
		return tx.DeleteBucket([]byte("due-of"))
	})
	b.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := due(t0.Add(3 * time.Hour)); !slices.Equal(got, []string{"beacon", "bouncing", "reminded", "soon"}) {
		t.Errorf("after re-indexing, due at +3h: %v", got)
	}
}
