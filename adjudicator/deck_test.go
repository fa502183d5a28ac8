package adjudicator_test

import (
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
	"github.com/adjutant-pbem/adjutant/store"
)

// chain links entries as the store does: sequence, previous hash, own hash.
func chain(entries []store.AuditEntry) []store.AuditEntry {
	prev := ""
	for i := range entries {
		entries[i].Seq, entries[i].Prev = uint64(i+1), prev
		entries[i].Hash = entries[i].ComputeHash()
		prev = entries[i].Hash
	}
	return entries
}

// TestVerifyChainSealedDecks: audit verify re-derives every card of a sealed deck once
// the deck seed is revealed, and refuses a card the seed does not give, a card turned
// twice, a shuffle out of turn and a seed that is not the one committed to.
func TestVerifyChainSealedDecks(t *testing.T) {
	seed := dice.Seed{5, 4, 3}
	cards := []string{"AS", "2S", "3S", "4S", "5S", "6S"}
	order := dice.DealOrder(seed, "g", "us", 0, "new deck", "1", cards)
	second := dice.DealOrder(seed, "g", "us", 1, "reshuffle", "1", order[:2])
	good := func() []store.AuditEntry {
		return []store.AuditEntry{
			{Kind: "deck-commit", Value: seed.Commitment()},
			{Kind: "deck-shuffle", Deck: "us", Index: 0, Count: 6, Value: strings.Join(cards, " "), Purpose: "new deck", Rule: "1"},
			{Kind: "card", Turn: 1, Phase: "us", Deck: "us", Index: 0, Value: order[0], Purpose: "a shell", Rule: "1"},
			{Kind: "card", Turn: 1, Phase: "us", Deck: "us", Index: 1, Value: order[1], Purpose: "a shell", Rule: "1"},
			{Kind: "deck-shuffle", Turn: 2, Deck: "us", Index: 1, Count: 2, Value: strings.Join(order[:2], " "), Purpose: "reshuffle", Rule: "1"},
			{Kind: "card", Turn: 2, Phase: "us", Deck: "us", Index: 6, Value: second[0], Purpose: "a shell", Rule: "1"},
			{Kind: "deck-reveal", Value: seed.String()},
		}
	}
	for _, tc := range []struct {
		name   string
		change func([]store.AuditEntry) []store.AuditEntry
		cards  int // verified; -1 for an error
		err    string
	}{
		{"whole game", func(e []store.AuditEntry) []store.AuditEntry { return e }, 3, ""},
		{"before the end", func(e []store.AuditEntry) []store.AuditEntry { return e[:6] }, 0, ""},
		{"a card the seed does not give", func(e []store.AuditEntry) []store.AuditEntry {
			e[3].Value = order[2]
			return e
		}, -1, "the revealed deck seed gives"},
		{"a card of the reshuffle the seed does not give", func(e []store.AuditEntry) []store.AuditEntry {
			e[5].Value = second[1]
			return e
		}, -1, "the revealed deck seed gives"},
		{"a card turned twice", func(e []store.AuditEntry) []store.AuditEntry {
			e[3].Index, e[3].Value = 0, order[0]
			return e
		}, -1, "turned twice"},
		{"a card beyond the deck", func(e []store.AuditEntry) []store.AuditEntry {
			e[5].Index = 8
			return e
		}, -1, "has had 8 cards"},
		{"a shuffle out of turn", func(e []store.AuditEntry) []store.AuditEntry {
			e[4].Index = 2
			return e
		}, -1, "shuffle 1 was expected"},
		{"another seed revealed", func(e []store.AuditEntry) []store.AuditEntry {
			e[6].Value = dice.Seed{9}.String()
			return e
		}, -1, "does not match the commitment"},
		{"a shuffle after the reveal", func(e []store.AuditEntry) []store.AuditEntry {
			return append(e, store.AuditEntry{Kind: "deck-shuffle", Deck: "de", Count: 1, Value: "AS"})
		}, -1, "outside the sealed time"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := adjudicator.VerifyChain("g", chain(tc.change(good())))
			if tc.cards < 0 {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one saying %q", err, tc.err)
				}
				return
			}
			if err != nil || rep.CardsVerified != tc.cards {
				t.Fatalf("verified %d cards (of %d), err %v; want %d", rep.CardsVerified, rep.Cards, err, tc.cards)
			}
		})
	}
}

// teachingDesk is a desk with one teaching game, g1.
func teachingDesk(t *testing.T) (*adjudicator.Desk, *store.DB, *teaching.Rules) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	theRules, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	desk := &adjudicator.Desk{Store: db, Rulesets: map[string]rules.Ruleset{teaching.Name: theRules}, Address: home,
		Now: func() time.Time { return now }, Rand: &detRand{}, PasswordCost: 4, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	_, err = desk.CreateGame(context.Background(), adjudicator.NewGame{Name: "g1", Ruleset: teaching.Name,
		Players: map[rules.Side]string{"us": us, "de": de}, Passwords: map[rules.Side]string{"us": passU, "de": passD},
		Options: rules.Options{teaching.OptTurns12: true}})
	if err != nil {
		t.Fatal(err)
	}
	return desk, db, theRules
}

// TestSealedDecksOnTheDesk plays a teaching game to its end through the desk: before
// the end no mail (ROLLS replies included) holds the deck seed or a deck's order; at
// the end the audit verifies every card from the revealed deck seed, each player's
// mails alone re-derive every card, and the replay matches.
func TestSealedDecksOnTheDesk(t *testing.T) {
	desk, db, theRules := teachingDesk(t)
	ctx := context.Background()
	state := func() (rules.State, string) {
		var g store.Game
		var secret string
		if err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			if g, err = tx.Game("g1"); err != nil {
				return err
			}
			seeds, err := tx.Seeds("g1")
			for _, s := range seeds {
				if s.Turn == store.DeckSeedTurn {
					secret = s.Secret
				}
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		st, err := theRules.Decode(g.State)
		if err != nil {
			t.Fatal(err)
		}
		return st, secret
	}
	st, secret := state()
	if secret == "" {
		t.Fatal("no deck seed stored for a game of a Dealer ruleset")
	}
	sealed := func(s rules.State) []string {
		var out []string
		for _, dk := range s.(*teaching.State).Decks {
			if len(dk.Order) < 52 {
				t.Fatalf("a deck of %d cards", len(dk.Order))
			}
			out = append(out, strings.Join(dk.Order[dk.Next:][:3], " "))
		}
		return out
	}
	n := 0
	for ; !st.Over() && n < 200; n++ {
		for _, side := range []rules.Side{teaching.American, teaching.German} {
			body := theRules.BotOrders(st, side)
			if body == "" {
				continue
			}
			addr, pass := us, passU
			if side == teaching.German {
				addr, pass = de, passD
			}
			text := "GAME g1\nPASSWORD " + pass + "\n" + body
			if n%5 == 0 {
				text += "\nROLLS"
			}
			if _, err := desk.Handle(ctx, adjudicator.Message{ID: fmt.Sprintf("m%d-%s@p", n, side), From: addr, Subject: "orders", Text: text}); err != nil {
				t.Fatal(err)
			}
			break
		}
		next, _ := state()
		if !next.Over() {
			runs := sealed(next)
			for _, m := range outbox(t, db) {
				for _, run := range runs {
					if strings.Contains(m.Body, secret) || strings.Contains(m.Body, run) {
						t.Fatalf("mail %q holds the deck seed or the sealed run %q before the end", m.Subject, run)
					}
				}
			}
		}
		st = next
	}
	if !st.Over() {
		t.Fatalf("no end after %d mails", n)
	}
	rep, err := desk.VerifyAudit(ctx, "g1")
	if err != nil {
		t.Fatal(err)
	}
	if rep.Cards == 0 || rep.CardsVerified != rep.Cards {
		t.Errorf("audit: %d cards, %d re-derived from the deck seed", rep.Cards, rep.CardsVerified)
	}
	for _, addr := range []string{us, de} {
		var bodies []string
		for _, m := range outbox(t, db) {
			if len(m.To) == 1 && m.To[0] == addr {
				bodies = append(bodies, m.Body)
			}
		}
		got, err := adjudicator.CheckMails("g1", bodies)
		if err != nil {
			t.Fatalf("%s's mails: %v", addr, err)
		}
		if got.Cards != rep.Cards || got.CardsVerified != rep.Cards {
			t.Errorf("%s's mails: %d cards, %d re-derived; the audit has %d", addr, got.Cards, got.CardsVerified, rep.Cards)
		}
		// A card record changed in a mail is caught.
		for i, b := range bodies {
			if at := strings.Index(b, `deck "us" card 0: `); at >= 0 {
				card := strings.Fields(b[at+len(`deck "us" card 0: `):])[0]
				other := "AS,"
				if card == "AS," {
					other = "KS,"
				}
				bodies[i] = strings.ReplaceAll(b, `deck "us" card 0: `+card, `deck "us" card 0: `+other)
			}
		}
		if _, err := adjudicator.CheckMails("g1", bodies); err == nil || !strings.Contains(err.Error(), "revealed deck seed gives") {
			t.Errorf("%s's mails with card 0 changed: %v", addr, err)
		}
	}
	if _, err := desk.Replay(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
}

// TestResignRevealsTheDeckSeed: a game ended by a resignation reveals the deck seed in
// the audit trail too, so that every card turned can be checked.
func TestResignRevealsTheDeckSeed(t *testing.T) {
	desk, db, _ := teachingDesk(t)
	ctx := context.Background()
	if _, err := desk.Handle(ctx, adjudicator.Message{ID: "r1@p", From: de, Subject: "x", Text: "GAME g1\nPASSWORD " + passD + "\nRESIGN"}); err != nil {
		t.Fatal(err)
	}
	var answer []store.OutMail
	if err := db.Read(ctx, func(tx store.Tx) error {
		var err error
		answer, err = tx.Outbox()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	code := resignCodeIn(t, answer[len(answer)-1].Body) // resigning asks for the code first
	if _, err := desk.Handle(ctx, adjudicator.Message{ID: "r2@p", From: de, Subject: "x", Text: "GAME g1\nPASSWORD " + passD + "\nRESIGN " + code}); err != nil {
		t.Fatal(err)
	}
	var entries []store.AuditEntry
	if err := db.Read(ctx, func(tx store.Tx) error {
		var err error
		entries, err = tx.Audit("g1")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if last := entries[len(entries)-1]; !strings.Contains(auditKinds(entries), "deck-reveal") {
		t.Fatalf("no deck-reveal entry after a resignation; last entry %+v", last)
	}
	if _, err := adjudicator.VerifyChain("g1", entries); err != nil {
		t.Fatal(err)
	}
}

func auditKinds(entries []store.AuditEntry) string {
	var k []string
	for _, e := range entries {
		k = append(k, e.Kind)
	}
	return strings.Join(k, " ")
}

func outbox(t *testing.T, db *store.DB) []store.OutMail {
	t.Helper()
	var out []store.OutMail
	if err := db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		out, err = tx.Outbox()
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return out
}
