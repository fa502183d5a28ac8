// Package templates holds the text of every mail Adjutant sends, as text/template files
// embedded in the binary: one file per kind of mail, and one help file per ruleset. The
// templates present; they decide nothing.
package templates

import (
	"bytes"
	"embed"
	"fmt"
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
	var out strings.Builder // String() does not copy
	out.Grow(room)
	start, n := 0, 0 // where the current line starts in out, and its length in runes
	add := func(w string, runes int) {
		switch {
		case out.Len() == start:
			n = 0
		case n+1+runes > width:
			out.WriteByte('\n')
			start = out.Len()
			for range indent {
				out.WriteByte(' ')
			}
			n = indent
		default:
			out.WriteByte(' ')
			n++
		}
		out.WriteString(w)
		n += runes
	}
	for i := 0; i < len(s); {
		// The words are those of strings.Fields, paragraph by paragraph (at "\n").
		if c := s[i]; c == '\n' {
			out.WriteByte('\n')
			start, n = out.Len(), 0
			i++
			continue
		} else if c < utf8.RuneSelf && asciiSpace[c] {
			i++
			continue
		} else if c >= utf8.RuneSelf {
			if r, size := utf8.DecodeRuneInString(s[i:]); unicode.IsSpace(r) {
				i += size
				continue
			}
		}
		j, runes, valid := i, 0, true
		for j < len(s) {
			c := s[j]
			if c < utf8.RuneSelf {
				if asciiSpace[c] {
					break
				}
				j++
			} else {
				r, size := utf8.DecodeRuneInString(s[j:])
				if unicode.IsSpace(r) {
					break
				}
				valid = valid && !(r == utf8.RuneError && size == 1)
				j += size
			}
			runes++
		}
		w := s[i:j]
		i = j
		if !valid {
			w = string([]rune(w)) // each byte that is no UTF-8 becomes U+FFFD
		}
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
	return out.String()
}

// asciiSpace are the ASCII bytes strings.Fields splits at ("\n" as well, which Wrap
// takes first as the end of a paragraph).
var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

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
