package main

import (
	"bytes"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestMapPNG: `map --png FILE` writes the side's map as a PNG picture a phone shows
// whole, and the text map is unchanged without the flag.
func TestMapPNG(t *testing.T) {
	db := shapeDB(t)
	file := filepath.Join(t.TempDir(), "de.png")
	out := mustCLI(t, nil, "map", "--db", db, "--game", shapeGame, "--side", "de", "--png", file)
	if !strings.Contains(out, "wrote "+file) {
		t.Errorf("map --png printed %q", out)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("map --png wrote no PNG: %v", err)
	}
	// For a phone: at most 1280 pixels wide and 150 KB (the whole map, here, as no
	// unit is on it yet, drawn smaller).
	if w := img.Bounds().Dx(); w < 600 || w > 1280 || len(b) > 150<<10 {
		t.Errorf("picture %d pixels wide, %d bytes; want 600 to 1280 pixels, at most 150 KB", w, len(b))
	}
	if text := mustCLI(t, nil, "map", "--db", db, "--game", shapeGame, "--side", "de"); !strings.Contains(text, "Strip 1 of") {
		t.Errorf("map without --png is no text map:\n%s", text)
	}
}

func TestAbsPNG(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want []string }{
		{[]string{"map", "--png", "a.png"}, []string{"map", "--png", filepath.Join(wd, "a.png")}},
		{[]string{"map", "-png=a.png", "--side", "de"}, []string{"map", "-png=" + filepath.Join(wd, "a.png"), "--side", "de"}},
		{[]string{"map", "--png", "/x/a.png"}, []string{"map", "--png", "/x/a.png"}},
		{[]string{"map", "--png"}, []string{"map", "--png"}},
	} {
		got := append([]string(nil), tt.in...)
		absPNG(got)
		if strings.Join(got, " ") != strings.Join(tt.want, " ") {
			t.Errorf("absPNG(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// TestDemoPictures: every picture the teaching demo's mails carry, drawn as the
// sender draws it, is a PNG a phone shows whole: at most 1280 pixels wide and 150 KB;
// and the results pictures show what happened (some outline a changed hex).
func TestDemoPictures(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	mustCLI(t, nil, "demo", "--ruleset", "teaching", "--pipe", "--quiet", "--db", db)
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var views [][]byte
	err = st.Read(t.Context(), func(tx store.Tx) error {
		heads, err := tx.Outbox()
		if err != nil {
			return err
		}
		for _, h := range heads {
			m, err := tx.OutMailAt(h.Seq)
			if err != nil {
				return err
			}
			for _, p := range m.Pictures {
				views = append(views, p.View)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(views) < 10 {
		t.Fatalf("the demo's mails carry %d pictures", len(views))
	}
	magenta := color.RGBA{0xd6, 0x1a, 0x9c, 0xff}
	news := 0
	for i, v := range views {
		b, err := mapimage.RenderEncoded(v)
		if err != nil {
			t.Fatalf("picture %d: %v", i, err)
		}
		img, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("picture %d: %v", i, err)
		}
		if w := img.Bounds().Dx(); w > mapimage.MaxWidth || len(b) > 150<<10 {
			t.Errorf("picture %d is %d pixels wide and %d bytes", i, w, len(b))
		}
		pal, ok := img.(*image.Paletted)
		if ok && slices.ContainsFunc(pal.Palette, func(c color.Color) bool { return color.RGBAModel.Convert(c) == magenta }) {
			news++
		}
	}
	if news == 0 {
		t.Error("no picture of the demo outlines a changed hex")
	}
}
