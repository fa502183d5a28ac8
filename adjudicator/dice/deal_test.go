package dice

import (
	"slices"
	"strings"
	"testing"
)

func TestDealerShufflesAsDealOrderDerives(t *testing.T) {
	seed := Seed{1, 2, 3}
	cards := strings.Fields("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS")
	d := NewDealer(seed, "g1")
	first := d.Shuffle("us", 0, cards, "the American deck, new", "1")
	again := d.Shuffle("us", 1, cards, "the American deck, new", "1")
	other := d.Shuffle("de", 0, cards, "the American deck, new", "1")
	for _, tc := range []struct {
		name  string
		got   []string
		index int
		deck  string
	}{{"first", first, 0, "us"}, {"second", again, 1, "us"}, {"other deck", other, 0, "de"}} {
		if want := DealOrder(seed, "g1", tc.deck, tc.index, "the American deck, new", "1", cards); !slices.Equal(tc.got, want) {
			t.Errorf("%s: Shuffle gave %v, DealOrder %v", tc.name, tc.got, want)
		}
		sorted := slices.Clone(tc.got)
		slices.Sort(sorted)
		want := slices.Clone(cards)
		slices.Sort(want)
		if !slices.Equal(sorted, want) {
			t.Errorf("%s: %v is not a shuffle of %v", tc.name, tc.got, cards)
		}
	}
	if slices.Equal(first, again) || slices.Equal(first, other) || slices.Equal(first, cards) {
		t.Errorf("shuffles of different index or deck came out equal (or unshuffled): %v %v %v", first, again, other)
	}
	if got := DealOrder(seed, "g1", "us", 0, "relabelled", "1", cards); slices.Equal(got, first) {
		t.Error("a relabelled shuffle re-derives to the same order: the purpose is not bound")
	}
	if got := DealOrder(Seed{9}, "g1", "us", 0, "the American deck, new", "1", cards); slices.Equal(got, first) {
		t.Error("another seed gives the same order")
	}
	deals := d.Deals()
	if len(deals) != 3 || deals[0].Kind != KindDeckShuffle || !slices.Equal(deals[0].Order, first) || !slices.Equal(deals[0].Cards, cards) {
		t.Fatalf("deals = %+v", deals)
	}
	c := d.Turn("us", 0, first[0], "a shell", "1")
	if c.Kind != KindCard || c.Cards[0] != first[0] || len(d.Deals()) != 4 {
		t.Errorf("Turn recorded %+v", c)
	}
	if d.Err() != nil {
		t.Error(d.Err())
	}
}

func TestDealOrderIsTheStreamShuffle(t *testing.T) {
	// The sealed order is the package doc's shuffle applied to the cards: a verifier
	// that knows Derive needs nothing else.
	seed := Seed{7}
	cards := []string{"a", "b", "c", "d", "e"}
	p := NewStream(seed, DeckContext("g", "x")).Shuffle("p", "r", 5).Values
	got := DealOrder(seed, "g", "x", 0, "p", "r", cards)
	for k := range p {
		if got[k] != cards[p[k]] {
			t.Fatalf("position %d: %s, the permutation %v gives %s", k, got[k], p, cards[p[k]])
		}
	}
}

func TestScriptDealerKeepsTheOrder(t *testing.T) {
	d := NewScriptDealer()
	cards := []string{"KS", "AH", "2D"}
	if got := d.Shuffle("us", 0, cards, "p", "r"); !slices.Equal(got, cards) {
		t.Errorf("script shuffle = %v, want %v", got, cards)
	}
	var src DeckSource = WithDealer(NewScript(3), d)
	if src.Dealer() != d || src.Roll(Request{Count: 1, Sides: 6}).Result != 3 {
		t.Error("WithDealer does not join the source and the dealer")
	}
}

func TestDealerRefusesHugeDeck(t *testing.T) {
	d := NewDealer(Seed{}, "g")
	cards := make([]string, MaxCards+1)
	d.Shuffle("us", 0, cards, "p", "r")
	if d.Err() == nil {
		t.Error("a deck beyond MaxCards was shuffled without an error")
	}
}
