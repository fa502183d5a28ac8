// Package templates holds the text of every mail Adjutant sends, as text/template files
// embedded in the binary: one file per kind of mail, and one help file per ruleset. The
// templates present; they decide nothing.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"iter"
	"strings"
	"sync"
	"text/template"
	"unicode"
	"unicode/utf8"
)

//go:embed *.txt
var files embed.FS

var all = template.Must(template.New("").Funcs(template.FuncMap{
	"indent": func(n int, s string) string {
		pad := strings.Repeat(" ", n)
		return pad + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pad)
	},
	"upper": strings.ToUpper,
	"wrap":  Wrap,
}).ParseFS(files, "*.txt"))

// Wrap breaks s into lines of at most width columns at spaces, indenting continuation
// lines by indent spaces, so that prose reads on a phone. Existing line breaks are kept;
// a word longer than a whole line (a player's run of characters) is cut.
//
// Every results mail wraps each of its events: it is written into one buffer, counting
// runes as it goes, rather than building each line up from strings.
func Wrap(width, indent int, s string) string {
	max := width - indent // the longest piece of a cut word, in runes
	room := len(s) + 8
	if width > 0 {
		room += len(s) / width * (indent + 1)
	}
	out := make([]byte, 0, room)
	for p := 0; ; p++ {
		para := s
		nl := strings.IndexByte(s, '\n')
		if nl >= 0 {
			para, s = s[:nl], s[nl+1:]
		}
		if p > 0 {
			out = append(out, '\n')
		}
		start, n := len(out), 0 // where the line starts in out, and its length in runes
		add := func(w string, runes int) {
			switch {
			case len(out) == start:
				out = append(out, w...)
				n = runes
			case n+1+runes > width:
				out = append(out, '\n')
				start = len(out)
				for range indent {
					out = append(out, ' ')
				}
				out = append(out, w...)
				n = indent + runes
			default:
				out = append(out, ' ')
				out = append(out, w...)
				n += 1 + runes
			}
		}
		for w := range fields(para) {
			if !utf8.ValidString(w) {
				w = string([]rune(w)) // each byte that is no UTF-8 becomes U+FFFD
			}
			runes := utf8.RuneCountInString(w)
			for max >= 1 && runes > max {
				cut := 0
				for range max {
					_, size := utf8.DecodeRuneInString(w[cut:])
					cut += size
				}
				add(w[:cut], max)
				w, runes = w[cut:], runes-max
			}
			add(w, runes)
		}
		if nl < 0 {
			return string(out)
		}
	}
}

// fields yields the words of s as strings.Fields splits them: at runs of Unicode white
// space.
func fields(s string) iter.Seq[string] {
	return func(yield func(string) bool) {
		start := -1
		for i, r := range s {
			if unicode.IsSpace(r) {
				if start >= 0 && !yield(s[start:i]) {
					return
				}
				start = -1
			} else if start < 0 {
				start = i
			}
		}
		if start >= 0 {
			yield(s[start:])
		}
	}
}

// buffers keeps the buffers mails are rendered into: a results mail is several
// kilobytes, which a new buffer would reach by growing (and copying) again and again.
var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooled is the largest buffer put back in the pool, so that one huge mail (a long
// HELP, a whole audit trail) does not stay in memory.
const maxPooled = 64 << 10

// Render executes the template file name (e.g. "order-check.txt") with data.
func Render(name string, data any) (string, error) {
	b := buffers.Get().(*bytes.Buffer)
	defer func() {
		if b.Cap() <= maxPooled {
			b.Reset()
			buffers.Put(b)
		}
	}()
	b.Reset()
	if err := all.ExecuteTemplate(b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// Has reports whether a template file exists.
func Has(name string) bool { return all.Lookup(name) != nil }
