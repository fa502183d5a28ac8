package store_test

import (
	"context"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestIdentity (issue 19): a store draws its identity once and keeps it through
// reopening; two stores have different ones; a store from before identities gets one
// when it is opened, and the mails it had queued keep their Message-IDs.
func TestIdentity(t *testing.T) {
	ctx := context.Background()
	db, path := open(t)
	other, _ := open(t)
	id := db.Identity()
	if len(id.ID) != 32 || strings.Trim(id.ID, "0123456789abcdef") != "" {
		t.Fatalf("ID %q, want 32 hex digits", id.ID)
	}
	if other.Identity().ID == id.ID {
		t.Errorf("two stores share the identity %s", id.ID)
	}
	queued := store.OutMail{MessageID: "adjutant-0123@example.org", To: []string{"de@example.org"}, Kind: "invite", Body: "x"}
	if err := db.Write(ctx, func(tx store.Tx) error {
		var err error
		queued, err = tx.Enqueue(queued)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	tag := id.BounceTag(queued.Seq, queued.MessageID)
	db.Close()

	again, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if got := again.Identity(); got.ID != id.ID || got.BounceTag(queued.Seq, queued.MessageID) != tag {
		t.Errorf("reopened: ID %s tag %s, want %s %s (the same)", got.ID, got.BounceTag(queued.Seq, queued.MessageID), id.ID, tag)
	}
	again.Close()

	// A store written before identities: no secret in its meta bucket.
	raw, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := raw.Update(func(tx *bolt.Tx) error { return tx.Bucket([]byte("meta")).Delete([]byte("store-secret")) }); err != nil {
		t.Fatal(err)
	}
	raw.Close()
	migrated, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer migrated.Close()
	if got := migrated.Identity().ID; got == "" || got == id.ID {
		t.Errorf("migrated store ID %q, want a new one", got)
	}
	migrated.Read(ctx, func(tx store.Tx) error {
		m, err := tx.OutMailAt(queued.Seq)
		if err != nil || m.MessageID != queued.MessageID {
			t.Errorf("queued mail after the migration: %q, %v; want its Message-ID %q kept", m.MessageID, err, queued.MessageID)
		}
		return nil
	})
}

// TestBounceTag: a tag is 16 hex digits, bound to the store, the outbox number and the
// Message-ID; any case of it is accepted, nothing else is.
func TestBounceTag(t *testing.T) {
	a, _ := open(t)
	b, _ := open(t)
	id := a.Identity()
	tag := id.BounceTag(42, "m@x")
	if len(tag) != store.BounceTagLen || strings.Trim(tag, "0123456789abcdef") != "" {
		t.Fatalf("tag %q, want %d hex digits", tag, store.BounceTagLen)
	}
	for _, tc := range []struct {
		name    string
		id      store.Identity
		seq     uint64
		msgID   string
		tag     string
		believe bool
	}{
		{"right", id, 42, "m@x", tag, true},
		{"upper case", id, 42, "m@x", strings.ToUpper(tag), true},
		{"another number", id, 43, "m@x", tag, false},
		{"another mail", id, 42, "n@x", tag, false},
		{"another store", b.Identity(), 42, "m@x", tag, false},
		{"no tag", id, 42, "m@x", "", false},
		{"a prefix", id, 42, "m@x", tag[:8], false},
		{"no identity", store.Identity{}, 42, "m@x", "", false},
	} {
		if got := tc.id.ValidBounceTag(tc.seq, tc.msgID, tc.tag); got != tc.believe {
			t.Errorf("%s: ValidBounceTag = %v, want %v", tc.name, got, tc.believe)
		}
	}
	if (store.Identity{}).BounceTag(42, "m@x") != "" {
		t.Error("the zero identity signs a tag")
	}
}
