package mapimage_test

import (
	"bytes"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// TestBaseSameForEverySide: the base layer a picture's map is drawn on, kept and
// shared by every picture of the same map, part and scale, holds nothing of a side's
// view: built from either side's results view (a Mons German stack the British see
// the top unit of only, each side's news), or from the view with no units, news or
// title at all, laid out alike, it is the same pixels under the same key.
func TestBaseSameForEverySide(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			st := s.state(t, s.after)
			sides := s.rules.(rules.Ruleset).Sides()
			layout := s.encodedAs(t, sides[0].ID)
			bare := s.rules.MapView(st, sides[0].ID)
			bare.Title, bare.Cells, bare.Counters, bare.Labels, bare.Forces, bare.Arrows, bare.Key = "", nil, nil, nil, nil, nil, nil
			bareEnc, err := mapimage.Encode(bare, mapimage.News{})
			if err != nil {
				t.Fatal(err)
			}
			views := map[string][]byte{"bare": bareEnc}
			for _, side := range sides {
				views[string(side.ID)] = s.encodedAs(t, side.ID)
			}
			if s.name == "mons1914" {
				// 6.6: a stack whose lower units only the German player sees.
				hidden := append(s.after[:len(s.after):len(s.after)], "unit III/FA18/5 2708")
				for _, side := range []rules.Side{mons1914.BEF, mons1914.DE} {
					enc, err := mapimage.Encode(s.rules.MapView(s.state(t, hidden), side), mapimage.News{})
					if err != nil {
						t.Fatal(err)
					}
					views["stack "+string(side)] = enc
				}
			}
			wantKey, want, err := mapimage.BaseLayer(bareEnc, layout)
			if err != nil {
				t.Fatal(err)
			}
			for name, enc := range views {
				key, got, err := mapimage.BaseLayer(enc, layout)
				if err != nil {
					t.Fatal(err)
				}
				if key != wantKey || !bytes.Equal(got, want) {
					t.Errorf("the base layer built from the view %s differs from the bare map's (same key: %v)", name, key == wantKey)
				}
			}
			// The pictures of the sides differ: what differs is drawn over the base.
			a, b := views[string(sides[0].ID)], views[string(sides[1].ID)]
			if pa, pb := render(t, a), render(t, b); bytes.Equal(pa, pb) && !bytes.Equal(a, b) {
				t.Error("two different views drew the same picture")
			}
		})
	}
}

func render(t *testing.T, enc []byte) []byte {
	t.Helper()
	b, err := mapimage.RenderEncoded(enc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestWarmSameAsCold: a picture drawn on kept base layers, glyphs and compressed bands,
// after the other side's pictures and views of the same game built them, is the very
// picture drawn with nothing kept.
func TestWarmSameAsCold(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			var burst [][]byte
			for _, side := range s.rules.(rules.Ruleset).Sides() {
				burst = append(burst, s.encodedAs(t, side.ID))
				v, err := mapimage.Encode(s.rules.MapView(s.state(t, s.after), side.ID), mapimage.News{})
				if err != nil {
					t.Fatal(err)
				}
				burst = append(burst, v)
			}
			cold := make([][]byte, len(burst))
			for i, enc := range burst {
				mapimage.ForgetAll()
				cold[i] = render(t, enc)
			}
			mapimage.ForgetAll()
			for round := range 2 {
				for i := len(burst) - 1; i >= 0; i-- {
					mapimage.ForgetPictures()
					if got := render(t, burst[i]); !bytes.Equal(got, cold[i]) {
						t.Errorf("round %d: picture %d drawn warm differs from the picture drawn cold", round, i)
					}
				}
			}
		})
	}
}

// TestConcurrent: pictures drawn at once (the sender builds a few mails at once), on
// base layers, glyphs and bands they share and build, are the pictures drawn alone.
func TestConcurrent(t *testing.T) {
	var burst, want [][]byte
	for _, s := range samples(t) {
		for _, side := range s.rules.(rules.Ruleset).Sides() {
			enc := s.encodedAs(t, side.ID)
			mapimage.ForgetAll()
			burst, want = append(burst, enc), append(want, render(t, enc))
		}
	}
	mapimage.ForgetAll()
	errs := make(chan string, 4*len(burst))
	done := make(chan struct{})
	for g := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			for k := range burst {
				i := (k + g) % len(burst)
				got, err := mapimage.RenderEncoded(burst[i])
				if err != nil {
					errs <- err.Error()
				} else if !bytes.Equal(got, want[i]) {
					errs <- "a picture drawn with others at once differs"
				}
				mapimage.ForgetPictures()
			}
		}()
	}
	for range 4 {
		<-done
	}
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}

// TestTilesAsWholeCanvas: a picture that copies and converts only the tiles of its
// base layer it draws on is, pixel for pixel, the picture drawn over a copy of its
// whole base layer with every pixel converted: nothing is drawn outside the tiles its
// drawing touched. Every ruleset's pictures of an advance as the sender draws them
// (each side's close-up, whole map and MAP reply), cold and warm.
func TestTilesAsWholeCanvas(t *testing.T) {
	defer mapimage.WholeCanvas(false)
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			for i, enc := range senderBurst(t, s) {
				for _, warm := range []bool{false, true} {
					mapimage.WholeCanvas(true)
					mapimage.ForgetAll()
					want := render(t, enc)
					mapimage.WholeCanvas(false)
					if !warm {
						mapimage.ForgetAll()
					}
					mapimage.ForgetPictures()
					// The pixels: how a band is compressed depends on whether it
					// was drawn on.
					if got := render(t, enc); !samePixels(t, got, want) {
						t.Errorf("picture %d (warm %v): drawn on the tiles it touched, it differs from the picture drawn on the whole canvas", i, warm)
					}
				}
			}
		})
	}
}
