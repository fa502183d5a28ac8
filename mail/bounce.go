package mail

import (
	"bytes"
	"io"
	"strings"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/textproto"
)

// Bounds on reading delivery status reports: a real one has a few recipients in a few
// hundred bytes.
const (
	maxDSNBytes      = 64 << 10 // read of one message/delivery-status part
	maxDSNRecipients = 100      // failed recipients kept in all
)

// failedRecipients returns the recipients that the delivery status reports of a message
// (its message/delivery-status parts, RFC 3464, wherever in its multipart tree, as far as
// the walk's bounds reach) say failed. Message/rfc822 parts are not entered: the mail
// returned inside a bounce is not the report.
func failedRecipients(h message.Header, body []byte) []string {
	root, _ := message.New(h, bytes.NewReader(body))
	if root == nil {
		return nil
	}
	var out []string
	parts := 0
	var visit func(e *message.Entity, depth int)
	visit = func(e *message.Entity, depth int) {
		if parts >= maxMIMEParts || len(out) >= maxDSNRecipients {
			return
		}
		parts++
		mt, params := parseMediaType(e.Header.Get("Content-Type"))
		switch {
		case strings.HasPrefix(mt, "multipart/"):
			if depth >= maxMIMEDepth || params["boundary"] == "" {
				return
			}
			mr := textproto.NewMultipartReader(e.Body, params["boundary"])
			for parts < maxMIMEParts {
				p, err := mr.NextPart()
				if err != nil {
					return
				}
				if child, _ := message.New(message.Header{Header: p.Header}, p); child != nil {
					visit(child, depth+1)
				}
			}
		case mt == "message/delivery-status", mt == "message/global-delivery-status":
			report, _ := io.ReadAll(io.LimitReader(e.Body, maxDSNBytes))
			out = append(out, dsnFailed(report)...)
		}
	}
	visit(root, 0)
	if len(out) > maxDSNRecipients {
		out = out[:maxDSNRecipients]
	}
	return out
}

// dsnFailed reads the body of a message/delivery-status part: the per-message fields,
// then a block of fields per recipient, blocks separated by blank lines (RFC 3464 2.1).
// It returns the Final-Recipient and Original-Recipient addresses of the recipients
// whose Action is "failed"; a delayed, delivered, relayed or expanded one is no bounce.
func dsnFailed(report []byte) []string {
	report = bytes.ReplaceAll(report, []byte("\r\n"), []byte("\n"))
	var out []string
	for _, block := range bytes.Split(report, []byte("\n\n")) {
		h := readHeader(block)
		if headerToken(h.Get("Action")) != "failed" {
			continue
		}
		for _, field := range []string{"Final-Recipient", "Original-Recipient"} {
			if a := dsnAddress(h.Get(field)); a != "" {
				out = append(out, a)
			}
		}
	}
	return out
}

// dsnAddress returns the address of a recipient field, "rfc822; user@example.org" (or,
// in a global report, RFC 6533, "utf-8; ..."), bare and lower-cased; "" for another
// address type or a value that holds no address.
func dsnAddress(v string) string {
	typ, addr, ok := strings.Cut(v, ";")
	if !ok {
		return ""
	}
	switch strings.ToLower(strings.TrimSpace(typ)) {
	case "rfc822", "utf-8":
	default:
		return ""
	}
	fields := strings.Fields(addr)
	if len(fields) == 0 {
		return ""
	}
	return bareAddress(strings.Trim(fields[0], "<>"))
}
