package adjudicator_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// TestHistory: HISTORY [turn] sends a turn's results again as the asker's side
// received them (the last results without a turn), SUMMARY one line a phase; a
// stranger asking gets the refusal any stranger gets; bad turns are answered clearly.
func TestHistory(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "HISTORY\nSUMMARY\n")
	if body := flat(only(t, mails, us)); !strings.Contains(body, "No phase has been resolved yet") {
		t.Errorf("HISTORY before any results:\n%s", body)
	}
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	f.orders("de", passD, "PLOT NONE\n")
	var deTurn1 []string
	for _, m := range f.outbox() {
		if m.Kind == "results" && m.Side == "de" && strings.Contains(m.Body, "Turn 1") {
			deTurn1 = append(deTurn1, m.Body)
		}
	}
	if len(deTurn1) == 0 {
		t.Fatal("no results of turn 1 to the German")
	}
	out, mails := f.orders("de", passD, "HISTORY 1\n")
	body := only(t, mails, de).Body
	if out != adjudicator.Handled || !strings.Contains(body, "== HISTORY ==") {
		t.Fatalf("HISTORY 1: %q\n%s", out, body)
	}
	for _, r := range deTurn1 {
		if !strings.Contains(body, strings.TrimRight(r, "\n")) {
			t.Errorf("HISTORY 1 lacks a results mail of turn 1 as sent:\n%s", r)
		}
	}
	// The other side's results are not the German's: his sealed plot stays his own
	// until revealed, so nothing only the US results hold may appear.
	_, mails = f.orders("us", passU, "HISTORY\n")
	usLast := only(t, mails, us).Body
	var last string
	for _, m := range f.outbox() {
		if m.Kind == "results" && m.Side == "us" {
			last = m.Body
		}
	}
	if !strings.Contains(usLast, strings.TrimRight(last, "\n")) {
		t.Errorf("HISTORY without a turn is not the last results mail to the US:\n%s", usLast)
	}
	_, mails = f.orders("de", passD, "SUMMARY\n")
	if body := flat(only(t, mails, de)); !strings.Contains(body, "turn 0, phase setup") || !strings.Contains(body, "turn 1, phase") {
		t.Errorf("SUMMARY:\n%s", only(t, mails, de).Body)
	}
	for _, c := range []struct{ text, want string }{
		{"HISTORY 9\n", "no phase of turn 9 has been resolved"},
		{"HISTORY one\n", `HISTORY "one": expected`},
	} {
		if _, mails := f.orders("de", passD, c.text); !strings.Contains(flat(only(t, mails, de)), c.want) {
			t.Errorf("%q: want %q in\n%s", c.text, c.want, mails[0].Body)
		}
	}
	out, mails = f.send(cleo, "h", "GAME g1\nHISTORY 1\n")
	if out != adjudicator.Refused+": refused" || strings.Contains(only(t, mails, cleo).Body, "== HISTORY ==") {
		t.Errorf("a stranger's HISTORY: %q", out)
	}
}
