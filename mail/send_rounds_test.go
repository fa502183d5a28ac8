package mail_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// hookedStore runs after(n) once the n-th write transaction has committed, before the
// store is used again.
type hookedStore struct {
	store.Store
	mu     sync.Mutex
	writes int
	after  func(n int)
}

func (h *hookedStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	err := h.Store.Write(ctx, fn)
	h.mu.Lock()
	h.writes++
	n := h.writes
	h.mu.Unlock()
	if h.after != nil {
		h.after(n)
	}
	return err
}

func sendBacklog(n int, prefix string) []store.OutMail {
	mails := make([]store.OutMail, n)
	for i := range mails {
		mails[i] = sendMail(fmt.Sprintf("%s-%d@adjutant.example", prefix, i), fmt.Sprintf("p%d@example.org", i), "g1", "backlog\n")
		mails[i].Kind = "invitation"
	}
	return mails
}

// TestSentLogFoldInShortTransactions: folding many sent marks (a backlog's) commits them
// in several short transactions, so that another write (the intake's) goes through in
// the middle of the fold instead of waiting for all of them (issue 23).
func TestSentLogFoldInShortTransactions(t *testing.T) {
	db := sendOpenStore(t)
	const n = 700
	queued := sendEnqueue(t, db, sendBacklog(n, "fold")...)
	sl, err := store.OpenSentLog(filepath.Join(t.TempDir(), "games.db.sent"))
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	for _, m := range queued {
		if err := sl.Append(m.Seq, newSendClock().Now()); err != nil {
			t.Fatal(err)
		}
	}
	pendingMid := -1
	hooked := &hookedStore{Store: db, after: func(k int) {
		if k != 1 {
			return
		}
		// The intake's write, after the fold's first commit and before its next.
		if err := db.Write(t.Context(), func(tx store.Tx) error {
			p, err := tx.PendingHeads()
			pendingMid = len(p)
			if err != nil {
				return err
			}
			return tx.PutThrottle("x@example.org", store.Throttle{Count: 1})
		}); err != nil {
			t.Error(err)
		}
	}}
	s := newTestSender(t, newSMTPSink(t, nil), hooked, newSendClock(), nil)
	s.SentLog = sl
	if err := s.FoldSentLog(t.Context()); err != nil {
		t.Fatal(err)
	}
	if pendingMid <= 0 || pendingMid >= n {
		t.Errorf("a write between the fold's first transaction and the rest saw %d of %d mails pending: the fold was not split", pendingMid, n)
	}
	if p := sendPending(t, db); p != 0 {
		t.Errorf("%d mails still pending after the fold", p)
	}
	if marks, _ := sl.Marks(); len(marks) != 0 {
		t.Errorf("the log holds %d marks after the fold", len(marks))
	}
}

func sendPending(t *testing.T, db store.Store) int {
	t.Helper()
	var n int
	if err := db.Read(t.Context(), func(tx store.Tx) error {
		p, err := tx.PendingHeads()
		n = len(p)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestSenderFreshMailJumpsBacklog: a mail queued while a pass is sending a backlog
// longer than a round (a player's answer, behind a host's 450 invitations) goes out in
// the next round of the same pass, ahead of the rest of the backlog, and every mail is
// sent once, and every mail is marked sent when the pass ends.
func TestSenderFreshMailJumpsBacklog(t *testing.T) {
	for _, withLog := range []bool{true, false} {
		t.Run(fmt.Sprintf("sentlog=%v", withLog), func(t *testing.T) {
			db := sendOpenStore(t)
			var once sync.Once
			k := newSMTPSink(t, func(k *smtpSink) {
				k.onData = func(int, smtpGot) {
					// Once the server has the pass's first mail.
					once.Do(func() {
						reply := sendMail("reply@adjutant.example", "p7@example.org", "g1", "order check\n")
						reply.Kind, reply.AutoReplied = "reply", true
						sendEnqueue(t, db, reply)
					})
				}
			})
			const n = 450
			sendEnqueue(t, db, sendBacklog(n, "inv")...)
			s := newTestSender(t, k, db, newSendClock(), nil)
			if withLog {
				sl, err := store.OpenSentLog(filepath.Join(t.TempDir(), "games.db.sent"))
				if err != nil {
					t.Fatal(err)
				}
				defer sl.Close()
				s.SentLog = sl
			}
			sent, failed, err := s.DrainOnce(t.Context())
			if sent != n+1 || failed != 0 || err != nil {
				t.Fatalf("DrainOnce = %d, %d, %v; want %d sent", sent, failed, err, n+1)
			}
			ids := sendMessageIDs(t, k.received())
			at := slices.Index(ids, "<reply@adjutant.example>")
			if at < 0 || at > 2*200 {
				t.Errorf("the reply queued during the pass went out as mail %d of %d, want within the next round (by 400)", at, len(ids))
			}
			seen := map[string]bool{}
			for _, id := range ids {
				if seen[id] {
					t.Errorf("%s sent twice", id)
				}
				seen[id] = true
			}
			if p := sendPending(t, db); p != 0 {
				t.Errorf("%d mails pending after the pass", p)
			}
		})
	}
}

// TestSenderSendsWhileWriteLockHeld: while another writer (the intake's group, a second
// or more in a burst) holds the store's write lock, the pass goes on sending round after
// round: its sent marks are committed beside it, once the lock is free, and the pass
// ends only when they are, every mail marked sent once.
func TestSenderSendsWhileWriteLockHeld(t *testing.T) {
	db := sendOpenStore(t)
	const n = 450 // three rounds
	sendEnqueue(t, db, sendBacklog(n, "locked")...)
	var accepted atomic.Int32
	k := newSMTPSink(t, func(k *smtpSink) {
		k.onData = func(int, smtpGot) { accepted.Add(1) }
	})
	s := newTestSender(t, k, db, newSendClock(), nil)
	sl, err := store.OpenSentLog(filepath.Join(t.TempDir(), "games.db.sent"))
	if err != nil {
		t.Fatal(err)
	}
	defer sl.Close()
	s.SentLog = sl

	// Another writer takes the lock and keeps it until every mail has reached the server,
	// or a generous while has gone by (then the pass waited for it: the test fails).
	locked, release := make(chan struct{}), make(chan struct{})
	go db.Write(context.Background(), func(store.Tx) error {
		close(locked)
		<-release
		return nil
	})
	<-locked
	type result struct {
		sent, failed int
		err          error
	}
	done := make(chan result, 1)
	go func() {
		sent, failed, err := s.DrainOnce(context.Background())
		done <- result{sent, failed, err}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for accepted.Load() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	got := accepted.Load()
	close(release)
	if got < n {
		t.Errorf("the server had %d of %d mails while another writer held the store's lock: the pass waited for it", got, n)
	}
	r := <-done
	if r.sent != n || r.failed != 0 || r.err != nil {
		t.Fatalf("DrainOnce = %d, %d, %v; want %d, 0, nil", r.sent, r.failed, r.err, n)
	}
	if p := sendPending(t, db); p != 0 {
		t.Errorf("%d mails pending after the pass", p)
	}
	if marks, _ := sl.Marks(); len(marks) != 0 {
		t.Errorf("the log holds %d marks after the pass", len(marks))
	}
	if ids := sendMessageIDs(t, k.received()); len(ids) != n {
		t.Errorf("the server received %d mails, want %d", len(ids), n)
	}
}

// TestSenderReadsRoundNotBacklog: a pass reads its backlog a round at a time: before
// it sends its first mail it has allocated as much with a backlog of 2,000 mails as
// with one of 10,000 (issue 23: serve's first pass read and held the heads of 20,000
// invitations at once, and copied them at every round).
func TestSenderReadsRoundNotBacklog(t *testing.T) {
	allocated := func() int64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return int64(ms.TotalAlloc)
	}
	// firstMail is what a pass over a backlog of n mails allocates until it sends its
	// first.
	firstMail := func(n int) int64 {
		db := sendOpenStore(t)
		enqueue := func() { sendEnqueue(t, db, sendBacklog(n, "held")...) }
		enqueue()
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		var once sync.Once
		var during int64
		k := newSMTPSink(t, func(k *smtpSink) {
			k.onData = func(int, smtpGot) {
				once.Do(func() {
					during = allocated()
					cancel() // the rest is not needed: the pass stops, its mails left as they were
				})
			}
		})
		s := newTestSender(t, k, db, newSendClock(), nil)
		before := allocated()
		if _, _, err := s.DrainOnce(ctx); !errors.Is(err, context.Canceled) {
			t.Fatalf("DrainOnce over %d mails: %v; want the pass cancelled at its first mail", n, err)
		}
		return during - before
	}
	small, large := firstMail(2000), firstMail(10000)
	// A head decoded is a few hundred bytes: 8,000 more of them would be 3 MB and more.
	if more := large - small; more > 1<<20 {
		t.Errorf("until its first mail a pass allocated %d bytes over a backlog of 10,000 mails, %d over 2,000: %d more, want under 1 MB", large, small, more)
	}
}
