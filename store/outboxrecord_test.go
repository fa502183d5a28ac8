package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxRecordHeadAndBody: the outbox keeps a mail's head alone, its body deflated
// as is among its game's records (not base64 in JSON, a third more, nor beside the head
// in pages of two mails); marking it sent rewrites the head and leaves the body where
// it was. Records of the two older forms (all JSON; head and body together) still read,
// and are marked sent, their password masked.
func TestOutboxRecordHeadAndBody(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	body := "Your password: sesame-42\n" + strings.Repeat("== Map ==\n00 ~ 4a ~ 4a ~# 4a\n", 300)
	z, err := deflate(body)
	if err != nil {
		t.Fatal(err)
	}
	old := OutMail{MessageID: "old@x", To: []string{"a@x.example"}, Kind: "invite", Game: "g", Body: body, Redact: []string{"sesame-42"}}
	old.Seq = 1000
	jsonForm, err := json.Marshal(storedMail{OutMail: old, BodyZ: z})
	if err != nil {
		t.Fatal(err)
	}
	old.Seq = 1001
	head, err := json.Marshal(storedMail{OutMail: old})
	if err != nil {
		t.Fatal(err)
	}
	inline := append(binary.AppendUvarint([]byte{packed}, uint64(len(head))), head...)
	inline = append(inline, z...)
	var seq uint64
	err = db.Write(ctx, func(tx Tx) error {
		m, err := tx.Enqueue(OutMail{MessageID: "new@x", To: []string{"a@x.example"}, Kind: "results", Game: "g", Body: body, Redact: []string{"sesame-42"}})
		seq = m.Seq
		if err != nil {
			return err
		}
		bt := tx.(*btx)
		for k, v := range map[uint64][]byte{1000: jsonForm, 1001: inline} {
			if err := bt.tx.Bucket(bucketOutbox).Put(u64(k), v); err != nil {
				return err
			}
			if err := bt.tx.Bucket(bucketPending).Put(u64(k), nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	bodyOf := func(tx *bolt.Tx) (outbox, records []byte) {
		return tx.Bucket(bucketOutbox).Get(u64(seq)), tx.Bucket(bucketRecords).Get(append([]byte("g\x00m"), u64(seq)...))
	}
	db.bolt.View(func(tx *bolt.Tx) error {
		raw, z := bodyOf(tx)
		if len(raw) == 0 || raw[0] != headOnly || len(raw) > 1000 || bytes.Contains(raw, []byte("body_z")) {
			t.Errorf("the outbox holds %d bytes for the mail, want its head alone: %q", len(raw), raw)
		}
		if len(z) == 0 || len(z) > len(body)/4 {
			t.Errorf("the game's records hold %d bytes of body for %d of text", len(z), len(body))
		}
		if bytes.Contains(z, []byte(base64.StdEncoding.EncodeToString(z[:12]))) {
			t.Error("the body is kept in base64")
		}
		return nil
	})
	err = db.Write(ctx, func(tx Tx) error {
		for _, s := range []uint64{seq, 1000, 1001} {
			m, err := tx.OutMailAt(s)
			if err != nil || m.Body != body {
				t.Errorf("mail %d reads %.30q, %v", s, m.Body, err)
			}
			if _, err := tx.MarkSent(s, m.Queued); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx Tx) error {
		mails, err := tx.Outbox()
		if err != nil || len(mails) != 3 {
			t.Fatalf("Outbox() = %d mails, %v", len(mails), err)
		}
		for _, m := range mails {
			if !m.Sent || strings.Contains(m.Body, "sesame") || !strings.Contains(m.Body, "== Map ==") {
				t.Errorf("mail %d once sent: sent %v, body %.40q", m.Seq, m.Sent, m.Body)
			}
		}
		return nil
	})
	// A mark that changes nothing in the body leaves it be.
	var seq2 uint64
	db.Write(ctx, func(tx Tx) error {
		m, err := tx.Enqueue(OutMail{MessageID: "new2@x", Kind: "results", Game: "g", Body: body})
		seq2 = m.Seq
		return err
	})
	var before []byte
	db.bolt.View(func(tx *bolt.Tx) error {
		before = bytes.Clone(tx.Bucket(bucketRecords).Get(append([]byte("g\x00m"), u64(seq2)...)))
		return nil
	})
	db.Write(ctx, func(tx Tx) error { _, err := tx.MarkSent(seq2, time.Unix(1, 0)); return err })
	db.bolt.View(func(tx *bolt.Tx) error {
		after := tx.Bucket(bucketRecords).Get(append([]byte("g\x00m"), u64(seq2)...))
		if len(before) == 0 || !bytes.Equal(before, after) {
			t.Errorf("the body of a mail marked sent changed: %d bytes, then %d", len(before), len(after))
		}
		return nil
	})
}

// FuzzSplitStored: no record, however malformed, makes splitStored read out of bounds.
func FuzzSplitStored(f *testing.F) {
	head := []byte(`{"seq":1,"kind":"reply"}`)
	f.Add(append(append(binary.AppendUvarint([]byte{packed}, uint64(len(head))), head...), 1, 2, 3))
	f.Add(append([]byte{headOnly}, head...))
	f.Add([]byte(`{"seq":1}`))
	f.Add([]byte{packed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		head, z, err := splitStored(raw)
		if err == nil && len(head)+len(z) > len(raw) {
			t.Errorf("split %d bytes into %d and %d", len(raw), len(head), len(z))
		}
	})
}
