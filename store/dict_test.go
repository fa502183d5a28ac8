package store_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// helpText is 10 KB of text that deflates poorly alone (words drawn at random), the
// same in every invitation, as a game's HELP is.
func helpText() string {
	words := strings.Fields("move fire plot hex unit turn phase deadline orders side german american bombard sealed commit reveal seed roll die table column row map legend trench wire bunker")
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	for b.Len() < 10_000 {
		b.WriteString(words[r.IntN(len(words))])
		if r.IntN(9) == 0 {
			b.WriteString(".\n")
		} else {
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// TestOutboxDictionary: mails of one kind are deflated with a dictionary made from the
// first of them, so that invitations which share their HELP take a few hundred bytes
// each in the file, and come back whole, after the store is opened again too; the
// first invitation's password is not in the dictionary made from it.
func TestOutboxDictionary(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	help := helpText()
	invitation := func(i int) store.OutMail {
		pw := fmt.Sprintf("pw-%d-zebra-quartz", i)
		return store.OutMail{To: []string{fmt.Sprintf("p%d@example.org", i)}, Kind: "invite", Game: fmt.Sprintf("g%d", i),
			Body: fmt.Sprintf("Game g%d. Your password: %s\n\n%s", i, pw, help), Redact: []string{pw}}
	}
	const n = 20
	var seqs []uint64
	if err := db.Write(ctx, func(tx store.Tx) error {
		for i := range n {
			m, err := tx.Enqueue(invitation(i))
			if err != nil {
				return err
			}
			seqs = append(seqs, m.Seq)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := db.Write(ctx, func(tx store.Tx) error {
		_, err := store.FoldSentMarks(tx, []store.SentMark{{Seq: seqs[0], At: time.Unix(1, 0)}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()

	b, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	var sizes []int
	b.View(func(tx *bolt.Tx) error {
		tx.Bucket([]byte("meta")).ForEach(func(k, v []byte) error {
			if bytes.Contains(v, []byte("pw-0-zebra-quartz")) {
				t.Errorf("the first invitation's password is in %s", k)
			}
			return nil
		})
		for _, s := range seqs[1:] {
			sizes = append(sizes, len(tx.Bucket([]byte("outbox")).Get(store.SeqKey(s))))
		}
		return nil
	})
	b.Close()
	for i, size := range sizes {
		if size > 1000 {
			t.Errorf("invitation %d takes %d bytes in the file for a body of %d, want at most 1000", i+1, size, len(invitation(i+1).Body))
		}
	}
	store.ForgetDictionaries() // read from the file again
	db2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	db2.Read(ctx, func(tx store.Tx) error {
		for i, s := range seqs {
			m, err := tx.OutMailAt(s)
			if err != nil {
				t.Fatal(err)
			}
			want := invitation(i).Body
			if i == 0 {
				want = strings.Replace(want, "pw-0-zebra-quartz", store.Redacted, 1)
			}
			if m.Body != want {
				t.Errorf("invitation %d comes back as %.60q, want %.60q", i, m.Body, want)
			}
		}
		return nil
	})
}
