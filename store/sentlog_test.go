package store_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestSentLog: marks written are read back in order; a record cut short (a power
// loss in the middle of a write) or corrupted ends the list; Reset empties it; and the
// marks survive closing the file without any sync (a killed process).
func TestSentLog(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db.sent")
	l, err := store.OpenSentLog(path)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 23, 10, 0, 0, 123, time.UTC)
	for seq := uint64(1); seq <= 3; seq++ {
		if err := l.Append(seq, at.Add(time.Duration(seq)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	l.Close()
	l, err = store.OpenSentLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	marks, err := l.Marks()
	if err != nil || len(marks) != 3 {
		t.Fatalf("Marks() = %v, %v; want 3", marks, err)
	}
	for i, m := range marks {
		if m.Seq != uint64(i+1) || !m.At.Equal(at.Add(time.Duration(i+1)*time.Second)) {
			t.Errorf("mark %d = %+v", i, m)
		}
	}

	// A torn fourth record: the three before it stand.
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.Write([]byte{0, 0, 0, 0, 0, 0, 0, 9, 1, 2})
	f.Close()
	if marks, _ := l.Marks(); len(marks) != 3 {
		t.Errorf("after a torn record: %d marks, want 3", len(marks))
	}
	// A flipped bit in the second record ends the list after the first.
	raw, _ := os.ReadFile(path)
	raw[20+7] ^= 1
	os.WriteFile(path, raw, 0o600)
	if marks, _ := l.Marks(); len(marks) != 1 || marks[0].Seq != 1 {
		t.Errorf("after a corrupt second record: %v, want only the first", marks)
	}
	if err := l.Reset(); err != nil {
		t.Fatal(err)
	}
	if marks, _ := l.Marks(); len(marks) != 0 {
		t.Errorf("after Reset: %v", marks)
	}
	if err := l.Append(7, at); err != nil {
		t.Fatal(err)
	}
	if marks, _ := l.Marks(); len(marks) != 1 || marks[0].Seq != 7 {
		t.Errorf("an append after Reset: %v, want mail 7 alone", marks)
	}
}

// TestFoldSentMarks: folding marks sends the mails they name (out of the pending
// outbox, sent at the mark's time); folding them again, or a mark of an unknown mail,
// changes nothing.
func TestFoldSentMarks(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var a, b store.OutMail
	db.Write(ctx, func(tx store.Tx) error {
		a, _ = tx.Enqueue(store.OutMail{To: []string{"a@example.org"}, Subject: "a", Body: "body a", Kind: "reply"})
		b, _ = tx.Enqueue(store.OutMail{To: []string{"b@example.org"}, Subject: "b", Body: "body b", Kind: "reply"})
		return nil
	})
	at := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	marks := []store.SentMark{{Seq: a.Seq, At: at}, {Seq: 999, At: at}}
	for round := 0; round < 2; round++ {
		var n int
		if err := db.Write(ctx, func(tx store.Tx) error {
			var err error
			n, err = store.FoldSentMarks(tx, marks)
			return err
		}); err != nil {
			t.Fatal(err)
		}
		if want := 1 - round; n != want {
			t.Errorf("round %d: %d marked, want %d", round, n, want)
		}
	}
	db.Read(ctx, func(tx store.Tx) error {
		pending, _ := tx.PendingHeads()
		if len(pending) != 1 || pending[0].Seq != b.Seq {
			t.Errorf("pending %v, want only mail b", pending)
		}
		got, _ := tx.OutMailAt(a.Seq)
		if !got.Sent || !got.SentAt.Equal(at) || got.Attempts != 1 || got.Body != "body a" {
			t.Errorf("mail a after the fold: %+v", got)
		}
		return nil
	})
}

// TestMarkSentRedacts: marking an invitation sent through the fast path still
// removes its password from the stored body, as PutOutMail does (issue 9).
func TestMarkSentRedacts(t *testing.T) {
	db, _ := open(t)
	ctx := context.Background()
	var inv store.OutMail
	db.Write(ctx, func(tx store.Tx) error {
		inv, _ = tx.Enqueue(store.OutMail{To: []string{"a@example.org"}, Subject: "invitation", Body: "Your password: hunter2-xyz\n", Kind: "invitation", Redact: []string{"hunter2-xyz"}})
		return nil
	})
	if err := db.Write(ctx, func(tx store.Tx) error {
		_, err := store.FoldSentMarks(tx, []store.SentMark{{Seq: inv.Seq, At: time.Unix(1, 0)}})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		got, _ := tx.OutMailAt(inv.Seq)
		if !got.Sent || strings.Contains(got.Body, "hunter2") || !strings.Contains(got.Body, store.Redacted) {
			t.Errorf("invitation after the fold: sent %v, body %q", got.Sent, got.Body)
		}
		return nil
	})
}

// FuzzSentLog: whatever bytes the sent log holds (a torn write, a disk error), reading
// it never panics, and every mark it returns was written whole: appending the same
// marks to a fresh log gives the bytes it was read from, up to the first bad record.
func FuzzSentLog(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, raw []byte) {
		dir := t.TempDir()
		path := filepath.Join(dir, "s.db.sent")
		if err := os.WriteFile(path, raw, 0o600); err != nil {
			t.Fatal(err)
		}
		l, err := store.OpenSentLog(path)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
		marks, err := l.Marks()
		if err != nil {
			t.Fatal(err)
		}
		again, err := store.OpenSentLog(filepath.Join(dir, "again.sent"))
		if err != nil {
			t.Fatal(err)
		}
		defer again.Close()
		for _, m := range marks {
			if err := again.Append(m.Seq, m.At); err != nil {
				t.Fatal(err)
			}
		}
		written, _ := os.ReadFile(filepath.Join(dir, "again.sent"))
		if len(written) > len(raw) || string(written) != string(raw[:len(written)]) {
			t.Errorf("%d marks read from %x do not write back as its first %d bytes: %x", len(marks), raw, len(written), written)
		}
	})
}

// TestMarkSentFlateCost: marking a mail sent costs no inflate or deflate of its body,
// and an invitation's redaction one of each (a fold of 20,000 invitations did two
// inflates and a deflate each, issue 23).
func TestMarkSentFlateCost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		mail   store.OutMail
		budget int64
	}{
		{"plain", store.OutMail{To: []string{"a@example.org"}, Body: strings.Repeat("results\n", 200), Kind: "results"}, 0},
		{"redacted", store.OutMail{To: []string{"a@example.org"}, Body: "Your password: hunter2-xyz\n" + strings.Repeat("help\n", 200), Kind: "invitation", Redact: []string{"hunter2-xyz"}}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, _ := open(t)
			ctx := context.Background()
			var m store.OutMail
			db.Write(ctx, func(tx store.Tx) error {
				m, _ = tx.Enqueue(tc.mail)
				return nil
			})
			before := store.CodecCalls()
			if err := db.Write(ctx, func(tx store.Tx) error {
				_, err := tx.MarkSent(m.Seq, time.Unix(1, 0))
				return err
			}); err != nil {
				t.Fatal(err)
			}
			if n := store.CodecCalls() - before; n > tc.budget {
				t.Errorf("MarkSent inflated or deflated %d times, want at most %d", n, tc.budget)
			}
			db.Read(ctx, func(tx store.Tx) error {
				got, _ := tx.OutMailAt(m.Seq)
				want := strings.ReplaceAll(tc.mail.Body, "hunter2-xyz", store.Redacted)
				if !got.Sent || got.Body != want || len(got.Redact) != 0 {
					t.Errorf("after MarkSent: sent %v, redact %v, body as stored %q", got.Sent, got.Redact, got.Body[:40])
				}
				return nil
			})
		})
	}
}
