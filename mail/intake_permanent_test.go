package mail_test

import (
	"errors"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
)

// TestIntakePermanentErrorSkipped: a message whose Handler fails for good (Permanent)
// holds up no other: the pass goes on with the next messages (those of its own group
// included), it is left unseen, and it is tried again only on the next connection,
// not on every pass of this one.
func TestIntakePermanentErrorSkipped(t *testing.T) {
	for _, batch := range []bool{false, true} {
		t.Run(fmt.Sprintf("batch=%v", batch), func(t *testing.T) {
			ctx := intakeCtx(t)
			s := startIntakeServer(t, intakeServerOptions{caps: intakeCapsRev2})
			var uids []uint32
			for i := range 5 {
				uids = append(uids, s.append(t, intakeMessage(i+1, "orders"), intakeEpoch.Add(time.Duration(i)*time.Second)))
			}
			poison := uids[2]
			var tries atomic.Int32
			fail := func(d mail.Delivery) error {
				if d.UID == poison {
					tries.Add(1)
					return mail.Permanent(errors.New("set aside failed"))
				}
				return nil
			}
			rec, brec := newIntakeRecorder(), &batchRecorder{}
			rec.fail, brec.fail = fail, fail
			in := newIntake(s, rec.handle)
			handled := rec.uids
			if batch {
				in.Handle, in.HandleBatch, handled = nil, brec.handle, brec.uids
			}
			n, err := in.Once(ctx)
			want := []uint32{uids[0], uids[1], uids[3], uids[4]}
			if n != 4 || err != nil || fmt.Sprint(handled()) != fmt.Sprint(want) {
				t.Fatalf("Once() = %d, %v, handled %v; want 4, nil, %v", n, err, handled(), want)
			}
			intakeWantSeen(t, s.seen(t, "INBOX"), map[uint32]bool{uids[0]: true, uids[1]: true, poison: false, uids[3]: true, uids[4]: true})

			// Under Run: a new message is handled at once, by a pass that does not try the
			// poison one again on this connection.
			tries.Store(0)
			in.Config.PollInterval = 20 * time.Millisecond
			stop := runIntake(t, ctx, in)
			intakeUntil(t, ctx, "the poison message tried on the new connection", func() bool { return tries.Load() == 1 })
			late := s.append(t, intakeMessage(6, "orders"), intakeEpoch.Add(time.Minute))
			intakeUntil(t, ctx, "the next message handled", func() bool { return s.seen(t, "INBOX")[late] })
			stop()
			if got := tries.Load(); got != 1 {
				t.Errorf("the poison message was tried %d times on one connection, want 1", got)
			}
		})
	}
}
