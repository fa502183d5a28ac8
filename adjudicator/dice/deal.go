package dice

import (
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"hash"
	"slices"
)

// Kinds of Deal.
const (
	// KindDeckShuffle marks the shuffle of a sealed deck: its order stays secret until
	// the game's deck seed is revealed.
	KindDeckShuffle = "deck-shuffle"
	// KindCard marks one card turned from a sealed deck.
	KindCard = "card"
)

// Deal is one record of a sealed deck: a shuffle, or a card turned.
//
// A deck's cards are dealt in one sequence: the order of its first shuffle, then the
// order of its second (a reshuffle of discards), and so on. Card n of the deck (from 0)
// is the n-th card of that sequence. Index is the shuffle's number (0 for the first)
// for a shuffle and the card's number in the sequence for a card.
type Deal struct {
	Kind    string // KindDeckShuffle or KindCard
	Deck    string // the deck's name, e.g. "us"
	Index   int
	Purpose string
	Rule    string
	// Cards are, for a shuffle, the cards shuffled in their order before it (public:
	// a new deck's order, or the discards as they were turned); for a card, the one
	// card turned.
	Cards []string
	// Order is a shuffle's result, the cards in the order they will be dealt. It is
	// sealed: nothing may show it before the deck seed is revealed.
	Order []string
}

// DeckContext is the dice context of every shuffle of deck in game: turn 0, phase
// "deck " + deck, no orders digest. A sealed deck is shuffled before any order is
// known, so its shuffles take no orders digest; the deck's name keeps the shuffles of
// two decks apart, and each shuffle's number is its index.
func DeckContext(game, deck string) Context {
	return Context{Game: game, Phase: "deck " + deck}
}

// DealOrder re-derives a shuffle of a sealed deck from the revealed deck seed: the
// cards in the order they were dealt. It is what a verifier calls for every shuffle;
// position k of the result holds cards[p[k]], where p is the permutation of a
// [Stream] shuffle (package doc, "Shuffling") of the shuffle's index, purpose and rule
// in [DeckContext]. It returns nil for a deck no Dealer could have shuffled.
func DealOrder(seed Seed, game, deck string, index int, purpose, rule string, cards []string) []string {
	p := Derive(seed, DeckContext(game, deck), index, KindShuffle, purpose, rule, len(cards), 0)
	if p == nil {
		return nil
	}
	return permute(cards, p)
}

func permute(cards []string, p []int) []string {
	out := make([]string, len(p))
	for k, j := range p {
		out[k] = cards[j]
	}
	return out
}

// Dealer shuffles sealed decks and records every shuffle and every card turned, in
// order. The desk makes one from the game's deck seed ([NewDealer]); conformance cases
// use [NewScriptDealer], whose shuffles keep the cards in the order given, so that a
// case states a deck in the order it wants.
//
// A Dealer does not hold the decks: the ruleset keeps each deck's order in its state
// (hidden from every side's view) and tells the Dealer which card it turns.
type Dealer struct {
	mac   hash.Hash // nil: a script dealer
	game  string
	deals []Deal
	err   error
}

// NewDealer returns the dealer of game's sealed decks under the game's deck seed.
func NewDealer(seed Seed, game string) *Dealer {
	return &Dealer{mac: hmac.New(sha256.New, seed[:]), game: game}
}

// NewScriptDealer returns a dealer whose shuffles leave the cards as they are, for
// conformance cases and tests.
func NewScriptDealer() *Dealer {
	return &Dealer{}
}

// Shuffle shuffles cards as deck's shuffle number index, records it and returns the
// cards in their new order. More than MaxCards cards is a bug in the ruleset: the
// cards are returned unshuffled and Err reports it.
func (d *Dealer) Shuffle(deck string, index int, cards []string, purpose, rule string) []string {
	order := slices.Clone(cards)
	if d.mac != nil {
		if err := checkShape(KindShuffle, len(cards), 0); err != nil || index < 0 {
			if d.err == nil {
				d.err = fmt.Errorf("dice: deck %s shuffle %d (%q): %d cards, index %d: not a shuffle a deck can have", deck, index, purpose, len(cards), index)
			}
		} else {
			p := derive(d.mac, DeckContext(d.game, deck), index, KindShuffle, purpose, rule, len(cards), 0)
			order = permute(cards, p)
		}
	}
	d.deals = append(d.deals, Deal{Kind: KindDeckShuffle, Deck: deck, Index: index, Purpose: purpose, Rule: rule,
		Cards: slices.Clone(cards), Order: slices.Clone(order)})
	return order
}

// Turn records that card number index of deck's sequence, card, was turned, and
// returns the record.
func (d *Dealer) Turn(deck string, index int, card, purpose, rule string) Deal {
	r := Deal{Kind: KindCard, Deck: deck, Index: index, Purpose: purpose, Rule: rule, Cards: []string{card}}
	d.deals = append(d.deals, r)
	return cloneDeal(r)
}

// Deals returns copies of every record made so far, in order.
func (d *Dealer) Deals() []Deal {
	out := make([]Deal, len(d.deals))
	for i, r := range d.deals {
		out[i] = cloneDeal(r)
	}
	return out
}

// Err returns the first impossible shuffle asked for, or nil.
func (d *Dealer) Err() error { return d.err }

func cloneDeal(r Deal) Deal {
	r.Cards = slices.Clone(r.Cards)
	r.Order = slices.Clone(r.Order)
	return r
}

// DeckSource is a Source that also deals sealed decks: what the desk hands a ruleset
// whose randomness is cards.
type DeckSource interface {
	Source
	Dealer() *Dealer
}

// WithDealer joins a source of rolls and a dealer of sealed decks.
func WithDealer(src Source, d *Dealer) DeckSource {
	return withDealer{Source: src, dealer: d}
}

type withDealer struct {
	Source
	dealer *Dealer
}

func (w withDealer) Dealer() *Dealer { return w.dealer }
