package store

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxResultsBytes: the results mails of a Soissons game, queued one a
// transaction, take on average at most 2,200 bytes a record after the first twelve
// (2,948 deflated with the first body as dictionary, 2,519 with zstd and six bodies,
// 1,953 with twelve), the kind has two dictionaries (the first body, then the twelve)
// and no samples waiting, and
// every mail comes back whole from a store opened again.
func TestOutboxResultsBytes(t *testing.T) {
	bodies := sampleBodies(t)
	path := filepath.Join(t.TempDir(), "results.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var seqs []uint64
	for _, body := range bodies {
		if err := db.Write(ctx, func(tx Tx) error {
			m, err := tx.Enqueue(OutMail{To: []string{"p@example.org"}, Kind: "results", Game: "g", Body: body})
			seqs = append(seqs, m.Seq)
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	total, dictionaries, waiting := 0, 0, 0
	db.bolt.View(func(tx *bolt.Tx) error {
		for _, s := range seqs[zdictSamples:] {
			total += len(tx.Bucket(bucketOutbox).Get(u64(s)))
		}
		return tx.Bucket(bucketMeta).ForEach(func(k, _ []byte) error {
			if bytes.HasPrefix(k, []byte("zdict:")) {
				dictionaries++
			}
			if bytes.HasPrefix(k, []byte("zdict-samples:")) {
				waiting++
			}
			return nil
		})
	})
	if avg := total / (len(seqs) - zdictSamples); avg > 2200 {
		t.Errorf("a results mail takes %d bytes on average, want at most 2,200", avg)
	}
	if dictionaries != 2 || waiting != 0 {
		t.Errorf("%d dictionaries stored for results mails and %d kinds of samples waiting, want 2 and none", dictionaries, waiting)
	}
	db = reopen(t, db, path)
	db.Read(ctx, func(tx Tx) error {
		for i, s := range seqs {
			if m, err := tx.OutMailAt(s); err != nil || m.Body != bodies[i] {
				t.Errorf("results mail %d reads %.40q, %v", i, m.Body, err)
			}
		}
		return nil
	})
}

// TestRecordsPacked: a Soissons game's journal entries, filed again in other games,
// are packed with their kind's dictionary to at most 1,600 bytes an entry (2,183
// deflated alone, before zstd), its orders made a KB long to at most 500 (plain, over
// 1,000); its orders as they are and a sealed order stay plain JSON, and the sealed
// order's text goes into no dictionary; every record reads back as filed from a store
// opened again.
func TestRecordsPacked(t *testing.T) {
	src, err := Open(openSoissons(t))
	if err != nil {
		t.Fatal(err)
	}
	var journal []JournalEntry
	var orders []Order
	src.Read(context.Background(), func(tx Tx) error {
		journal, err = tx.Journal("soissons")
		for _, j := range journal {
			for _, st := range j.Steps {
				orders = append(orders, st.Orders...)
			}
		}
		return err
	})
	src.Close()
	if len(journal) < 20 || len(orders) < 20 {
		t.Fatalf("%d journal entries, %d orders in the sample", len(journal), len(orders))
	}
	const secret = "4300x3, 4400x3, 4500x2: a sealed plot nobody may read"
	sealed := Order{Phase: "plot", Side: "us", Key: "plot", Kind: "plot", Text: secret + strings.Repeat(" and more", 200), Sealed: true, Salt: "salt"}
	path := filepath.Join(t.TempDir(), "records.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	games := []string{"g1", "g2", "g3"}
	for _, g := range games {
		if err := db.Write(ctx, func(tx Tx) error {
			if err := tx.PutOrder(g, sealed); err != nil {
				return err
			}
			for i, o := range orders {
				o.Key = fmt.Sprint(i) // each its own record
				if i%4 == 0 {         // a long one, as a set-up's placements are
					o.Key = fmt.Sprint("long", i)
					o.Text = strings.Repeat(o.Text+"\n", 1+orderPackMin/max(1, len(o.Text)))
					o.Sealed = false
				}
				if err := tx.PutOrder(g, o); err != nil {
					return err
				}
			}
			for _, j := range journal {
				if _, err := tx.AppendJournal(g, j); err != nil {
					return err
				}
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	sizes := map[byte][2]int{}
	db.bolt.View(func(tx *bolt.Tx) error {
		tx.Bucket(bucketMeta).ForEach(func(k, v []byte) error {
			if bytes.Contains(v, []byte(secret)) {
				t.Errorf("the sealed order's text is in %s", k)
			}
			return nil
		})
		// The last game's records: its kinds' dictionaries were made by then.
		return tx.Bucket(bucketRecords).ForEach(func(k, v []byte) error {
			if !bytes.HasPrefix(k, []byte("g3\x00")) {
				return nil
			}
			kind := k[3]
			if kind == recOrder && bytes.Contains(k, []byte("|long")) {
				kind = 'L' // the long orders
			}
			if kind == recOrder && v[0] != '{' || bytes.Contains(k, []byte("|plot")) && v[0] != '{' {
				t.Errorf("order %q is stored packed (%#x...), want plain JSON", k, v[0])
			}
			s := sizes[kind]
			s[0]++
			s[1] += len(v)
			sizes[kind] = s
			return nil
		})
	})
	for _, c := range []struct {
		kind byte
		max  int
	}{{recJournal, 1600}, {'L', 500}} {
		if s := sizes[c.kind]; s[0] == 0 || s[1]/s[0] > c.max {
			t.Errorf("records %c: %d bytes on average over %d, want at most %d", c.kind, s[1]/max(1, s[0]), s[0], c.max)
		}
	}
	db = reopen(t, db, path)
	db.Read(ctx, func(tx Tx) error {
		for _, g := range games {
			js, err := tx.Journal(g)
			if err != nil || len(js) != len(journal) {
				t.Fatalf("%s: %d journal entries, %v", g, len(js), err)
			}
			for i := range js {
				js[i].Seq = journal[i].Seq
				if !reflect.DeepEqual(js[i], journal[i]) {
					t.Errorf("%s: journal entry %d reads %+v, filed %+v", g, i, js[i], journal[i])
				}
			}
			os, err := tx.Orders(g)
			if err != nil || len(os) != len(orders)+1 {
				t.Fatalf("%s: %d orders, %v", g, len(os), err)
			}
		}
		return nil
	})
}

// TestFirstDictionaryEncoderDropped: once a kind's last dictionary is made, the
// encoder of its first one is no longer kept (a MB a kind of mail and of record),
// and a mail compressed with the first dictionary still reads.
func TestFirstDictionaryEncoderDropped(t *testing.T) {
	db, bodies := freshStore(t)
	ctx := context.Background()
	var first OutMail
	var firstDict string
	for i, body := range bodies[:zdictSamples+1] {
		if err := db.Write(ctx, func(tx Tx) error {
			m, err := tx.Enqueue(OutMail{To: []string{"p@example.org"}, Kind: "results", Game: "g", Body: body})
			if i == 1 {
				first = m
				id, _, _ := tx.(*btx).zdictFor("results", "", nil)
				firstDict = id
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
	}
	if _, ok := zencoders.Load(firstDict); ok || firstDict == "" {
		t.Errorf("the encoder of the first results dictionary %q is still kept", firstDict)
	}
	db.Read(ctx, func(tx Tx) error {
		if m, err := tx.OutMailAt(first.Seq); err != nil || m.Body != bodies[1] {
			t.Errorf("the second results mail reads %.40q, %v", m.Body, err)
		}
		return nil
	})
}

// reopen closes db, forgets the process's dictionaries and coders, and opens the
// store at path again (closed when the test ends): what is read then comes from the
// file.
func reopen(t *testing.T, db *DB, path string) *DB {
	t.Helper()
	db.Close()
	ForgetDictionaries()
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// freshStore is a new store, with no dictionary or coder of the process's left from
// another test, and the results mails of a Soissons game.
func freshStore(t *testing.T) (*DB, []string) {
	t.Helper()
	ForgetDictionaries()
	bodies := sampleBodies(t)
	db, err := Open(filepath.Join(t.TempDir(), "fresh.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, bodies
}
