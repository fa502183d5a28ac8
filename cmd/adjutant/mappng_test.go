package main

import (
	"bytes"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMapPNG: `map --png FILE` writes the side's map as a PNG picture, and the text map
// is unchanged without the flag.
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
	if w := img.Bounds().Dx(); w < 1000 || len(b) > 300<<10 {
		t.Errorf("picture %d pixels wide, %d bytes", w, len(b))
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
