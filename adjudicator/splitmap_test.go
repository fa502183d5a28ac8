package adjudicator

import (
	"strings"
	"testing"
)

// TestSplitMap: a map is cut into its head, its strips and its tail (from "Legend" on),
// and the parts put together give the map back.
func TestSplitMap(t *testing.T) {
	m := "Title\n\nStrip 1 of 2: columns 10-12\nrow a\n\nStrip 2 of 2: columns 13-15\nrow b\n\nLegend\nx: y\nStrip 9 in the key\n"
	p := splitMap(m)
	if p.head != "Title\n\n" || len(p.strips) != 2 || p.strips[0] != "Strip 1 of 2: columns 10-12\nrow a\n\n" ||
		p.strips[1] != "Strip 2 of 2: columns 13-15\nrow b\n\n" || p.tail != "Legend\nx: y\nStrip 9 in the key\n" {
		t.Errorf("splitMap = %q", p)
	}
	if got := p.head + strings.Join(p.strips, "") + p.tail; got != m {
		t.Errorf("parts give %q, want the map back", got)
	}
	for _, m := range []string{"", "no strips\nat all", "Strip 1 of 1: x\nno newline at the end"} {
		p := splitMap(m)
		if got := p.head + strings.Join(p.strips, "") + p.tail; got != m {
			t.Errorf("splitMap(%q) parts give %q", m, got)
		}
	}
}
