package adjudicator

import (
	"strings"
	"testing"
	"text/template"

	"github.com/adjutant-pbem/adjutant/templates"
)

// The lines of order-check.txt and results.txt as the templates wrote them before
// sayLines and wrapEvent wrapped them in Go.
var templatesBefore = template.Must(template.New("").Funcs(template.FuncMap{"wrap": templates.Wrap}).Parse(
	`{{define "quote"}}{{wrap 76 4 (printf "line %d: %s" .No .Text)}}{{end}}` +
		`{{define "said"}}{{wrap 72 6 (printf "%s%s%s%s" .Verdict (or (and .Run (printf " (the %d lines above)" .Run)) "") (or (and .Reason (printf ": %s" .Reason)) "") (or (and .Rule (printf " [rule %s]" .Rule)) ""))}}{{end}}` +
		`{{define "event"}}{{wrap 78 4 (printf "[%s] %s" .Rule .Text)}}{{end}}`))

func before(t *testing.T, name string, data any) string {
	t.Helper()
	var b strings.Builder
	if err := templatesBefore.ExecuteTemplate(&b, name, data); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestSayLinesAsTemplate: an order check's lines and verdicts, and a results mail's
// events, are wrapped in Go as the templates' functions wrapped them: with and without
// a run, a reason, a rule; short, long, unbroken, not UTF-8.
func TestSayLinesAsTemplate(t *testing.T) {
	long := strings.Repeat("MOVE 2301-2302-2402 ", 9)
	texts := []string{"", "PLOT TURN 1 4300x3", long, strings.Repeat("x", 200), "é€ ünïcode  spaced\ttab", "bad \xff\xfe utf-8"}
	var lines []lineView
	for i, text := range texts {
		for _, run := range []int{0, 1, 14} {
			for _, reason := range []string{"", "understood", long} {
				for _, rule := range []string{"", "9.1", "HELP"} {
					lines = append(lines, lineView{No: i * 7, Text: text, Verdict: "REFUSED", Run: run, Reason: reason, Rule: rule})
				}
			}
		}
	}
	sayLines(lines)
	for _, l := range lines {
		if want := before(t, "quote", l); l.Quote != want {
			t.Errorf("Quote of %+v = %q, want %q", l, l.Quote, want)
		}
		if want := before(t, "said", l); l.Said != want {
			t.Errorf("Said of %+v = %q, want %q", l, l.Said, want)
		}
	}
	for _, text := range texts {
		for _, rule := range []string{"", "10.8", long} {
			if got, want := wrapEvent(rule, text), before(t, "event", eventView{Rule: rule, Text: text}); got != want {
				t.Errorf("wrapEvent(%q, %q) = %q, want %q", rule, text, got, want)
			}
		}
	}
}
