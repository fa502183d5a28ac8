package mapimage

import (
	"bytes"
	"errors"
	"image"
	"maps"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

const testMap = `columns 01-06 | reconstructed: test
rows all 01-05 | reconstructed: test
parity odd-columns-shifted | reconstructed: test
default clear | reconstructed: test
terrain forest 0102 0203 | reconstructed: test
terrain nomansland 0105 0205 0305 | reconstructed: test
feature main 0103..0603 | reconstructed: test
feature bunker 0304 | reconstructed: test
side river 0101/0102 0201/0202 | reconstructed: test
place Ville 0304 | reconstructed: test
`

var testVocab = board.Vocabulary{Terrain: []string{"clear", "forest", "nomansland"}, Features: []string{"main", "bunker"}, Sides: []string{"river"}}

// testView is a small map with a little of everything the base draws.
func testView(t testing.TB, rowsUp bool) mapview.View {
	t.Helper()
	m, err := board.ParseMap("test.txt", []byte(testMap), testVocab)
	if err != nil {
		t.Fatal(err)
	}
	return mapview.View{
		Title: "A test map\nof two lines", Map: m, RowsUp: rowsUp,
		Legend: mapview.Legend{
			Terrain:  []mapview.Symbol{{Name: "clear", Char: '.'}, {Name: "forest", Char: 'f'}, {Name: "nomansland", Char: '~'}},
			Sides:    []mapview.SideSymbol{{Name: "river", Char: '~'}},
			Features: []mapview.Symbol{{Name: "main", Pattern: mapview.PatternTrench}, {Name: "bunker", Pattern: mapview.PatternBunker}},
		},
		Cells: map[hex.Hex]string{hex.MustParse("0203"): "G2"},
	}
}

// TestBase: a picture is the same bytes whether its map's base was kept or drawn
// anew, and a map that differs from a kept one in anything the base shows (a hex's
// terrain, a hexside, a feature, a legend colour) gets a base of its own.
func TestBase(t *testing.T) {
	cold := func(v mapview.View) []byte {
		t.Helper()
		bases.clear()
		b, err := Render(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	warm := func(v mapview.View) []byte {
		t.Helper()
		b, err := Render(v)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	for _, rowsUp := range []bool{false, true} {
		v := testView(t, rowsUp)
		first := cold(v)
		if !bytes.Equal(first, warm(v)) {
			t.Errorf("rows up %v: the picture on a kept base differs from the one on a new base", rowsUp)
		}
		// The same map but for one thing the base draws: never the kept base.
		m2, err := board.ParseMap("test.txt", []byte(testMap+"terrain forest 0505 | reconstructed: test\n"), testVocab)
		if err != nil {
			t.Fatal(err)
		}
		v2 := v
		v2.Map = m2
		v3 := v
		v3.Legend.Features = []mapview.Symbol{{Name: "main", Pattern: mapview.PatternZigzag}, {Name: "bunker", Pattern: mapview.PatternBunker}}
		for i, other := range []mapview.View{v2, v3} {
			got := warm(other)
			if bytes.Equal(got, first) || !bytes.Equal(got, cold(other)) {
				t.Errorf("rows up %v, change %d: the picture was drawn on the kept base of another map", rowsUp, i)
			}
			warm(v)
		}
	}
}

// TestHistogram: the colours counted from the kept base and the rows that differ from
// it are those of every pixel of the picture, counted one by one.
func TestHistogram(t *testing.T) {
	for _, rowsUp := range []bool{false, true} {
		v := testView(t, rowsUp)
		v.Cells[hex.MustParse("0101")] = "AB12"
		v.Arrows = []mapview.Arrow{{From: hex.MustParse("0203"), To: hex.MustParse("0303")}}
		s, err := sceneOf(v)
		if err != nil {
			t.Fatal(err)
		}
		p, err := newPicture(s, true)
		if err != nil {
			t.Fatal(err)
		}
		if err := p.drawBase(); err != nil {
			t.Fatal(err)
		}
		p.drawCounters()
		p.drawLegend()
		img := p.dc.Image().(*image.RGBA)
		want := map[uint32]int{}
		for i := 0; i < len(img.Pix); i += 4 {
			want[pixKey(img.Pix, i)]++
		}
		if got := p.histogram(img); !maps.Equal(got, want) {
			t.Errorf("rows up %v: the histogram from the base has %d colours, counting every pixel %d", rowsUp, len(got), len(want))
		}
	}
}

// FuzzDecode: the bytes a mail stores are read back without panicking, whatever they
// are, and what decodes is a whole scene.
func FuzzDecode(f *testing.F) {
	v := testView(f, true)
	b, err := Encode(v)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte(`{"v":1,"map":{"Cols":[1,2],"OddRows":[1,1],"EvenRows":[1,1]},"sides":{"river":["0101/0201"]}}`))
	f.Add([]byte(`{"v":1,"counters":{"x":"y"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decode(b)
		if err != nil {
			return
		}
		if s.geo == nil || s.terrain == nil || s.features == nil || s.sides == nil {
			t.Fatalf("decoded %q into a scene with nil parts", b)
		}
	})
}

// TestLRU: a value asked for by several callers at once is made once; a value that
// could not be made is not kept; the oldest value goes when there are too many.
func TestLRU(t *testing.T) {
	c := &lru[int]{max: 2}
	var made atomic.Int32
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			v, err := c.get([32]byte{1}, func() (int, error) {
				made.Add(1)
				time.Sleep(20 * time.Millisecond)
				return 7, nil
			})
			if v != 7 || err != nil {
				t.Errorf("get = %d, %v; want 7", v, err)
			}
		}()
	}
	close(start)
	wg.Wait()
	if n := made.Load(); n != 1 {
		t.Errorf("made %d times for 8 callers at once, want 1", n)
	}
	fail := errors.New("no")
	if _, err := c.get([32]byte{2}, func() (int, error) { return 0, fail }); err != fail {
		t.Errorf("get = %v, want the error", err)
	}
	if v, err := c.get([32]byte{2}, func() (int, error) { return 9, nil }); v != 9 || err != nil {
		t.Errorf("after an error, get = %d, %v; want it made again", v, err)
	}
	c.get([32]byte{3}, func() (int, error) { return 3, nil })
	if v, _ := c.get([32]byte{1}, func() (int, error) { return 8, nil }); v != 8 {
		t.Errorf("the oldest value is still kept (%d) after two newer ones", v)
	}
}
