package mail

import (
	"strings"

	"golang.org/x/net/html"
)

// TextFromHTML converts an HTML body to readable plain text: block elements
// and <br> become line breaks, entities are decoded, &nbsp; becomes a space,
// script, style and the document head are dropped, and <blockquote> content
// is prefixed with "> " per level so that quoted text stays recognisable as
// quoted (the command parser never executes quoted lines). Table cells are
// separated by a space, rows by a line break; <pre> keeps its layout. Runs of
// blank lines are cut to one and the result ends with a newline unless it is
// empty. The result is valid UTF-8 with "\n" line endings.
//
// Paragraphs are separated by a line break, not a blank line: Outlook writes
// every line as its own <p class=MsoNormal>, Gmail every line as a <div>, and
// one order a line must survive both.
//
// It uses the x/net/html tokenizer, not the tree parser: mail HTML is often
// broken, and a token stream with a few counters copes with anything without
// building a tree.
func TextFromHTML(src string) string {
	src = strings.ToValidUTF8(src, "\uFFFD")
	c := &htmlConv{}
	z := html.NewTokenizer(strings.NewReader(src))
	for {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			// io.EOF or a tokenizer error: either way the text so far is
			// all there is.
			c.blockBoundary()
			return c.result()
		case html.TextToken:
			if c.skip == 0 {
				c.text(string(z.Text()))
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, _ := z.TagName()
			c.startTag(string(name), tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.endTag(string(name))
		}
	}
}

// htmlConv accumulates the text of an HTML token stream line by line.
type htmlConv struct {
	lines        []string
	line         strings.Builder // current line, quote prefix included
	prefixLen    int             // bytes of quote prefix at the start of line
	hasContent   bool            // line holds text (and its prefix)
	pendingSpace bool            // collapsed white space waits before the next text
	quote        int             // <blockquote> depth
	pre          int             // <pre> depth
	preStart     bool            // just after <pre>: a leading newline is dropped
	skip         int             // depth inside elements whose text is not shown
}

// maxQuotePrefix bounds the ">" written before a quoted line. Deeper
// <blockquote> nesting is shown at this depth: the prefix only has to mark
// the line as quoted, and an unbounded one would let a 1 MiB message of
// nested blockquotes and <br>s expand to gigabytes of text (depth × lines).
const maxQuotePrefix = 16

// skippedElements hold no visible text. script, style, title, noscript,
// iframe, noembed and noframes are raw-text elements for the tokenizer, which
// treats them as opened even when written self-closing.
var skippedElements = map[string]bool{
	"script": true, "style": true, "title": true, "noscript": true,
	"iframe": true, "noembed": true, "noframes": true,
	"head": true, "template": true,
}

// rawTextElements are the skipped elements the tokenizer reads as raw text.
var rawTextElements = map[string]bool{
	"script": true, "style": true, "title": true, "noscript": true,
	"iframe": true, "noembed": true, "noframes": true,
}

// blockElements end the current line where they start and where they end.
var blockElements = map[string]bool{
	"address": true, "article": true, "aside": true, "body": true, "caption": true,
	"center": true, "dd": true, "details": true, "div": true, "dl": true, "dt": true,
	"fieldset": true, "figcaption": true, "figure": true, "footer": true, "form": true,
	"h1": true, "h2": true, "h3": true, "h4": true, "h5": true, "h6": true,
	"header": true, "hr": true, "html": true, "legend": true, "li": true, "main": true,
	"nav": true, "ol": true, "p": true, "section": true, "summary": true,
	"table": true, "tbody": true, "tfoot": true, "thead": true, "tr": true, "ul": true,
}

func (c *htmlConv) startTag(name string, selfClosing bool) {
	switch {
	case skippedElements[name]:
		if !selfClosing || rawTextElements[name] {
			c.skip++
		}
	case name == "body":
		// A <head> that was never closed ends here.
		c.skip = 0
		c.blockBoundary()
	case name == "br":
		c.newline()
	case name == "blockquote":
		c.blockBoundary()
		if !selfClosing {
			c.quote++
		}
	case name == "pre":
		c.blockBoundary()
		if !selfClosing {
			c.pre++
			c.preStart = true
		}
	case name == "td" || name == "th":
		c.pendingSpace = true
	case blockElements[name]:
		c.blockBoundary()
	}
}

func (c *htmlConv) endTag(name string) {
	switch {
	case skippedElements[name]:
		if c.skip > 0 {
			c.skip--
		}
	case name == "br":
		// Browsers read </br> as <br>.
		c.newline()
	case name == "blockquote":
		c.blockBoundary()
		if c.quote > 0 {
			c.quote--
		}
	case name == "pre":
		c.blockBoundary()
		if c.pre > 0 {
			c.pre--
		}
	case blockElements[name]:
		c.blockBoundary()
	}
}

// text adds the text of a text token: white space collapsed outside <pre>.
func (c *htmlConv) text(s string) {
	if c.pre > 0 {
		for _, r := range s {
			if c.preStart {
				c.preStart = false
				if r == '\n' {
					continue
				}
			}
			if r == '\n' {
				c.newline()
				continue
			}
			if r == '\u00a0' {
				r = ' '
			}
			c.put(r)
		}
		return
	}
	for _, r := range s {
		switch r {
		case ' ', '\t', '\n', '\r', '\f':
			c.pendingSpace = true
			continue
		case '\u00a0':
			// Not collapsible in HTML, but in text a space is what it is.
			r = ' '
		}
		if c.pendingSpace && c.hasContent {
			c.line.WriteByte(' ')
		}
		c.pendingSpace = false
		c.put(r)
	}
}

// put writes one rune, starting the line with its quote prefix.
func (c *htmlConv) put(r rune) {
	if !c.hasContent {
		if c.quote > 0 {
			c.line.WriteString(c.quotePrefix())
			c.line.WriteByte(' ')
		}
		c.prefixLen = c.line.Len()
		c.hasContent = true
	}
	c.pendingSpace = false
	c.line.WriteRune(r)
}

// quotePrefix is the ">" marker for the current <blockquote> depth.
func (c *htmlConv) quotePrefix() string {
	return strings.Repeat(">", min(c.quote, maxQuotePrefix))
}

// newline ends the current line, even an empty one.
func (c *htmlConv) newline() {
	c.preStart = false
	l := c.line.String()
	prefix, body := "", ""
	if c.hasContent {
		prefix, body = l[:c.prefixLen], l[c.prefixLen:]
	}
	trimmed := strings.TrimRight(body, " \t")
	// Keep the signature separator "-- " whole (RFC 3676 4.3): the command
	// parser stops there. Its space is usually the collapsed white space
	// before the <br> or the end of the block.
	if trimmed == "--" && (c.pendingSpace || len(body) > len(trimmed)) {
		trimmed = "-- "
	}
	switch {
	case trimmed != "":
		c.lines = append(c.lines, prefix+trimmed)
	case c.quote > 0:
		c.lines = append(c.lines, c.quotePrefix())
	default:
		c.lines = append(c.lines, "")
	}
	c.line.Reset()
	c.prefixLen = 0
	c.hasContent = false
	c.pendingSpace = false
}

// blockBoundary ends the current line if it holds text, so that blocks start
// on their own line without piling up empty ones.
func (c *htmlConv) blockBoundary() {
	if c.hasContent {
		c.newline()
	}
	c.pendingSpace = false
}

// result joins the lines, at most one blank line in a row, none at either end.
func (c *htmlConv) result() string {
	var b strings.Builder
	blank := 0
	for _, l := range c.lines {
		if l == "" {
			blank++
			continue
		}
		if blank > 0 && b.Len() > 0 {
			b.WriteByte('\n')
		}
		blank = 0
		b.WriteString(l)
		b.WriteByte('\n')
	}
	return cleanText(b.String())
}
