package adjudicator_test

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestBounceMustProveItself (issue 19): a bounce marks the player its mail went to only
// with the store's tag of that mail and a report that delivery to his address failed. A
// guessed outbox number (the old untagged form, or a tag of another mail or store), a
// right tag with another recipient, a vacation notice and a delay warning mark nobody.
func TestBounceMustProveItself(t *testing.T) {
	probe := newFixture(t, adjudicator.NewGame{}) // another store, for its tags
	for _, tc := range []struct {
		name   string
		tag    func(f *fixture, invite, other store.OutMail) string
		failed []string
		marked bool
	}{
		{"real bounce", tagOf, []string{de}, true},
		{"real bounce, original recipient among others", tagOf, []string{"de.forward@example.com", strings.ToUpper(de)}, true},
		{"guessed number, no tag", func(*fixture, store.OutMail, store.OutMail) string { return "" }, []string{de}, false},
		{"tag of another mail", func(f *fixture, _, other store.OutMail) string { return tagOf(f, other, other) }, []string{de}, false},
		{"tag of another store", func(_ *fixture, invite, _ store.OutMail) string {
			return probe.db.Identity().BounceTag(invite.Seq, invite.MessageID)
		}, []string{de}, false},
		{"made-up tag", func(*fixture, store.OutMail, store.OutMail) string { return "0123456789abcdef" }, []string{de}, false},
		{"right tag, another recipient", tagOf, []string{"someone@example.net"}, false},
		{"right tag, the opponent as recipient", tagOf, []string{us}, false},
		{"right tag, no report (vacation notice, delay warning)", tagOf, nil, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default"})
			var invite, other store.OutMail
			for _, m := range f.outbox() {
				if m.Kind == "invite" && m.To[0] == de {
					invite = m
				} else if m.Kind == "invite" {
					other = m
				}
			}
			out, mails := f.sendMsg(adjudicator.Message{ID: "bounce@mx", From: "mailer-daemon@mx.example", Automated: true,
				AutomatedReason: "delivery status report", BounceOf: invite.Seq, BounceTag: tc.tag(f, invite, other), BounceFailed: tc.failed})
			if got := strings.Contains(out, "de marked bouncing"); got != tc.marked {
				t.Errorf("outcome %q; marked %v, want %v", out, got, tc.marked)
			}
			if !strings.HasPrefix(out, adjudicator.Ignored) || (!tc.marked && len(mails) != 0) {
				t.Errorf("outcome %q with %d mails; a bounce is never answered, and one not believed tells nobody", out, len(mails))
			}
			f.db.Read(t.Context(), func(tx store.Tx) error {
				g, _ := tx.Game("g1")
				for _, p := range g.Players {
					if p.Bouncing != (tc.marked && p.Side == "de") {
						t.Errorf("%s bouncing: %v", p.Side, p.Bouncing)
					}
				}
				return nil
			})
			// Not believed, the German's deadline gives him default orders as usual.
			if !tc.marked {
				f.orders("us", passU, usSetup)
				f.now = f.now.Add(49 * time.Hour)
				report, err := f.desk.Tick(t.Context(), f.now)
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(strings.Join(report, "\n"), "default orders for de") {
					t.Errorf("after a bounce not believed, the deadline gave the German no default orders: %v", report)
				}
			}
		})
	}
}

// tagOf is the store's tag of mail m.
func tagOf(f *fixture, m, _ store.OutMail) string {
	return f.db.Identity().BounceTag(m.Seq, m.MessageID)
}

// TestMessageIDsDifferAcrossStores (issue 19): two stores that create the same game for
// the same players send invitations with different Message-IDs, and answer the same
// mail with different ones; a store reopened (or copied) answers it with the same ids
// as before, as a transaction retried after a crash does.
func TestMessageIDsDifferAcrossStores(t *testing.T) {
	dir := t.TempDir()
	open := func(name string) (*adjudicator.Desk, *store.DB) {
		t.Helper()
		db, err := store.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { db.Close() })
		d, _ := soldiersDesk(t, func() time.Time { return time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC) })
		d.Store = db
		return d, db
	}
	create := func(d *adjudicator.Desk) {
		t.Helper()
		if _, err := d.CreateGame(t.Context(), adjudicator.NewGame{Name: "verdun", Ruleset: soldiers1918.Name,
			Players:   map[rules.Side]string{"us": us, "de": de},
			Passwords: map[rules.Side]string{"us": passU, "de": passD}}); err != nil {
			t.Fatal(err)
		}
	}
	// ids handles the same mail and returns the Message-IDs of every mail in the outbox.
	ids := func(d *adjudicator.Desk, db *store.DB) []string {
		t.Helper()
		if _, err := d.Handle(t.Context(), adjudicator.Message{ID: "same@players.example", From: us, Subject: "orders",
			Text: "GAME verdun\nPASSWORD " + passU + "\nSTATUS\n"}); err != nil {
			t.Fatal(err)
		}
		var out []string
		db.Read(t.Context(), func(tx store.Tx) error {
			all, err := tx.Outbox()
			for _, m := range all {
				out = append(out, m.MessageID)
			}
			return err
		})
		return out
	}
	deskA, dbA := open("a.db")
	create(deskA)
	deskB, dbB := open("b.db")
	create(deskB)
	dbA.Close()
	raw, err := os.ReadFile(filepath.Join(dir, "a.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a2.db"), raw, 0o600); err != nil {
		t.Fatal(err)
	}
	deskA, dbA = open("a.db")
	deskCopy, dbCopy := open("a2.db")
	idsA, idsB, idsCopy := ids(deskA, dbA), ids(deskB, dbB), ids(deskCopy, dbCopy)
	if len(idsA) < 3 || len(idsA) != len(idsB) {
		t.Fatalf("mails %v and %v; want the invitations and a reply in each store", idsA, idsB)
	}
	for i := range idsA {
		if idsA[i] == idsB[i] {
			t.Errorf("mail %d of two stores has one Message-ID %s", i+1, idsA[i])
		}
	}
	if !slices.Equal(idsA, idsCopy) {
		t.Errorf("the same store answered the same mail with other Message-IDs:\n%v\n%v", idsA, idsCopy)
	}
}
