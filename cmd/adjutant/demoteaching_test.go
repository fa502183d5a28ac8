package main

import (
	"bytes"
	"context"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// mailCard is one card turned, as a results mail's event tells it.
type mailCard struct{ deck, card string }

var (
	reTurn      = regexp.MustCompile(`^\[1\] (American|German) turns (\S+): `)
	reH2H       = regexp.MustCompile(`^\[3\] .*the American turns (\S+), (red|black)`)
	reShuffle   = regexp.MustCompile(`deck "(us|de)" shuffle (\d+) of (\d+) cards \[([^\]]*)\], rule "([^"]*)", purpose "([^"]*)"`)
	reDeckSeed  = regexp.MustCompile(`Deck seed \(32 bytes, written in hex\), revealed at the end of the game\n  ([0-9a-f]{64})\n  SHA-256 of the 32 bytes \(not of their hex\), its commitment:\n  ([0-9a-f]{64})`)
	reDeckCmt   = regexp.MustCompile(`Deck seed drawn, sealed until the game ends; SHA-256 of its 32 bytes:\n  ([0-9a-f]{64})`)
	reWhole     = regexp.MustCompile(`The whole sealed order \(\d+ shuffle\(s\)\): ([^.]*)\.`)
	reDeckOwner = regexp.MustCompile(`\[1, 3\] The (American|German) deck, every card turned`)
)

// unwrap joins a mail's wrapped lines (a line break and the indentation of the next
// line stand for one space), so that records can be matched whole.
func unwrap(body string) string {
	return regexp.MustCompile(`\n {4}`).ReplaceAllString(body, " ")
}

// teachingMails plays the teaching demo by pipe and returns its outbox.
func teachingMails(t *testing.T) []outMailJSON {
	t.Helper()
	db := filepath.Join(t.TempDir(), "t.db")
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	if err := demoTeaching(e, demoOpts{keep: db, quiet: true, pipe: true}); err != nil {
		t.Fatal(err)
	}
	mails, err := outboxOf(e, db)
	if err != nil {
		t.Fatal(err)
	}
	return mails
}

// TestTeachingDecksFromMails plays the teaching demo by pipe, then takes the American
// player's mails alone: the deck seed's commitment and each deck's shuffle in the
// invitation, every card turned in the results, and the deck seed revealed when the
// game ends. From those alone it re-derives both decks (dice.DealOrder), checks every
// card turned against its place in its deck and the whole order against the decks
// the last mail reveals; adjudicator.CheckMails (which derives the shuffles by hand)
// must agree card for card.
func TestTeachingDecksFromMails(t *testing.T) {
	mails := teachingMails(t)
	var bodies []string
	var turned []mailCard
	var over string
	for _, m := range mails {
		if !slices.Contains(m.To, sampleUS) || !strings.HasPrefix(m.Subject, "["+teachingGame+"]") {
			continue
		}
		bodies = append(bodies, m.Body)
		if m.Kind == "results" && strings.HasPrefix(m.Body, "Game over: ") {
			over = unwrap(m.Body)
		}
		if m.Kind != "results" {
			continue
		}
		for _, line := range strings.Split(unwrap(m.Body), "\n") {
			if g := reTurn.FindStringSubmatch(line); g != nil {
				turned = append(turned, mailCard{map[string]string{"American": "us", "German": "de"}[g[1]], g[2]})
			} else if g := reH2H.FindStringSubmatch(line); g != nil {
				turned = append(turned, mailCard{"us", g[1]})
			}
		}
	}
	if len(turned) < 6 || over == "" {
		t.Fatalf("%d cards turned in the mails, game-over mail found: %v", len(turned), over != "")
	}
	invitation := unwrap(bodies[0])
	commit := reDeckCmt.FindStringSubmatch(invitation)
	seedM := reDeckSeed.FindStringSubmatch(over)
	if commit == nil || seedM == nil {
		t.Fatalf("deck seed commitment in the invitation: %v; deck seed in the last mail: %v", commit != nil, seedM != nil)
	}
	seed, err := dice.ParseSeed(seedM[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := dice.CheckSeed(seed, commit[1]); err != nil || seedM[2] != commit[1] {
		t.Fatalf("the revealed deck seed does not match the invitation's commitment: %v", err)
	}
	// Re-derive each deck from its shuffles (all in the invitation: the demo's decks
	// are never used up).
	order := map[string][]string{}
	for _, g := range reShuffle.FindAllStringSubmatch(invitation, -1) {
		index, _ := strconv.Atoi(g[2])
		cards := strings.Fields(g[4])
		if n, _ := strconv.Atoi(g[3]); n != len(cards) || index != 0 {
			t.Fatalf("shuffle record %q", g[0])
		}
		order[g[1]] = dice.DealOrder(seed, teachingGame, g[1], index, g[6], g[5], cards)
	}
	if len(order["us"]) != 52 || len(order["de"]) != 52 {
		t.Fatalf("decks re-derived from the invitation: %d and %d cards", len(order["us"]), len(order["de"]))
	}
	next := map[string]int{}
	for i, c := range turned {
		if want := order[c.deck][next[c.deck]]; want != c.card {
			t.Errorf("card %d turned (deck %s, place %d): the mail says %s, the deck seed gives %s", i+1, c.deck, next[c.deck], c.card, want)
		}
		next[c.deck]++
	}
	// The decks the last mail reveals are the ones re-derived.
	owners := reDeckOwner.FindAllStringSubmatch(over, -1)
	wholes := reWhole.FindAllStringSubmatch(over, -1)
	if len(owners) != 2 || len(wholes) != 2 {
		t.Fatalf("the last mail reveals %d decks (%d orders)", len(owners), len(wholes))
	}
	for i, o := range owners {
		deck := map[string]string{"American": "us", "German": "de"}[o[1]]
		if got := strings.Fields(wholes[i][1]); !slices.Equal(got, order[deck]) {
			t.Errorf("the %s deck revealed: %v; re-derived from the mails: %v", o[1], got, order[deck])
		}
	}
	got, err := adjudicator.CheckMails(teachingGame, bodies)
	if err != nil {
		t.Fatal(err)
	}
	if got.Cards != len(turned) || got.CardsVerified != len(turned) || got.CardsSealed != 0 {
		t.Errorf("CheckMails: %d cards, %d verified, %d sealed; the mails tell %d cards turned", got.Cards, got.CardsVerified, got.CardsSealed, len(turned))
	}
	t.Logf("%d cards re-derived from the %d mails to %s", len(turned), len(bodies), sampleUS)
}

// TestTeachingMailsHideTheDecks: no mail sent before the game ends, to either player,
// holds the deck seed or any three cards not yet turned in the order the sealed decks
// hold them (a new deck's order, public, aside).
func TestTeachingMailsHideTheDecks(t *testing.T) {
	mails := teachingMails(t)
	var over string
	for _, m := range mails {
		if m.Kind == "results" && strings.HasPrefix(m.Body, "Game over: ") {
			over = unwrap(m.Body)
			break
		}
	}
	seedM := reDeckSeed.FindStringSubmatch(over)
	wholes := reWhole.FindAllStringSubmatch(over, -1)
	if seedM == nil || len(wholes) != 2 {
		t.Fatal("the game-over mail reveals no deck seed or not both decks")
	}
	checked := 0
	turned := [2]int{}
	for _, m := range mails {
		if m.Kind == "results" && strings.HasPrefix(m.Body, "Game over: ") {
			break
		}
		body := strings.ReplaceAll(unwrap(m.Body), "["+strings.Join(newDeckForTest(), " ")+"]", "[a new deck]")
		if strings.Contains(body, seedM[1]) {
			t.Fatalf("mail %q to %v holds the deck seed before the game ends", m.Subject, m.To)
		}
		for i, w := range wholes {
			rest := strings.Fields(w[1])[turned[i]:]
			for k := 0; k+3 <= len(rest); k++ {
				if run := strings.Join(rest[k:k+3], " "); strings.Contains(body, run) {
					t.Fatalf("mail %q to %v holds %q, three cards of a sealed deck in order, before they are turned", m.Subject, m.To, run)
				}
			}
		}
		if m.Kind == "results" && slices.Contains(m.To, sampleUS) {
			// Cards turned so far are public: the runs checked start after them.
			turned[0] += strings.Count(body, "\n[1] American turns ") + strings.Count(body, "the American turns ")
			turned[1] += strings.Count(body, "\n[1] German turns ")
		}
		checked++
	}
	if checked < 10 {
		t.Fatalf("only %d mails before the end", checked)
	}
}

// TestTeachingDemoByMail plays the teaching demo over IMAP and SMTP to its end.
func TestTeachingDemoByMail(t *testing.T) {
	var out bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, cost: 4}
	if err := demoTeaching(e, demoOpts{keep: filepath.Join(t.TempDir(), "t.db"), quiet: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo complete", "audit of sample verified", "replay of sample matches"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
	// The pace of play, measured in the game just played: one mail a turn waits for
	// the American and the German (turn 1: the American alone); stopping waits more,
	// and at most five times (two artillery steps, movement, wire, German fire).
	fast := regexp.MustCompile(`Waits per game turn, one mail a turn: (\d+\.\d) \((\d+) odd turns; turn 1: (\d+)\)\.`).FindStringSubmatch(out.String())
	slow := regexp.MustCompile(`Waits per game turn, stopping to see every result: (\d+\.\d) \((\d+) even turns\)\.`).FindStringSubmatch(out.String())
	if fast == nil || slow == nil {
		t.Fatalf("demo output lacks the waits per game turn:\n%s", out.String())
	}
	s, _ := strconv.ParseFloat(slow[1], 64)
	if fast[1] != "2.0" || fast[3] != "1" || fast[2] == "0" || slow[2] == "0" || s <= 2 || s > 5 {
		t.Errorf("waits per game turn: one mail a turn %s (%s turns, turn 1: %s), stopping %s (%s turns)", fast[1], fast[2], fast[3], slow[1], slow[2])
	}
}

// TestTeachingPaceMean: the waits per turn of a style count the whole turns of that
// style from turn 2, not turn 1 (no German turn) nor the last (it may end mid-turn).
func TestTeachingPaceMean(t *testing.T) {
	p := &teachingPace{waits: map[int][]string{
		1: {"us"}, 2: {"us", "us-move", "de", "de-fire"}, 3: {"us", "de"},
		4: {"us", "us-move", "us-wire", "de", "de-fire"}, 5: {"us", "de"}, 6: {"us"},
	}}
	tests := []struct {
		stop  bool
		mean  float64
		turns int
	}{
		{false, 2, 2},
		{true, 4.5, 2},
	}
	for _, tt := range tests {
		if m, n := p.mean(tt.stop, 6); m != tt.mean || n != tt.turns {
			t.Errorf("mean(stop %v) = %v over %d turns, want %v over %d", tt.stop, m, n, tt.mean, tt.turns)
		}
	}
}

func newDeckForTest() []string {
	var d []string
	for _, s := range []string{"S", "H", "D", "C"} {
		for _, r := range []string{"A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"} {
			d = append(d, r+s)
		}
	}
	return d
}
