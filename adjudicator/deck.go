package adjudicator

import (
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/store"
)

// Sealed decks (a ruleset that is a Dealer): the desk's part. The game's deck seed is
// drawn when the game is created, committed to in the audit trail ("deck-commit") and
// in the invitations, and revealed when the game ends ("deck-reveal"); every shuffle
// ("deck-shuffle": the cards before it, never the order) and every card turned
// ("card") is an audit entry, and results mails give their records (dicetext.go).

// deckSeed returns the game's deck seed, or nil when the game has none (its ruleset
// deals no cards).
func deckSeed(tx store.Tx, game string) (*dice.Seed, error) {
	seeds, err := tx.Seeds(game)
	if err != nil {
		return nil, err
	}
	for _, s := range seeds {
		if s.Turn == store.DeckSeedTurn {
			seed, err := dice.ParseSeed(s.Secret)
			if err != nil {
				return nil, fmt.Errorf("deck seed of %s: %w", game, err)
			}
			return &seed, nil
		}
	}
	return nil, nil
}

// dealSource is the source a phase of game resolves with: the turn's stream, joined
// to the dealer of the game's sealed decks when it has a deck seed.
func dealSource(stream *dice.Stream, game string, deck *dice.Seed) (dice.Source, *dice.Dealer) {
	if deck == nil {
		return stream, nil
	}
	dl := dice.NewDealer(*deck, game)
	return dice.WithDealer(stream, dl), dl
}

// dealNew shuffles the decks of a new game of a Dealer ruleset from a fresh deck seed,
// which it stores and commits to. It returns the dealt state (nil when the ruleset
// deals no cards) and the commitment for the invitations.
func (d *Desk) dealNew(tx store.Tx, g *store.Game, rs rules.Ruleset, st rules.State, now time.Time) (rules.State, string, error) {
	dr, ok := rs.(rules.Dealer)
	if !ok {
		return nil, "", nil
	}
	seed, err := dice.NewSeed(d.rand())
	if err != nil {
		return nil, "", fmt.Errorf("deck seed of %s: %w", g.Name, err)
	}
	dealt, deals, err := dealGame(dr, g.Name, st, seed)
	if err != nil {
		return nil, "", err
	}
	rec := store.Seed{Turn: store.DeckSeedTurn, Secret: seed.String(), Commitment: seed.Commitment()}
	if err := tx.PutSeed(g.Name, rec); err != nil {
		return nil, "", err
	}
	if _, err := tx.AppendAudit(g.Name, store.AuditEntry{Time: now, Kind: "deck-commit", Value: rec.Commitment,
		Purpose: "commitment to the deck seed of the game"}); err != nil {
		return nil, "", err
	}
	if err := auditDeals(tx, g.Name, dealt.Turn(), dealt.Phase(), deals, now); err != nil {
		return nil, "", err
	}
	return dealt, rec.Commitment, nil
}

// dealGame is the deal of a new game from its deck seed, as both play and replay make it.
func dealGame(dr rules.Dealer, game string, st rules.State, seed dice.Seed) (rules.State, []dice.Deal, error) {
	dl := dice.NewDealer(seed, game)
	dealt, err := dr.Deal(st, dl)
	if err == nil {
		err = dl.Err()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w: deal the decks of %s: %w", ErrAdjudication, game, err)
	}
	return dealt, dl.Deals(), nil
}

// auditDeals appends the deals of a phase to the audit chain.
func auditDeals(tx store.Tx, game string, turn int, phase string, deals []dice.Deal, now time.Time) error {
	for _, dl := range deals {
		e := store.AuditEntry{Time: now, Kind: dl.Kind, Turn: turn, Phase: phase, Index: dl.Index, Purpose: dl.Purpose,
			Rule: dl.Rule, Deck: dl.Deck, Value: strings.Join(dl.Cards, " ")}
		if dl.Kind == dice.KindDeckShuffle {
			e.Count = len(dl.Cards)
		}
		if _, err := tx.AppendAudit(game, e); err != nil {
			return fmt.Errorf("audit %s %d of deck %s: %w", dl.Kind, dl.Index, dl.Deck, err)
		}
	}
	return nil
}

// deckInvitation is the part of an invitation about the game's sealed decks: the deck
// seed's commitment and the record of every shuffle made at set-up (dicetext.go), read
// back from the audit trail; empty when the game has no deck seed.
func deckInvitation(tx store.Tx, game, commitment string) (string, error) {
	if commitment == "" {
		return "", nil
	}
	entries, err := tx.Audit(game)
	if err != nil {
		return "", err
	}
	var deals []dice.Deal
	for _, e := range entries {
		if e.Kind == dice.KindDeckShuffle {
			deals = append(deals, dealOf(e))
		}
	}
	lines := deckCommitLines(commitment)
	return strings.Join(lines, "\n") + "\n" + cardsText(game, deals), nil
}

// dealOf reads a deal back from its audit entry.
func dealOf(e store.AuditEntry) dice.Deal {
	return dice.Deal{Kind: e.Kind, Deck: e.Deck, Index: e.Index, Purpose: e.Purpose, Rule: e.Rule, Cards: strings.Fields(e.Value)}
}
