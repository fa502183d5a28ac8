package adjudicator

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// wrapRecordReference is wrapRecord as first written, recounting the line for each
// word: the faster one must break every record at the same places.
func wrapRecordReference(record, first, cont string) []string {
	var lines []string
	line := first
	empty := true
	for _, w := range strings.Split(record, " ") {
		switch {
		case empty:
			line += w
			empty = false
		case utf8.RuneCountInString(line)+1+utf8.RuneCountInString(w) > mailWidth:
			lines = append(lines, line)
			line = cont + w
		default:
			line += " " + w
		}
	}
	return append(lines, line)
}

// TestWrapRecordSameAsReference: wrapRecord gives the reference's lines.
func TestWrapRecordSameAsReference(t *testing.T) {
	long := strings.Repeat("x", 90)
	for _, record := range []string{
		"",
		"index 0: 1d6 -> [2] = 2, rule \"10.8\", purpose \"German infantry platoon in 1911\"",
		"a  b   c " + long + " d",
		strings.Repeat("Château-Thierry é ", 12),
		"\xe2\x82 \xac\xff " + strings.Repeat("\xe2\x82\xac", 80) + " end",
		long,
	} {
		for _, ind := range [][2]string{{"", ""}, {"  ", "    "}, {"    ", "      "}} {
			got, want := wrapRecord(record, ind[0], ind[1]), wrapRecordReference(record, ind[0], ind[1])
			if !slices.Equal(got, want) {
				t.Errorf("wrapRecord(%q, %q, %q) =\n%q\nwant\n%q", record, ind[0], ind[1], got, want)
			}
		}
	}
}
