package mapimage_test

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// The golden pictures are rewritten with: go test ./adjudicator/mapimage/ -update
// (then look at them before committing).
var update = flag.Bool("update", false, "rewrite the golden pictures")

// Every ruleset draws its map from the kit's view.
var (
	_ adjudicator.Viewer = (*soldiers1918.Rules)(nil)
	_ adjudicator.Viewer = (*mons1914.Rules)(nil)
	_ adjudicator.Viewer = (*teaching.Rules)(nil)
	_ adjudicator.Viewer = (*soissons1918.Rules)(nil)
)

// adapter builds a state from a conformance case's STATE lines.
type adapter interface {
	State(lines []string) (adjudicator.State, error)
}

// sample is one ruleset's state in mid-game, seen by one side, with where a unit, a
// marker and a hexside feature are, and the colours that must be there.
type sample struct {
	name   string
	rules  adjudicator.Viewer
	cases  adapter
	state  []string
	side   adjudicator.Side
	unit   hex.Hex // a hex whose counter is the unit side's colour
	colour color.RGBA
	marker hex.Hex // a hex with markers only: a neutral counter
	// side is a hexside with a feature, and the feature's colour
	sideA, sideB hex.Hex
	sideColour   color.RGBA
}

func samples(t testing.TB) []sample {
	t.Helper()
	sr, err := soldiers1918.New()
	if err != nil {
		t.Fatal(err)
	}
	mr, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	tr, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	xr, err := soissons1918.New()
	if err != nil {
		t.Fatal(err)
	}
	h := hex.MustParse
	return []sample{
		{
			name: "soldiers1918", rules: sr, cases: soldiers1918.CaseAdapter{Rules: sr}, side: soldiers1918.US,
			state: []string{
				"turn 2", "phase VII", "visibility 11",
				"unit de-inf 2203 2", "unit de-hmg 2203 1", "unit de-inf 3005 3", "unit de-hmg 2606 1",
				"unit us-army 2201 4", "unit usmc 3101 3", "unit us-army 4101 2",
				"carnage us-army 2102 2", "cowed 3005",
			},
			unit: h("2201"), colour: color.RGBA{0xb5, 0xc9, 0x7a, 0xff},
			marker: h("2102"),
		},
		{
			name: "mons1914", rules: mr, cases: mons1914.CaseAdapter{Rules: mr}, side: mons1914.BEF,
			state: []string{
				"turn 3", "unit IX/75/17 2708", "unit III/8/5 2708", "unit 1/NF 2707", "unit 1/SF 2608",
				"german 2708", "german 2709",
			},
			unit: h("2707"), colour: color.RGBA{0xd9, 0xbb, 0x74, 0xff},
			marker: h("2709"),
		},
		{
			name: "teaching", rules: tr, cases: teaching.CaseAdapter{Rules: tr}, side: teaching.American,
			state: []string{
				"turn 3", "unit mg 0619", "unit army 0612 2 black", "unit marine 0612 blue",
				"dead army 0611", "smoke 0614", "cut 0516/0517 2",
			},
			unit: h("0619"), colour: color.RGBA{0x9a, 0xa8, 0xb8, 0xff},
			marker: h("0614"),
		},
		{
			name: "soissons1918", rules: xr, cases: soissons1918.CaseAdapter{Rules: xr}, side: soissons1918.EN,
			state: []string{
				"turn 2", "phase en2", "unit 1US 2321 improvised=2420", "unit 17/42 2420",
				"control Soissons de",
			},
			unit: h("2321"), colour: color.RGBA{0x8f, 0xb4, 0xe8, 0xff},
			marker: h("0710"),
		},
	}
}

func (s sample) view(t testing.TB) mapview.View {
	t.Helper()
	st, err := s.cases.State(s.state)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return s.rules.MapView(st, s.side)
}

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the picture is no PNG: %v", err)
	}
	return img
}

// near reports whether a pixel within one of (x, y) has colour c.
func near(img image.Image, x, y int, c color.RGBA) bool {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if color.RGBAModel.Convert(img.At(x+dx, y+dy)) == c {
				return true
			}
		}
	}
	return false
}

// lineSide finds a hexside of the view's map that has the line feature name and no
// other, between hexes of different columns (a slanting hexside, away from hex ids).
func lineSide(t *testing.T, v mapview.View, name string) (hex.Hex, hex.Hex) {
	t.Helper()
	m := v.Map
	for _, h := range m.Hexes() {
		for _, n := range m.Grid.Neighbours(h) {
			if n.Col != h.Col && m.OnMap(n) && slices.Equal(m.Side(h, n), []string{name}) {
				return h, n
			}
		}
	}
	t.Fatalf("no hexside of the map has only %s", name)
	return hex.Hex{}, hex.Hex{}
}

// TestRender: each ruleset's picture is a PNG of a sensible size, under 300 KB, with
// the unit's counter in its side's colour, the marker's counter neutral and the hexside
// feature's colour on its hexside.
func TestRender(t *testing.T) {
	neutral := color.RGBA{0xfa, 0xfa, 0xf2, 0xff}
	features := map[string]struct {
		name   string
		colour color.RGBA
	}{
		"mons1914": {"canal", color.RGBA{0x1f, 0x5f, 0xb0, 0xff}},
		"teaching": {"wire", color.RGBA{0x6a, 0x1b, 0x1b, 0xff}},
	}
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			v := s.view(t)
			b, err := mapimage.Render(v)
			if err != nil {
				t.Fatal(err)
			}
			if len(b) > 300<<10 {
				t.Errorf("picture is %d bytes, want under 300 KB", len(b))
			}
			img := decode(t, b)
			cols := v.Map.Cols[1] - v.Map.Cols[0] + 1
			r0, r1 := v.Map.Rows()
			minW := int(float64(cols) * 1.5 * mapimage.R)
			minH := int(float64(r1-r0) * 1.7 * mapimage.R)
			if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w < minW || w > minW+200 || h < minH || h > minH+1000 {
				t.Errorf("picture is %dx%d, want about %dx%d and a legend", w, h, minW, minH)
			}
			at := func(h hex.Hex) (int, int) {
				x, y, err := mapimage.Center(v, h)
				if err != nil {
					t.Fatal(err)
				}
				return x, y
			}
			// Inside the counter's box, below its text.
			if x, y := at(s.unit); !near(img, x, y+8, s.colour) {
				t.Errorf("the counter in %s is not %v", s.unit, s.colour)
			}
			if x, y := at(s.marker); !near(img, x, y+8, neutral) {
				t.Errorf("the marker in %s has no neutral counter", s.marker)
			}
			if f, ok := features[s.name]; ok {
				a, b := lineSide(t, v, f.name)
				xa, ya := at(a)
				xb, yb := at(b)
				if !near(img, (xa+xb)/2, (ya+yb)/2, f.colour) {
					t.Errorf("hexside %s/%s shows no %s", a, b, f.name)
				}
			}
		})
	}
}

// TestGolden guards each ruleset's picture against unintended change: the bytes are
// those of testdata/NAME.png (rewritten by -update; look at them before committing).
// Rendering twice gives the same bytes.
func TestGolden(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			v := s.view(t)
			got, err := mapimage.Render(v)
			if err != nil {
				t.Fatal(err)
			}
			again, err := mapimage.Render(s.view(t))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, again) {
				t.Fatal("two renders of the same view differ")
			}
			path := filepath.Join("testdata", s.name+".png")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("picture differs from %s; run go test -update and look at it", path)
			}
		})
	}
}

// TestHidden: a side's picture shows nothing it may not see. In Mons a player sees only
// the top unit of an enemy stack (6.6): the British picture of a German stack is the
// same whichever German units are under the top one, and is the picture of the view
// with those units left out, built by hand here; the German player, who sees his
// stack in full, gets a different picture.
func TestHidden(t *testing.T) {
	mr, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	ca := mons1914.CaseAdapter{Rules: mr}
	render := func(side adjudicator.Side, lines ...string) ([]byte, mapview.View) {
		t.Helper()
		st, err := ca.State(append([]string{"turn 3", "unit 1/NF 2707", "german 2708"}, lines...))
		if err != nil {
			t.Fatal(err)
		}
		v := mr.MapView(st, side)
		b, err := mapimage.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		return b, v
	}
	british, v := render(mons1914.BEF, "unit IX/75/17 2708", "unit III/8/5 2708")
	other, _ := render(mons1914.BEF, "unit IX/75/17 2708", "unit III/FA18/5 2708")
	if !bytes.Equal(british, other) {
		t.Error("the British picture changes with the German units under the top one")
	}
	// By hand: the view with the hidden unit removed from what it says of 2708.
	hidden := v
	hidden.Key = nil
	for _, k := range v.Key {
		if strings.HasPrefix(k, "2708 G:") {
			k = "2708 G: IX/75/17 and more: a stack (6.6)"
		}
		hidden.Key = append(hidden.Key, k)
	}
	h2708 := hex.MustParse("2708")
	hidden.Cells = maps.Clone(v.Cells)
	hidden.Cells[h2708] = "gG*"
	byHand, err := mapimage.Render(hidden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(british, byHand) {
		t.Error("the British picture differs from the view with the hidden unit removed")
	}
	for _, k := range append(v.Key, v.Cells[h2708], v.Title) {
		if strings.Contains(k, "III/8/5") {
			t.Errorf("the British view names the hidden unit: %q", k)
		}
	}
	german, _ := render(mons1914.DE, "unit IX/75/17 2708", "unit III/8/5 2708")
	if bytes.Equal(british, german) {
		t.Error("the German picture, which shows the stack in full, is the British one")
	}
}

// TestNoMap: a view without a map is an error, not a panic.
func TestNoMap(t *testing.T) {
	if _, err := mapimage.Render(mapview.View{Title: "x"}); err == nil {
		t.Error("Render of a view without a map gave no error")
	}
}

// TestEncoded: the bytes Encode stores in a mail draw, through RenderEncoded, the very
// picture Render draws of the view, and the same view encodes to the same bytes.
func TestEncoded(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			v := s.view(t)
			enc, err := mapimage.Encode(v)
			if err != nil {
				t.Fatal(err)
			}
			again, err := mapimage.Encode(s.view(t))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, again) {
				t.Fatal("the same view encodes to different bytes")
			}
			want, err := mapimage.Render(v)
			if err != nil {
				t.Fatal(err)
			}
			got, err := mapimage.RenderEncoded(enc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Error("the picture of the encoded view differs from the picture of the view")
			}
		})
	}
	for _, bad := range []string{"", "{", `{"v":2}`, `{"v":1,"map":{"Cols":[1,2]},"terrain":{"x":["12345"]}}`} {
		if _, err := mapimage.RenderEncoded([]byte(bad)); err == nil {
			t.Errorf("RenderEncoded(%q) gave no error", bad)
		}
	}
}

// TestPatterns: Soldiers' trenches are drawn as lines in their colours, not as letters
// on counters, and a Soissons Improvised Attack marker is an arrow towards its target.
func TestPatterns(t *testing.T) {
	for _, s := range samples(t) {
		v := s.view(t)
		b, err := mapimage.Render(v)
		if err != nil {
			t.Fatal(err)
		}
		img := decode(t, b)
		at := func(h hex.Hex) (float64, float64) {
			x, y, err := mapimage.Center(v, h)
			if err != nil {
				t.Fatal(err)
			}
			return float64(x), float64(y)
		}
		// any reports whether colour c is within r pixels of (x, y).
		any := func(x, y float64, r int, c color.RGBA) bool {
			for dy := -r; dy <= r; dy++ {
				for dx := -r; dx <= r; dx++ {
					if color.RGBAModel.Convert(img.At(int(x)+dx, int(y)+dy)) == c {
						return true
					}
				}
			}
			return false
		}
		switch s.name {
		case "soldiers1918":
			// The Support Trench runs along row 06 from 1006 to 1806: its colour lies
			// on the way from 1206 to 1306, and a communication trench's between 1310
			// and 1311; no counter is drawn where only trenches are.
			support := color.RGBA{0x8a, 0x55, 0x22, 0xff}
			comm := color.RGBA{0x6b, 0x4a, 0x2a, 0xff}
			x1, y1 := at(hex.MustParse("1206"))
			x2, y2 := at(hex.MustParse("1306"))
			if !any((x1+x2)/2, (y1+y2)/2, 3, support) {
				t.Error("no Support Trench line between 1206 and 1306")
			}
			x1, y1 = at(hex.MustParse("1310"))
			x2, y2 = at(hex.MustParse("1311"))
			if !any((x1+x2)/2, (y1+y2)/2, 3, comm) {
				t.Error("no communication trench between 1310 and 1311")
			}
			if x, y := at(hex.MustParse("1506")); any(x, y+8, 1, color.RGBA{0xfa, 0xfa, 0xf2, 0xff}) {
				t.Error("a hex with only a trench has a counter")
			}
		case "soissons1918":
			red := color.RGBA{0xc0, 0x10, 0x10, 0xff}
			x1, y1 := at(hex.MustParse("2321"))
			x2, y2 := at(hex.MustParse("2420"))
			if !any(x1+(x2-x1)*0.55, y1+(y2-y1)*0.55, 1, red) {
				t.Error("no Improvised Attack arrow from 2321 to 2420")
			}
			if any(x1-(x2-x1)*0.55, y1-(y2-y1)*0.55, 4, red) {
				t.Error("the arrow points the wrong way")
			}
		}
	}
}
