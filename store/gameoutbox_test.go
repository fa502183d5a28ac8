package store_test

import (
	"context"
	"fmt"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestGameOutbox: a game's outbox is its mails, whole and in order, read without
// decoding another game's (one inflate a mail of its own, however many the others
// have), in a store written with the index and in one from before it.
func TestGameOutbox(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	if err := db.Write(ctx, func(tx store.Tx) error {
		for i := range 300 {
			game := fmt.Sprintf("other%d", i%30)
			if i%100 == 0 {
				game = "mine"
			}
			if i%100 == 1 {
				game = "mine2" // a name that "mine" is a prefix of
			}
			if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@x", i), Game: game, Body: fmt.Sprintf("body %d", i), Kind: "results"}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	check := func(when string) {
		t.Helper()
		before := store.CodecCalls()
		var mails []store.OutMail
		if err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			mails, err = tx.GameOutbox("mine")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if n := store.CodecCalls() - before; n != 3 {
			t.Errorf("%s: %d bodies inflated to read a game of 3 mails among 300, want 3", when, n)
		}
		var got string
		for _, m := range mails {
			got += m.MessageID + "=" + m.Body + " "
		}
		if want := "m0@x=body 0 m100@x=body 100 m200@x=body 200 "; got != want {
			t.Errorf("%s: GameOutbox(mine) = %q, want %q", when, got, want)
		}
	}
	check("indexed as queued")
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("outbox-game")) })
	b.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	check("indexed on open")
}
