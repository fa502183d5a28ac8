package store_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

func open(t *testing.T) (*store.DB, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "s.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db, path
}

// TestAuditChain: each game's entries chain, appended in one transaction or several,
// with another game's entries appended in between.
func TestAuditChain(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var err error
	for w := range 2 {
		err = db.Write(ctx, func(tx store.Tx) error {
			for i := 3 * w; i < 3*w+3; i++ {
				for _, g := range []string{"g", "h"} {
					if _, err := tx.AppendAudit(g, store.AuditEntry{Kind: "roll", Turn: 1, Index: i, Values: []int{i + 1}, Result: i + 1, Purpose: g, Time: time.Unix(int64(i), 0)}); err != nil {
						return err
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var got []store.AuditEntry
	for _, g := range []string{"h", "g"} {
		db.Read(ctx, func(tx store.Tx) error { got, err = tx.Audit(g); return err })
		if len(got) != 6 {
			t.Fatalf("Audit(%s) = %d entries, want 6", g, len(got))
		}
		prev := ""
		for i, e := range got {
			if e.Seq != uint64(i+1) || e.Prev != prev || e.Hash != e.ComputeHash() || e.Hash == "" || e.Purpose != g {
				t.Errorf("%s entry %d: seq %d prev %q hash %q (computed %q), want a chain", g, i, e.Seq, e.Prev, e.Hash, e.ComputeHash())
			}
			prev = e.Hash
		}
	}
	changed := got[1]
	changed.Values = []int{6}
	if changed.ComputeHash() == got[1].Hash {
		t.Error("changing a value does not change the hash")
	}
}

func TestWriteRollsBackOnError(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	boom := errors.New("boom")
	err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.MarkProcessed("m1", store.Processed{Outcome: "handled"}); err != nil {
			return err
		}
		if _, err := tx.Enqueue(store.OutMail{MessageID: "x@y", To: []string{"a@b"}}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("Write = %v, want boom", err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		done, _ := tx.Processed("m1")
		out, _ := tx.Outbox()
		if done || len(out) != 0 {
			t.Errorf("after a failed transaction: processed %v, outbox %d; want nothing kept", done, len(out))
		}
		return nil
	})
}

func TestOutboxAndOrders(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	err := db.Write(ctx, func(tx store.Tx) error {
		for _, id := range []string{"a@x", "b@x"} {
			if _, err := tx.Enqueue(store.OutMail{MessageID: id}); err != nil {
				return err
			}
		}
		o := store.Order{Phase: "setup", Side: "us", Key: "plot-1", Text: "PLOT TURN 1 NONE"}
		if err := tx.PutOrder("g", o); err != nil {
			return err
		}
		o.Text = "PLOT TURN 1 4300x3"
		if err := tx.PutOrder("g", o); err != nil { // same key: replaces
			return err
		}
		return tx.PutOrder("g", store.Order{Phase: "setup", Side: "de", Key: "plot-1", Text: "PLOT TURN 1 NONE"})
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Write(ctx, func(tx store.Tx) error {
		mails, _ := tx.Outbox()
		if len(mails) != 2 || mails[0].MessageID != "a@x" || mails[1].Seq != 2 {
			t.Fatalf("Outbox() = %+v, want two mails in order", mails)
		}
		mails[0].Sent = true
		if err := tx.PutOutMail(mails[0]); err != nil {
			t.Fatal(err)
		}
		if err := tx.PutOutMail(store.OutMail{Seq: 99}); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("PutOutMail(unknown) = %v, want ErrNotFound", err)
		}
		orders, _ := tx.Orders("g")
		if len(orders) != 2 {
			t.Fatalf("Orders() = %+v, want 2", orders)
		}
		for _, o := range orders {
			if o.Side == "us" && o.Text != "PLOT TURN 1 4300x3" {
				t.Errorf("replaced order = %q", o.Text)
			}
		}
		if err := tx.DeleteOrder("g", orders[0]); err != nil {
			t.Fatal(err)
		}
		if orders, _ = tx.Orders("g"); len(orders) != 1 {
			t.Errorf("after delete: %d orders", len(orders))
		}
		return nil
	})
	db.Read(ctx, func(tx store.Tx) error {
		mails, _ := tx.Outbox()
		if !mails[0].Sent || mails[1].Sent {
			t.Errorf("sent flags = %v %v", mails[0].Sent, mails[1].Sent)
		}
		if _, err := tx.Game("nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Game(nope) = %v", err)
		}
		return nil
	})
}

func TestCancelledContext(t *testing.T) {
	db, _ := open(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := db.Write(ctx, func(store.Tx) error { t.Error("ran"); return nil }); !errors.Is(err, context.Canceled) {
		t.Errorf("Write(cancelled) = %v", err)
	}
}

func TestSchemaVersionChecked(t *testing.T) {
	db, path := open(t)
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error {
		v := make([]byte, 8)
		binary.BigEndian.PutUint64(v, store.SchemaVersion+1)
		return tx.Bucket([]byte("meta")).Put([]byte("schema"), v)
	})
	b.Close()
	if _, err := store.Open(path); err == nil || !strings.Contains(err.Error(), "schema version") {
		t.Errorf("Open(newer schema) = %v, want a schema version error", err)
	}
}

// TestPendingOutbox: the sender reads only the mails still to send, in order, and an
// outbox from before the index is indexed when opened.
func TestPendingOutbox(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	db.Write(ctx, func(tx store.Tx) error {
		for _, id := range []string{"a@x", "b@x", "c@x", "d@x"} {
			if _, err := tx.Enqueue(store.OutMail{MessageID: id}); err != nil {
				t.Fatal(err)
			}
		}
		mails, _ := tx.Outbox()
		mails[0].Sent = true
		mails[2].Failed = true
		mails[3].Attempts = 2 // retried, still pending
		for _, m := range []store.OutMail{mails[0], mails[2], mails[3]} {
			if err := tx.PutOutMail(m); err != nil {
				t.Fatal(err)
			}
		}
		return nil
	})
	ids := func() []string {
		var out []string
		db.Read(ctx, func(tx store.Tx) error {
			mails, err := tx.PendingHeads()
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range mails {
				out = append(out, m.MessageID)
			}
			return nil
		})
		return out
	}
	if got := strings.Join(ids(), " "); got != "b@x d@x" {
		t.Fatalf("PendingHeads() = %q, want b@x d@x", got)
	}
	// Drop the index, as a file from before it would be, and reopen.
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	b.Update(func(tx *bolt.Tx) error { return tx.DeleteBucket([]byte("outbox-pending")) })
	b.Close()
	db, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if got := strings.Join(ids(), " "); got != "b@x d@x" {
		t.Errorf("after re-indexing, PendingHeads() = %q, want b@x d@x", got)
	}
}

// TestOutboxBodyDeflated: a mail's body comes back as it went in, and the file keeps it
// deflated (the bodies of sent mails are most of a game's file).
func TestOutboxBodyDeflated(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	body := strings.Repeat("== Map ==\n00 ~ 4a      ~ 4a      ~# 4a     ~ 4a\n", 200) + "Ünïcödé — ✓\n"
	db.Write(ctx, func(tx store.Tx) error {
		_, err := tx.Enqueue(store.OutMail{MessageID: "m@x", Body: body})
		return err
	})
	db.Read(ctx, func(tx store.Tx) error {
		all, _ := tx.Outbox()
		pending, _ := tx.PendingHeads()
		var whole store.OutMail
		if len(pending) == 1 {
			whole, _ = tx.OutMailAt(pending[0].Seq)
		}
		if len(all) != 1 || all[0].Body != body || len(pending) != 1 || whole.Body != body {
			t.Errorf("body did not round-trip")
		}
		return nil
	})
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		raw := tx.Bucket([]byte("outbox")).Get([]byte{0, 0, 0, 0, 0, 0, 0, 1})
		if strings.Contains(string(raw), "== Map ==") || len(raw) > len(body)/4 {
			t.Errorf("the stored record is %d bytes for a %d-byte body: not deflated", len(raw), len(body))
		}
		return nil
	})
}

func TestAuditHeadAndHostKey(t *testing.T) {
	db, path := open(t)
	ctx := context.Background()
	var last store.AuditEntry
	err := db.Write(ctx, func(tx store.Tx) error {
		if head, err := tx.AuditHead("g"); err != nil || head.Seq != 0 || head.Hash != "" {
			t.Errorf("AuditHead of an empty chain = %+v, %v; want the zero entry", head, err)
		}
		for i := 0; i < 3; i++ {
			var err error
			if last, err = tx.AppendAudit("g", store.AuditEntry{Kind: "roll", Turn: 1, Index: i, Values: []int{1}, Result: 1}); err != nil {
				return err
			}
		}
		if key, err := tx.HostKey(); err != nil || key != nil {
			t.Errorf("HostKey of a new store = %x, %v; want none", key, err)
		}
		return tx.PutHostKey([]byte("0123456789abcdef0123456789abcdef"))
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	// Both survive a reopening of the file.
	db2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	db2.Read(ctx, func(tx store.Tx) error {
		head, err := tx.AuditHead("g")
		if err != nil || head.Seq != 3 || head.Hash != last.Hash {
			t.Errorf("AuditHead = seq %d hash %s, %v; want seq 3 hash %s", head.Seq, head.Hash, err, last.Hash)
		}
		key, err := tx.HostKey()
		if err != nil || string(key) != "0123456789abcdef0123456789abcdef" {
			t.Errorf("HostKey = %q, %v; want the key stored", key, err)
		}
		return nil
	})
}

// TestPicturesLeaveOnceSent: a mail's pictures, drawn or to be drawn from a view, are
// stored until it is sent (or given up), through its retries, then dropped; its text
// stays for replay. A view is kept deflated: the record is smaller than the view.
func TestPicturesLeaveOnceSent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	var m store.OutMail
	view := []byte(`{"v":1,"title":"` + strings.Repeat("a map view ", 2000) + `"}`)
	if err := db.Write(ctx, func(tx store.Tx) error {
		m, err = tx.Enqueue(store.OutMail{To: []string{"p@example.org"}, Subject: "s", Body: "the text", Kind: "results",
			Pictures: []store.Picture{{Name: "map.png", Alt: "the map", PNG: []byte("\x89PNG fake")},
				{Name: "view.png", Alt: "the view", View: view, Before: "== Map =="}}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	read := func() store.OutMail {
		var got store.OutMail
		db.Read(ctx, func(tx store.Tx) error {
			got, err = tx.OutMailAt(m.Seq)
			return err
		})
		return got
	}
	pending := func(when string) {
		t.Helper()
		got := read()
		if len(got.Pictures) != 2 || string(got.Pictures[0].PNG) != "\x89PNG fake" || got.Pictures[0].View != nil ||
			!bytes.Equal(got.Pictures[1].View, view) || got.Pictures[1].PNG != nil || got.Pictures[1].Name != "view.png" || got.Pictures[1].Before != "== Map ==" {
			t.Fatalf("%s: pictures %+v, want the two queued", when, got.Pictures)
		}
	}
	pending("pending mail")
	// The record as the file has it.
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	var raw []byte
	b.View(func(tx *bolt.Tx) error {
		raw = append(raw, tx.Bucket([]byte("outbox")).Get(binary.BigEndian.AppendUint64(nil, m.Seq))...)
		return nil
	})
	b.Close()
	if db, err = store.Open(path); err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if len(raw) == 0 || len(raw) >= len(view) {
		t.Errorf("the stored mail is %d bytes, its view alone %d: the view is not deflated", len(raw), len(view))
	}
	m.Attempts = 1 // a retry: the body is kept as it was, the pictures too
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.PutOutMail(m) }); err != nil {
		t.Fatal(err)
	}
	pending("after a retry")
	m.Sent = true
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.PutOutMail(m) }); err != nil {
		t.Fatal(err)
	}
	if got := read(); len(got.Pictures) != 0 || got.Body != "the text" {
		t.Errorf("sent mail: %d pictures, body %q; want none and the text", len(got.Pictures), got.Body)
	}
}

// TestOrdersInWriteAfterChanges: within a write transaction, Orders after PutOrder and
// DeleteOrder (kept by the transaction, not read again) gives what a read of the
// committed store gives: the same orders, times and order (filing time, then key).
func TestOrdersInWriteAfterChanges(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	t0 := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	ord := func(phase, side, key string, at time.Time) store.Order {
		return store.Order{Phase: phase, Side: side, Key: key, Kind: "k", Text: phase + side + key, Filed: at}
	}
	if err := db.Write(ctx, func(tx store.Tx) error {
		for _, o := range []store.Order{ord("2", "us", "b", t0), ord("1", "us", "a", t0), ord("1", "de", "z", t0.Add(-time.Hour))} {
			if err := tx.PutOrder("g", o); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	later := t0.Add(time.Minute).In(time.FixedZone("CET", 3600)) // read back as decoded
	steps := []func(tx store.Tx) error{
		func(tx store.Tx) error { return tx.PutOrder("g", ord("0", "us", "c", t0)) },             // same time: by key
		func(tx store.Tx) error { return tx.PutOrder("g", ord("1", "de", "z", later)) },          // replaced: moves last
		func(tx store.Tx) error { return tx.DeleteOrder("g", ord("2", "us", "b", time.Time{})) }, // deleted
		func(tx store.Tx) error { return tx.PutOrder("g", ord("3", "us", "a", t0.Add(-time.Minute))) },
		func(tx store.Tx) error { return tx.PutOrder("h", ord("1", "us", "a", t0)) }, // another game
	}
	for n := range steps {
		var inTx []store.Order
		if err := db.Write(ctx, func(tx store.Tx) error {
			if _, err := tx.Orders("g"); err != nil { // read first: later reads are kept
				return err
			}
			if err := steps[n](tx); err != nil {
				return err
			}
			var err error
			inTx, err = tx.Orders("g")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		var read []store.Order
		if err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			read, err = tx.Orders("g")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(inTx) != fmt.Sprint(read) {
			t.Errorf("step %d: in the transaction\n%v\nread after it\n%v", n, inTx, read)
		}
	}
}

// TestSeedsInWriteAfterChanges: within a write transaction, Seeds after PutSeed (kept by
// the transaction) gives what a read of the committed store gives, in key order (the
// deck seed's turn, -1, last).
func TestSeedsInWriteAfterChanges(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var inTx, read []store.Seed
	err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.PutSeed("g", store.Seed{Turn: 1, Secret: "s1", Commitment: "c1"}); err != nil {
			return err
		}
		if _, err := tx.Seeds("g"); err != nil { // read: later reads are kept
			return err
		}
		for _, s := range []store.Seed{
			{Turn: store.DeckSeedTurn, Secret: "deck", Commitment: "cd"},
			{Turn: 2, Secret: "s2", Commitment: "c2"},
			{Turn: 1, Secret: "s1", Commitment: "c1", Revealed: true}, // replaced
			{Turn: 0, Secret: "s0", Commitment: "c0"},
		} {
			if err := tx.PutSeed("g", s); err != nil {
				return err
			}
		}
		var err error
		inTx, err = tx.Seeds("g")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Read(ctx, func(tx store.Tx) (err error) { read, err = tx.Seeds("g"); return err }); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(inTx) != fmt.Sprint(read) || len(read) != 4 || read[3].Turn != store.DeckSeedTurn || !read[1].Revealed {
		t.Errorf("in the transaction\n%v\nread after it\n%v", inTx, read)
	}
}

// TestPlayerPictureChoice: a player's SET PICTURE choice has three states, the default
// being pictures; the two-state fields of earlier stores are read as explicit choices.
func TestPlayerPictureChoice(t *testing.T) {
	for _, tt := range []struct {
		json   string
		choice string
		on     bool
	}{
		{`{"side":"us"}`, "", true},
		{`{"side":"us","picture_choice":"off"}`, "off", false},
		{`{"side":"us","picture_choice":"on"}`, "on", true},
		{`{"side":"us","picture":true}`, "on", true},      // opt-in stores: SET PICTURE ON
		{`{"side":"us","no_picture":true}`, "off", false}, // the first stores: SET PICTURE OFF
		{`{"side":"us","picture_choice":"off","picture":true}`, "off", false},
	} {
		var p store.Player
		if err := json.Unmarshal([]byte(tt.json), &p); err != nil {
			t.Fatalf("%s: %v", tt.json, err)
		}
		if p.Picture != tt.choice || p.Pictures() != tt.on || p.Side != "us" {
			t.Errorf("%s: choice %q, pictures %v, side %q; want %q, %v", tt.json, p.Picture, p.Pictures(), p.Side, tt.choice, tt.on)
		}
		out, err := json.Marshal(p)
		if err != nil {
			t.Fatal(err)
		}
		var again store.Player
		if err := json.Unmarshal(out, &again); err != nil || again != p {
			t.Errorf("%s: written as %s, read back as %+v (%v)", tt.json, out, again, err)
		}
	}
}

// TestPendingHeads: the sender's view of the pending outbox has every field but the
// body and pictures, and a delivery record written back from a head leaves the text
// and pictures as stored (masked and dropped once the mail is sent, as PutOutMail).
func TestPendingHeads(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	pic := store.Picture{Name: "map-us.png", Alt: "the map", View: []byte("view bytes")}
	var inv, res store.OutMail
	err := db.Write(ctx, func(tx store.Tx) error {
		var err error
		inv, err = tx.Enqueue(store.OutMail{MessageID: "inv@x", To: []string{"a@x"}, Subject: "invitation", Body: "Your password: hunter2-xyz\n", Kind: "invitation", Redact: []string{"hunter2-xyz"}})
		if err != nil {
			return err
		}
		res, err = tx.Enqueue(store.OutMail{MessageID: "res@x", To: []string{"a@x"}, Subject: "results", Body: "The map\n", Kind: "results", Pictures: []store.Picture{pic}})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	var heads []store.OutMail
	db.Read(ctx, func(tx store.Tx) error {
		heads, err = tx.PendingHeads()
		return err
	})
	if err != nil || len(heads) != 2 {
		t.Fatalf("PendingHeads() = %d mails, %v; want 2", len(heads), err)
	}
	for i, want := range []store.OutMail{inv, res} {
		h := heads[i]
		if h.Body != "" || h.Pictures != nil {
			t.Errorf("head %d carries its body %q or pictures %v", i, h.Body, h.Pictures)
		}
		if h.Seq != want.Seq || h.MessageID != want.MessageID || h.Subject != want.Subject || h.Kind != want.Kind || !slices.Equal(h.Redact, want.Redact) {
			t.Errorf("head %d = %+v, want the fields of %+v", i, h, want)
		}
	}
	// A refusal recorded on the results mail's head: text and picture stay.
	retry := heads[1]
	retry.Attempts, retry.LastError, retry.NextAttempt = 1, "451 later", time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	sent := heads[0]
	sent.Sent, sent.Attempts, sent.SentAt = true, 1, time.Date(2026, 11, 27, 11, 0, 0, 0, time.UTC)
	if err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.PutDelivery(retry); err != nil {
			return err
		}
		return tx.PutDelivery(sent)
	}); err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		got, err := tx.OutMailAt(res.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if got.Body != "The map\n" || len(got.Pictures) != 1 || string(got.Pictures[0].View) != "view bytes" || got.Attempts != 1 || got.LastError != "451 later" || !got.NextAttempt.Equal(retry.NextAttempt) {
			t.Errorf("after PutDelivery of a refusal: %+v", got)
		}
		got, err = tx.OutMailAt(inv.Seq)
		if err != nil {
			t.Fatal(err)
		}
		if !got.Sent || !got.SentAt.Equal(sent.SentAt) || strings.Contains(got.Body, "hunter2") || !strings.Contains(got.Body, store.Redacted) {
			t.Errorf("after PutDelivery of a sent invitation: sent %v, body %q", got.Sent, got.Body)
		}
		pending, _ := tx.PendingHeads()
		if len(pending) != 1 || pending[0].Seq != res.Seq {
			t.Errorf("pending after the invitation was sent: %+v", pending)
		}
		return nil
	})
}

// TestSealedGroup: the commitments of one mail's sealed orders are kept once, by game
// and group commitment, and read back in their order; an unknown group reads as none.
func TestSealedGroup(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	list := []string{strings.Repeat("a", 64), strings.Repeat("b", 64), strings.Repeat("c", 64)}
	if err := db.Write(ctx, func(tx store.Tx) error { return tx.PutSealedGroup("g1", "group-1", list) }); err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		got, err := tx.SealedGroup("g1", "group-1")
		if err != nil || !slices.Equal(got, list) {
			t.Errorf("SealedGroup = %v, %v; want %v", got, err, list)
		}
		if got, err := tx.SealedGroup("g1", "group-2"); err != nil || got != nil {
			t.Errorf("an unknown group: %v, %v; want none", got, err)
		}
		if got, err := tx.SealedGroup("g2", "group-1"); err != nil || got != nil {
			t.Errorf("another game's group: %v, %v; want none", got, err)
		}
		return nil
	})
}

// TestEnqueuedMailsReadInTheirTransaction: mails enqueued in a write transaction have
// their records made on other goroutines; every read of the outbox in that same
// transaction, and the commit, see all of them, in order and whole. A transaction that
// fails leaves none of them.
func TestEnqueuedMailsReadInTheirTransaction(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	body := func(i int) string {
		return fmt.Sprintf("mail %d\n", i) + strings.Repeat(fmt.Sprintf("line of mail %d\n", i), 50*i)
	}
	const n = 40
	err := db.Write(ctx, func(tx store.Tx) error {
		for i := range n {
			m, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@x", i), Body: body(i), Pictures: []store.Picture{{Name: "p.png", View: []byte(body(i))}}})
			if err != nil {
				return err
			}
			if i == 7 {
				// A read between enqueues sees every mail enqueued before it.
				got, err := tx.OutMailAt(m.Seq)
				if err != nil || got.Body != body(i) {
					t.Errorf("OutMailAt(%d) in its transaction = %q, %v", m.Seq, got.Body, err)
				}
				all, err := tx.Outbox()
				if err != nil || len(all) != 8 {
					t.Errorf("Outbox after 8 enqueues = %d mails, %v", len(all), err)
				}
			}
		}
		heads, err := tx.PendingHeads()
		if err != nil || len(heads) != n {
			t.Errorf("PendingHeads in the transaction = %d, %v; want %d", len(heads), err, n)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	err = db.Write(ctx, func(tx store.Tx) error {
		for i := range 5 {
			if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("lost%d@x", i), Body: body(i)}); err != nil {
				return err
			}
		}
		return errors.New("the handling failed")
	})
	if err == nil {
		t.Fatal("a failed transaction returned no error")
	}
	db.Read(ctx, func(tx store.Tx) error {
		all, err := tx.Outbox()
		if err != nil || len(all) != n {
			t.Fatalf("outbox after commit = %d mails, %v; want %d", len(all), err, n)
		}
		for i, m := range all {
			if m.MessageID != fmt.Sprintf("m%d@x", i) || m.Body != body(i) || m.Seq != uint64(i+1) ||
				len(m.Pictures) != 1 || string(m.Pictures[0].View) != body(i) {
				t.Errorf("mail %d = %s seq %d, body %d bytes; want m%d@x seq %d, %d bytes", i, m.MessageID, m.Seq, len(m.Body), i, i+1, len(body(i)))
			}
		}
		return nil
	})
}

// TestLastOutMail: the latest mail a head matches is given whole, also one enqueued in
// the same transaction; no match is not an error.
func TestLastOutMail(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	err := db.Write(ctx, func(tx store.Tx) error {
		for i, side := range []string{"us", "de", "us", "de", "de"} {
			if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@x", i), Game: "g", Side: side, Kind: "results", Body: fmt.Sprintf("body %d", i)}); err != nil {
				return err
			}
		}
		m, found, err := tx.LastOutMail(func(h store.OutMail) bool {
			if h.Body != "" {
				t.Errorf("the head of %s has its body", h.MessageID)
			}
			return h.Side == "us"
		})
		if err != nil || !found || m.MessageID != "m2@x" || m.Body != "body 2" {
			t.Errorf("LastOutMail(us) = %s %q, %v, %v; want m2@x whole", m.MessageID, m.Body, found, err)
		}
		if _, found, err := tx.LastOutMail(func(h store.OutMail) bool { return h.Side == "fr" }); found || err != nil {
			t.Errorf("LastOutMail(fr) = %v, %v; want none", found, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestSchema2MarkedAsSchema3: a store of schema 2 opens as schema 3 (a program of
// schema 2 then refuses it rather than fail on records it cannot read), with its
// records as they were.
func TestSchema2MarkedAsSchema3(t *testing.T) {
	db, path := open(t)
	if err := db.Write(context.Background(), func(tx store.Tx) error {
		return tx.PutGame(store.Game{Name: "g", Ruleset: "soldiers1918", State: json.RawMessage(`{"turn":1}`)})
	}); err != nil {
		t.Fatal(err)
	}
	db.Close()
	schema := func(set uint64) (got uint64) {
		b, err := bolt.Open(path, 0o600, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		b.Update(func(tx *bolt.Tx) error {
			meta := tx.Bucket([]byte("meta"))
			if set != 0 {
				meta.Put([]byte("schema"), binary.BigEndian.AppendUint64(nil, set))
			}
			got = binary.BigEndian.Uint64(meta.Get([]byte("schema")))
			return nil
		})
		return got
	}
	schema(2)
	db, err := store.Open(path)
	if err != nil {
		t.Fatalf("Open(schema 2) = %v", err)
	}
	db.Read(context.Background(), func(tx store.Tx) error {
		if g, err := tx.Game("g"); err != nil || string(g.State) != `{"turn":1}` {
			t.Errorf("game g of schema 2 reads %s, %v", g.State, err)
		}
		return nil
	})
	db.Close()
	if got := schema(0); got != 3 || store.SchemaVersion != 3 {
		t.Errorf("schema %d after opening a store of schema 2, want 3 (SchemaVersion %d)", got, store.SchemaVersion)
	}
}
