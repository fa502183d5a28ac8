package mapimage_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// BenchmarkRender is the cost of one picture of each ruleset's sample view drawn cold,
// its base layer and bands too: a results mail carries one per side.
func BenchmarkRender(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			v := tc.view(b)
			for b.Loop() {
				mapimage.ForgetAll() // drawn each time from nothing kept (glyphs aside)
				if _, err := mapimage.Render(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkRenderBurst is the cost of one picture in a burst of pictures of one game:
// each side's results picture of the sample advance and each side's view, in turn,
// each drawn (none is the picture drawn before it), as the sender draws the mails of
// a pass. What does not change from picture to picture of one map is drawn once.
func BenchmarkRenderBurst(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			var burst [][]byte
			for _, side := range tc.rules.(rules.Ruleset).Sides() {
				burst = append(burst, tc.encodedAs(b, side.ID))
				v, err := mapimage.Encode(tc.rules.MapView(tc.state(b, tc.after), side.ID), mapimage.News{})
				if err != nil {
					b.Fatal(err)
				}
				burst = append(burst, v)
			}
			i := 0
			for b.Loop() {
				mapimage.ForgetPictures() // drawn each time, not taken from the cache
				if _, err := mapimage.RenderEncoded(burst[i%len(burst)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
