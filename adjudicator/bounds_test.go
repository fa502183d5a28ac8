package adjudicator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestDatesBounded: a deadline or an absence more than a year ahead is refused with a
// reason quoting the limit, whoever sets it (a player by mail, the host by mail, the
// host on the command line), and every later operation on the game still works: the
// two poison mails of issue 19 (ABSENT UNTIL 9999-12-31 after some absence, DEADLINE
// 9999-12-31T23:59:59Z then EXTEND, RESUME) are answered, and change nothing.
func TestDatesBounded(t *testing.T) {
	host := func(lines string) string { return "HOST PASSWORD " + hostPass + "\n" + lines }
	for _, tc := range []struct {
		name    string
		from    string
		text    []string // mails in turn; the last one is checked
		outcome string
		reason  string
	}{
		{"absence far ahead after some absence", de, []string{"GAME g1\nPASSWORD " + passD + "\nABSENT UNTIL 2026-11-23", "GAME g1\nPASSWORD " + passD + "\nABSENT UNTIL 9999-12-31"},
			adjudicator.Refused + ": orders", "at most a year ahead (until Mon 22 Nov 2027"},
		{"absence far ahead", de, []string{"GAME g1\nPASSWORD " + passD + "\nABSENT UNTIL 9999-12-31"},
			adjudicator.Refused + ": orders", "at most a year ahead"},
		{"absence a year and a day ahead", de, []string{"GAME g1\nPASSWORD " + passD + "\nABSENT UNTIL 2027-11-23"},
			adjudicator.Refused + ": orders", "at most a year ahead"},
		{"deadline far ahead", hostAddr, []string{host("DEADLINE g1 9999-12-31T23:59:59Z")},
			adjudicator.Handled + ": host, 0 done, 1 refused", "at most a year ahead (until Mon 22 Nov 2027 09:01 UTC)"},
		{"deadline far ahead, extend, pause, resume", hostAddr, []string{host("DEADLINE g1 9999-12-31T23:59:59Z\nEXTEND g1 365d\nPAUSE g1"), host("RESUME g1\nEXTEND g1 2d")},
			adjudicator.Handled + ": host, 2 done, 0 refused", "resumed"},
		{"extend past a year", hostAddr, []string{host("EXTEND g1 365d")},
			adjudicator.Handled + ": host, 0 done, 1 refused", "at most a year ahead"},
		{"extend by a huge duration", hostAddr, []string{host("EXTEND g1 2562047h")},
			adjudicator.Handled + ": host, 0 done, 1 refused", "at most 365 days"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := hostFixture(t)
			var out string
			var mails []store.OutMail
			for i, text := range tc.text {
				if i == len(tc.text)-1 {
					f.now = f.now.Add(time.Minute)
				}
				var err error
				out, mails, err = f.try(tc.from, text)
				if err != nil {
					t.Fatalf("mail %d: Handle: %v", i+1, err)
				}
			}
			if out != tc.outcome {
				t.Errorf("outcome %q, want %q", out, tc.outcome)
			}
			if len(mails) == 0 || !strings.Contains(strings.Join(strings.Fields(mails[0].Body), " "), tc.reason) {
				t.Errorf("reply lacks %q:\n%v", tc.reason, mails)
			}
			if g := f.game(); g.Deadline.After(f.now.Add(366*24*time.Hour)) || g.PausedAt.After(f.now) {
				t.Errorf("deadline %v more than a year ahead", g.Deadline)
			}
			// The game goes on: the host can still move its deadline.
			if _, err := f.desk.ExtendDeadline(context.Background(), "g1", time.Hour, time.Time{}); err != nil {
				t.Errorf("ExtendDeadline afterwards: %v", err)
			}
		})
	}
}

// try hands one mail to the desk as send does, but returns Handle's error.
func (f *fixture) try(from, text string) (string, []store.OutMail, error) {
	f.t.Helper()
	f.n++
	before := len(f.outbox())
	out, err := f.desk.Handle(context.Background(), adjudicator.Message{ID: fmt.Sprintf("m%d@players.example", f.n), From: from, Subject: "x", Text: text, Date: f.now})
	return out, f.outbox()[before:], err
}

// TestFarDeadlineResumes: a game whose deadline was set far ahead before deadlines were
// bounded (9999-12-31T23:59:59Z, the last second the store can write), then paused, can
// be resumed, by mail and on the command line, and its deadline is then within a year.
func TestFarDeadlineResumes(t *testing.T) {
	for _, how := range []string{"mail", "command line"} {
		t.Run(how, func(t *testing.T) {
			f := hostFixture(t)
			ctx := context.Background()
			far := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)
			if err := f.db.Write(ctx, func(tx store.Tx) error {
				g, err := tx.Game("g1")
				if err != nil {
					return err
				}
				g.Deadline, g.RemindAt, g.PausedAt = far, far.Add(-12*time.Hour), f.now
				return tx.PutGame(g)
			}); err != nil {
				t.Fatal(err)
			}
			f.now = f.now.Add(48 * time.Hour)
			if how == "mail" {
				out, _, err := f.try(hostAddr, "HOST PASSWORD "+hostPass+"\nRESUME g1\n")
				if err != nil || out != adjudicator.Handled+": host, 1 done, 0 refused" {
					t.Fatalf("RESUME: %q, %v", out, err)
				}
			} else if _, err := f.desk.Resume(ctx, "g1"); err != nil {
				t.Fatalf("Resume: %v", err)
			}
			g := f.game()
			if limit := f.now.Add(adjudicator.MaxAhead); !g.PausedAt.IsZero() || g.Deadline.After(limit) || g.RemindAt.After(g.Deadline) || !g.RemindAt.After(f.now) {
				t.Errorf("after resume: paused %v, deadline %v, reminder %v; want a deadline by %v", g.PausedAt, g.Deadline, g.RemindAt, limit)
			}
			if _, err := f.desk.ExtendDeadline(ctx, "g1", 24*time.Hour, time.Time{}); err == nil || !strings.Contains(err.Error(), "at most a year ahead") {
				t.Errorf("EXTEND past the bound: %v", err)
			}
			if _, err := f.desk.ExtendDeadline(ctx, "g1", 0, f.now.Add(24*time.Hour)); err != nil {
				t.Errorf("DEADLINE tomorrow: %v", err)
			}
		})
	}
}
