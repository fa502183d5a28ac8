package mapimage

import (
	"bytes"
	"errors"
	"fmt"
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

// testView is a small map with a little of everything a picture draws.
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

// FuzzDecode: the bytes a mail stores are read back without panicking, whatever they
// are, and what decodes is a whole scene.
func FuzzDecode(f *testing.F) {
	v := testView(f, true)
	news := News{Before: &v, Lost: []hex.Hex{hex.MustParse("0203")}}
	b, err := Encode(v, news)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	// Format 3: the test map compiled in, named by its digest.
	RegisterMaps(func() ([]*board.Map, error) { return []*board.Map{v.Map}, nil })
	f.Cleanup(func() { RegisterMaps(nil) })
	named, err := Encode(v, news)
	if err != nil {
		f.Fatal(err)
	}
	if bytes.Equal(named, b) {
		f.Fatal("the scene of a map compiled in carries it")
	}
	f.Add(named)
	f.Add([]byte(`{"v":3,"map_id":"00","counters":{"0101":"x"}}`))
	f.Add([]byte(`{"v":2,"map":{"Cols":[1,2],"OddRows":[1,1],"EvenRows":[1,1]},"sides":{"river":["0101/0201"]}}`))
	f.Add([]byte(`{"v":2,"counters":{"x":"y"}}`))
	f.Add([]byte(`{"v":2,"changed":["0101","x"]}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, err := decode(b)
		if err != nil {
			return
		}
		if s.geo == nil || s.terrain == nil || s.features == nil || s.sides == nil || s.changed == nil || s.lost == nil {
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

// TestPicturesKeptForAPass: the distinct pictures of a pass of the sender, more than
// a few (here 24: six advances' results of two sides, map and close-up), are drawn
// once; asked for again, none is drawn again.
func TestPicturesKeptForAPass(t *testing.T) {
	ForgetAll()
	v := testView(t, false)
	var views [][]byte
	for i := range 24 {
		w := v
		w.Title = fmt.Sprintf("picture %d", i)
		b, err := Encode(w, News{})
		if err != nil {
			t.Fatal(err)
		}
		views = append(views, b)
	}
	for _, b := range views {
		if _, err := RenderEncoded(b); err != nil {
			t.Fatal(err)
		}
	}
	before := drawn.Load()
	for _, b := range views {
		if _, err := RenderEncoded(b); err != nil {
			t.Fatal(err)
		}
	}
	if n := drawn.Load() - before; n != 0 {
		t.Errorf("%d of %d pictures of a pass drawn again", n, len(views))
	}
}
