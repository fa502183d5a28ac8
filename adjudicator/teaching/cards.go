package teaching

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
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
// cards"). Cards are turned one at a time, each chosen uniformly among the cards left by
// a roll of the verifiable dice stream, audited with its purpose and rule: turning the
// top card of a secretly shuffled deck is the same draw, and choosing each card only
// when it is turned leaves no deck order that the server would have to keep secret and
// the audit trail would show (see the package documentation, "Cards").
type Deck struct {
	// Left are the cards not yet turned, in new-deck order less the cards turned (after
	// a reshuffle, the discards in the order they were turned). A roll of k picks the
	// k-th card of Left.
	Left     []string `json:"left"`
	Discards []string `json:"discards,omitempty"`
	Turned   []Turned `json:"turned,omitempty"`
}

// draw turns one card from side's deck. When the deck is empty its discards are
// reshuffled into it (not printed: the "noreshuffle" option turns this off, and then ok
// is false). A deck of one card needs no roll (roll is nil).
func (st *State) draw(side Side, d dice.Source, purpose, rule string) (card string, roll *dice.Roll, ok bool, evs []string) {
	dk := st.Decks[side]
	if len(dk.Left) == 0 {
		if st.opt(OptNoReshuffle) || len(dk.Discards) == 0 {
			return "", nil, false, []string{fmt.Sprintf("The %s deck is used up: no card for %s (option %s: discards are not reshuffled).", sideName(side), purpose, OptNoReshuffle)}
		}
		dk.Left, dk.Discards = dk.Discards, nil
		evs = append(evs, fmt.Sprintf("The %s deck is used up: its %d discards are its deck again (reshuffle, not printed in the rulebook).", sideName(side), len(dk.Left)))
	}
	k := 0
	if len(dk.Left) > 1 {
		r := d.Roll(dice.Request{Count: 1, Sides: len(dk.Left), Purpose: fmt.Sprintf("%s card for %s (%d cards left)", sideName(side), purpose, len(dk.Left)), Rule: rule})
		if len(r.Values) == 1 && r.Values[0] >= 1 && r.Values[0] <= len(dk.Left) {
			k = r.Values[0] - 1
		}
		roll = &r
	}
	card = dk.Left[k]
	dk.Left = slices.Delete(slices.Clone(dk.Left), k, k+1)
	dk.Discards = append(dk.Discards, card)
	dk.Turned = append(dk.Turned, Turned{Card: card, Turn: st.T, Phase: st.P, Purpose: purpose, Rule: rule})
	st.Shown = append(st.Shown, fmt.Sprintf("%s %s: %s", sideName(side), card, purpose))
	return card, roll, true, evs
}

// DeckReport lists every card a deck turned, in order, and the cards never turned: the
// whole deck, shown when the game ends.
func DeckReport(side Side, dk *Deck) string {
	var b strings.Builder
	fmt.Fprintf(&b, "The %s deck, every card turned in order:", sideName(side))
	for i, t := range dk.Turned {
		fmt.Fprintf(&b, "\n  %2d. %-3s turn %d %s, rule %s: %s", i+1, t.Card, t.Turn, t.Phase, t.Rule, t.Purpose)
	}
	if len(dk.Turned) == 0 {
		b.WriteString(" none")
	}
	fmt.Fprintf(&b, "\n  Never turned: %s.", strings.Join(dk.Left, " "))
	return b.String()
}
