package mapimage_test

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
)

// BenchmarkRender is the cost of one picture of each ruleset's sample view: a results
// mail carries one per side.
func BenchmarkRender(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			v := tc.view(b)
			for b.Loop() {
				mapimage.ForgetPictures() // drawn each time, not taken from the cache
				if _, err := mapimage.Render(v); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
