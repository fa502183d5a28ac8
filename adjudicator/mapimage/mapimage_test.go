package mapimage_test

import (
	"bytes"
	"flag"
	"image"
	"image/color"
	"image/png"
	"maps"
	"math"
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
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// The golden pictures are rewritten with: go test ./adjudicator/mapimage/ -update
// (then look at them before committing).
var update = flag.Bool("update", false, "rewrite the golden pictures")

// Every ruleset draws its map from the kit's view.
var (
	_ rules.Viewer = (*soldiers1918.Rules)(nil)
	_ rules.Viewer = (*mons1914.Rules)(nil)
	_ rules.Viewer = (*teaching.Rules)(nil)
	_ rules.Viewer = (*soissons1918.Rules)(nil)
)

// adapter builds a state from a conformance case's STATE lines.
type adapter interface {
	State(lines []string) (rules.State, error)
}

// sample is one ruleset's state in mid-game, seen by one side, after an advance from
// the state before: where a unit, a marker and a moved unit are, and the colours that
// must be there.
type sample struct {
	name          string
	rules         rules.Viewer
	cases         adapter
	before, after []string
	side          rules.Side
	unit          hex.Hex // a hex whose counter is the unit side's colour
	colour        color.RGBA
	marker        hex.Hex // a hex with markers only: a neutral counter
	lost          hex.Hex // a hex where a unit was lost: a red cross
	// moved is a move the advance made: an arrow from one hex to the other, and the
	// hex it went to changed.
	from, to hex.Hex
	// aimFrom fired or attacked at aimAt in the advance (the ruleset's event said so,
	// rules.Aim): a red arrow between them.
	aimFrom, aimAt hex.Hex
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
			before: []string{
				"turn 2", "phase VI", "visibility 11",
				"unit de-inf 2203 2", "unit de-hmg 2203 1", "unit de-inf 3005 3", "unit de-hmg 2606 1",
				"unit us-army 2201 4", "unit usmc 3001 3", "unit us-army 4101 2",
				"carnage us-army 2102 2", "cowed 3005",
			},
			after: []string{
				"turn 2", "phase VII", "visibility 11",
				"unit de-inf 2203 2", "unit de-hmg 2203 1", "unit de-inf 3005 3", "unit de-hmg 2606 1",
				"unit us-army 2201 4", "unit usmc 3101 3", "unit us-army 4101 2",
				"carnage us-army 2102 2", "cowed 3005",
			},
			unit: h("2201"), colour: color.RGBA{0xb5, 0xc9, 0x7a, 0xff},
			marker: h("2102"), from: h("3001"), to: h("3101"), aimFrom: h("2201"), aimAt: h("2203"),
		},
		{
			name: "mons1914", rules: mr, cases: mons1914.CaseAdapter{Rules: mr}, side: mons1914.BEF,
			before: []string{
				"turn 3", "unit IX/75/17 2708", "unit III/8/5 2708", "unit 1/NF 2706", "unit 1/SF 2608",
				"unit 4/RF 2609", "german 2708", "german 2709",
			},
			after: []string{
				"turn 3", "unit IX/75/17 2708", "unit III/8/5 2708", "unit 1/NF 2707", "unit 1/SF 2608",
				"unit 4/RF 2609", "dead 4/RF", "german 2708", "german 2709",
			},
			unit: h("2608"), colour: color.RGBA{0xd9, 0xbb, 0x74, 0xff},
			// No marker-only counters: a German-controlled hex without units has none.
			lost: h("2609"), from: h("2706"), to: h("2707"), aimFrom: h("2608"), aimAt: h("2708"),
		},
		{
			name: "teaching", rules: tr, cases: teaching.CaseAdapter{Rules: tr}, side: teaching.American,
			before: []string{
				"turn 3", "unit mg 0619", "unit army 0612 2 black", "unit marine 0613 blue",
				"dead army 0611", "smoke 0614", "cut 0516/0517 2",
			},
			after: []string{
				"turn 3", "unit mg 0619", "unit army 0612 2 black", "unit marine 0612 blue",
				"dead army 0611", "smoke 0614", "cut 0516/0517 2",
			},
			unit: h("0619"), colour: color.RGBA{0x9a, 0xa8, 0xb8, 0xff},
			marker: h("0614"), from: h("0613"), to: h("0612"), aimFrom: h("0619"), aimAt: h("0618"),
		},
		{
			name: "soissons1918", rules: xr, cases: soissons1918.CaseAdapter{Rules: xr}, side: soissons1918.EN,
			before: []string{
				"turn 2", "phase en2", "unit 1US 2221", "unit 17/42 2420",
				"control Soissons de",
			},
			after: []string{
				"turn 2", "phase en2", "unit 1US 2321 improvised=2420", "unit 17/42 2420",
				"control Soissons de",
			},
			unit: h("2321"), colour: color.RGBA{0x8f, 0xb4, 0xe8, 0xff},
			marker: h("2021"), from: h("2221"), to: h("2321"), aimFrom: h("2420"), aimAt: h("2421"),
		},
	}
}

func (s sample) state(t testing.TB, lines []string) rules.State {
	t.Helper()
	st, err := s.cases.State(lines)
	if err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	return st
}

// view is the side's view after the advance.
func (s sample) view(t testing.TB) mapview.View {
	t.Helper()
	return s.rules.MapView(s.state(t, s.after), s.side)
}

// encoded is the view after the advance with what happened, as a results mail
// carries it.
func (s sample) encoded(t testing.TB) []byte {
	t.Helper()
	return s.encodedAs(t, s.side)
}

// encodedAs is [sample.encoded] for the results mail of side.
func (s sample) encodedAs(t testing.TB, side rules.Side) []byte {
	t.Helper()
	after := s.state(t, s.after)
	news := adjudicator.PictureNews(s.rules, s.state(t, s.before), after, side)
	news.Moves = append(news.Moves, mapview.Arrow{From: s.aimFrom, To: s.aimAt, Name: mapview.ArrowAttack})
	b, err := mapimage.Encode(s.rules.MapView(after, side), news)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// pictureDir, when set, is where the tests write each ruleset's picture, to look at.
var pictureDir = flag.String("pictures", "", "write each ruleset's picture into this folder")

// render draws the sample's results picture, checks that it is a PNG that a phone
// shows whole and a mail carries lightly, and returns it decoded and a function that
// says where a hex's centre is in it (failing when the picture does not show it).
func (s sample) render(t *testing.T) (image.Image, func(hex.Hex) (float64, float64)) {
	t.Helper()
	enc := s.encoded(t)
	b, err := mapimage.RenderEncoded(enc)
	if err != nil {
		t.Fatal(err)
	}
	if *pictureDir != "" {
		if err := os.WriteFile(filepath.Join(*pictureDir, s.name+".png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := decode(t, b)
	if w := img.Bounds().Dx(); w > mapimage.MaxWidth || w < 600 {
		t.Errorf("picture is %d pixels wide, want 600 to %d", w, mapimage.MaxWidth)
	}
	if len(b) > 150<<10 {
		t.Errorf("picture is %d bytes, want at most 150 KB", len(b))
	}
	return img, func(h hex.Hex) (float64, float64) {
		t.Helper()
		x, y, shown, err := mapimage.Center(enc, h)
		if err != nil {
			t.Fatal(err)
		}
		if !shown {
			t.Fatalf("the picture does not show %s", h)
		}
		return float64(x), float64(y)
	}
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
	return anyNear(img, float64(x), float64(y), 1, c)
}

// lineSide finds a hexside between two hexes the picture shows that has the line
// feature name and no other, between hexes of different columns (a slanting hexside,
// away from hex ids), away from counters.
func lineSide(t *testing.T, v mapview.View, enc []byte, name string) (hex.Hex, hex.Hex) {
	t.Helper()
	m := v.Map
	shown := func(h hex.Hex) bool {
		_, _, ok, err := mapimage.Center(enc, h)
		return err == nil && ok && v.Cells[h] == "" && v.Counters[h] == ""
	}
	for _, h := range m.Hexes() {
		for _, n := range m.Grid.Neighbours(h) {
			if n.Col != h.Col && m.OnMap(n) && slices.Equal(m.Side(h, n), []string{name}) && shown(h) && shown(n) {
				return h, n
			}
		}
	}
	t.Fatalf("no hexside of the picture has only %s", name)
	return hex.Hex{}, hex.Hex{}
}

// anyNear reports whether colour c is within r pixels of (x, y).
func anyNear(img image.Image, x, y float64, r int, c color.RGBA) bool {
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if color.RGBAModel.Convert(img.At(int(x)+dx, int(y)+dy)) == c {
				return true
			}
		}
	}
	return false
}

// TestRender: each ruleset's results picture is a PNG at most 1280 pixels wide and
// 150 KB, of the part of the map around the units, with the unit's counter in its
// side's colour and at least 28 pixels across, the marker's counter neutral, the
// hexside feature's colour on its hexside, the hex a unit moved to outlined as
// changed and an arrow along its move; a hex far from every unit is not drawn.
func TestRender(t *testing.T) {
	neutral := color.RGBA{0xfa, 0xfa, 0xf2, 0xff}
	changed := color.RGBA{0xd6, 0x1a, 0x9c, 0xff}
	move := color.RGBA{0x12, 0x3c, 0xb8, 0xff}
	attack := color.RGBA{0xc0, 0x10, 0x10, 0xff}
	features := map[string]struct {
		name   string
		colour color.RGBA
	}{
		"mons1914": {"canal", color.RGBA{0x1f, 0x5f, 0xb0, 0xff}},
		"teaching": {"wire", color.RGBA{0x6a, 0x1b, 0x1b, 0xff}},
	}
	// far is a hex with no unit near it, left out of the picture.
	far := map[string]hex.Hex{"mons1914": hex.MustParse("4725"), "teaching": hex.MustParse("0101")}
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			img, at := s.render(t)
			// Inside the counter's box, below its text; the box at least 28 across.
			x, y := at(s.unit)
			if !near(img, int(x), int(y)+10, s.colour) {
				t.Errorf("the counter in %s is not %v", s.unit, s.colour)
			}
			if !near(img, int(x)-13, int(y)+10, s.colour) || !near(img, int(x)+13, int(y)+10, s.colour) {
				t.Errorf("the counter in %s is less than 28 pixels across", s.unit)
			}
			if s.marker != (hex.Hex{}) {
				if x, y := at(s.marker); !near(img, int(x), int(y)+10, neutral) {
					t.Errorf("the marker in %s has no neutral counter", s.marker)
				}
			}
			if s.lost != (hex.Hex{}) {
				if x, y := at(s.lost); !anyNear(img, x, y, 2, color.RGBA{0xd0, 0x00, 0x00, 0xff}) {
					t.Errorf("no cross of the unit lost in %s", s.lost)
				}
			}
			if f, ok := features[s.name]; ok {
				v := s.view(t)
				a, b := lineSide(t, v, s.encoded(t), f.name)
				xa, ya := at(a)
				xb, yb := at(b)
				if !near(img, int((xa+xb)/2), int((ya+yb)/2), f.colour) {
					t.Errorf("hexside %s/%s shows no %s", a, b, f.name)
				}
			}
			x1, y1 := at(s.from)
			x2, y2 := at(s.to)
			if !anyNear(img, x1+(x2-x1)*0.5, y1+(y2-y1)*0.5, 2, move) {
				t.Errorf("no arrow of the move from %s to %s", s.from, s.to)
			}
			if xa, ya := at(s.aimFrom); true {
				xb, yb := at(s.aimAt)
				if !anyNear(img, xa+(xb-xa)*0.5, ya+(yb-ya)*0.5, 2, attack) {
					t.Errorf("no arrow of the fire or attack from %s at %s", s.aimFrom, s.aimAt)
				}
			}
			// The outline runs inside the hex's border: left of its centre, by most
			// of a hex's radius.
			r := (x2 - x1) / 1.5
			if x1 == x2 {
				r = math.Abs(y2-y1) / math.Sqrt(3)
			}
			if !anyNear(img, x2-r*0.88, y2, 3, changed) {
				t.Errorf("the hex %s a unit moved to is not outlined", s.to)
			}
			if h, ok := far[s.name]; ok {
				if _, _, shown, _ := mapimage.Center(s.encoded(t), h); shown {
					t.Errorf("the picture shows %s, far from every unit", h)
				}
			}
		})
	}
}

// samePixels reports whether two PNG files hold the same picture.
func samePixels(t *testing.T, a, b []byte) bool {
	t.Helper()
	ia, err := png.Decode(bytes.NewReader(a))
	if err != nil {
		t.Fatal(err)
	}
	ib, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if ia.Bounds() != ib.Bounds() {
		return false
	}
	r := ia.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r1, g1, b1, a1 := ia.At(x, y).RGBA()
			r2, g2, b2, a2 := ib.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 || a1 != a2 {
				return false
			}
		}
	}
	return true
}

// TestGolden guards each ruleset's picture against unintended change: the pixels are
// those of testdata/NAME.png (rewritten by -update; look at them, and at the diff,
// before committing). Rendering twice gives the same bytes.
func TestGolden(t *testing.T) {
	for _, s := range samples(t) {
		t.Run(s.name, func(t *testing.T) {
			enc := s.encoded(t)
			got, err := mapimage.RenderEncoded(enc)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(enc, s.encoded(t)) {
				t.Fatal("the same view and news encode to different bytes")
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
			// The pixels, not the bytes: how the PNG is compressed is not the picture.
			if !samePixels(t, got, want) {
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
	render := func(side rules.Side, lines ...string) ([]byte, mapview.View) {
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
			enc, err := mapimage.Encode(v, mapimage.News{})
			if err != nil {
				t.Fatal(err)
			}
			again, err := mapimage.Encode(s.view(t), mapimage.News{})
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
	for _, bad := range []string{"", "{", `{"v":2}`, `{"v":1}`, `{"v":2,"map":{"Cols":[1,2]},"terrain":{"x":["12345"]}}`, `{"v":2,"lost":["x"]}`} {
		if _, err := mapimage.RenderEncoded([]byte(bad)); err == nil {
			t.Errorf("RenderEncoded(%q) gave no error", bad)
		}
	}
}

// TestPatterns: Soldiers' trenches are drawn as lines in their colours, not as letters
// on counters, and a Soissons Improvised Attack marker is an arrow towards its target.
func TestPatterns(t *testing.T) {
	for _, s := range samples(t) {
		img, at := s.render(t)
		any := func(x, y float64, r int, c color.RGBA) bool { return anyNear(img, x, y, r, c) }
		switch s.name {
		case "soldiers1918":
			// The Support Trench runs along row 06 from 2606 to 3406: its colour lies
			// on the way from 2806 to 2906, and a communication trench's between 2804
			// and 2805; no counter is drawn where only trenches are.
			support := color.RGBA{0x8a, 0x55, 0x22, 0xff}
			comm := color.RGBA{0x6b, 0x4a, 0x2a, 0xff}
			x1, y1 := at(hex.MustParse("2806"))
			x2, y2 := at(hex.MustParse("2906"))
			if !any((x1+x2)/2, (y1+y2)/2, 3, support) {
				t.Error("no Support Trench line between 2806 and 2906")
			}
			x1, y1 = at(hex.MustParse("2804"))
			x2, y2 = at(hex.MustParse("2805"))
			if !any((x1+x2)/2, (y1+y2)/2, 3, comm) {
				t.Error("no communication trench between 2804 and 2805")
			}
			if x, y := at(hex.MustParse("3206")); any(x, y+8, 1, color.RGBA{0xfa, 0xfa, 0xf2, 0xff}) {
				t.Error("a hex with only a trench has a counter")
			}
		case "soissons1918":
			// Teal: neither the red of the fire and combat the results tell nor a road.
			marker, attack := color.RGBA{0x10, 0x8a, 0x8a, 0xff}, color.RGBA{0xc0, 0x10, 0x10, 0xff}
			x1, y1 := at(hex.MustParse("2321"))
			x2, y2 := at(hex.MustParse("2420"))
			if !any(x1+(x2-x1)*0.55, y1+(y2-y1)*0.55, 1, marker) || any(x1+(x2-x1)*0.55, y1+(y2-y1)*0.55, 1, attack) {
				t.Error("no Improvised Attack arrow from 2321 to 2420 in the marker's colour")
			}
			if any(x1-(x2-x1)*0.55, y1-(y2-y1)*0.55, 4, marker) {
				t.Error("the arrow points the wrong way")
			}
		}
	}
}

// TestChanged: the picture outlines a hex whose counter or forces differ from the
// view before, and not one whose text-map cell alone differs (a mark the picture does
// not show, as Mons's German control of an empty hex).
func TestChanged(t *testing.T) {
	s := samples(t)[1] // mons1914
	v := s.view(t)
	h := hex.MustParse
	before := v
	before.Cells = maps.Clone(v.Cells)
	before.Counters = maps.Clone(v.Counters)
	before.Forces = maps.Clone(v.Forces)
	before.Cells[h("2609")] = "g"     // a mark only, not on the picture
	before.Counters[h("2608")] = "B2" // a counter
	delete(before.Forces, h("2707"))  // forces
	before.Counters[h("2707")] = v.Counters[h("2707")]
	enc, err := mapimage.Encode(v, mapimage.News{Before: &before})
	if err != nil {
		t.Fatal(err)
	}
	b, err := mapimage.RenderEncoded(enc)
	if err != nil {
		t.Fatal(err)
	}
	img := decode(t, b)
	magenta := color.RGBA{0xd6, 0x1a, 0x9c, 0xff}
	at := func(h hex.Hex) (float64, float64) {
		x, y, ok, err := mapimage.Center(enc, h)
		if err != nil || !ok {
			t.Fatalf("%s not shown (%v)", h, err)
		}
		return float64(x), float64(y)
	}
	_, y1 := at(h("2607"))
	_, y2 := at(h("2608"))
	r := math.Abs(y2-y1) / math.Sqrt(3)
	for _, tc := range []struct {
		hex  string
		want bool
	}{{"2608", true}, {"2707", true}, {"2609", false}, {"2709", false}} {
		x, y := at(h(tc.hex))
		if got := anyNear(img, x-r*0.88, y, 3, magenta); got != tc.want {
			t.Errorf("%s outlined: %v, want %v", tc.hex, got, tc.want)
		}
	}
}

// TestCloseUp: when the units spread over a part of the map too wide for full-size
// hexes, a second picture shows what happened alone at full size, with every hex id:
// the move's arrow and hexes, not the far units; a picture drawn at full size anyway
// needs none, nor does one where what happened is as wide as the map.
func TestCloseUp(t *testing.T) {
	s := samples(t)[1] // mons1914
	s.before = append(slices.Clone(s.before), "unit III/12/5 4701", "unit 2/RI 1327")
	s.after = append(slices.Clone(s.after), "unit III/12/5 4701", "unit 2/RI 1327")
	after := s.state(t, s.after)
	v := s.rules.MapView(after, s.side)
	news := adjudicator.PictureNews(s.rules, s.state(t, s.before), after, s.side)
	enc, worth, err := mapimage.CloseUp(v, news)
	if err != nil || !worth {
		t.Fatalf("no close-up of a picture of the whole map (%v)", err)
	}
	b, err := mapimage.RenderEncoded(enc)
	if err != nil {
		t.Fatal(err)
	}
	if *pictureDir != "" {
		if err := os.WriteFile(filepath.Join(*pictureDir, "closeup.png"), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	img := decode(t, b)
	if w := img.Bounds().Dx(); w > mapimage.MaxWidth || len(b) > mapimage.MaxBytes {
		t.Errorf("the close-up is %d pixels wide and %d bytes", w, len(b))
	}
	at := func(h hex.Hex) (float64, float64, bool) {
		x, y, shown, err := mapimage.Center(enc, h)
		if err != nil {
			t.Fatal(err)
		}
		return float64(x), float64(y), shown
	}
	x1, y1, ok1 := at(s.from)
	x2, y2, ok2 := at(s.to)
	if !ok1 || !ok2 {
		t.Fatalf("the close-up does not show the move %s-%s", s.from, s.to)
	}
	if math.Abs(y2-y1) < 50 {
		t.Errorf("the close-up's hexes are %.0f pixels high, not full size", math.Abs(y2-y1))
	}
	if !anyNear(img, (x1+x2)/2, (y1+y2)/2, 2, color.RGBA{0x12, 0x3c, 0xb8, 0xff}) {
		t.Error("no arrow of the move in the close-up")
	}
	for _, far := range []string{"4701", "1327"} {
		if _, _, shown := at(hex.MustParse(far)); shown {
			t.Errorf("the close-up shows %s, far from what happened", far)
		}
	}
	// What happened far apart: a close-up would be as small as the map.
	was := append(slices.Clone(s.before), "unit 2/RS 1525", "unit III/FA18/5 4501")
	wide := append(slices.Clone(s.after), "unit 2/RS 1526", "unit III/FA18/5 4502")
	if _, worth, err := mapimage.CloseUp(s.rules.MapView(s.state(t, wide), s.side), adjudicator.PictureNews(s.rules, s.state(t, was), s.state(t, wide), s.side)); err != nil || worth {
		t.Errorf("a close-up of what happened at both ends of the map (%v)", err)
	}
	if _, worth, err := mapimage.CloseUp(s.view(t), adjudicator.PictureNews(s.rules, s.state(t, samples(t)[1].before), s.state(t, samples(t)[1].after), s.side)); err != nil || worth {
		t.Errorf("a close-up of a picture at full size (%v)", err)
	}
}

// TestPicturesAsEncodeAndCloseUp: Pictures, the one scene a results mail's two pictures
// are built from, gives the bytes Encode and CloseUp give apart, with a close-up worth
// sending (the units spread wide, a move among them) and without one (a picture at
// full size already).
func TestPicturesAsEncodeAndCloseUp(t *testing.T) {
	s := samples(t)[1] // mons1914
	wide := s
	wide.before = append(slices.Clone(s.before), "unit III/12/5 4701", "unit 2/RI 1327")
	wide.after = append(slices.Clone(s.after), "unit III/12/5 4701", "unit 2/RI 1327")
	for _, tc := range []struct {
		name  string
		s     sample
		worth bool
	}{{"spread wide", wide, true}, {"full size", s, false}} {
		t.Run(tc.name, func(t *testing.T) {
			after := tc.s.state(t, tc.s.after)
			v := tc.s.rules.MapView(after, tc.s.side)
			news := adjudicator.PictureNews(tc.s.rules, tc.s.state(t, tc.s.before), after, tc.s.side)
			whole, near, worth, err := mapimage.Pictures(v, news)
			if err != nil {
				t.Fatal(err)
			}
			wantWhole, err := mapimage.Encode(v, news)
			if err != nil {
				t.Fatal(err)
			}
			wantNear, wantWorth, err := mapimage.CloseUp(v, news)
			if err != nil {
				t.Fatal(err)
			}
			if worth != tc.worth || wantWorth != tc.worth {
				t.Fatalf("close-up worth sending: Pictures %v, CloseUp %v, want %v", worth, wantWorth, tc.worth)
			}
			if !bytes.Equal(whole, wantWhole) {
				t.Error("Pictures' whole map differs from Encode's")
			}
			if !bytes.Equal(near, wantNear) {
				t.Error("Pictures' close-up differs from CloseUp's")
			}
		})
	}
}

// TestLabels: Mons's and Soissons's counters carry the unit's id above the count the
// text map shows (View.Labels): the view says which id, the picture draws it (more
// dark pixels on the counter than the same picture without labels), and a label too long for
// a hex is drawn smaller and cut, its counter no wider than a hex.
func TestLabels(t *testing.T) {
	byName := map[string]sample{}
	for _, s := range samples(t) {
		byName[s.name] = s
	}
	for _, tc := range []struct {
		sample string
		want   map[string]string // hex: label
		long   string            // a hex to give a long label
	}{
		// 6.6: the British see the German stack's top unit, which arrived first.
		{"mons1914", map[string]string{"2608": "1/SF", "2707": "1/NF", "2708": "IX/75/17"}, "2608"},
		{"soissons1918", map[string]string{"2321": "1US", "2420": "17/42"}, "2321"},
	} {
		t.Run(tc.sample, func(t *testing.T) {
			s := byName[tc.sample]
			v := s.view(t)
			if len(v.Labels) != len(tc.want) {
				t.Errorf("labels %v, want %v", v.Labels, tc.want)
			}
			for id, want := range tc.want {
				if got := v.Labels[hex.MustParse(id)]; got != want {
					t.Errorf("label of %s: %q, want %q", id, got, want)
				}
			}
			bare := v
			bare.Labels = nil
			long := v
			long.Labels = maps.Clone(v.Labels)
			long.Labels[hex.MustParse(tc.long)] = "IX/75/17 Reserve Infantry Brigade"
			var imgs []image.Image
			var enc []byte
			for _, w := range []mapview.View{v, bare, long} {
				b, err := mapimage.Render(w)
				if err != nil {
					t.Fatal(err)
				}
				imgs = append(imgs, decode(t, b))
				if enc, err = mapimage.Encode(w, mapimage.News{}); err != nil {
					t.Fatal(err)
				}
			}
			for id := range tc.want {
				x, y, shown, err := mapimage.Center(enc, hex.MustParse(id))
				if err != nil || !shown {
					t.Fatalf("%s not shown: %v", id, err)
				}
				with, without := dark(imgs[0], x, y), dark(imgs[1], x, y)
				if with < without+20 {
					t.Errorf("counter in %s: %d dark pixels with its label, %d without", id, with, without)
				}
			}
			// A loss in a labelled counter's hex is crossed right of the counter, not
			// over its label or its count.
			lostInk := color.RGBA{0xd0, 0x00, 0x00, 0xff}
			h := hex.MustParse(tc.long)
			lost, err := mapimage.Encode(v, mapimage.News{Lost: []hex.Hex{h}})
			if err != nil {
				t.Fatal(err)
			}
			b, err := mapimage.RenderEncoded(lost)
			if err != nil {
				t.Fatal(err)
			}
			img := decode(t, b)
			x, y, _, _ := mapimage.Center(lost, h)
			for dy := -10; dy <= 15; dy++ {
				for dx := -10; dx <= 10; dx++ {
					if color.RGBAModel.Convert(img.At(x+dx, y+dy)) == lostInk {
						t.Fatalf("the cross of the loss in %s is over its counter's text (%d, %d from its centre)", h, dx, dy)
					}
				}
			}
			right := false
			for dx := 14; dx <= 40; dx++ {
				right = right || anyNear(img, float64(x+dx), float64(y+5), 1, lostInk)
			}
			if !right {
				t.Errorf("no cross of the loss in %s right of its counter", h)
			}
			x, y, _, _ = mapimage.Center(enc, h)
			colour := imgs[2].At(x, y+18)
			w := 1
			for dx := 1; dx < 80 && imgs[2].At(x-dx, y+18) == colour; dx++ {
				w++
			}
			for dx := 1; dx < 80 && imgs[2].At(x+dx, y+18) == colour; dx++ {
				w++
			}
			if w < 28 || w > 64 {
				t.Errorf("the counter with a long label in %s is %d pixels wide, want 28 to 64, a hex's width", tc.long, w)
			}
		})
	}
}

// dark is how many dark pixels (text, borders: all the ink's shades) the counter of the
// hex centred on x, y has: a box a hex wide, from above its centre to the hex's lower
// edge.
func dark(img image.Image, x, y int) int {
	n := 0
	for dy := -14; dy <= 24; dy++ {
		for dx := -30; dx <= 30; dx++ {
			if g := color.GrayModel.Convert(img.At(x+dx, y+dy)).(color.Gray); g.Y < 100 {
				n++
			}
		}
	}
	return n
}
