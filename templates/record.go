package templates

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
)

// The record of a game (adjudicator/record) is one self-contained HTML page: no
// network, no script, its style inline and its pictures data: URLs. html/template
// escapes every text of the game (a player's words reach it through the mails).

//go:embed record.html
var recordHTML string

var recordPage = template.Must(template.New("record.html").Parse(recordHTML))

// RenderRecordHTML renders record.html with data.
func RenderRecordHTML(data any) ([]byte, error) {
	var b bytes.Buffer
	if err := recordPage.Execute(&b, data); err != nil {
		return nil, fmt.Errorf("render record.html: %w", err)
	}
	return b.Bytes(), nil
}
