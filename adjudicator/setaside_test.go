package adjudicator_test

import (
	"context"
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"io/fs"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
	bolterrors "go.etcd.io/bbolt/errors"
)

// faultyStore is a store whose writes of a game fail with fault while it is not nil,
// as a store fails under a bug (an unencodable record) or a full disk.
type faultyStore struct {
	store.Store
	fault error
	game  string // the game whose writes fail; "" for any
}

func (s *faultyStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	return s.Store.Write(ctx, func(tx store.Tx) error { return fn(faultyTx{tx, s.fault, s.game}) })
}

type faultyTx struct {
	store.Tx
	fault error
	game  string
}

func (t faultyTx) PutGame(g store.Game) error {
	if t.fault != nil && (t.game == "" || t.game == g.Name) {
		return fmt.Errorf("put game %s: %w", g.Name, t.fault)
	}
	return t.Tx.PutGame(g)
}

// TestTemporary: the failures that may pass are told from the others.
func TestTemporary(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{errors.New("json: year outside of range [0,9999]"), false},
		{fmt.Errorf("handle: %w", adjudicator.ErrAdjudication), false},
		{fmt.Errorf("put game: %w", store.ErrNotFound), false},
		{fmt.Errorf("open: %w", bolterrors.ErrTimeout), true},
		{bolterrors.ErrDatabaseNotOpen, true},
		{&fs.PathError{Op: "write", Path: "games.db", Err: syscall.ENOSPC}, true},
		{&fs.PathError{Op: "fdatasync", Path: "games.db", Err: syscall.EDQUOT}, true},
		{&net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}, true},
		{fmt.Errorf("write: %w", syscall.EPIPE), true},
		{context.Canceled, true},
		{fmt.Errorf("wait: %w", context.DeadlineExceeded), true},
		{os.ErrDeadlineExceeded, true},
	} {
		if got := adjudicator.Temporary(tc.err); got != tc.want {
			t.Errorf("Temporary(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

// TestSetAsideAnyLastingError: a failure while handling a mail that no retry can mend
// (here the store refusing to write the game, as it did for a date past year 9999)
// answers the sender, records the mail as processed with the error for the host (with
// nothing the mail said: not its password), and the next mail is handled; a temporary
// failure (a full disk, a locked store, a lost connection, a cancelled context) is an
// error, commits nothing, and the same mail is handled once the fault has passed.
func TestSetAsideAnyLastingError(t *testing.T) {
	for _, tc := range []struct {
		name      string
		fault     error
		temporary bool
	}{
		{"unencodable record", errors.New("json: year outside of range [0,9999] after ABSENT UNTIL 9999-12-31 with " + passD), false},
		{"record not found", store.ErrNotFound, false},
		{"full disk", &fs.PathError{Op: "write", Path: "games.db", Err: syscall.ENOSPC}, true},
		{"store locked", bolterrors.ErrTimeout, true},
		{"lost connection", &net.OpError{Op: "read", Net: "tcp", Err: syscall.ECONNRESET}, true},
		{"cancelled", context.Canceled, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, adjudicator.NewGame{})
			faulty := &faultyStore{Store: f.db, fault: tc.fault}
			f.desk.Store = faulty
			snap := f.snapshot()
			n := len(f.outbox())
			poison := adjudicator.Message{ID: "poison@players.example", From: de, Subject: "orders", Text: "GAME g1\nPASSWORD " + passD + "\nABSENT UNTIL 2026-11-23"}
			out, err := f.desk.Handle(context.Background(), poison)
			if f.snapshot() != snap {
				t.Error("the failed mail changed the game")
			}
			if tc.temporary {
				if err == nil || !adjudicator.Temporary(err) || len(f.outbox()) != n {
					t.Fatalf("Handle = %q, %v, %d mails queued; want a temporary error and nothing queued", out, err, len(f.outbox())-n)
				}
				faulty.fault = nil
				if out, err := f.desk.Handle(context.Background(), poison); err != nil || out != adjudicator.Handled {
					t.Errorf("the same mail once the fault passed: %q, %v", out, err)
				}
				return
			}
			if err != nil || !strings.HasPrefix(out, "failed: internal error: put game g1: ") {
				t.Fatalf("Handle = %q, %v; want the mail set aside with the error", out, err)
			}
			mails := f.outbox()[n:]
			if len(mails) != 1 || mails[0].To[0] != de || !strings.Contains(mails[0].Body, "internal error") {
				t.Errorf("reply: %+v", mails)
			}
			if strings.Contains(out, passD) || strings.Contains(f.logs.String(), passD) || !strings.Contains(f.logs.String(), "set aside") {
				t.Errorf("outcome %q or log show the password, or the log says nothing:\n%s", out, f.logs.String())
			}
			var rec bool
			f.db.Read(context.Background(), func(tx store.Tx) error { rec, _ = tx.Processed(poison.ID); return nil })
			if !rec {
				t.Error("the mail set aside is not recorded as processed")
			}
			faulty.fault = nil
			if out, _ := f.orders("us", passU, "STATUS"); out != adjudicator.Handled {
				t.Errorf("the next mail: %q", out)
			}
			if out, err := f.desk.Handle(context.Background(), poison); err != nil || out != adjudicator.Duplicate {
				t.Errorf("the mail set aside, again: %q, %v; want a duplicate", out, err)
			}
		})
	}
}

// TestTickGoesOnPastABrokenGame: a game whose deadline cannot be processed for good
// (its record cannot be written) is reported and left unchanged, and the deadlines of
// the other games are processed; a temporary failure stops the tick, to be run again.
func TestTickGoesOnPastABrokenGame(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	ctx := context.Background()
	if _, err := f.desk.CreateGame(ctx, adjudicator.NewGame{Name: "g2", Ruleset: soldiers1918.Name, PhaseLength: 48 * time.Hour,
		Players: map[rules.Side]string{"us": "us2@players.example", "de": "de2@players.example"}}); err != nil {
		t.Fatal(err)
	}
	faulty := &faultyStore{Store: f.db, fault: errors.New("json: unsupported value"), game: "g1"}
	f.desk.Store = faulty
	report, err := f.desk.Tick(ctx, f.now.Add(40*time.Hour)) // reminder time of both
	if err != nil {
		t.Fatalf("Tick: %v", err)
	}
	if got := strings.Join(report, "\n"); !strings.Contains(got, "g1: deadline processing failed (internal error); game unchanged") || !strings.Contains(got, "g2: reminded") {
		t.Errorf("report:\n%s", got)
	}
	faulty.fault = syscall.ENOSPC
	if _, err := f.desk.Tick(ctx, f.now.Add(41*time.Hour)); err == nil || !adjudicator.Temporary(err) {
		t.Errorf("Tick on a full disk: %v, want the temporary error", err)
	}
}
