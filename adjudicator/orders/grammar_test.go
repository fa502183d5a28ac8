package orders_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

var testGrammar = orders.Grammar{
	{Keyword: "MOVE", Fields: 2, Usage: "MOVE <unit> <path>"},
	{Keyword: "COW", Also: []string{"COWED"}, Fields: 1, Usage: "COW <hex> ..."},
	{Keyword: "PASS"},
}

// TestGrammarRead: a keyword line is read in any ASCII case, under its other spellings
// too, with its fields after the keyword; an unknown keyword and a line short of a field
// are refused in the one wording every game shares.
func TestGrammarRead(t *testing.T) {
	for _, tc := range []struct {
		line, keyword, fields, err string
	}{
		{"move 1US 0807-0908", "MOVE", "1US 0807-0908", ""},
		{"Cowed 2303 4802", "COW", "2303 4802", ""},
		{"PASS", "PASS", "", ""},
		{"PASS 18 July", "PASS", "18 July", ""},
		{"MOVE 1US", "MOVE", "1US", "want MOVE <unit> <path>"},
		{"COW", "COW", "", "want COW <hex> ..."},
		{"POLT TURN 2", "", "", `unknown order "POLT": want one of MOVE, COW, COWED, PASS (see HELP)`},
		{"ſtatuſ", "", "", `unknown order "ſtatuſ"`}, // only ASCII letters fold
	} {
		t.Run(tc.line, func(t *testing.T) {
			lines, _ := orders.Split(tc.line)
			f, args, err := testGrammar.Read(lines[0])
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("Read(%q) error = %v, want %q", tc.line, err, tc.err)
				}
			} else if err != nil {
				t.Fatalf("Read(%q): %v", tc.line, err)
			}
			if f.Keyword != tc.keyword || strings.Join(args, " ") != tc.fields {
				t.Errorf("Read(%q) = %s %q, want %s %q", tc.line, f.Keyword, args, tc.keyword, tc.fields)
			}
		})
	}
	if got := strings.Join(testGrammar.Keywords(), " "); got != "MOVE COW COWED PASS" {
		t.Errorf("Keywords() = %s", got)
	}
}

// FuzzGrammarRead: any line is read without a panic, as one of the grammar's orders
// with the fields after its keyword, or refused.
func FuzzGrammarRead(f *testing.F) {
	for _, s := range []string{"MOVE 1US 0807-0908", "cowed 2303", "PASS", "", "“MOVE” x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, _ := orders.Split(text)
		for _, l := range lines {
			form, args, err := testGrammar.Read(l)
			if err != nil && form.Keyword == "" {
				continue
			}
			if kw := l.Keyword(); form.Keyword != kw && !slices.Contains(form.Also, kw) {
				t.Fatalf("Read(%q) = form %s", l.Text, form.Keyword)
			}
			if len(args) != len(l.Fields)-1 || (err == nil) != (len(args) >= form.Fields) {
				t.Fatalf("Read(%q) = %q, %v", l.Text, args, err)
			}
		}
	})
}
