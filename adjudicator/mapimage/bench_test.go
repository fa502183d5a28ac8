package mapimage_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// BenchmarkRender is the cost of one picture of each ruleset's sample view drawn cold,
// its base layer and bands too: a results mail carries one per side.
func BenchmarkRender(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			v := tc.view(b)
			cpu := processCPU()
			for b.Loop() {
				mapimage.ForgetAll() // drawn each time from nothing kept (glyphs aside)
				if _, err := mapimage.Render(v); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
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
			cpu := processCPU()
			for b.Loop() {
				mapimage.ForgetPictures() // drawn each time, not taken from the cache
				if _, err := mapimage.RenderEncoded(burst[i%len(burst)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// senderBurst are the pictures the sender draws for one advance of the sample game,
// in outbox order: each side's results mail (its close-up when worth one, then its
// whole map, from one scene: mapimage.Pictures, as the desk stores them), then each
// side's MAP reply.
func senderBurst(b testing.TB, tc sample) [][]byte {
	b.Helper()
	var burst, maps [][]byte
	after := tc.state(b, tc.after)
	for _, side := range tc.rules.(rules.Ruleset).Sides() {
		news := adjudicator.PictureNews(tc.rules, tc.state(b, tc.before), after, side.ID)
		news.Moves = append(news.Moves, mapview.Arrow{From: tc.aimFrom, To: tc.aimAt, Name: mapview.ArrowAttack})
		whole, near, worth, err := mapimage.Pictures(tc.rules.MapView(after, side.ID), news)
		if err != nil {
			b.Fatal(err)
		}
		if worth {
			burst = append(burst, near)
		}
		burst = append(burst, whole)
		v, err := mapimage.Encode(tc.rules.MapView(after, side.ID), mapimage.News{})
		if err != nil {
			b.Fatal(err)
		}
		maps = append(maps, v)
	}
	return append(burst, maps...)
}

// newBands makes BenchmarkRenderSender compress every band a picture draws on, as for
// a picture whose counters are where no picture before had them.
var newBands = flag.Bool("newbands", false, "BenchmarkRenderSender: forget the bands of the pictures before")

// BenchmarkRenderSender is the sender's CPU a picture, warm: the pictures of
// senderBurst in turn, each drawn (the cache of pictures drawn is emptied before
// each), on what the pictures before them kept (base layers, glyphs, bands).
// cpu-ns/op is the process's CPU time a picture.
func BenchmarkRenderSender(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			burst := senderBurst(b, tc)
			for _, enc := range burst { // warm
				if _, err := mapimage.RenderEncoded(enc); err != nil {
					b.Fatal(err)
				}
			}
			i := 0
			cpu := processCPU()
			for b.Loop() {
				mapimage.ForgetPictures()
				if *newBands {
					mapimage.ForgetBands()
				}
				if _, err := mapimage.RenderEncoded(burst[i%len(burst)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkPictures is the desk's CPU for the pictures of one results mail: the
// scene of the side's view and news, encoded as the mail stores it (whole map and
// close-up, mapimage.Pictures).
func BenchmarkPictures(b *testing.B) {
	for _, tc := range samples(b) {
		b.Run(tc.name, func(b *testing.B) {
			after := tc.state(b, tc.after)
			v := tc.rules.MapView(after, tc.side)
			news := adjudicator.PictureNews(tc.rules, tc.state(b, tc.before), after, tc.side)
			var size int
			cpu := processCPU()
			for b.Loop() {
				whole, near, _, err := mapimage.Pictures(v, news)
				if err != nil {
					b.Fatal(err)
				}
				size = len(whole) + len(near)
			}
			b.ReportMetric(float64(processCPU()-cpu)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(size), "scene-bytes")
		})
	}
}

// scenesDir names a folder of scenes to draw in BenchmarkRenderScenes: the bytes
// RenderEncoded was given in a run of the bench, a file each, in the order of their
// names.
var scenesDir = flag.String("scenes", "", "BenchmarkRenderScenes: a folder of scenes (RenderEncoded's input), drawn in name order")

// BenchmarkRenderScenes is the sender's CPU a picture over the pictures of a real
// pass (-scenes): each scene drawn in turn as the sender drew it (the same scene
// twice taken from the pictures kept), everything made cold at the start of each
// pass. One op is one pass; cpu-ns/picture the process's CPU a picture asked for.
func BenchmarkRenderScenes(b *testing.B) {
	if *scenesDir == "" {
		b.Skip("no -scenes folder")
	}
	entries, err := os.ReadDir(*scenesDir)
	if err != nil {
		b.Fatal(err)
	}
	var scenes [][]byte
	for _, e := range entries {
		s, err := os.ReadFile(filepath.Join(*scenesDir, e.Name()))
		if err != nil {
			b.Fatal(err)
		}
		scenes = append(scenes, s)
	}
	cpu := processCPU()
	for b.Loop() {
		mapimage.ForgetAll()
		for _, s := range scenes {
			if _, err := mapimage.RenderEncoded(s); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(processCPU()-cpu)/float64(b.N*len(scenes)), "cpu-ns/picture")
}
