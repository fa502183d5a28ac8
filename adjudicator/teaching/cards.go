package teaching

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// ranks are a poker deck's ranks in new-deck order; suits likewise (S, H, D, C).
var (
	ranks = []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"}
	suits = []string{"S", "H", "D", "C"}
)

// newDeck is a 52-card poker deck in new-deck order: AS 2S ... KS AH ... KC.
func newDeck() []string {
	var d []string
	for _, s := range suits {
		for _, r := range ranks {
			d = append(d, r+s)
		}
	}
	return d
}

// rankOf and suit split a card such as "10H".
func rankOf(c string) string { return c[:len(c)-1] }

func suitOf(c string) string { return c[len(c)-1:] }

// red reports whether a card is red (hearts, diamonds): rule 3, "red means the Germans
// are killed while black means the Americans are killed".
func red(c string) bool { s := suitOf(c); return s == "H" || s == "D" }

// validCard reports whether c names a card of the deck.
func validCard(c string) bool { return slices.Contains(newDeck(), c) }

// Turned is one card turned from a deck: when, for what, and under which rule.
type Turned struct {
	Card    string `json:"card"`
	Turn    int    `json:"turn"`
	Phase   string `json:"phase"`
	Purpose string `json:"purpose"`
	Rule    string `json:"rule"`
}

// Deck is one side's poker deck (rules 1 and 3: "each player gets a poker deck of
// cards"), shuffled by the server when the game is created and sealed: its order comes
// from the game's deck seed (package dice, Dealer), committed to in the invitations and
// revealed when the game ends. The order is kept here and shown to no side before the
// end (no map, status or results mail shows it); each card turned is the next one, and
// the desk audits and mails it with its purpose and rule.
type Deck struct {
	// Order is every card the deck deals, in order: its first shuffle's order, then
	// each reshuffle's. Sealed until the game ends.
	Order []string `json:"order"`
	// Next is how many cards have been turned: Order[Next] is the next card.
	Next int `json:"next"`
	// Shuffles is how many times the deck has been shuffled.
	Shuffles int `json:"shuffles"`
	// Discards are the cards turned since the last shuffle, in the order turned.
	Discards []string `json:"discards,omitempty"`
	Turned   []Turned `json:"turned,omitempty"`
}

// left is how many cards are left to turn before the deck runs out.
func (dk *Deck) left() int { return len(dk.Order) - dk.Next }

// deckName is the name of side's deck in the audit trail and the mails.
func deckName(side Side) string { return string(side) }

// Deal implements rules.Dealer: each side's new deck (in new-deck order) is
// shuffled from the game's deck seed when the game is created.
func (r *Rules) Deal(s rules.State, d *dice.Dealer) (rules.State, error) {
	st := s.(*State).clone()
	for _, side := range []Side{American, German} {
		dk := st.Decks[side]
		if dk.Shuffles > 0 {
			return nil, fmt.Errorf("the %s deck is shuffled already", sides.Name(side))
		}
		dk.Order = d.Shuffle(deckName(side), 0, newDeck(), fmt.Sprintf("the %s deck, new, shuffled when the game is created", sides.Name(side)), "1, 3")
		dk.Next, dk.Shuffles = 0, 1
	}
	return st, nil
}

// errNoDealer is the answer when a card is to be turned and the source holds no decks.
var errNoDealer = errors.New("the teaching game turns cards from sealed decks, and its dice source deals none (dice.DeckSource)")

// draw turns the next card of side's deck. When the deck is used up its discards are
// shuffled into it again (not printed: the "noreshuffle" option turns this off, and
// then ok is false). It returns the deals to audit: a reshuffle, if any, and the card.
func (st *State) draw(side Side, d *dice.Dealer, purpose, rule string) (card string, deals []*dice.Deal, ok bool, evs []string, err error) {
	dk := st.Decks[side]
	if d == nil {
		return "", nil, false, nil, errNoDealer
	}
	if dk.Shuffles == 0 {
		return "", nil, false, nil, fmt.Errorf("the %s deck was never shuffled (the desk deals the decks when it creates the game)", sides.Name(side))
	}
	if dk.left() == 0 {
		if st.opt(OptNoReshuffle) || len(dk.Discards) == 0 {
			return "", nil, false, []string{fmt.Sprintf("The %s deck is used up: no card for %s (option %s: discards are not reshuffled).", sides.Name(side), purpose, OptNoReshuffle)}, nil
		}
		n := len(dk.Discards)
		order := d.Shuffle(deckName(side), dk.Shuffles, dk.Discards, fmt.Sprintf("the %s discards, reshuffled: the deck is used up (not printed)", sides.Name(side)), "1, 3")
		deals = append(deals, lastDeal(d))
		dk.Order = append(slices.Clone(dk.Order), order...)
		dk.Shuffles++
		dk.Discards = nil
		evs = append(evs, fmt.Sprintf("The %s deck is used up: its %d discards are shuffled into a new deck, sealed like the first (not printed in the rulebook; option %s turns it off).", sides.Name(side), n, OptNoReshuffle))
	}
	card = dk.Order[dk.Next]
	c := d.Turn(deckName(side), dk.Next, card, fmt.Sprintf("%s card for %s", sides.Name(side), purpose), rule)
	deals = append(deals, &c)
	dk.Next++
	dk.Discards = append(slices.Clone(dk.Discards), card)
	dk.Turned = append(dk.Turned, Turned{Card: card, Turn: st.T, Phase: st.P, Purpose: purpose, Rule: rule})
	st.Shown = append(st.Shown, fmt.Sprintf("%s %s: %s", sides.Name(side), card, purpose))
	return card, deals, true, evs, nil
}

func lastDeal(d *dice.Dealer) *dice.Deal {
	all := d.Deals()
	return &all[len(all)-1]
}

// DeckReport shows a deck whole when the game ends: every card turned in order, and
// the sealed order of the cards never turned.
func DeckReport(side Side, dk *Deck) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %s deck, every card turned in order:", sides.Name(side))
	for i, t := range dk.Turned {
		// "- " starts each line: the results mail keeps a line's place in its event by it
		// (leading blanks are not kept when a mail wraps its events).
		fmt.Fprintf(&b, "\n- %d. %s turn %d %s, rule %s: %s", i+1, t.Card, t.Turn, t.Phase, t.Rule, t.Purpose)
	}
	if len(dk.Turned) == 0 {
		b.WriteString(" none")
	}
	fmt.Fprintf(&b, "\n- Never turned, in the sealed order: %s.", strings.Join(dk.Order[dk.Next:], " "))
	fmt.Fprintf(&b, "\n- The whole sealed order (%d shuffle(s)): %s.", dk.Shuffles, strings.Join(dk.Order, " "))
	return b.String()
}
