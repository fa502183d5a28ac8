package mapview_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestRenderTitleLinesAndLegendTitle: a title the ruleset wrapped keeps its lines,
// each cut at 78; a legend title is a line of its own right after the last strip, so
// that the desk's SET MAP CHANGES finds where the strips end.
func TestRenderTitleLinesAndLegendTitle(t *testing.T) {
	m := testMap(t, "10-12")
	got := mapview.Render(mapview.View{Title: "First line\n    second " + strings.Repeat("x", 90) + "\n",
		Map: m, Legend: legend, LegendTitle: "Legend (test)"})
	lines := strings.Split(got, "\n")
	if lines[0] != "First line" || lines[1] != "    second "+strings.Repeat("x", 67) || lines[2] != "" {
		t.Errorf("title lines = %q, want the two lines, the second cut at 78", lines[:3])
	}
	i := slices.Index(lines, "Legend (test)")
	if i < 0 || lines[i-1] != "" || !strings.HasPrefix(lines[i-2], "     10") || !strings.HasPrefix(lines[i+1], "Terrain: ") {
		t.Errorf("legend title not between the last strip and the legend:\n%s", got)
	}
	// Without one the legend is headed "Legend", where the desk's SET MAP CHANGES cuts.
	plain := strings.Split(mapview.Render(mapview.View{Title: "T", Map: m, Legend: legend}), "\n")
	if i := slices.Index(plain, "Legend"); i < 0 || !strings.HasPrefix(plain[i+1], "Terrain: ") {
		t.Errorf("a view without LegendTitle has no \"Legend\" line before its legend:\n%s", strings.Join(plain, "\n"))
	}
}
