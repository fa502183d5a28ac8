package mail

import (
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestPictureHTMLFits: every picture of the HTML part is shown at most as wide as the
// window, its proportions kept, so that a phone shows the whole picture; its size
// attributes stay, for the room before it has loaded.
func TestPictureHTMLFits(t *testing.T) {
	m := store.OutMail{Subject: "Results", Body: "== Map ==\ntext\n"}
	pics := []picture{
		{Picture: store.Picture{Alt: "map", Before: "== Map =="}, cid: "a@x", width: 1280, height: 900, decodable: true},
		{Picture: store.Picture{Alt: "other"}, cid: "b@x"},
	}
	html := pictureHTML(m, pics)
	imgs := regexp.MustCompile(`<img [^>]*>`).FindAllString(html, -1)
	if len(imgs) != len(pics) {
		t.Fatalf("%d pictures in the HTML, want %d:\n%s", len(imgs), len(pics), html)
	}
	for i, img := range imgs {
		if !strings.Contains(img, `style="max-width: 100%; height: auto"`) {
			t.Errorf("picture %d may be wider than the window: %s", i, img)
		}
	}
	if !strings.Contains(imgs[0], `width="1280" height="900"`) {
		t.Errorf("the first picture lost its size: %s", imgs[0])
	}
}
