package adjudicator

import (
	"math/rand/v2"
	"strings"
	"testing"
	"text/template"

	"github.com/adjutant-pbem/adjutant/templates"
)

// The ranges results.txt and order-check.txt had before stepsText and linesText
// wrote them, cut out of the templates as they were.
const (
	stepsRange = `{{range .Steps}}
== {{.Title}} ==
{{- range .Events}}
{{.Line}}
{{- if .Roll}}
    roll: {{.Roll}}
{{- end}}
{{- end}}
{{end}}`
	linesRange = `{{range .Lines}}
{{- if not .Again}}
  {{.Quote}}
{{- end}}
{{- if not .Quiet}}
      {{.Said}}
{{- end}}
{{- end}}`
	// A section of order-check.txt, as the template wrapped it.
	sectionExpr = `{{if eq .Title "MAP" "ROLLS" "HELP DICE" "HISTORY" "SUMMARY"}}{{.Body}}{{else}}{{wrap 78 0 .Body}}{{end}}`
)

// TestSectionsAsTemplates: the phases of a results mail, the lines of an order check
// and its sections, written in Go, are what the templates wrote, for none, one and
// many phases, events with and without a roll line, lines quoted again, verdicts said
// once for a run, and sections shown as they are or wrapped.
func TestSectionsAsTemplates(t *testing.T) {
	steps := template.Must(template.New("").Parse(stepsRange))
	sectionTmpl := template.Must(template.New("").Funcs(template.FuncMap{"wrap": templates.Wrap}).Parse(sectionExpr))
	lines := template.Must(template.New("").Parse(linesRange))
	r := rand.New(rand.NewPCG(23, 24))
	word := func() string {
		return []string{"[12.2] Bombardment of 4300:\n    two units hit.", "x", "", "line 3: MOVE 2301-2302", "ok: understood"}[r.IntN(5)]
	}
	for round := range 200 {
		var sv []stepView
		for range r.IntN(4) {
			s := stepView{Title: word()}
			for range r.IntN(5) {
				e := eventView{Line: word()}
				if r.IntN(2) == 0 {
					e.Roll = word()
				}
				s.Events = append(s.Events, e)
			}
			sv = append(sv, s)
		}
		var lv []lineView
		for range r.IntN(6) {
			lv = append(lv, lineView{Quote: word(), Said: word(), Again: r.IntN(3) == 0, Quiet: r.IntN(3) == 0})
		}
		var want strings.Builder
		if err := steps.Execute(&want, map[string]any{"Steps": sv}); err != nil {
			t.Fatal(err)
		}
		if got := stepsText(sv); got != want.String() {
			t.Fatalf("round %d: stepsText = %q, the template wrote %q", round, got, want.String())
		}
		want.Reset()
		if err := lines.Execute(&want, map[string]any{"Lines": lv}); err != nil {
			t.Fatal(err)
		}
		if got := linesText(lv); got != want.String() {
			t.Fatalf("round %d: linesText = %q, the template wrote %q", round, got, want.String())
		}
		sec := section{Title: []string{"MAP", "ROLLS", "HELP DICE", "HISTORY", "SUMMARY", "STATUS", "HELP", "map"}[r.IntN(8)],
			Body: strings.Repeat(word()+" ", r.IntN(30))}
		want.Reset()
		if err := sectionTmpl.Execute(&want, sec); err != nil {
			t.Fatal(err)
		}
		if got := sectionText(sec); got != want.String() {
			t.Fatalf("round %d: sectionText(%q) = %q, the template wrote %q", round, sec.Title, got, want.String())
		}
	}
}
