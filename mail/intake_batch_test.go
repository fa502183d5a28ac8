package mail_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
)

// batchRecorder is a BatchHandler that records the groups it is given and commits
// each delivery unless fail says otherwise.
type batchRecorder struct {
	mu     sync.Mutex
	groups [][]uint32
	got    []mail.Delivery
	fail   func(d mail.Delivery) error
}

func (r *batchRecorder) handle(_ context.Context, ds []mail.Delivery) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var group []uint32
	for _, d := range ds {
		group = append(group, d.UID)
	}
	r.groups = append(r.groups, group)
	for i, d := range ds {
		if r.fail != nil {
			if err := r.fail(d); err != nil {
				return i, err
			}
		}
		r.got = append(r.got, d)
	}
	return len(ds), nil
}

func (r *batchRecorder) uids() []uint32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var uids []uint32
	for _, d := range r.got {
		uids = append(uids, d.UID)
	}
	return uids
}

// TestIntakeBatches: a backlog is handed over in groups of several messages, in UID
// order, each message whole and once, and every committed message is flagged and
// moved; a handler error in the middle of a group leaves that message and the later
// ones unseen and in place, and the next pass goes on from it.
func TestIntakeBatches(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	if err := s.user.Create("Done", nil); err != nil {
		t.Fatal(err)
	}
	const total = 70 // more than two full groups
	var uids []uint32
	for i := range total {
		uids = append(uids, s.append(t, intakeMessage(i+1, fmt.Sprintf("orders %d", i+1)), intakeEpoch.Add(time.Duration(i)*time.Second)))
	}
	errStore := errors.New("store is full")
	failAt := uids[40]
	rec := &batchRecorder{fail: func(d mail.Delivery) error {
		if d.UID == failAt {
			return errStore
		}
		return nil
	}}
	in := newIntake(s, nil)
	in.HandleBatch = rec.handle
	in.Config.MoveTo = "Done"

	n, err := in.Once(ctx)
	if n != 40 || !errors.Is(err, errStore) {
		t.Fatalf("Once() = %d, %v, want 40, %v", n, err, errStore)
	}
	if got, want := fmt.Sprint(rec.uids()), fmt.Sprint(uids[:40]); got != want {
		t.Errorf("handled %s, want %s", got, want)
	}
	if len(rec.groups) < 2 || len(rec.groups[0]) < 2 {
		t.Errorf("groups %v: want the backlog handed over several at a time", rec.groups)
	}
	for _, g := range rec.groups {
		if len(g) > 32 {
			t.Errorf("a group of %d messages: want at most 32", len(g))
		}
	}
	left := s.seen(t, "INBOX")
	if len(left) != total-40 {
		t.Errorf("INBOX holds %d messages after the failed pass, want %d (the failed one and those after it)", len(left), total-40)
	}
	for _, u := range uids[40:] {
		if seen, ok := left[u]; !ok || seen {
			t.Errorf("uid %d: in INBOX %v, seen %v; want there and unseen", u, ok, seen)
		}
	}
	if moved := s.seen(t, "Done"); len(moved) != 40 {
		t.Errorf("Done holds %d messages, want the 40 committed", len(moved))
	}

	rec.fail = nil
	if n, err := in.Once(ctx); n != total-40 || err != nil {
		t.Fatalf("second Once() = %d, %v, want %d, nil", n, err, total-40)
	}
	if got, want := fmt.Sprint(rec.uids()), fmt.Sprint(uids); got != want {
		t.Errorf("handled %s, want %s", got, want)
	}
	for i, d := range rec.got {
		if want := fmt.Sprintf("orders %d", i+1); !bytes.Contains(d.Raw, []byte(want)) {
			t.Errorf("delivery %d (uid %d) lacks its body %q", i, d.UID, want)
		}
	}
	if left := s.seen(t, "INBOX"); len(left) != 0 {
		t.Errorf("INBOX still holds %v", left)
	}
}

// TestIntakeGroupsSizedToBacklog: a large backlog goes in groups larger than the
// smallest (fewer commits), never above the largest, and its last groups are small
// again, so that the replies to the last mails do not wait behind a big commit.
func TestIntakeGroupsSizedToBacklog(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	const total = 700
	for i := range total {
		s.append(t, intakeMessage(i+1, fmt.Sprintf("orders %d", i+1)), intakeEpoch.Add(time.Duration(i)*time.Second))
	}
	rec := &batchRecorder{}
	in := newIntake(s, nil)
	in.HandleBatch = rec.handle
	if n, err := in.Once(ctx); n != total || err != nil {
		t.Fatalf("Once() = %d, %v, want %d, nil", n, err, total)
	}
	sizes := make([]int, len(rec.groups))
	for i, g := range rec.groups {
		sizes[i] = len(g)
	}
	if sizes[0] <= 32 || sizes[0] > 128 {
		t.Errorf("group sizes %v: want the first group of a backlog of %d larger than 32, at most 128", sizes, total)
	}
	for _, n := range sizes {
		if n > 128 {
			t.Errorf("group sizes %v: want none above 128", sizes)
			break
		}
	}
	if last := sizes[len(sizes)-1]; last > 32 {
		t.Errorf("group sizes %v: want the last group at most 32", sizes)
	}
	if len(rec.uids()) != total {
		t.Errorf("handled %d messages, want %d", len(rec.uids()), total)
	}
}

// TestIntakeFetchesAheadOfHandler: while the handler works on one group, the next
// group is already being fetched: the handler of the first group waits until the
// server has received the second group's FETCH, which without fetching ahead never
// comes (the intake would wait for the handler first).
func TestIntakeFetchesAheadOfHandler(t *testing.T) {
	ctx := intakeCtx(t)
	s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
	const total = 70 // three groups
	for i := range total {
		s.append(t, intakeMessage(i+1, fmt.Sprintf("orders %d", i+1)), intakeEpoch.Add(time.Duration(i)*time.Second))
	}
	rec := &batchRecorder{}
	first := true
	ahead := false
	in := newIntake(s, nil)
	in.HandleBatch = func(ctx context.Context, ds []mail.Delivery) (int, error) {
		if first {
			first = false
			// One FETCH of sizes, one of the first group's bodies, one of the second's.
			for s.ln.fetches.Load() < 3 && ctx.Err() == nil {
				time.Sleep(time.Millisecond)
			}
			ahead = s.ln.fetches.Load() >= 3
		}
		return rec.handle(ctx, ds)
	}
	// The handler's context is not cancelled by ctx (the intake never abandons a
	// handler): it ends the wait on a deadline of its own.
	wait, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	in.HandleBatch = wrapCtx(wait, in.HandleBatch)
	if n, err := in.Once(ctx); n != total || err != nil {
		t.Fatalf("Once() = %d, %v, want %d, nil", n, err, total)
	}
	if !ahead {
		t.Errorf("the second group was not fetched while the first was handled (%d FETCH commands by then)", s.ln.fetches.Load())
	}
	if got, want := len(rec.uids()), total; got != want {
		t.Errorf("handled %d messages, want %d", got, want)
	}
}

// wrapCtx hands h the context ctx instead of the intake's.
func wrapCtx(ctx context.Context, h mail.BatchHandler) mail.BatchHandler {
	return func(_ context.Context, ds []mail.Delivery) (int, error) { return h(ctx, ds) }
}
