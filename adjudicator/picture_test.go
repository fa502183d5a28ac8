package adjudicator_test

import (
	"bytes"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"image/color"
	"image/png"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestPictures: results mails and MAP replies carry a picture of the side's map besides
// the unchanged text, by default: the view to draw, which the sender draws (the desk
// draws no PNG inside the transaction); SET PICTURE OFF stops it for that player only,
// SET PICTURE ON brings it back; a wrong SET PICTURE is refused; replay still matches.
func TestPictures(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "MAP")
	reply := to(mails, us)[0]
	if len(reply.Pictures) != 1 || !strings.Contains(reply.Body, "== MAP ==") {
		t.Fatalf("MAP reply: %d pictures by default, want one; body:\n%s", len(reply.Pictures), reply.Body)
	}
	p := reply.Pictures[0]
	if p.PNG != nil || !strings.HasSuffix(p.Name, ".png") || p.Alt == "" {
		t.Errorf("MAP reply picture %q %q: a PNG of %d bytes, want a view to draw", p.Name, p.Alt, len(p.PNG))
	}
	drawn, err := mapimage.RenderEncoded(p.View)
	if err != nil {
		t.Fatalf("the MAP reply's view cannot be drawn: %v", err)
	}
	if _, err := png.Decode(bytes.NewReader(drawn)); err != nil {
		t.Errorf("the MAP reply's picture is no PNG: %v", err)
	}
	direct, err := f.desk.MapPicture(t.Context(), "g1", "us")
	if err != nil || !bytes.Equal(direct, drawn) {
		t.Errorf("the mail's picture differs from adjutant map --png's (%v)", err)
	}
	_, mails = f.orders("us", passU, "SET PICTURE OFF")
	if body := to(mails, us)[0].Body; !strings.Contains(body, "SET PICTURE OFF") || strings.Contains(body, "REFUSED") {
		t.Fatalf("SET PICTURE OFF not confirmed:\n%s", body)
	}
	// STATUS says which way each player has it.
	flat := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	_, mails = f.orders("us", passU, "STATUS")
	if s := flat(to(mails, us)[0].Body); !strings.Contains(s, "A picture of the map in results mails and MAP replies: off (SET PICTURE ON") {
		t.Errorf("the US STATUS does not say his pictures are off:\n%s", s)
	}
	_, mails = f.orders("de", passD, "STATUS")
	if s := flat(to(mails, de)[0].Body); !strings.Contains(s, "A picture of the map in results mails and MAP replies: on (SET PICTURE OFF") {
		t.Errorf("the German STATUS does not say his pictures are on:\n%s", s)
	}
	_, mails = f.orders("de", passD, "SET PICTURE SOMETIMES")
	if body := to(mails, de)[0].Body; !strings.Contains(body, "REFUSED: expected SET PICTURE ON or SET PICTURE OFF") {
		t.Errorf("a wrong SET PICTURE is not refused:\n%s", body)
	}
	_, mails = f.orders("us", passU, "MAP")
	if n := len(to(mails, us)[0].Pictures); n != 0 {
		t.Errorf("after SET PICTURE OFF the MAP reply has %d pictures", n)
	}
	f.orders("us", passU, usSetup)
	_, mails = f.orders("de", passD, "PLOT TURN 1 NONE\nSETUP DEFAULT\n")
	results := map[string][]store.OutMail{}
	for _, m := range mails {
		if m.Kind == "results" {
			results[m.To[0]] = append(results[m.To[0]], m)
		}
	}
	if len(results[us]) == 0 || len(results[de]) == 0 {
		t.Fatalf("no results mails: %d to the US, %d to the German", len(results[us]), len(results[de]))
	}
	if n := len(results[us][0].Pictures); n != 0 {
		t.Errorf("the US turned pictures off, but his results mail has %d", n)
	}
	if n := len(results[de][0].Pictures); n != 1 {
		t.Errorf("the German results mail has %d pictures, want 1", n)
	} else if b := results[de][0].Pictures[0].Before; b != "== Map ==" || !strings.Contains(results[de][0].Body, "\n"+b+"\n") {
		t.Errorf("the German results mail's picture goes before %q, which is no line of its text", b)
	}
	if _, err := f.desk.Replay(t.Context(), "g1"); err != nil {
		t.Errorf("replay with pictures: %v", err)
	}
	_, mails = f.orders("us", passU, "SET PICTURE ON")
	if body := to(mails, us)[0].Body; !strings.Contains(body, "now carry a picture of the\nmap") {
		t.Errorf("SET PICTURE ON not confirmed:\n%s", body)
	}
	_, mails = f.orders("us", passU, "MAP")
	if n := len(to(mails, us)[0].Pictures); n != 1 {
		t.Errorf("after SET PICTURE ON the MAP reply has %d pictures", n)
	}
	if b := to(mails, us)[0].Pictures[0].Before; !strings.Contains(to(mails, us)[0].Body, "\n"+b+"\n") {
		t.Errorf("the MAP reply's picture goes before %q, which is no line of its text", b)
	}
}

// TestPicturesMapNone: after SET MAP NONE a player's results mails carry no map, as
// text or as a picture; the other player's carry both, by default.
func TestPicturesMapNone(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("de", passD, "SET MAP NONE")
	f.orders("us", passU, usSetup)
	_, mails := f.orders("de", passD, "PLOT TURN 1 NONE\nSETUP DEFAULT\n")
	n := map[string]int{}
	for _, m := range mails {
		if m.Kind == "results" {
			n[m.To[0]] += len(m.Pictures)
		}
	}
	if n[de] != 0 || n[us] == 0 {
		t.Errorf("results pictures: %d to the German (SET MAP NONE), %d to the US; want none and some", n[de], n[us])
	}
}

// changedPixels counts the pixels of a picture in the outline of a changed hex.
func changedPixels(t *testing.T, view []byte) (n, width, size int) {
	t.Helper()
	b, err := mapimage.RenderEncoded(view)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	magenta := color.RGBA{0xd6, 0x1a, 0x9c, 0xff}
	r := img.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			if color.RGBAModel.Convert(img.At(x, y)) == magenta {
				n++
			}
		}
	}
	return n, r.Dx(), len(b)
}

// TestPictureNews: a results mail's picture shows what changed since the last
// results (the German placement of set-up: its hexes outlined), a MAP reply's shows
// none; both at most 1280 pixels wide and 150 KB.
func TestPictureNews(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	_, mails := f.orders("de", passD, "PLOT TURN 1 NONE\nSETUP DEFAULT\n")
	var results *store.OutMail
	for i, m := range mails {
		if m.Kind == "results" && m.To[0] == de && len(m.Pictures) == 1 {
			results = &mails[i]
		}
	}
	if results == nil {
		t.Fatal("no results mail with a picture to the German")
	}
	n, w, size := changedPixels(t, results.Pictures[0].View)
	if n == 0 {
		t.Error("the results picture outlines no changed hex")
	}
	if w > mapimage.MaxWidth || size > 150<<10 {
		t.Errorf("the results picture is %d pixels wide and %d bytes", w, size)
	}
	_, mails = f.orders("de", passD, "MAP")
	n, w, size = changedPixels(t, to(mails, de)[0].Pictures[0].View)
	if n != 0 {
		t.Errorf("the MAP reply's picture outlines %d pixels as changed", n)
	}
	if w > mapimage.MaxWidth || size > 150<<10 {
		t.Errorf("the MAP picture is %d pixels wide and %d bytes", w, size)
	}
}

// TestPictureNewsSecrets: the moves a Mons picture draws are those the side saw (6.6):
// a German unit that moved out from under the top of a stack is no arrow for the
// British, who saw only the top unit, and is one for the German; a British move is
// an arrow for both; a unit eliminated is a loss for both.
func TestPictureNewsSecrets(t *testing.T) {
	mr, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	ca := mons1914.CaseAdapter{Rules: mr}
	state := func(lines ...string) rules.State {
		t.Helper()
		st, err := ca.State(append([]string{"turn 3"}, lines...))
		if err != nil {
			t.Fatal(err)
		}
		return st
	}
	before := state("unit IX/75/17 2708", "unit III/8/5 2708", "unit 1/NF 2706", "unit 4/RF 2609")
	after := state("unit IX/75/17 2708", "unit III/8/5 2808", "unit 1/NF 2707", "unit 4/RF 2609", "dead 4/RF")
	h := hex.MustParse
	hidden := mapview.Arrow{From: h("2708"), To: h("2808"), Name: mapview.ArrowMove}
	british := mapview.Arrow{From: h("2706"), To: h("2707"), Name: mapview.ArrowMove}
	for _, tc := range []struct {
		side       rules.Side
		wantHidden bool
	}{{mons1914.BEF, false}, {mons1914.DE, true}} {
		news := adjudicator.PictureNews(mr, before, after, tc.side)
		if slices.Contains(news.Moves, hidden) != tc.wantHidden {
			t.Errorf("%s: the move of the unit under the top of the stack drawn: %v, want %v", tc.side, !tc.wantHidden, tc.wantHidden)
		}
		if !slices.Contains(news.Moves, british) {
			t.Errorf("%s: no arrow of the British move: %v", tc.side, news.Moves)
		}
		if !slices.Equal(news.Lost, []hex.Hex{h("2609")}) {
			t.Errorf("%s: lost %v, want 2609", tc.side, news.Lost)
		}
		if news.Before == nil {
			t.Errorf("%s: no view before to compare", tc.side)
		}
	}
	if news := adjudicator.PictureNews(mr, nil, after, mons1914.BEF); news.Before != nil || len(news.Moves) > 0 {
		t.Error("a picture without a state before has news")
	}
}
