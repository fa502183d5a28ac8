// Package templates holds the text of every mail Adjutant sends, as text/template files
// embedded in the binary: one file per kind of mail, and one help file per ruleset. The
// templates present; they decide nothing.
package templates

import (
	"bytes"
	"embed"
	"fmt"
	"strings"
	"text/template"
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
func Wrap(width, indent int, s string) string {
	pad := strings.Repeat(" ", indent)
	var out []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, w := range splitLong(strings.Fields(para), width-indent) {
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

// splitLong cuts the words longer than max runes into pieces of max runes.
func splitLong(words []string, max int) []string {
	if max < 1 {
		return words
	}
	var out []string
	for _, w := range words {
		r := []rune(w)
		for len(r) > max {
			out = append(out, string(r[:max]))
			r = r[max:]
		}
		out = append(out, string(r))
	}
	return out
}

// Render executes the template file name (e.g. "order-check.txt") with data.
func Render(name string, data any) (string, error) {
	var b bytes.Buffer
	if err := all.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("render %s: %w", name, err)
	}
	return b.String(), nil
}

// Has reports whether a template file exists.
func Has(name string) bool { return all.Lookup(name) != nil }
