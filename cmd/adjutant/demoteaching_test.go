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
)

// cardEvent is one card turned, as a results mail tells it.
type cardEvent struct {
	side, card string
	sides, k   int // the roll that chose it: k among sides cards; 0 for the last card
}

var (
	reTurn = regexp.MustCompile(`^(American|German) turns (\S+): `)
	reH2H  = regexp.MustCompile(`the American turns (\S+), (red|black)`)
	reRoll = regexp.MustCompile(`^roll: 1d(\d+) \[(\d+)\]`)
	reDeck = regexp.MustCompile(`^\d+\. (\S+) turn `)
)

// mailEvents splits a results mail into its events, each with its roll line if any.
func mailEvents(body string) (events, rolls []string) {
	for _, line := range strings.Split(body, "\n") {
		switch {
		case strings.HasPrefix(line, "["):
			events = append(events, line[strings.Index(line, "] ")+2:])
			rolls = append(rolls, "")
		case strings.HasPrefix(line, "    roll: ") && len(events) > 0:
			rolls[len(rolls)-1] = strings.TrimSpace(line)
		case strings.HasPrefix(line, "    ") && len(events) > 0 && rolls[len(rolls)-1] == "":
			events[len(events)-1] += " " + strings.TrimSpace(line)
		case !strings.HasPrefix(line, "    ") && !strings.HasPrefix(line, "["):
			if len(events) > 0 && rolls[len(rolls)-1] == "" {
				rolls[len(rolls)-1] = "-" // the event is closed
			}
		}
	}
	return events, rolls
}

// TestTeachingDecksFromMails plays the teaching demo by pipe, then takes the American
// player's mails alone: every card turned in the results, the roll that chose it, and
// the two decks revealed when the game ends. It re-derives every card from a new deck
// and the rolls (the k-th of the cards left), checks each against the card the mail
// names and the whole order against the revealed decks, and has the audit verify every
// roll against the revealed seeds.
func TestTeachingDecksFromMails(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "t.db")
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	if err := demoTeaching(e, db, true, true); err != nil {
		t.Fatal(err)
	}
	mails, err := outboxOf(e, db)
	if err != nil {
		t.Fatal(err)
	}
	var turned []cardEvent
	var report string
	for _, m := range mails {
		if !slices.Contains(m.To, sampleUS) {
			continue
		}
		if strings.Contains(m.Subject, "Game over") {
			report = m.Body
		}
		if !strings.Contains(m.Subject, "Results") && !strings.Contains(m.Subject, "Game over") {
			continue
		}
		events, rolls := mailEvents(m.Body)
		for i, ev := range events {
			c := cardEvent{}
			if g := reTurn.FindStringSubmatch(ev); g != nil {
				c.side, c.card = g[1], g[2]
			} else if g := reH2H.FindStringSubmatch(ev); g != nil {
				c.side, c.card = "American", g[1]
			} else {
				continue
			}
			if g := reRoll.FindStringSubmatch(rolls[i]); g != nil {
				c.sides, _ = strconv.Atoi(g[1])
				c.k, _ = strconv.Atoi(g[2])
			}
			turned = append(turned, c)
		}
	}
	if len(turned) < 6 || report == "" {
		t.Fatalf("%d cards turned in the mails, game-over mail found: %v", len(turned), report != "")
	}
	// Re-derive.
	left := map[string][]string{"American": newDeckForTest(), "German": newDeckForTest()}
	discards := map[string][]string{}
	derived := map[string][]string{}
	for i, c := range turned {
		if len(left[c.side]) == 0 {
			left[c.side], discards[c.side] = discards[c.side], nil
		}
		l := left[c.side]
		k := 1
		if len(l) > 1 {
			if c.sides != len(l) || c.k < 1 || c.k > len(l) {
				t.Fatalf("card %d (%s %s): roll %d of d%d, but %d cards are left", i+1, c.side, c.card, c.k, c.sides, len(l))
			}
			k = c.k
		} else if c.sides != 0 {
			t.Errorf("card %d: a roll for the last card", i+1)
		}
		if got := l[k-1]; got != c.card {
			t.Errorf("card %d: the roll gives %s, the mail says %s turned", i+1, got, c.card)
		}
		left[c.side] = slices.Delete(slices.Clone(l), k-1, k)
		discards[c.side] = append(discards[c.side], c.card)
		derived[c.side] = append(derived[c.side], c.card)
	}
	// The decks revealed at the end.
	for _, side := range []string{"American", "German"} {
		var order []string
		var never string
		in := false
		for _, line := range strings.Split(report, "\n") {
			switch {
			case strings.Contains(line, "The "+side+" deck, every card turned in order"):
				in = true
			case in && reDeck.MatchString(line):
				order = append(order, reDeck.FindStringSubmatch(line)[1])
			case in && strings.HasPrefix(line, "Never turned:"):
				never = strings.TrimPrefix(line, "Never turned:")
			case in && never != "" && strings.HasPrefix(line, "    "):
				never += " " + strings.TrimSpace(line)
			case in && never != "":
				in = false
			}
		}
		if !slices.Equal(order, derived[side]) {
			t.Errorf("%s deck revealed %v, derived from the rolls %v", side, order, derived[side])
		}
		if got := strings.Fields(strings.TrimSuffix(strings.TrimSpace(never), ".")); !slices.Equal(got, left[side]) {
			t.Errorf("%s cards never turned: revealed %v, derived %v", side, got, left[side])
		}
	}
	// Every roll against its revealed seed.
	var out bytes.Buffer
	sub := *e
	sub.stdout, sub.stderr = &out, &out
	if code := runEnv(&sub, []string{"audit", "verify", "--db", db, "--game", sampleGame}); code != 0 {
		t.Fatalf("audit verify: %s", out.String())
	}
	t.Logf("%d cards re-derived; %s", len(turned), strings.TrimSpace(out.String()))
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

// TestTeachingDemoByMail plays the teaching demo over IMAP and SMTP to its end.
func TestTeachingDemoByMail(t *testing.T) {
	var out bytes.Buffer
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: &out, stderr: io.Discard, cost: 4}
	if err := demoTeaching(e, filepath.Join(t.TempDir(), "t.db"), true, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"demo complete", "audit of sample verified", "replay of sample matches"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("demo output lacks %q:\n%s", want, out.String())
		}
	}
}
