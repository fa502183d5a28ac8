package mail_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// countingStore counts write transactions.
type countingStore struct {
	store.Store
	writes atomic.Int64
}

func (c *countingStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	c.writes.Add(1)
	return c.Store.Write(ctx, fn)
}

// TestSenderSentLog: with a sent log, a pass marks its accepted mails in one
// transaction at its end (not one per mail), and the log is empty after it; marks a
// crash left in the log (accepted, never committed) are committed before the next
// pass, so those mails are not sent again; and when the store cannot be written at
// the end of a pass, the marks stay in the log and no mail goes out twice.
func TestSenderSentLog(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	flaky := &sendFlakyStore{Store: db}
	var logs smtpLockedBuffer
	s := newTestSender(t, k, flaky, newSendClock(), &logs)
	sl, err := store.OpenSentLog(filepath.Join(t.TempDir(), "games.db.sent"))
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	s.SentLog = sl

	var queued []store.OutMail
	for i := range 5 {
		queued = append(queued, sendEnqueue(t, db, sendMail("m-"+string(rune('1'+i))+"@adjutant.example", "a@example.org", "g1", "text\n"))...)
	}
	counting := &countingStore{Store: flaky}
	s.Store = counting
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 5 || failed != 0 || err != nil {
		t.Fatalf("DrainOnce = %d, %d, %v", sent, failed, err)
	}
	if n := counting.writes.Load(); n != 1 {
		t.Errorf("%d write transactions for a pass of 5 mails, want 1", n)
	}
	box := sendOutbox(t, db)
	for _, q := range queued {
		if !box[q.Seq].Sent {
			t.Errorf("mail %d not marked sent after the pass", q.Seq)
		}
	}
	if marks, _ := sl.Marks(); len(marks) != 0 {
		t.Errorf("the log holds %d marks after the pass, want none", len(marks))
	}

	// A crash after the server took mail 6 and the log noted it, before the commit.
	six := sendEnqueue(t, db, sendMail("m-6@adjutant.example", "b@example.org", "g1", "six\n"))[0]
	if err := sl.Append(six.Seq, newSendClock().Now()); err != nil {
		t.Fatal(err)
	}
	if sent, _, err := s.DrainOnce(t.Context()); sent != 0 || err != nil {
		t.Fatalf("DrainOnce after the crash = %d sent, %v; want 0: mail 6 was already taken", sent, err)
	}
	if !sendOutbox(t, db)[six.Seq].Sent {
		t.Error("mail 6 not marked sent from the log")
	}

	// The store fails at the end of a pass: the mark waits in the log.
	seven := sendEnqueue(t, db, sendMail("m-7@adjutant.example", "b@example.org", "g1", "seven\n"))[0]
	s.Store = flaky // no write is needed to send with a log: only the commit at the end fails
	flaky.failWrites.Store(true)
	if _, _, err := s.DrainOnce(t.Context()); err == nil || !strings.Contains(err.Error(), "mark 1 mails sent") {
		t.Fatalf("DrainOnce with a store failing at the end = %v, want the marking error", err)
	}
	if marks, _ := sl.Marks(); len(marks) != 1 || marks[0].Seq != seven.Seq {
		t.Errorf("log after the failed commit: %v, want mail 7's mark", marks)
	}
	flaky.failWrites.Store(false)
	if sent, _, err := s.DrainOnce(t.Context()); sent != 0 || err != nil {
		t.Fatalf("DrainOnce after recovery = %d, %v; want nothing sent again", sent, err)
	}
	ids := sendMessageIDs(t, k.received())
	want := []string{"<m-1@adjutant.example>", "<m-2@adjutant.example>", "<m-3@adjutant.example>", "<m-4@adjutant.example>", "<m-5@adjutant.example>", "<m-7@adjutant.example>"}
	if !sendEqual(ids, want) {
		t.Errorf("received %q, want %q (each once; mail 6 was taken before the crash)", ids, want)
	}
}
