// Package mail is Adjutant's post room: it turns raw RFC 5322 messages into
// plain-text envelopes, and (in other files) fetches them over IMAP and sends
// the replies over SMTP. It knows nothing about any game.
//
// ReadEnvelope is the single code path from raw bytes to text. Both pipe mode
// (`adjutant handle < msg.eml`) and IMAP intake call it, so a message gives
// the same Envelope, and the same MessageID, whichever way it arrived.
//
// ReadEnvelope extracts text; it does not interpret it. Quoted lines (">"),
// signatures and everything after them are left in Envelope.Text because the
// command parser strips them and tells the player what it ignored.
package mail

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"mime"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	gomail "github.com/emersion/go-message/mail"
	"github.com/emersion/go-message/textproto"
)

// DefaultMaxSize is the size limit ReadEnvelope applies when it is given a
// limit of zero or less: 1 MiB is far more than any set of orders needs, yet
// small enough that a hostile sender cannot make the daemon hold much memory.
const DefaultMaxSize int64 = 1 << 20

// ErrTooLarge is returned when the raw message exceeds the size limit; the
// message body is not parsed. ReadEnvelope still returns the header fields it
// could read so that the refusal can be addressed (errors.Is(err, ErrTooLarge)
// holds for the error it returns).
var ErrTooLarge = errors.New("mail: message too large")

// errNoHeader reports input in which not a single header field could be
// found: such input is not a mail message, and nothing can be answered.
var errNoHeader = errors.New("no header fields")

// maxMessageIDLen bounds the Message-ID used as a store key. RFC 5322 limits
// a line to 998 characters; anything longer is junk and is replaced by a hash
// so that a key never grows without bound.
const maxMessageIDLen = 998

// Envelope is the plain-text view of one inbound message.
//
// All strings are valid UTF-8 without control characters (Text keeps its
// newlines and tabs), so they can go to logs, the store and replies as they
// are.
type Envelope struct {
	// MessageID is the Message-ID without angle brackets. When the header
	// is missing or unusable it is "sha256-" followed by the hex SHA-256 of
	// the message without its trace header fields (see contentID) — for
	// the raw bytes, so that the same input always gets the same id
	// (DESIGN invariant 1). For a message refused with ErrTooLarge the hash
	// covers the bytes that were read, that is the first maxSize+1 bytes:
	// stable for the same message and the same limit.
	MessageID string
	// From is the bare sender address, lower-cased, e.g.
	// "alice@example.org"; "" if no address could be found. When From
	// holds several addresses the first one is used.
	From string
	// FromName is the sender's display name, decoded (RFC 2047); may be "".
	FromName string
	// ReplyTo is the first bare address of Reply-To, lower-cased, or "".
	ReplyTo string
	// To lists the bare addresses of the To header, lower-cased, in order.
	// Cc is not included.
	To []string
	// Subject is the decoded (RFC 2047) subject.
	Subject string
	// Date is the sender's Date: header, zero if missing or unparseable. It
	// is informational only: arrival order is the IMAP server's, never the
	// sender's clock.
	Date time.Time
	// InReplyTo is the first message id of In-Reply-To, without brackets.
	InReplyTo string
	// References lists the message ids of References, without brackets, in
	// header order.
	References []string
	// Automated is set for bounces, auto-replies, list or bulk mail and the
	// daemon's own mail: never answer it (DESIGN invariant 7).
	Automated bool
	// AutomatedReason says which rule set Automated, e.g.
	// "Auto-Submitted: auto-replied", "Precedence: bulk",
	// "sender MAILER-DAEMON" or "delivery status report"; "" when not
	// automated. Only the first matching rule is named.
	AutomatedReason string
	// XAdjutant is the value of the X-Adjutant header if present; the daemon
	// marks its own mail with it.
	XAdjutant string
	// Text is the body text: UTF-8, "\n" line endings, format=flowed undone,
	// HTML converted to text when there was no plain-text part. Quoted
	// lines and signatures are kept.
	Text string
	// BounceOf is the outbox number a VERP address in To, Delivered-To, X-Original-To
	// or Envelope-To names ("adjutant+b-42-<tag>@..." gives 42): for a bounce, the mail
	// that could not be delivered. 0 when there is none. BounceTag is that address's
	// tag, lower-cased ("" for an address of the old form, "adjutant+b-42@...", which
	// is believed no more): only the store that sent the mail can tell whether it is
	// right (store.Identity.ValidBounceTag).
	BounceOf  uint64
	BounceTag string
	// BounceFailed lists, for a mail to a VERP address, the recipients its delivery
	// status reports (message/delivery-status parts, RFC 3464) say could not be
	// reached: the Final-Recipient and Original-Recipient of each recipient whose
	// Action is "failed", bare and lower-cased. Nil when there is no such report (an
	// auto-reply, a delay warning).
	BounceFailed []string
	// Unreadable says, in words for the sender, why Text is empty: MIME nested too
	// deep, too many parts, a broken boundary, or no text part at all. "" when text
	// was found (and for a message refused with ErrTooLarge, whose body is not read).
	Unreadable string
	// Size is the raw size in bytes. For a message refused with ErrTooLarge
	// it is the number of bytes read, maxSize+1: a lower bound.
	Size int
}

// ReadEnvelope reads one raw RFC 5322 message from r and returns its
// plain-text Envelope.
//
// It reads at most maxSize+1 bytes from r (maxSize <= 0 means
// DefaultMaxSize): the extra byte tells a message of exactly maxSize bytes,
// which is accepted, from a bigger one, which is refused with ErrTooLarge
// together with a partial Envelope holding MessageID, the header fields (From,
// Subject, ...) and Automated, so that the refusal can still be addressed and
// the message recorded as processed. Its Text is empty.
//
// Malformed input never makes it fail when anything useful can be extracted:
// bad header lines are skipped, unparseable addresses are searched for
// something that looks like one, unknown charsets are guessed, broken MIME
// structure keeps whatever text came before the damage.
//
// Error contract, for callers deciding whether to retry:
//   - nil Envelope: reading r failed; the message was not consumed, try again.
//   - non-nil Envelope and an error: the input was read and will never parse
//     better (ErrTooLarge, or no header field at all); record its MessageID
//     as processed and do not retry.
func ReadEnvelope(r io.Reader, maxSize int64) (*Envelope, error) {
	if r == nil {
		return nil, errors.New("read message: nil reader")
	}
	if maxSize <= 0 {
		maxSize = DefaultMaxSize
	}
	limit := maxSize
	if limit < math.MaxInt64 {
		limit++
	}
	raw, err := io.ReadAll(io.LimitReader(r, limit))
	if err != nil {
		return nil, fmt.Errorf("read message: %w", err)
	}
	if int64(len(raw)) > maxSize {
		env, _ := parse(raw, false)
		return env, fmt.Errorf("%w: more than %d bytes", ErrTooLarge, maxSize)
	}
	return parse(raw, true)
}

// parse builds the Envelope of raw. With complete false raw is only the start
// of a message: the header is read from whatever complete lines it holds and
// the body is left alone.
func parse(raw []byte, complete bool) (*Envelope, error) {
	env := &Envelope{Size: len(raw)}
	rawID := contentID(raw)

	hdrBytes, body, found := splitHeader(raw)
	if !found && !complete {
		// The header was cut by the size limit: its last line is probably
		// incomplete, so keep whole lines only.
		if i := bytes.LastIndexByte(hdrBytes, '\n'); i >= 0 {
			hdrBytes = hdrBytes[:i+1]
		} else {
			hdrBytes = nil
		}
	}
	h := readHeader(hdrBytes)

	env.MessageID = firstMsgID(h.Get("Message-Id"))
	if env.MessageID == "" {
		env.MessageID = rawID
	}
	if h.Len() == 0 {
		// Not a mail message. Still return the envelope so that the caller
		// can record the hash as processed and not see it again.
		return env, fmt.Errorf("read message header: %w", errNoHeader)
	}

	readHeaderFields(env, h)
	env.BounceOf, env.BounceTag = verpNumber(h)
	if complete {
		bodyText(env, h, body)
		if env.BounceOf != 0 {
			env.BounceFailed = failedRecipients(h, body)
		}
	}
	return env, nil
}

// verpAddress finds the outbox number and the tag in a VERP address (see VERP); the
// tag is missing in an address of the old form.
var verpAddress = regexp.MustCompile(`(?i)\+b-([0-9]{1,19})(?:-([0-9a-f]{16}))?@`)

// verpNumber returns the outbox number and the tag (lower case, or "") of the first
// VERP address of the delivery headers or To.
func verpNumber(h message.Header) (uint64, string) {
	for _, field := range []string{"Delivered-To", "X-Original-To", "Envelope-To", "To"} {
		for _, v := range h.Values(field) {
			if m := verpAddress.FindStringSubmatch(v); m != nil {
				if n, err := strconv.ParseUint(m[1], 10, 64); err == nil {
					return n, strings.ToLower(m[2])
				}
			}
		}
	}
	return 0, ""
}

// traceFields are the header fields that relays and delivery add to a message on its
// way (RFC 5321 4.4 and the like). They differ between two deliveries of the same mail,
// so a message without a Message-ID is identified by its content without them.
var traceFields = map[string]bool{
	"received": true, "return-path": true, "delivered-to": true, "x-original-to": true,
	"x-delivered-to": true, "envelope-to": true, "x-envelope-from": true, "x-envelope-to": true,
	"received-spf": true, "authentication-results": true, "arc-seal": true,
	"arc-message-signature": true, "arc-authentication-results": true,
	"x-spam-status": true, "x-spam-score": true, "x-spam-level": true, "x-spam-flag": true,
	"x-spam-checker-version": true, "x-virus-scanned": true, "x-greylist": true,
}

// contentID identifies a message without a Message-ID: "sha256-" and the hex SHA-256 of
// its bytes with the trace header fields left out, so that the same mail relayed once
// more, with one more Received line, is the same message (invariant 1). A message
// without trace fields hashes as its raw bytes.
func contentID(raw []byte) string {
	h := sha256.New()
	rest := raw
	skipping := false
	for len(rest) > 0 {
		line := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			line = rest[:i+1]
		}
		if len(bytes.TrimRight(line, "\r\n")) == 0 {
			break // the end of the header: the body is hashed whole below
		}
		if line[0] != ' ' && line[0] != '\t' {
			name, _, _ := bytes.Cut(line, []byte(":"))
			skipping = traceFields[strings.ToLower(string(bytes.TrimSpace(name)))]
		}
		if !skipping {
			h.Write(line)
		}
		rest = rest[len(line):]
	}
	h.Write(rest)
	return "sha256-" + hex.EncodeToString(h.Sum(nil))
}

// splitHeader splits raw at the first empty line. found is false when there
// is none, in which case the whole input is header.
func splitHeader(raw []byte) (hdr, body []byte, found bool) {
	pos := 0
	for pos < len(raw) {
		nl := bytes.IndexByte(raw[pos:], '\n')
		if nl < 0 {
			break
		}
		line := raw[pos : pos+nl]
		if len(line) == 0 || (len(line) == 1 && line[0] == '\r') {
			return raw[:pos], raw[pos+nl+1:], true
		}
		pos += nl + 1
	}
	return raw, nil, false
}

// readHeader parses a header block leniently. go-message's parser stops at
// the first malformed line and drops everything after it; real mail has such
// lines (an mbox "From " line from procmail or a Postfix pipe, a stray line
// from a broken script), so invalid lines are dropped here, with their
// continuation lines, before the block is handed to the real parser.
func readHeader(block []byte) message.Header {
	var clean bytes.Buffer
	clean.Grow(len(block) + 4)
	keep := false
	for len(block) > 0 {
		var line []byte
		if i := bytes.IndexByte(block, '\n'); i >= 0 {
			line, block = block[:i], block[i+1:]
		} else {
			line, block = block, nil
		}
		line = bytes.TrimSuffix(line, []byte("\r"))
		if len(line) > 0 && (line[0] == ' ' || line[0] == '\t') {
			if keep {
				clean.Write(line)
				clean.WriteString("\r\n")
			}
			continue
		}
		keep = validHeaderLine(line)
		if keep {
			clean.Write(line)
			clean.WriteString("\r\n")
		}
	}
	clean.WriteString("\r\n")
	// The cleaned block cannot fail to parse; were it to, the fields read
	// before the error would still be the best there is.
	h, _ := textproto.ReadHeader(bufio.NewReader(&clean))
	return message.Header{Header: h}
}

// validHeaderLine reports whether line starts a header field the way
// go-message's parser requires: a non-empty name of printable ASCII other
// than ':' (trailing blanks tolerated), then a colon.
func validHeaderLine(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	if i < 0 {
		return false
	}
	name := bytes.TrimRight(line[:i], " \t")
	if len(name) == 0 {
		return false
	}
	for _, c := range name {
		if c < 33 || c > 126 {
			return false
		}
	}
	return true
}

// readHeaderFields fills the header-derived fields of env, Automated included.
func readHeaderFields(env *Envelope, h message.Header) {
	mh := gomail.Header{Header: h}

	env.From, env.FromName = firstAddress(h.Get("From"))
	env.ReplyTo, _ = firstAddress(h.Get("Reply-To"))
	env.To = addressList(h.Get("To"))

	if s, err := mh.Subject(); err == nil {
		env.Subject = cleanHeaderText(s)
	} else {
		// Undecodable encoded words: the raw value is better than nothing.
		env.Subject = cleanHeaderText(h.Get("Subject"))
	}
	if d, err := mh.Date(); err == nil {
		env.Date = d
	}
	if ids := msgIDs(h.Get("In-Reply-To")); len(ids) > 0 {
		env.InReplyTo = ids[0]
	}
	env.References = msgIDs(h.Get("References"))
	if h.Has("X-Adjutant") {
		env.XAdjutant = cleanHeaderText(h.Get("X-Adjutant"))
	}
	env.AutomatedReason = automatedReason(h, env)
	env.Automated = env.AutomatedReason != ""
}

// automatedReason applies the loop-protection rules of DESIGN invariant 7 to
// the header and returns the first that matches, or "".
//
// Deliberately not a rule: X-Auto-Response-Suppress. Microsoft clients and
// some corporate gateways put it on ordinary mail written by people; it asks
// for no out-of-office replies, not for silence, and a player whose mail
// system adds it to everything would have every order silently dropped.
// Exchange's own automatic mail carries Auto-Submitted or is a report anyway,
// and the per-sender rate limit catches anything else.
func automatedReason(h message.Header, env *Envelope) string {
	if h.Has("X-Adjutant") {
		return "X-Adjutant header (own mail)"
	}
	// RFC 3834: any value but "no" marks automatic mail. An empty value is
	// no human's doing either.
	if h.Has("Auto-Submitted") {
		switch v := headerToken(h.Get("Auto-Submitted")); v {
		case "no":
		case "":
			return "Auto-Submitted header"
		default:
			return "Auto-Submitted: " + v
		}
	}
	switch v := headerToken(h.Get("Precedence")); v {
	case "bulk", "junk", "list", "auto_reply":
		// auto_reply is what some vacation programs send instead of
		// Auto-Submitted.
		return "Precedence: " + v
	}
	for _, k := range []string{"List-Id", "List-Unsubscribe"} {
		if h.Has(k) {
			return k + " header"
		}
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond", "X-Autoreply-From", "X-Mail-Autoreply"} {
		if h.Has(k) {
			return k + " header"
		}
	}
	// RFC 5321 4.5.5: a null reverse-path is what bounces and other
	// notifications are sent with.
	if h.Has("Return-Path") && strings.Join(strings.Fields(h.Get("Return-Path")), "") == "<>" {
		return "Return-Path: <>"
	}
	if r := senderReason(env.From, h.Get("From")); r != "" {
		return r
	}
	mt, params := parseMediaType(h.Get("Content-Type"))
	if mt == "multipart/report" {
		return reportReason(params["report-type"])
	}
	return ""
}

// senderReason flags mail from the accounts that send bounces.
func senderReason(from, rawFrom string) string {
	local := from
	if i := strings.LastIndexByte(from, '@'); i >= 0 {
		local = from[:i]
	}
	switch local {
	case "mailer-daemon":
		return "sender MAILER-DAEMON"
	case "postmaster":
		return "sender postmaster"
	}
	if from == "" {
		// Bounces often come "From: MAILER-DAEMON" with no domain, which
		// is not an address at all.
		raw := strings.ToLower(rawFrom)
		switch {
		case strings.Contains(raw, "mailer-daemon"):
			return "sender MAILER-DAEMON"
		case strings.Contains(raw, "postmaster"):
			return "sender postmaster"
		}
	}
	return ""
}

// reportReason names a multipart/report (RFC 6522) by its report-type.
func reportReason(reportType string) string {
	switch strings.ToLower(reportType) {
	case "delivery-status":
		return "delivery status report"
	case "disposition-notification":
		return "disposition notification"
	case "feedback-report":
		return "feedback report"
	}
	return "multipart/report"
}

// headerToken returns the lower-cased first word of a structured header
// value ("auto-replied; owner-email=..." and "bulk (mass mail)" give
// "auto-replied" and "bulk"), bounded so that it can be quoted in
// AutomatedReason and in logs.
func headerToken(v string) string {
	if i := strings.IndexAny(v, ";("); i >= 0 {
		v = v[:i]
	}
	f := strings.Fields(strings.ToLower(cleanHeaderText(v)))
	if len(f) == 0 {
		return ""
	}
	v = f[0]
	if len(v) > 64 {
		v = strings.ToValidUTF8(v[:64], "")
	}
	return v
}

// firstAddress returns the first address of an address-list header,
// lower-cased, and its decoded display name.
func firstAddress(v string) (addr, name string) {
	if strings.TrimSpace(v) == "" {
		return "", ""
	}
	if list, err := gomail.ParseAddressList(v); err == nil {
		for _, a := range list {
			if s := bareAddress(a.Address); s != "" {
				return s, cleanHeaderText(a.Name)
			}
		}
	}
	return looseAddress(v)
}

// addressList returns the bare addresses of an address-list header.
func addressList(v string) []string {
	if strings.TrimSpace(v) == "" {
		return nil
	}
	var out []string
	if list, err := gomail.ParseAddressList(v); err == nil {
		for _, a := range list {
			if s := bareAddress(a.Address); s != "" {
				out = append(out, s)
			}
		}
		return out
	}
	// Unparseable list (an unquoted comma in a name, a missing bracket):
	// take whatever looks like an address in each piece.
	for _, piece := range strings.Split(v, ",") {
		if s, _ := looseAddress(piece); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// looseAddress finds an address in a header value that RFC 5322 parsing
// rejected: the last <...> holding an "@", else the first word holding one.
// Bounce handling and replies depend on From, and mailers that get the
// syntax wrong ("Smith, Alice <alice@example.org>") are common.
func looseAddress(v string) (addr, name string) {
	if i := strings.LastIndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			if a := bareAddress(v[i+1 : i+j]); a != "" {
				return a, decodeName(v[:i])
			}
		}
	}
	for _, w := range strings.FieldsFunc(v, func(r rune) bool {
		return r == ' ' || r == '\t' || r == ',' || r == ';'
	}) {
		if a := bareAddress(strings.Trim(w, "<>\"'()[]")); a != "" {
			return a, ""
		}
	}
	return "", ""
}

// decodeName turns the text before "<" into a display name.
func decodeName(s string) string {
	s = strings.Trim(strings.TrimSpace(s), "\"")
	dec := mime.WordDecoder{CharsetReader: message.CharsetReader}
	if d, err := dec.DecodeHeader(s); err == nil {
		s = d
	}
	return cleanHeaderText(s)
}

// bareAddress validates and lower-cases an addr-spec: something@something,
// no blanks, no brackets, valid UTF-8 (RFC 6532 allows UTF-8 addresses).
// Local parts are case-sensitive in theory only; lower-casing makes the
// address usable as a key for players.
func bareAddress(a string) string {
	a = strings.TrimSpace(a)
	at := strings.LastIndexByte(a, '@')
	if at <= 0 || at == len(a)-1 || len(a) > 320 || !utf8.ValidString(a) {
		return ""
	}
	for _, r := range a {
		if r <= ' ' || isControl(r) || r == '<' || r == '>' || r == ',' || r == '(' || r == ')' {
			return ""
		}
	}
	return strings.ToLower(a)
}

// firstMsgID returns the first usable message id of v, or "".
func firstMsgID(v string) string {
	if ids := msgIDs(v); len(ids) > 0 {
		return ids[0]
	}
	return ""
}

// msgIDs extracts message ids from a Message-ID, In-Reply-To or References
// value, without brackets. It is lenient on purpose: RFC 5322 wants
// <left@right>, but ids without "@", with comments around them or without
// brackets are common, and a usable id beats a hash for deduplication and
// threading. Ids that could not serve as a store key (too long, blanks,
// control characters, invalid UTF-8) are dropped.
func msgIDs(v string) []string {
	var ids []string
	if strings.IndexByte(v, '<') >= 0 {
		for {
			i := strings.IndexByte(v, '<')
			if i < 0 {
				break
			}
			j := strings.IndexByte(v[i+1:], '>')
			if j < 0 {
				break
			}
			if id := strings.TrimSpace(v[i+1 : i+1+j]); validMsgID(id) {
				ids = append(ids, id)
			}
			v = v[i+1+j+1:]
		}
		return ids
	}
	for _, f := range strings.Fields(stripComments(v)) {
		if validMsgID(f) {
			ids = append(ids, f)
		}
	}
	return ids
}

// stripComments removes RFC 5322 comments, "(...)" possibly nested, from v.
func stripComments(v string) string {
	if strings.IndexByte(v, '(') < 0 {
		return v
	}
	var b strings.Builder
	depth := 0
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '(':
			depth++
		case c == ')' && depth > 0:
			depth--
			b.WriteByte(' ')
		case c == '\\' && depth > 0:
			i++ // quoted-pair inside a comment
		case depth == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// validMsgID reports whether id can be used as a message id.
func validMsgID(id string) bool {
	if id == "" || len(id) > maxMessageIDLen || !utf8.ValidString(id) {
		return false
	}
	for _, r := range id {
		if r <= ' ' || isControl(r) || r == '<' || r == '>' || r == utf8.RuneError {
			return false
		}
	}
	return true
}

// cleanHeaderText makes a decoded header value safe to store, log and quote
// in a reply header: valid UTF-8, control characters (tab included) turned
// into spaces, surrounding blanks trimmed.
func cleanHeaderText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// isControl reports whether r is a C0 or C1 control character or DEL.
func isControl(r rune) bool {
	return r < ' ' || (r >= 0x7f && r <= 0x9f)
}
