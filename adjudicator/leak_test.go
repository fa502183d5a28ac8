package adjudicator_test

import (
	"context"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestStandingOrdersStayOutOfTheDigest is invariant 5 for the orders digest every
// results mail prints with its rolls. A standing order (Soldiers 1918's Chaos of War
// list, 7.4) is its owner's secret until it is applied, and then only the hexes it
// COWed show (7.1: the US player "places the resulting number of COWed markers"): the
// rest of his priority list stays his. Were the list to enter the digest as a bare
// SHA-256 of its text, the German could test guesses of the list against the digest
// of Phase IV in his own results mail.
func TestStandingOrdersStayOutOfTheDigest(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup+"COW 2303 4802 2808 1911 3603 1602 4403 1102 1802 2103 2502 3202\n")
	f.orders("de", passD, deSetup)
	before := len(f.outbox())
	f.orders("de", passD, "PLOT NONE\n")
	var digest string
	phaseIV := regexp.MustCompile(`Turn 1, phase "IV", orders digest:\n  ([0-9a-f]{64})`)
	for _, m := range to(f.outbox()[before:], de) {
		if d := phaseIV.FindStringSubmatch(m.Body); d != nil {
			digest = d[1]
		}
	}
	if digest == "" {
		t.Fatal("no digest of turn 1 Phase IV in the German's mails")
	}
	var cow store.Order
	f.db.Read(context.Background(), func(tx store.Tx) error {
		orders, err := tx.Orders("g1")
		for _, o := range orders {
			if o.Side == "us" && strings.HasPrefix(o.Text, "COW") {
				cow = o
			}
		}
		return err
	})
	if cow.Text == "" {
		t.Fatal("the US COW list is not on file")
	}
	// The German's best guess: the very text of the list, under its order id.
	guess := rules.OrdersDigest([]rules.Order{{Phase: cow.Phase, Side: rules.Side(cow.Side), Key: cow.Key, Kind: cow.Kind, Text: cow.Text}})
	if guess == digest {
		t.Errorf("the German can check a guess of the US COW list (%q) against the digest of Phase IV in his results mail", cow.Text)
	}
}

// TestCancelAttemptUnannounced is 5.2 I: "The US player may at this time attempt to
// cancel ALL future bombardments": the German learns of the attempt in Phase I, from
// its roll, not before. After set-up every sealed US order but CANCEL BOMBARDMENT has
// a named notice (the US plots are fixed), so any notice of a US sealed order, however
// bare, would tell the German of the attempt.
func TestCancelAttemptUnannounced(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	_, mails := f.orders("us", passU, "CANCEL BOMBARDMENT\n")
	if n := to(mails, de); len(n) != 0 {
		t.Errorf("the German is told of the US CANCEL before Phase I: %s\n%s", n[0].Subject, n[0].Body)
	}
	if r := to(mails, us); len(r) != 1 || !strings.Contains(strings.Join(strings.Fields(r[0].Body), " "), "attempt to cancel ALL US bombardments") {
		t.Fatalf("the US receipt does not confirm the order:\n%v", r)
	}
	// Play on to turn 2 Phase I, where the attempt is made and told to both.
	for _, o := range []struct{ side, pass, text string }{
		{"us", passU, "COW NONE"}, {"de", passD, "COW NONE"},
		{"de", passD, "PLOT NONE"}, {"us", passU, "MOVE NONE"}, {"de", passD, "FIRE NONE"},
		{"us", passU, "FIRE NONE"}, {"de", passD, "MOVE NONE"},
	} {
		f.orders(o.side, o.pass, o.text+"\n")
	}
	var bodies []string
	told := false
	for _, m := range to(f.outbox(), de) {
		bodies = append(bodies, m.Body)
		told = told || strings.Contains(strings.Join(strings.Fields(m.Body), " "), "The US attempts to cancel ALL future bombardments")
	}
	if !told {
		t.Fatal("the German was never told of the attempt at Phase I")
	}
	// What the German received still checks out from his mails alone.
	if _, err := adjudicator.CheckMails("g1", bodies); err != nil {
		t.Errorf("CheckMails of the German's mails: %v", err)
	}
}
