package store

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxRecordFlateDictionary: mails deflated with a dictionary, as stores wrote
// them before zstd, are read as they were, from a store opened again too, and marked
// sent with the password masked and deflated again with their own dictionary; a mail
// queued afterwards is compressed by zstd.
func TestOutboxRecordFlateDictionary(t *testing.T) {
	path := filepath.Join(t.TempDir(), "flate.db")
	db, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	help := strings.Repeat("MOVE 2301-2302 moves the stack along its path; FIRE 2305 fires at it.\n", 60)
	body := func(i int) string { return fmt.Sprintf("Your password: sesame-%d-flate\n%s", i, help) }
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		bt := newTx(tx)
		for i := 1; i <= 3; i++ {
			m := OutMail{Seq: uint64(i), To: []string{"a@example.org"}, Kind: "invite", Body: body(i), Redact: []string{fmt.Sprintf("sesame-%d-flate", i)}}
			id, d, err := bt.dictFor(m.Kind, m.Body, m.Redact)
			if err != nil || id == "" {
				return fmt.Errorf("dictionary %q: %v", id, err)
			}
			z, err := deflateDict(m.Body, id, d)
			if err != nil {
				return err
			}
			raw, err := encodeStored(m, z, "", id)
			if err != nil {
				return err
			}
			if err := tx.Bucket(bucketOutbox).Put(u64(m.Seq), raw); err != nil {
				return err
			}
			if err := tx.Bucket(bucketPending).Put(u64(m.Seq), nil); err != nil {
				return err
			}
		}
		_, err := tx.Bucket(bucketOutbox).NextSequence() // as Enqueue took them
		for range 2 {
			tx.Bucket(bucketOutbox).NextSequence()
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	ForgetDictionaries()
	if db, err = Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	var newSeq uint64
	if err := db.Write(ctx, func(tx Tx) error {
		for i := 1; i <= 3; i++ {
			got, err := tx.OutMailAt(uint64(i))
			if err != nil || got.Body != body(i) {
				t.Errorf("old mail %d reads %.40q, %v", i, got.Body, err)
			}
		}
		if _, err := tx.MarkSent(2, time.Unix(1, 0)); err != nil {
			return err
		}
		m, err := tx.Enqueue(OutMail{To: []string{"b@example.org"}, Kind: "invite", Body: body(4)})
		newSeq = m.Seq
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx Tx) error {
		got, err := tx.OutMailAt(2)
		if err != nil || !got.Sent || got.Body != strings.Replace(body(2), "sesame-2-flate", Redacted, 1) {
			t.Errorf("old mail 2 once sent: sent %v, body %.40q, %v", got.Sent, got.Body, err)
		}
		got, err = tx.OutMailAt(newSeq)
		if err != nil || got.Body != body(4) {
			t.Errorf("the new mail reads %.40q, %v", got.Body, err)
		}
		return nil
	})
	db.bolt.View(func(tx *bolt.Tx) error {
		var s storedMail
		if err := decodeStored(tx.Bucket(bucketOutbox).Get(u64(newSeq)), &s); err != nil || s.Codec != codecZstd {
			t.Errorf("the new mail is stored with codec %q, %v; want %q", s.Codec, err, codecZstd)
		}
		for _, seq := range []uint64{1, 2} {
			var s storedMail
			if err := decodeStored(tx.Bucket(bucketOutbox).Get(u64(seq)), &s); err != nil || s.Codec != "" || s.Dict == "" {
				t.Errorf("old mail %d is stored with codec %q, dictionary %q, %v; want deflate with its dictionary", seq, s.Codec, s.Dict, err)
			}
		}
		return nil
	})
}

// TestOutboxRecordWithoutDictionary: a mail stored before dictionaries (its body deflated
// alone, no "zd") is read as it was, and marked sent with its password masked.
func TestOutboxRecordWithoutDictionary(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "old.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	body := "Your password: sesame-old-42\n" + strings.Repeat("help text of an older store\n", 100)
	m := OutMail{Seq: 7, To: []string{"a@example.org"}, Kind: "invite", Body: body, Redact: []string{"sesame-old-42"}}
	z, err := deflate(body)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := encodeStored(m, z, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(raw), `"zd"`) {
		t.Fatalf("a record without a dictionary names one: %s", raw)
	}
	if err := db.bolt.Update(func(tx *bolt.Tx) error {
		if err := tx.Bucket(bucketOutbox).Put(u64(7), raw); err != nil {
			return err
		}
		return tx.Bucket(bucketPending).Put(u64(7), nil)
	}); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := db.Write(ctx, func(tx Tx) error {
		got, err := tx.OutMailAt(7)
		if err != nil || got.Body != body {
			t.Errorf("the old record reads %.40q, %v", got.Body, err)
		}
		_, err = tx.MarkSent(7, got.Queued)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx Tx) error {
		got, _ := tx.OutMailAt(7)
		if !got.Sent || strings.Contains(got.Body, "sesame") || !strings.Contains(got.Body, Redacted) {
			t.Errorf("the old record once sent: sent %v, body %.40q", got.Sent, got.Body)
		}
		return nil
	})
}

// dictFor is how a store before zstd made the deflate dictionary of kind (returned), making it from body (secrets masked) when
// the store has none yet and body is long enough; id "" is none.
func (t *btx) dictFor(kind, body string, secrets []string) (id string, d []byte, err error) {
	meta := t.tx.Bucket(bucketMeta)
	if v := meta.Get([]byte("dict-for:" + kind)); v != nil {
		id = string(v)
		d, err = t.dictByID(id)
		return id, d, err
	}
	if len(body) < dictMinBody || !t.tx.Writable() {
		return "", nil, nil
	}
	d = []byte(maskSecrets(body, secrets))
	if len(d) > dictMax {
		d = d[len(d)-dictMax:]
	}
	id = dictID(d)
	if err := meta.Put([]byte("dict:"+id), d); err != nil {
		return "", nil, fmt.Errorf("store the %s dictionary: %w", kind, err)
	}
	if err := meta.Put([]byte("dict-for:"+kind), []byte(id)); err != nil {
		return "", nil, fmt.Errorf("store the %s dictionary: %w", kind, err)
	}
	dicts.Store(id, d)
	return id, d, nil
}
