package store

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

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
	raw, err := encodeStored(m, z, "")
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
