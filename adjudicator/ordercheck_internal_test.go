package adjudicator

import (
	"strings"
	"testing"
)

// TestListLines: the listing stops before the 21st refused line or the 101st other one,
// counts what it left out, keeps every verdict of a line together, and shows a line
// refused by any of its verdicts as refused input.
func TestListLines(t *testing.T) {
	mk := func(no int, verdict string) lineView {
		return lineView{No: no, Text: "МOVE " + strings.Repeat("1", 150), Verdict: verdict}
	}
	tests := []struct {
		name   string
		lines  []lineView
		listed int
		note   string
	}{
		{"all listed", []lineView{mk(1, "ok"), mk(2, "REFUSED")}, 2, ""},
		{"25 refused", func() (ls []lineView) {
			for i := 1; i <= 25; i++ {
				ls = append(ls, mk(i, "REFUSED"))
			}
			return
		}(), 20, "and 5 more lines refused, not listed (lines 21-25)"},
		{"150 correct, 1 refused at the end", func() (ls []lineView) {
			for i := 1; i <= 150; i++ {
				ls = append(ls, mk(i, "correct, not filed"))
			}
			return append(ls, mk(151, "REFUSED"))
		}(), 100, "and 1 more line refused and 50 more correct, not listed (lines 101-151)"},
		{"two verdicts on line 21 stay together", func() (ls []lineView) {
			for i := 1; i <= 20; i++ {
				ls = append(ls, mk(i, "REFUSED"))
			}
			return append(ls, mk(21, "ok"), mk(21, "REFUSED"))
		}(), 20, "and 1 more line refused, not listed (line 21)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, note := listLines(tt.lines)
			if len(out) != tt.listed || note != tt.note {
				t.Errorf("listLines: %d listed, note %q; want %d, %q", len(out), note, tt.listed, tt.note)
			}
			for _, l := range out {
				prefix := "МOVE " // a correct line is quoted as written
				if l.Verdict == "REFUSED" {
					prefix = "<U+041C>OVE "
				}
				if !strings.HasSuffix(l.Text, "…(55 more characters)") || !strings.HasPrefix(l.Text, prefix) {
					t.Errorf("line %d (%s) quoted as %q", l.No, l.Verdict, l.Text)
				}
			}
		})
	}
	// A line with an ok verdict first and a refusal after is quoted as refused input.
	out, _ := listLines([]lineView{{No: 1, Text: "4209\u20154210", Verdict: "ok"}, {No: 1, Text: "4209\u20154210", Verdict: "REFUSED"}})
	if out[0].Text != "4209<U+2015>4210" {
		t.Errorf("a line refused by its second verdict is quoted %q", out[0].Text)
	}
}
