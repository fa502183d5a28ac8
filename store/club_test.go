package store_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestClubRecords: the club's records read as empty in a store that never had one (no
// bucket made by a read), and keep what was put: open games by name, each game's
// observers and each address's observed games (an address's prefix is not the
// address), the observer policy, the ladder per ruleset, and who plays where.
func TestClubRecords(t *testing.T) {
	db, _ := open(t)
	read := func(fn func(tx store.Tx) error) {
		t.Helper()
		if err := db.Read(t.Context(), fn); err != nil {
			t.Fatal(err)
		}
	}
	read(func(tx store.Tx) error {
		open, err1 := tx.OpenGames()
		obs, err2 := tx.Observers("g1")
		rat, err3 := tx.Ratings("r")
		_, err4 := tx.OpenGame("g1")
		if len(open)+len(obs)+len(rat) != 0 || !errors.Is(err4, store.ErrNotFound) {
			t.Errorf("a fresh store: %v %v %v %v", open, obs, rat, err4)
		}
		return errors.Join(err1, err2, err3)
	})
	putGames(t, db, game("g1", "a@x.example", "b@x.example"), game("g2", "a@x.example", "c@x.example"))
	if err := db.Write(t.Context(), func(tx store.Tx) error {
		for _, g := range []string{"r-2", "r-1"} {
			if err := tx.PutOpenGame(store.OpenGame{Name: g, Ruleset: "r", Address: "a@x.example"}); err != nil {
				return err
			}
		}
		for _, o := range []struct{ game, addr string }{{"g1", "O@x.example"}, {"g2", "o@x.example"}, {"g1", "o@x.exampl"}, {"g10", "p@x.example"}} {
			if err := tx.PutObserver(o.game, store.Observer{Address: o.addr}); err != nil {
				return err
			}
		}
		if err := tx.DeleteOpenGame("r-2"); err != nil {
			return err
		}
		if err := tx.DeleteObserver("g2", "o@x.example"); err != nil {
			return err
		}
		for _, r := range []store.Rating{{Address: "a@x.example", Rating: 1516}, {Address: "b@x.example", Rating: 1484}} {
			if err := tx.PutRating("r", r); err != nil {
				return err
			}
		}
		if err := tx.PutRating("q", store.Rating{Address: "a@x.example", Rating: 1400}); err != nil {
			return err
		}
		if n, err := tx.NextClubNumber(); err != nil || n != 1 {
			t.Errorf("the first club number: %d %v", n, err)
		}
		if n, err := tx.NextClubNumber(); err != nil || n != 2 {
			t.Errorf("the second club number: %d %v", n, err)
		}
		return tx.PutObserverPolicy("g1", "ask")
	}); err != nil {
		t.Fatal(err)
	}
	read(func(tx store.Tx) error {
		open, _ := tx.OpenGames()
		if len(open) != 1 || open[0].Name != "r-1" {
			t.Errorf("open games: %+v", open)
		}
		obs, _ := tx.Observers("g1")
		if len(obs) != 2 || obs[0].Address != "o@x.exampl" || obs[1].Address != "o@x.example" {
			t.Errorf("observers of g1 (not g10's): %+v", obs)
		}
		if ing, _ := tx.Observing("o@x.example"); !slices.Equal(ing, []string{"g1"}) {
			t.Errorf("o@x.example observes %v, want g1 alone (g2 was dropped)", ing)
		}
		if p, _ := tx.ObserverPolicy("g1"); p != "ask" {
			t.Errorf("policy of g1: %q", p)
		}
		if p, _ := tx.ObserverPolicy("g2"); p != "" {
			t.Errorf("policy of g2: %q", p)
		}
		if r, _ := tx.Ratings("r"); len(r) != 2 || r[0].Rating != 1516 {
			t.Errorf("ratings at r: %+v", r)
		}
		if r, _ := tx.Rating("q", "A@x.example"); r.Rating != 1400 {
			t.Errorf("rating at q: %+v", r)
		}
		if r, _ := tx.Rating("r", "c@x.example"); r.Games != 0 || r.Address != "c@x.example" {
			t.Errorf("no rating: %+v", r)
		}
		if g, _ := tx.GamesOf("A@x.example"); !slices.Equal(g, []string{"g1", "g2"}) {
			t.Errorf("GamesOf a@x.example: %v", g)
		}
		return nil
	})
}
