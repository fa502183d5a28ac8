package adjudicator_test

import (
	"context"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// firstLine is the first line of a mail's body: what is due from its reader.
func firstLine(body string) string {
	line, _, _ := strings.Cut(body, "\n")
	return line
}

// TestEveryMailToAPlayerSaysWhatIsDue plays the sample game to its end and reads every
// mail to its players as a phone shows them: the first line says what is due from him
// ("Your move", "Waiting for", "Game over"), and every mail of the game to one player has
// one subject, so that a client that threads by subject keeps the game together (What a
// player reads, DESIGN.md).
func TestEveryMailToAPlayerSaysWhatIsDue(t *testing.T) {
	desk, db, mails := benchDesk(t, 1)
	handleAll(t, desk, mails)
	subjects := map[string]string{}
	var results, over int
	for _, m := range outbox(t, db) {
		if m.Game == "" || m.Side == "" {
			continue
		}
		first := firstLine(m.Body)
		if !strings.HasPrefix(first, "Your move: ") && !strings.HasPrefix(first, "Waiting for ") && !strings.HasPrefix(first, "Game over: ") {
			t.Errorf("%s mail to %s starts %q: want what is due from him", m.Kind, m.To[0], first)
		}
		if s, ok := subjects[m.To[0]]; ok && s != m.Subject {
			t.Errorf("%s mail to %s has subject %q, an earlier one %q", m.Kind, m.To[0], m.Subject, s)
		}
		subjects[m.To[0]] = m.Subject
		if m.Kind == "results" {
			results++
		}
		if strings.HasPrefix(first, "Game over: ") && strings.Contains(m.Body, "penetration") {
			over++
		}
	}
	if len(subjects) != 2 || results == 0 || over < 2 {
		t.Errorf("subjects %v, %d results mails, %d mails saying the game is over with its verdict: want both players' mails, results, and the verdict to each", subjects, results, over)
	}
	if want := "[bench0000] Soldiers: Decision in the Trenches, 1918: US"; !containsValue(subjects, want) {
		t.Errorf("subjects %v: want %q", subjects, want)
	}
}

func containsValue(m map[string]string, v string) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

// TestGamesOfTheOriginalLayoutReplay: a game played under the original layout (its
// journal entries say so, or say nothing, as those written before layouts were
// numbered) replays as it was mailed, and a game that changes layout halfway (the daemon
// upgraded during it) replays too, each advance in its own layout (invariant 4).
func TestGamesOfTheOriginalLayoutReplay(t *testing.T) {
	for _, half := range []bool{false, true} {
		t.Run(map[bool]string{false: "original layout", true: "upgraded halfway"}[half], func(t *testing.T) {
			desk, db, mails := benchDesk(t, 1)
			desk.ResultsLayout = adjudicator.LayoutOriginal
			n := len(mails)
			if half {
				n /= 2
			}
			handleAll(t, desk, mails[:n])
			desk.ResultsLayout = 0
			handleAll(t, desk, mails[n:])
			var old, glance int
			for _, m := range outbox(t, db) {
				if m.Kind != "results" {
					continue
				}
				switch {
				case strings.HasPrefix(m.Body, "Results for game "):
					old++
				case strings.HasPrefix(m.Subject, "[bench0000] Soldiers: Decision"):
					glance++
				}
			}
			if old == 0 || (glance > 0) != half {
				t.Fatalf("%d results mails in the original layout, %d at a glance: want both only when upgraded halfway", old, glance)
			}
			rep, err := desk.Replay(context.Background(), "bench0000")
			if err != nil || rep.Mails != old+glance {
				t.Errorf("Replay = %+v, %v: want every one of %d results mails identical", rep, err, old+glance)
			}
		})
	}
}

// TestOrderCheckStatusAtAGlance: the STATUS part of an order check the player did not
// ask for shows a long ruleset status cut to its first lines, as a results mail does;
// a mail with STATUS gets it whole (Soissons lists every unit there).
func TestOrderCheckStatusAtAGlance(t *testing.T) {
	d, db := everyRuleset(t)
	newGameOf(t, d, db, "soissons1918", "s", "wait")
	send := func(id, text string) string {
		t.Helper()
		before := len(outbox(t, db))
		if _, err := d.Handle(context.Background(), adjudicator.Message{ID: id, From: "de@players.example", Subject: "[s]", Text: "GAME s\nPASSWORD pw-de\n" + text}); err != nil {
			t.Fatal(err)
		}
		for _, m := range outbox(t, db)[before:] {
			if m.Kind == "reply" {
				return m.Body
			}
		}
		t.Fatalf("no order check for %q", text)
		return ""
	}
	brief := send("m1@players.example", "SETUP DEFAULT")
	whole := send("m2@players.example", "STATUS")
	if !strings.Contains(brief, "more lines: send STATUS for them all") || strings.Contains(whole, "send STATUS for them all") ||
		strings.Count(brief, "\n") >= strings.Count(whole, "\n") {
		t.Errorf("order check without STATUS (%d lines) or with it (%d lines): want the first cut, the second whole\n%s\n---\n%s",
			strings.Count(brief, "\n"), strings.Count(whole, "\n"), brief, whole)
	}
}

// TestGamesOfTheGlanceLayoutReplay: a game whose first half was mailed in LayoutGlance
// (the daemon upgraded to LayoutCompact during it) replays every results mail as sent,
// each advance in its own layout: the first half's dice in two lines a roll, the
// second's in the compact form (invariant 4).
func TestGamesOfTheGlanceLayoutReplay(t *testing.T) {
	desk, db, mails := benchDesk(t, 1)
	desk.ResultsLayout = adjudicator.LayoutGlance
	handleAll(t, desk, mails[:len(mails)/2])
	desk.ResultsLayout = 0
	handleAll(t, desk, mails[len(mails)/2:])
	var glance, compact, results int
	for _, m := range outbox(t, db) {
		if m.Kind != "results" {
			continue
		}
		results++
		if strings.Contains(m.Body, "\n  index 0: ") {
			glance++
		}
		if strings.Contains(m.Body, "\n  1d6, rule \"") {
			compact++
		}
	}
	if glance == 0 || compact == 0 {
		t.Fatalf("%d results mails with dice in the glance layout's form, %d in the compact form: want both", glance, compact)
	}
	rep, err := desk.Replay(context.Background(), "bench0000")
	if err != nil || rep.Mails != results {
		t.Errorf("Replay = %+v, %v: want every one of %d results mails identical", rep, err, results)
	}
}

// TestInvitationRefersToHelp: each ruleset's invitation gives the first paragraph of
// its HELP and points to HELP for the rest, instead of carrying it whole (a Soissons
// invitation was 367 lines, the teaching game's 257): every invitation is at most 100
// lines.
func TestInvitationRefersToHelp(t *testing.T) {
	d, db := everyRuleset(t)
	for _, name := range []string{"soldiers1918", "mons1914", "soissons1918", "teaching"} {
		invited := 0
		for _, m := range newGameOf(t, d, db, name, "i-"+name, "wait") {
			if m.Kind != "invite" {
				continue
			}
			invited++
			if n := strings.Count(m.Body, "\n"); n > 100 || !strings.Contains(m.Body, "Send HELP for the whole of it") || !strings.Contains(m.Body, "\nHELP: ") {
				t.Errorf("%s: the invitation is %d lines, or does not give HELP's first paragraph and point to HELP:\n%s", name, n, m.Body)
			}
		}
		if invited == 0 {
			t.Errorf("%s: no invitation", name)
		}
	}
}
