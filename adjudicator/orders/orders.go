// Package orders holds the lexer and the small parsers shared by every ruleset's order
// grammar: splitting a mail into command lines, hex ids, bombardment plot items such as
// "4300x3", and hex paths such as "2301-2302-2402". It knows no game's legality rules.
//
// The command language is line-oriented and forgiving (DESIGN.md, "Orders by email"):
// keywords in any case, one command a line, blank lines and "#" comments ignored,
// everything after a line "END" or a signature separator "-- " ignored, and lines quoted
// from an earlier mail (">") never executed.
package orders

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Line is one command line of a mail, with its 1-based line number in the mail text.
type Line struct {
	No     int
	Text   string   // the line without comment and surrounding space
	Fields []string // Text split on spaces and tabs
}

// Keyword returns the first field with its ASCII letters upper-cased, or "". Only ASCII
// letters fold: "ſtatuſ" (long s) or "sıde" (dotless i) is no keyword (see [Upper]).
func (l Line) Keyword() string {
	if len(l.Fields) == 0 {
		return ""
	}
	return Upper(l.Fields[0])
}

// Is reports whether the line's leading fields are the given words, in any ASCII case.
func (l Line) Is(words ...string) bool {
	if len(l.Fields) < len(words) {
		return false
	}
	for i, w := range words {
		if !EqualFold(l.Fields[i], w) {
			return false
		}
	}
	return true
}

// Upper upper-cases the ASCII letters of s and leaves every other rune as it is. Order
// words are compared with it rather than strings.ToUpper, whose Unicode case mapping
// turns "ſ" (long s) into "S" and "ı" (dotless i) into "I", so that "ſtatuſ" would be
// taken as STATUS.
func Upper(s string) string {
	for i := 0; i < len(s); i++ {
		if c := s[i]; 'a' <= c && c <= 'z' {
			b := []byte(s)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'a' <= c && c <= 'z' {
					b[j] = c - 'a' + 'A'
				}
			}
			return string(b)
		}
	}
	return s
}

// EqualFold reports whether a and b are equal when ASCII letters are folded; unlike
// strings.EqualFold it folds nothing else (see [Upper]).
func EqualFold(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// Rest returns the text after the first n fields.
func (l Line) Rest(n int) string {
	if n >= len(l.Fields) {
		return ""
	}
	return strings.Join(l.Fields[n:], " ")
}

// Ignored is a line that was deliberately not executed, and why; after [Runs], a run of
// such lines from No to Last.
type Ignored struct {
	No   int
	Last int // the last line of a run (Runs); 0: line No alone
	Text string
	Why  string
	kind string // what Runs merges: quoteKind, closingKind or "" (never merged)
}

// Where names the lines: "line 12" or "lines 12-214".
func (ig Ignored) Where() string {
	if ig.Last > ig.No {
		return fmt.Sprintf("lines %d-%d", ig.No, ig.Last)
	}
	return fmt.Sprintf("line %d", ig.No)
}

// Split turns a mail's text into command lines. Quoted lines and reply attributions
// ("On Sun, 22 Nov 2026, Adjutant wrote:") are reported as ignored; the text after END, a
// signature separator or a mailer's quoted original (Outlook's "-----Original
// Message-----" or its "From: ... Sent: ..." block) is dropped and reported once.
func Split(text string) (lines []Line, ignored []Ignored) {
	raw := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, s := range raw {
		no := i + 1
		trimmed := strings.TrimSpace(s)
		if s == "-- " || s == "--" {
			if rest := countNonBlank(raw[i+1:]); rest > 0 {
				ignored = append(ignored, Ignored{No: no, Text: s, Why: fmt.Sprintf("signature: the %d line(s) after it were not read", rest)})
			}
			break
		}
		if what := quotedOriginal(raw, i); what != "" {
			if rest := countNonBlank(raw[i:]); rest > 0 {
				ignored = append(ignored, Ignored{No: no, Text: trimmed, Why: fmt.Sprintf("%s: the %d line(s) from here were not read", what, rest)})
			}
			break
		}
		if isAttribution(trimmed) {
			// Gmail breaks a long attribution over two lines ("On Sun, 22 Nov 2026 at
			// 10:00, Adjutant <" / "adjutant@example.org> wrote:"): its first half is the
			// line just before, unless that line was an order.
			if n := len(lines); n > 0 && lines[n-1].No == no-1 && attributionStart(lines[n-1].Text) {
				ignored = append(ignored, Ignored{No: no - 1, Text: lines[n-1].Text, Why: attributionWhy, kind: quoteKind})
				lines = lines[:n-1]
			}
			ignored = append(ignored, Ignored{No: no, Text: trimmed, Why: attributionWhy, kind: quoteKind})
			continue
		}
		if strings.HasPrefix(trimmed, ">") {
			ignored = append(ignored, Ignored{No: no, Text: trimmed, Why: quotedWhy, kind: quoteKind})
			continue
		}
		if c := strings.IndexByte(trimmed, '#'); c >= 0 {
			trimmed = strings.TrimSpace(trimmed[:c])
		}
		if trimmed == "" {
			continue
		}
		if EqualFold(trimmed, "END") {
			if rest := countNonBlank(raw[i+1:]); rest > 0 {
				ignored = append(ignored, Ignored{No: no, Text: trimmed, Why: fmt.Sprintf("END: the %d line(s) after it were not read", rest)})
			}
			break
		}
		// Typography a phone or Outlook substitutes (4209–4210) reads as ASCII.
		trimmed = strings.TrimSpace(Typography(trimmed))
		lines = append(lines, Line{No: no, Text: trimmed, Fields: strings.Fields(trimmed)})
	}
	return lines, ignored
}

func countNonBlank(ss []string) int {
	n := 0
	for _, s := range ss {
		if strings.TrimSpace(s) != "" {
			n++
		}
	}
	return n
}

// PlotItem is one entry of a bombardment plot: Count markers into Hex ("4300x3").
type PlotItem struct {
	Hex   hex.Hex
	Count int
}

// String returns the canonical form "4300x3".
func (p PlotItem) String() string { return fmt.Sprintf("%sx%d", p.Hex, p.Count) }

// ParsePlotItems parses a plot list as the rulebooks write it: "4300x3, 4400x3, 4500x2"
// with items separated by commas and/or spaces. A hex without "xN" means one marker.
func ParsePlotItems(s string) ([]PlotItem, error) {
	var items []PlotItem
	for _, tok := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == ';' }) {
		h, n, found := strings.Cut(strings.ToLower(tok), "x")
		if !found {
			n = "1"
		}
		id, err := hex.Parse(h)
		if err != nil {
			return nil, fmt.Errorf("%q: %w", tok, err)
		}
		count, err := strconv.Atoi(n)
		if err != nil || count < 1 || count > 99 {
			return nil, fmt.Errorf("%q: expected a hex and a marker count such as 4300x3", tok)
		}
		items = append(items, PlotItem{Hex: id, Count: count})
	}
	return items, nil
}

// FormatPlot returns the canonical text of a plot: "4300x3, 4400x3".
func FormatPlot(items []PlotItem) string {
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = it.String()
	}
	return strings.Join(parts, ", ")
}

// ParsePath parses a hex path "2301-2302-2402".
func ParsePath(s string) ([]hex.Hex, error) {
	path, _, err := ParsePathEnd(s)
	return path, err
}

// ParsePathEnd parses a hex path whose last step may be one of words instead of a hex
// ("2301-2302-EXIT", Soldiers 1918 4.1): the hexes, and the word as given in words
// (matched without regard to case; "" when the path ends in a hex). An error quotes
// the whole path.
func ParsePathEnd(s string, words ...string) (path []hex.Hex, end string, err error) {
	toks := strings.Split(s, "-")
	for _, w := range words {
		if EqualFold(toks[len(toks)-1], w) {
			end, toks = w, toks[:len(toks)-1]
			break
		}
	}
	for _, tok := range toks {
		id, err := hex.Parse(strings.TrimSpace(tok))
		if err != nil {
			return nil, "", fmt.Errorf("path %q: %w", s, err)
		}
		path = append(path, id)
	}
	return path, end, nil
}

// Units reads a list of units as players write it, ids separated by commas and by
// spaces across words ("1US,17/42" "XX"): known gives each id as the game spells it;
// an id it does not know is an error that quotes it and ends with hint, how the game
// writes its ids.
func Units(words []string, known func(id string) (string, bool), hint string) ([]string, error) {
	var out []string
	for _, w := range words {
		for _, id := range strings.Split(w, ",") {
			if id == "" {
				continue
			}
			c, ok := known(id)
			if !ok {
				return nil, fmt.Errorf("no unit %q: %s", id, hint)
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// ParseCount parses a small positive count of units or markers.
func ParseCount(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 999 {
		return 0, fmt.Errorf("%q: expected a count such as 3", s)
	}
	return n, nil
}

// PhaseKey is the phase an order is filed for (the Phase of a ruleset's order): the
// game turn and the ruleset's phase or step within it, "3.II".
func PhaseKey(turn int, phase string) string { return strconv.Itoa(turn) + "." + phase }
