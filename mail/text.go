package mail

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message"
	// Registers the charset decoders (ISO-8859-x, windows-125x, KOI8,
	// Shift_JIS, ...) with go-message; without it only UTF-8 and US-ASCII
	// bodies decode.
	"github.com/emersion/go-message/charset"
	"github.com/emersion/go-message/textproto"
	"golang.org/x/text/encoding/charmap"
)

// Bounds on the MIME tree walk. Real mail nests three or four levels deep and
// has a few dozen parts at most; the bounds stop a crafted message from
// making the walk cost memory per level (each level holds a read buffer) or
// time per part.
const (
	maxMIMEDepth = 16
	maxMIMEParts = 256
)

// bodyText walks the MIME tree of the message and sets env.Text: the first
// inline text/plain part that is not blank, else the first inline text/html
// part converted to text. A blank text/plain part does not count because some
// mailers send an empty plain alternative next to the real HTML one.
//
// The walk goes on after the text is found, without reading bodies, so that
// a delivery report buried in a multipart/mixed still marks the message
// Automated.
func bodyText(env *Envelope, h message.Header, body []byte) {
	root, err := message.New(h, bytes.NewReader(body))
	if root == nil {
		return
	}
	w := &walker{}
	w.visit(root, err, 0)
	switch {
	case w.havePlain && w.plainDamaged, !w.havePlain && w.haveHTML && w.htmlDamaged:
		// What decodes before the damage is a part of the mail, which could run
		// orders without the lines after them, or read a cut password as wrong.
		env.Unreadable = "the encoding of its text is damaged (its base64 could not be decoded)"
		return
	case w.havePlain:
		env.Text = w.plain
	case w.haveHTML:
		env.Text = TextFromHTML(w.html)
	}
	if strings.TrimSpace(env.Text) == "" {
		env.Unreadable = w.unreadable()
	}
	if !env.Automated && w.report != "" {
		env.Automated = true
		env.AutomatedReason = w.report
	}
}

// walker collects what bodyText needs from a MIME tree.
type walker struct {
	parts     int
	plain     string
	havePlain bool
	html      string
	haveHTML  bool
	// The text part taken could not be decoded whole.
	plainDamaged, htmlDamaged bool
	report                    string
	// What stopped the walk from reading all of the tree, for Envelope.Unreadable.
	tooDeep, tooMany, broken, noBoundary bool
}

// unreadable says why no text was found, in words for the sender.
func (w *walker) unreadable() string {
	switch {
	case w.tooDeep:
		return fmt.Sprintf("its MIME parts are nested more than %d levels deep", maxMIMEDepth)
	case w.tooMany:
		return fmt.Sprintf("it has more than %d MIME parts", maxMIMEParts)
	case w.broken:
		return "its MIME structure is broken (a part boundary is missing or damaged)"
	case w.noBoundary:
		return "it is a multipart message without a boundary"
	}
	return "it holds no text (only attachments, or an empty body)"
}

// visit handles one entity. newErr is the error message.New gave for it: an
// unknown charset or transfer encoding leaves the body readable, undecoded.
//
// The multipart structure is walked here rather than with go-message's
// Walk or mail.Reader so that depth and part count are bounded, the
// Content-Type is parsed leniently (a bad parameter elsewhere must not hide
// the boundary), and message/rfc822 parts (forwarded mail, bounced
// originals) are never entered: their text is not the sender's.
func (w *walker) visit(e *message.Entity, newErr error, depth int) {
	if w.parts >= maxMIMEParts {
		w.tooMany = true
		return
	}
	w.parts++
	mt, params := parseMediaType(e.Header.Get("Content-Type"))
	if mt == "" {
		mt = "text/plain" // RFC 2045 5.2
	}

	if strings.HasPrefix(mt, "multipart/") {
		if mt == "multipart/report" && w.report == "" {
			w.report = reportReason(params["report-type"])
		}
		boundary := params["boundary"]
		switch {
		case depth >= maxMIMEDepth:
			w.tooDeep = true
			return
		case boundary == "":
			w.noBoundary = true
			return
		}
		mr := textproto.NewMultipartReader(e.Body, boundary)
		for w.parts < maxMIMEParts {
			p, err := mr.NextPart()
			if err != nil {
				// io.EOF, or a broken structure: keep what was found.
				w.broken = w.broken || err != io.EOF
				return
			}
			child, cerr := message.New(message.Header{Header: p.Header}, p)
			if child == nil {
				return
			}
			w.visit(child, cerr, depth+1)
		}
		return
	}

	switch mt {
	case "message/delivery-status", "message/global-delivery-status":
		if w.report == "" {
			w.report = "delivery status report"
		}
		return
	case "message/disposition-notification", "message/global-disposition-notification":
		if w.report == "" {
			w.report = "disposition notification"
		}
		return
	}

	// RFC 2183: an unknown disposition is treated as attachment.
	if disp, _ := parseMediaType(e.Header.Get("Content-Disposition")); disp != "" && disp != "inline" {
		return
	}
	switch {
	case mt == "text/plain" && !w.havePlain:
		text, damaged := readText(e, newErr, params)
		s := plainText(text, params)
		if strings.TrimSpace(s) != "" || damaged {
			w.plain, w.havePlain, w.plainDamaged = s, true, damaged
		}
	case mt == "text/html" && !w.haveHTML && !w.havePlain:
		w.html, w.htmlDamaged = readText(e, newErr, params)
		w.haveHTML = true
	}
}

// readText reads a text part and returns it as a string in UTF-8 (possibly
// still holding invalid sequences, which the callers replace). A read error
// keeps what was read before it; damaged says the part is base64 that could
// not be decoded whole (a bad character, or a last group cut short: the decoder
// reports the latter as an unexpected EOF, as a cut multipart is reported).
func readText(e *message.Entity, newErr error, params map[string]string) (text string, damaged bool) {
	data, err := io.ReadAll(e.Body)
	damaged = err != nil && strings.EqualFold(strings.TrimSpace(e.Header.Get("Content-Transfer-Encoding")), "base64")
	return decodeText(e, newErr, params, data), damaged
}

// decodeText turns the bytes of a text part into UTF-8 by its charset.
func decodeText(e *message.Entity, newErr error, params map[string]string, data []byte) string {
	label := strings.ToLower(strings.TrimSpace(params["charset"]))

	// go-message converted the body iff its own (strict) parse of the
	// Content-Type found a charset it knew; otherwise data is raw bytes.
	_, gmParams, gmErr := e.Header.ContentType()
	converted := gmErr == nil && gmParams["charset"] != "" && !message.IsUnknownCharset(newErr)

	switch {
	case converted && asciiLabel(label):
		// go-message passes US-ASCII through untouched; eight-bit bytes
		// under that label are a mislabel, as are undeclared ones below.
		if !utf8.Valid(data) {
			return windows1252(data)
		}
		return string(data)
	case converted:
		if latin1Label(label) {
			return fixC1(string(data))
		}
		return string(data)
	}
	if label != "" && !asciiLabel(label) && label != "utf-8" {
		if rd, err := charset.Reader(label, bytes.NewReader(data)); err == nil {
			out, _ := io.ReadAll(rd)
			if latin1Label(label) {
				return fixC1(string(out))
			}
			return string(out)
		}
	}
	if label == "utf-8" || utf8.Valid(data) {
		return string(data)
	}
	// No charset, or one nobody knows ("unknown-8bit", "x-user-defined"),
	// and not UTF-8: windows-1252 is by far the most likely, and decodes
	// every byte to something.
	return windows1252(data)
}

// asciiLabel reports whether label names US-ASCII.
func asciiLabel(label string) bool {
	switch label {
	case "us-ascii", "ascii", "us", "ansi_x3.4-1968", "iso646-us", "iso-ir-6", "csascii":
		return true
	}
	return false
}

// latin1Label reports whether label names ISO-8859-1.
func latin1Label(label string) bool {
	switch label {
	case "iso-8859-1", "iso8859-1", "iso_8859-1", "iso_8859-1:1987", "latin1", "l1",
		"cp819", "ibm819", "iso-ir-100", "csisolatin1":
		return true
	}
	return false
}

// fixC1 re-reads the C1 control characters U+0080..U+009F of text decoded as
// ISO-8859-1 as windows-1252 (curly quotes, dashes, the euro sign). They never
// occur in real text: Windows mailers label windows-1252 text ISO-8859-1, and
// the WHATWG Encoding Standard decodes that label as windows-1252 for the same
// reason.
func fixC1(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 && r <= 0x9f {
			return charmap.Windows1252.DecodeByte(byte(r))
		}
		return r
	}, s)
}

// windows1252 decodes b as windows-1252; every byte maps to a rune.
func windows1252(b []byte) string {
	var sb strings.Builder
	sb.Grow(len(b) + len(b)/2)
	for _, c := range b {
		if c < utf8.RuneSelf {
			sb.WriteByte(c)
		} else {
			sb.WriteRune(charmap.Windows1252.DecodeByte(c))
		}
	}
	return sb.String()
}

// plainText finishes a decoded text/plain body: valid UTF-8, no BOM, "\n"
// line endings, format=flowed undone, stray control characters removed.
func plainText(s string, params map[string]string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.TrimPrefix(s, "\uFEFF")
	s = normalizeNewlines(s)
	if strings.EqualFold(params["format"], "flowed") {
		s = unflow(s, strings.EqualFold(params["delsp"], "yes"))
	}
	return cleanText(s)
}

// normalizeNewlines turns CRLF and lone CR into LF.
func normalizeNewlines(s string) string {
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	s = strings.ReplaceAll(s, "\r\n", "\n")
	return strings.ReplaceAll(s, "\r", "\n")
}

// cleanText replaces control characters (C0, DEL, C1) other than tab and
// newline with U+FFFD. They mean nothing in orders, and would otherwise travel
// into logs (terminal escapes) and into quoted lines of replies (NUL is not
// allowed in SMTP data). Replaced, not removed: removed, "pass\x00word" would
// read as the password "password" and "HOLD\x002301" as an order nobody
// wrote; the desk refuses a password with U+FFFD, and quotes the line.
func cleanText(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		// A C1 control is 0xC2 0x80..0x9F in UTF-8.
		if (c < ' ' && c != '\n' && c != '\t') || c == 0x7f ||
			(c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) && r != '\n' && r != '\t' {
			return '\uFFFD'
		}
		return r
	}, s)
}

// unflow undoes format=flowed (RFC 3676 4.1-4.5) on text with "\n" line
// endings: a line ending in a space is soft-broken and joins the next line
// of the same quote depth; with delsp the space was added by the sender and
// is removed. Space-stuffing is undone. The signature separator "-- " is
// never flowed. Quoted lines are joined within their depth and written back
// with a ">" per level and one space, which is how they looked to the sender.
func unflow(s string, delsp bool) string {
	trailingNL := strings.HasSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\n")

	var out strings.Builder
	out.Grow(len(s) + 1)
	var para strings.Builder
	paraDepth, inPara := 0, false
	flush := func() {
		if paraDepth > 0 {
			out.WriteString(strings.Repeat(">", paraDepth))
			if para.Len() > 0 {
				out.WriteByte(' ')
			}
		}
		out.WriteString(para.String())
		out.WriteByte('\n')
		para.Reset()
		inPara = false
	}

	for _, line := range strings.Split(s, "\n") {
		depth := 0
		for depth < len(line) && line[depth] == '>' {
			depth++
		}
		content := line[depth:]
		// Space-stuffing (4.4), also the space after quote marks (4.5).
		content = strings.TrimPrefix(content, " ")
		flowed := strings.HasSuffix(content, " ") && content != "-- "

		// A flowed line followed by a line of another depth is improperly
		// flowed; RFC 3676 4.5 says to treat it as fixed.
		if inPara && depth != paraDepth {
			flush()
		}
		paraDepth = depth
		if flowed {
			if delsp {
				content = content[:len(content)-1]
			}
			para.WriteString(content)
			inPara = true
			continue
		}
		para.WriteString(content)
		flush()
	}
	if inPara {
		flush()
	}
	res := out.String()
	if !trailingNL {
		res = strings.TrimSuffix(res, "\n")
	}
	return res
}

// parseMediaType parses a Content-Type or Content-Disposition value, leniently:
// mime.ParseMediaType rejects the whole value for one bad parameter, and
// mailers in the wild write bad parameters (unquoted spaces, duplicated
// keys). Then the type and any "key=value" pieces are taken by hand. The type
// and parameter names are lower-cased. An empty value gives "".
func parseMediaType(v string) (string, map[string]string) {
	v = strings.TrimSpace(v)
	if v == "" {
		return "", nil
	}
	if mt, params, err := mime.ParseMediaType(v); err == nil {
		return mt, params
	}
	pieces := strings.Split(v, ";")
	mt := strings.ToLower(strings.TrimSpace(pieces[0]))
	params := make(map[string]string)
	for _, p := range pieces[1:] {
		k, val, ok := strings.Cut(p, "=")
		if !ok {
			continue
		}
		k = strings.ToLower(strings.TrimSpace(k))
		val = strings.Trim(strings.TrimSpace(val), "\"")
		if _, dup := params[k]; !dup && k != "" {
			params[k] = val
		}
	}
	return mt, params
}
