package adjudicator

import (
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestCommonView: the observer's view keeps a hex's cell only when every side's view
// shows it alike; where the cells differ but every side sees the same forces there,
// their letters alone; nothing where a side sees no force or other forces; key lines
// and arrows every view has; a counter's label only where every view has the same.
func TestCommonView(t *testing.T) {
	legend := mapview.Legend{Forces: []mapview.Symbol{{Name: "de", Char: 'G'}, {Name: "bef", Char: 'B'}}}
	h := func(s string) hex.Hex { x, _ := hex.Parse(s); return x }
	a := mapview.View{Legend: legend,
		Cells:  map[hex.Hex]string{h("0101"): "g", h("0102"): "gG3", h("0103"): "B", h("0104"): "G2", h("0105"): "gB2"},
		Forces: map[hex.Hex][]string{h("0102"): {"de"}, h("0103"): {"bef"}, h("0104"): {"de"}, h("0105"): {"bef"}},
		Labels: map[hex.Hex]string{h("0102"): "IX/31/18", h("0103"): "RHA3", h("0104"): "IX/31/18", h("0105"): "1/NF"},
		Key:    []string{"0103 B: RHA3", "0104 G: IX/31/18, IX/84/18", "Dead, German, 1: III/12/5"},
		Arrows: []mapview.Arrow{{From: h("0101"), To: h("0102"), Name: "x"}, {From: h("0103"), To: h("0104"), Name: "x"}}}
	b := mapview.View{Legend: legend,
		Cells:  map[hex.Hex]string{h("0101"): "g", h("0102"): "gG*", h("0103"): "B", h("0105"): "gG"},
		Forces: map[hex.Hex][]string{h("0102"): {"de"}, h("0103"): {"bef"}, h("0105"): {"de"}},
		Labels: map[hex.Hex]string{h("0102"): "IX/31/18", h("0103"): "RHA3", h("0105"): "IX/84/18"},
		Key:    []string{"0103 B: RHA3", "0102 G: IX/31/18 and more: a stack (6.6)", "Dead, German, 1: III/12/5"},
		Arrows: []mapview.Arrow{{From: h("0101"), To: h("0102"), Name: "x"}}}
	c := commonView([]mapview.View{a, b})
	want := map[string]string{"0101": "g", "0102": "G", "0103": "B"}
	for _, x := range []string{"0101", "0102", "0103", "0104", "0105"} {
		if got := c.Cells[h(x)]; got != want[x] {
			t.Errorf("cell %s: %q, want %q", x, got, want[x])
		}
	}
	wantLabels := map[string]string{"0102": "IX/31/18", "0103": "RHA3"}
	for _, x := range []string{"0101", "0102", "0103", "0104", "0105"} {
		if got := c.Labels[h(x)]; got != wantLabels[x] {
			t.Errorf("label %s: %q, want %q", x, got, wantLabels[x])
		}
	}
	if !slices.Equal(c.Key, []string{"0103 B: RHA3", "Dead, German, 1: III/12/5"}) {
		t.Errorf("key: %q", c.Key)
	}
	if len(c.Arrows) != 1 || c.Arrows[0].To != h("0102") {
		t.Errorf("arrows: %+v", c.Arrows)
	}
	if _, ok := c.Forces[h("0105")]; ok {
		t.Error("0105, whose forces the views disagree on, keeps its forces")
	}
}
