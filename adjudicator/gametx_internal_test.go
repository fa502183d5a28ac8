package adjudicator

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// countingTx counts the game records read from the store.
type countingTx struct {
	store.Tx
	reads int
}

func (c *countingTx) Game(name string) (store.Game, error) {
	c.reads++
	return c.Tx.Game(name)
}

// TestGameTx: a handling reads a game record from the store once; a write is read back
// as written, never the record before it, without reading the store again (the store
// returns what was written); a copy changed by one caller changes no other's; a record
// not found is looked for again.
func TestGameTx(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Write(context.Background(), func(raw store.Tx) error {
		if err := raw.PutGame(store.Game{Name: "g", Ruleset: "r", State: []byte(`{"turn":1}`),
			Players: []store.Player{{Side: "us", Address: "a@example.org"}}}); err != nil {
			return err
		}
		c := &countingTx{Tx: raw}
		tx := &gameTx{Tx: c}
		first, err := tx.Game("g")
		if err != nil {
			return err
		}
		// A caller changes the record it read, in place.
		first.Players[0].Address = "changed@example.org"
		first.State[2] = 'X'
		second, err := tx.Game("g")
		if err != nil {
			return err
		}
		if c.reads != 1 {
			t.Errorf("the record was read from the store %d times, want once", c.reads)
		}
		if second.Players[0].Address != "a@example.org" || string(second.State) != `{"turn":1}` {
			t.Errorf("a change to one read's copy reached the next read: %+v %s", second.Players, second.State)
		}
		second.State = []byte(`{"turn":2}`)
		second.Players = append(second.Players, store.Player{Side: "de", Address: "b@example.org", MapMode: "full", Picture: "off",
			AbsentUntil: time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC), AbsenceUsed: time.Hour})
		second.Deadline, second.PhaseLength = time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC), 48*time.Hour
		second.Options, second.Initial = map[string]bool{"cow": true}, []byte(`{"turn":0}`)
		if err := tx.PutGame(second); err != nil {
			return err
		}
		third, err := tx.Game("g")
		if err != nil {
			return err
		}
		if string(third.State) != `{"turn":2}` || len(third.Players) != 2 || c.reads != 1 {
			t.Errorf("after PutGame: state %s, %d players, %d reads; want the record written, remembered", third.State, len(third.Players), c.reads)
		}
		// What is remembered is what the store returns.
		if stored, err := raw.Game("g"); err != nil || !reflect.DeepEqual(stored, third) {
			t.Errorf("the record remembered after PutGame:\n%+v\nthe store's:\n%+v (%v)", third, stored, err)
		}
		third.Players[0].Address = "changed again@example.org"
		if fourth, _ := tx.Game("g"); fourth.Players[0].Address != "a@example.org" {
			t.Errorf("a change to a read after PutGame reached the next read: %+v", fourth.Players)
		}
		if _, err := tx.Game("new"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Game(new) = %v, want ErrNotFound", err)
		}
		if err := tx.PutGame(store.Game{Name: "new", Ruleset: "r", State: []byte(`{}`)}); err != nil {
			return err
		}
		if _, err := tx.Game("new"); err != nil {
			t.Errorf("Game(new) after PutGame: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestGameTxKnowsTx: gameTx forgets a record when PutGame writes it, which is right only
// while PutGame is the one method of store.Tx that changes a game record. A method
// added to store.Tx fails this test until it is sorted here (and, if it changes game
// records, gameTx forgets them when it is called).
func TestGameTxKnowsTx(t *testing.T) {
	changes := []string{"PutGame"}
	others := []string{
		"Game", "GameNames", "DueGames", "Processed", "MarkProcessed", "PutOrder", "DeleteOrder", "Orders",
		"PutSeed", "Seeds", "AppendAudit", "Audit", "AuditHead", "HostKey", "PutHostKey", "AppendJournal",
		"Journal", "Enqueue", "Outbox", "GameOutbox", "OutMailAt", "PendingHeads", "PendingHeadsAfter",
		"LastOutMail", "PutOutMail", "PutSealedGroup", "SealedGroup", "PutDelivery", "MarkSent", "Throttle",
		"PutThrottle", "PurgeThrottles", "Plays", "Verifier", "PutVerifier",
		// ClubTx: open games (not game records until created), observers, ratings.
		"PutOpenGame", "OpenGame", "DeleteOpenGame", "OpenGames", "NextClubNumber", "PutObserver",
		"DeleteObserver", "Observers", "Observing", "PutObserverPolicy", "ObserverPolicy", "Rating",
		"PutRating", "Ratings", "GamesOf",
	}
	tx := reflect.TypeFor[store.Tx]()
	for i := range tx.NumMethod() {
		name := tx.Method(i).Name
		if !slices.Contains(changes, name) && !slices.Contains(others, name) {
			t.Errorf("store.Tx has %s: say here whether it changes a game record (and if it does, make gameTx forget the record)", name)
		}
	}
}
