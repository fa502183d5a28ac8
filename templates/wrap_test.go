package templates

import (
	"strings"
	"testing"
)

// wrapReference is Wrap as it was first written, line by line from strings: the
// faster Wrap must give exactly its text, since replay compares every results mail.
func wrapReference(width, indent int, s string) string {
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		var words []string
		for _, w := range strings.Fields(para) {
			r := []rune(w)
			for width-indent >= 1 && len(r) > width-indent {
				words = append(words, string(r[:width-indent]))
				r = r[width-indent:]
			}
			words = append(words, string(r))
		}
		for _, w := range words {
			switch {
			case line == "":
				line = w
			case len([]rune(line))+1+len([]rune(w)) > width:
				out = append(out, line)
				line = pad + w
			default:
				line += " " + w
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

var wrapCases = []struct {
	width, indent int
	text          string
}{
	{78, 0, ""},
	{78, 0, "one line"},
	{78, 4, "[10.8] The German HMG in 2305 fires at the US Army stack in 2406 at 3:1 and rolls a five: two steps lost, the stack is disrupted and must retreat."},
	{20, 2, "a\n\nb  c\td\n  e   \n"},
	{10, 0, "abcdefghijklmnopqrstuvwxyz and more"},
	{10, 4, "xy abcdefghijklmnopqrstuvwxyz"},
	{10, 4, "abcdef abcdef abcdef"}, // exactly max runes: no empty piece
	{12, 2, "Pétain écrit à Foch: « tenez bon » — ça tiendra à Château-Thierry"},
	{8, 0, "\xff\xfe\xfd\xfc\xfb\xfa\xf9\xf8\xf7\xf6 ok"}, // not UTF-8, cut
	{5, 5, "indent as wide as the line"},
	{3, 6, "indent wider than the line"},
	{78, 0, "\u00a0non-breaking\u2003em space\u3000ideographic"},
}

// TestWrapSameAsReference: Wrap gives the reference's text on every case.
func TestWrapSameAsReference(t *testing.T) {
	for _, c := range wrapCases {
		if got, want := Wrap(c.width, c.indent, c.text), wrapReference(c.width, c.indent, c.text); got != want {
			t.Errorf("Wrap(%d, %d, %q) =\n%q\nwant\n%q", c.width, c.indent, c.text, got, want)
		}
	}
}

// FuzzWrap: Wrap and the reference agree on any text, width and indent.
func FuzzWrap(f *testing.F) {
	for _, c := range wrapCases {
		f.Add(c.width, c.indent, c.text)
	}
	f.Fuzz(func(t *testing.T, width, indent int, text string) {
		if width < -5 || width > 200 || indent < 0 || indent > 100 {
			return
		}
		if got, want := Wrap(width, indent, text), wrapReference(width, indent, text); got != want {
			t.Errorf("Wrap(%d, %d, %q) = %q, want %q", width, indent, text, got, want)
		}
	})
}

// BenchmarkWrap is one event line of a results mail.
func BenchmarkWrap(b *testing.B) {
	text := wrapCases[2].text
	b.ReportAllocs()
	for b.Loop() {
		Wrap(78, 4, text)
	}
}
