package mapimage

import (
	"fmt"
	"image/color"
	"slices"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// TestPaletteOnBase: the palette and indexes paletteOnBase gives a picture over its
// base layer, with the nearest prefix colours kept from picture to picture, are
// those quantise gives it, looking every colour up: for a map full of counters of two
// sides (a thousand-odd shades), drawn cold and again, and for a small map.
func TestPaletteOnBase(t *testing.T) {
	defer func() { comparePalettes = nil }()
	var checked, shades int
	comparePalettes = func(fast, slow color.Palette, fastAt, slowAt []uint8) {
		checked++
		shades = max(shades, len(fastAt))
		if !slices.Equal(fast, slow) {
			t.Errorf("the palettes differ:\n%v\n%v", fast, slow)
		}
		if !slices.Equal(fastAt, slowAt) {
			t.Errorf("the indexes differ")
		}
	}
	heavy := heavyView(t)
	views := []mapview.View{heavy, testView(t, false), testView(t, true)}
	moved := heavy
	moved.Cells = map[hex.Hex]string{}
	for h, c := range heavy.Cells {
		moved.Cells[hex.Hex{Col: h.Col, Row: h.Row%22 + 1}] = c + "x"
	}
	views = append(views, moved)
	ForgetAll()
	for round := range 2 {
		for i, v := range views {
			v.Title = fmt.Sprintf("round %d", round)
			if _, err := Render(v); err != nil {
				t.Fatalf("view %d: %v", i, err)
			}
		}
	}
	if checked < 2*len(views) || shades < 500 {
		t.Errorf("%d palettes checked, of %d colours at most: no test", checked, shades)
	}
}
