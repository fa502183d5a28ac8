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
}).ParseFS(files, "*.txt"))

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
