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
// Text the reader does not see is not read (htmlstyle.go): elements with the
// hidden attribute or styled display:none, visibility:hidden, font-size 0,
// opacity 0, text the colour of its background (white on an unset one), and
// those a <style> rule hides by tag, class or id. A RESIGN nobody saw in the
// mail he sent must not end his game.
//
// It uses the x/net/html tokenizer, not the tree parser: mail HTML is often
// broken, and a token stream with a few counters and a bounded stack of open
// elements copes with anything without building a tree.
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
			switch {
			case c.inStyle:
				c.addRules(string(z.Text()))
			case c.skip == 0:
				c.reconstruct()
				if c.shown() {
					c.text(string(z.Text()))
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			c.open(string(name), z, hasAttr)
			c.startTag(string(name), tt == html.SelfClosingTagToken)
		case html.EndTagToken:
			name, _ := z.TagName()
			c.endTag(string(name))
			c.close(string(name))
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
	stack        []frame         // the open elements, for what they hide
	overflow     int             // elements opened beyond maxDepth: their text is not read
	inStyle      bool            // inside <style>: its text is rules
	rules        map[string][]cssRule
	nRules       int
	// active are the formatting elements (<b>, <font>, ...) ended by the end of an
	// element around them: a browser opens them again before the next text, so
	// what they hide stays hidden ("<p><b hidden>x</p><p>RESIGN" hides RESIGN).
	active []frame
}

// maxDepth bounds the open elements followed; text nested deeper is not read
// (no mail client writes such HTML). endSearch bounds how far down an end tag
// looks for its element, so that broken HTML costs no more than linear time.
const (
	maxDepth  = 512
	endSearch = 64
)

// voidElements have no content and no end tag.
var voidElements = map[string]bool{
	"area": true, "base": true, "br": true, "col": true, "embed": true, "hr": true,
	"img": true, "input": true, "keygen": true, "link": true, "meta": true,
	"param": true, "source": true, "track": true, "wbr": true,
}

// top is the innermost open element's state (a visible one at the top level).
func (c *htmlConv) top() frame {
	if len(c.stack) == 0 {
		return frame{}
	}
	return c.stack[len(c.stack)-1]
}

// shown reports whether text here is seen by the reader.
func (c *htmlConv) shown() bool {
	f := c.top()
	return c.overflow == 0 && f.visible()
}

// open follows a start tag: the elements it ends (as browsers end an open <p>
// at a block), and the element it opens with what it hides, read from its
// attributes and the style sheets so far.
func (c *htmlConv) open(name string, z *html.Tokenizer, hasAttr bool) {
	if name == "style" {
		c.inStyle = true
	}
	if skippedElements[name] || voidElements[name] {
		return
	}
	c.impliedEnd(name)
	if c.overflow > 0 || len(c.stack) >= maxDepth {
		c.overflow++
		return
	}
	f := c.top()
	f.name = name
	var style, id string
	var classes []string
	for hasAttr {
		var k, v []byte
		k, v, hasAttr = z.TagAttr()
		switch string(k) {
		case "style":
			style = string(v)
		case "hidden":
			f.none = true
		case "class":
			classes = strings.Fields(strings.ToLower(string(v)))
		case "id":
			id = strings.ToLower(string(v))
		case "bgcolor":
			if col, ok := parseColor(string(v)); ok {
				f.bg = col
			}
		case "color", "text":
			// <font color> and <body text>.
			if col, ok := parseColor(string(v)); ok && (name == "font" || name == "body") {
				f.color = col
			}
		}
	}
	if c.nRules > 0 {
		keys := append([]string{name}, "#"+id)
		for _, cl := range classes {
			keys = append(keys, "."+cl)
		}
		for _, k := range keys {
			for _, r := range c.rules[k] {
				if r.matches(name, classes, id) {
					f.applyStyle(r.decls)
				}
			}
		}
	}
	f.applyStyle(style)
	c.stack = append(c.stack, f)
}

// impliedEnd pops the elements a start tag of name ends without their end tag.
func (c *htmlConv) impliedEnd(name string) {
	popIf := func(names ...string) {
		if n := len(c.stack); n > 0 && c.overflow == 0 {
			for _, want := range names {
				if c.stack[n-1].name == want {
					c.stack = c.stack[:n-1]
					return
				}
			}
		}
	}
	switch {
	case name == "li":
		popIf("p")
		popIf("li")
	case name == "dt" || name == "dd":
		popIf("p")
		popIf("dt", "dd")
	case name == "td" || name == "th":
		popIf("td", "th")
	case name == "tr":
		popIf("td", "th")
		popIf("tr")
	case name == "option":
		popIf("option")
	case blockElements[name]:
		popIf("p")
	}
}

// close follows an end tag: it ends the innermost open element of its name, and
// those inside it; an end tag of no open element is ignored.
func (c *htmlConv) close(name string) {
	if name == "style" {
		c.inStyle = false
	}
	if skippedElements[name] || voidElements[name] {
		return
	}
	if c.overflow > 0 {
		c.overflow--
		return
	}
	for i := len(c.stack) - 1; i >= 0 && i >= len(c.stack)-endSearch; i-- {
		if c.stack[i].name == name {
			for _, f := range c.stack[i+1:] {
				if formattingElements[f.name] && len(c.active) < maxActive {
					c.active = append(c.active, f)
				}
			}
			c.stack = c.stack[:i]
			return
		}
	}
	// The end tag of a formatting element no longer open ends it for good.
	for i := len(c.active) - 1; i >= 0; i-- {
		if c.active[i].name == name {
			c.active = append(c.active[:i], c.active[i+1:]...)
			return
		}
	}
}

// formattingElements are those a browser reopens after an element around them
// ended (the HTML standard's "active formatting elements").
var formattingElements = map[string]bool{
	"a": true, "b": true, "big": true, "code": true, "em": true, "font": true, "i": true,
	"nobr": true, "s": true, "small": true, "strike": true, "strong": true, "tt": true, "u": true,
}

// maxActive bounds the formatting elements kept to reopen.
const maxActive = 16

// reconstruct reopens the formatting elements ended around them, before text.
func (c *htmlConv) reconstruct() {
	for _, f := range c.active {
		if len(c.stack) >= maxDepth {
			break
		}
		c.stack = append(c.stack, f)
	}
	c.active = c.active[:0]
}

// addRules keeps the rules of a <style> element, filed for the elements to find.
func (c *htmlConv) addRules(sheet string) {
	if c.nRules >= maxCSSRules {
		return
	}
	if c.rules == nil {
		c.rules = map[string][]cssRule{}
	}
	for _, r := range parseCSS(nil, sheet) {
		if c.nRules >= maxCSSRules {
			break
		}
		c.rules[r.key()] = append(c.rules[r.key()], r)
		c.nRules++
	}
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
	if c.top().none && !skippedElements[name] {
		return // an element not shown breaks no line
	}
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
	if c.top().none && !skippedElements[name] {
		return
	}
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
