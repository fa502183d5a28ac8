package adjudicator_test

import (
	"bytes"
	"image/png"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
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
