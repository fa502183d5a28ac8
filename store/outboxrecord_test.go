package store

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestOutboxRecordBodyAsIs: an outbox record keeps its deflated body as bytes, not as
// base64 in its JSON (a third more); a record of the older form, all JSON, still reads
// and is marked sent, its password masked.
func TestOutboxRecordBodyAsIs(t *testing.T) {
	db, err := Open(filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	body := "Your password: sesame-42\n" + strings.Repeat("== Map ==\n00 ~ 4a ~ 4a ~# 4a\n", 300)
	old := OutMail{Seq: 1000, MessageID: "old@x", To: []string{"a@x.example"}, Kind: "invite", Body: body, Redact: []string{"sesame-42"}}
	z, err := deflate(body)
	if err != nil {
		t.Fatal(err)
	}
	oldRaw, err := json.Marshal(storedMail{OutMail: old, BodyZ: z}) // the older form
	if err != nil {
		t.Fatal(err)
	}
	var seq uint64
	err = db.Write(ctx, func(tx Tx) error {
		m, err := tx.Enqueue(OutMail{MessageID: "new@x", To: []string{"a@x.example"}, Kind: "results", Body: body, Redact: []string{"sesame-42"}})
		seq = m.Seq
		if err != nil {
			return err
		}
		bt := tx.(*btx)
		if err := bt.tx.Bucket(bucketOutbox).Put(u64(old.Seq), oldRaw); err != nil {
			return err
		}
		return bt.tx.Bucket(bucketPending).Put(u64(old.Seq), nil)
	})
	if err != nil {
		t.Fatal(err)
	}
	db.bolt.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket(bucketOutbox).Get(u64(seq))
		var s storedMail
		if err := decodeStored(raw, &s); err != nil || len(s.BodyZ) == 0 {
			t.Fatalf("decode the record: %v (%d bytes of body)", err, len(s.BodyZ))
		}
		if !bytes.HasSuffix(raw, s.BodyZ) || bytes.Contains(raw, []byte(base64.StdEncoding.EncodeToString(s.BodyZ))) {
			t.Errorf("the record does not end with its deflated body as is: %q", raw)
		}
		return nil
	})
	err = db.Write(ctx, func(tx Tx) error {
		for _, s := range []uint64{seq, old.Seq} {
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
		if err != nil || len(mails) != 2 {
			t.Fatalf("Outbox() = %d mails, %v", len(mails), err)
		}
		for _, m := range mails {
			if !m.Sent || strings.Contains(m.Body, "sesame") || !strings.Contains(m.Body, "== Map ==") {
				t.Errorf("mail %d once sent: sent %v, body %.40q", m.Seq, m.Sent, m.Body)
			}
		}
		return nil
	})
}

// FuzzSplitStored: no record, however malformed, makes splitStored panic or read out
// of bounds: a head kept as it is and the body are parts of the record; a compressed
// head is an error or some bytes.
func FuzzSplitStored(f *testing.F) {
	rec, _ := storedMail{OutMail: OutMail{Seq: 1, Kind: "reply"}, BodyZ: []byte{1, 2, 3}}.encode()
	f.Add(rec)
	f.Add([]byte(`{"seq":1}`))
	f.Add([]byte{packed, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Add([]byte{packedHead, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f})
	f.Fuzz(func(t *testing.T, raw []byte) {
		head, z, err := splitStored(raw)
		if err != nil {
			return
		}
		if len(z) > len(raw) || (len(raw) > 0 && raw[0] != packedHead && len(head)+len(z) > len(raw)) {
			t.Errorf("split %d bytes into %d and %d", len(raw), len(head), len(z))
		}
	})
}
