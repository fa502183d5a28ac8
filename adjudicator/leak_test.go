package adjudicator_test

import (
	"context"
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
	guess := adjudicator.OrdersDigest([]adjudicator.Order{{Phase: cow.Phase, Side: adjudicator.Side(cow.Side), Key: cow.Key, Kind: cow.Kind, Text: cow.Text}})
	if guess == digest {
		t.Errorf("the German can check a guess of the US COW list (%q) against the digest of Phase IV in his results mail", cow.Text)
	}
}
