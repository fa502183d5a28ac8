package mapimage

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// heavyView is a map 26 columns wide, drawn at nearly full scale, full of woods and
// counters: with every hex's id, its picture weighs more than MaxBytes.
func heavyView(t *testing.T) mapview.View {
	t.Helper()
	var b strings.Builder
	b.WriteString("columns 01-26 | reconstructed: test\nrows all 01-22 | reconstructed: test\nparity odd-columns-shifted | reconstructed: test\ndefault clear | reconstructed: test\n")
	var woods []string
	for c := 1; c <= 26; c++ {
		for r := 1; r <= 22; r++ {
			if (c+r)%3 != 0 {
				woods = append(woods, fmt.Sprintf("%02d%02d", c, r))
			}
		}
	}
	fmt.Fprintf(&b, "terrain forest %s | reconstructed: test\n", strings.Join(woods, " "))
	m, err := board.ParseMap("heavy.txt", []byte(b.String()), board.Vocabulary{Terrain: []string{"clear", "forest"}})
	if err != nil {
		t.Fatal(err)
	}
	v := mapview.View{Title: "A heavy map", Map: m, Cells: map[hex.Hex]string{}, Forces: map[hex.Hex][]string{},
		Legend: mapview.Legend{
			Terrain: []mapview.Symbol{{Name: "clear", Char: '.'}, {Name: "forest", Char: 'f'}},
			Forces:  []mapview.Symbol{{Name: "de", Text: "German units"}, {Name: "us", Text: "American units"}},
		}}
	for _, h := range m.Hexes() {
		if (h.Col*7+h.Row)%2 == 0 {
			v.Cells[h] = fmt.Sprintf("G%d", h.Row%9)
			v.Forces[h] = []string{[]string{"de", "us"}[h.Col%2]}
		}
	}
	return v
}

// TestBudget: a picture that would weigh more than MaxBytes with every hex's id is
// drawn with the ids of the hexes that matter only (then with fewer colours), and
// then fits; one that fits is drawn with every id.
func TestBudget(t *testing.T) {
	s, err := sceneOf(heavyView(t))
	if err != nil {
		t.Fatal(err)
	}
	all, _, err := renderTry(s, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) <= MaxBytes {
		t.Fatalf("the heavy map weighs %d bytes with every id: no test of the budget", len(all))
	}
	got, err := render(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) > MaxBytes {
		t.Errorf("the heavy map weighs %d bytes, over %d", len(got), MaxBytes)
	}
	fewer, _, err := renderTry(s, 1)
	if err != nil {
		t.Fatal(err)
	}
	if len(fewer) <= MaxBytes && !bytes.Equal(got, fewer) {
		t.Error("the heavy map is not drawn with the ids of the hexes that matter only")
	}
	light, err := sceneOf(testView(t, false))
	if err != nil {
		t.Fatal(err)
	}
	first, _, err := renderTry(light, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := render(light); err != nil || !bytes.Equal(got, first) {
		t.Errorf("a light map is not drawn with every id (%v)", err)
	}
}
