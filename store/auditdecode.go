package store

import (
	"encoding/json"
	"errors"
)

// decodeAuditEntry reads an audit entry in the binary form (auditrecord.go), or as JSON,
// as schema 1 wrote it, by hand: verifying a trail
// of 100,000 rolls spent most of its time in encoding/json (issue 23: 70 k rolls/s from
// bbolt against 799 k in memory). Anything it does not expect (an escaped string, a
// field it does not know, another layout) is left to encoding/json, which gives the same
// entry (FuzzDecodeAuditEntry holds them equal).
func decodeAuditEntry(raw []byte, e *AuditEntry) error {
	if len(raw) > 0 && raw[0] == auditBinary {
		return decodeAuditBinary(raw, e)
	}
	if fastAuditEntry(raw, e) {
		return nil
	}
	*e = AuditEntry{}
	return json.Unmarshal(raw, e)
}

var errSlowPath = errors.New("not the usual layout")

// fastAuditEntry decodes raw into e when it is a flat object of the entry's fields with
// unescaped strings, and reports whether it did.
func fastAuditEntry(raw []byte, e *AuditEntry) bool {
	*e = AuditEntry{}
	p := jsonScan{b: raw}
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return p.end()
	}
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return false
		}
		var err error
		switch key {
		case "seq":
			var n int64
			n, err = p.int()
			e.Seq = uint64(n)
			if n < 0 {
				return false
			}
		case "time":
			var s []byte
			if s, ok = p.strBytes(); !ok {
				return false
			}
			err = e.Time.UnmarshalText(s)
		case "kind":
			e.Kind, err = p.strErr()
		case "turn":
			e.Turn, err = p.intInt()
		case "phase":
			e.Phase, err = p.strErr()
		case "index":
			e.Index, err = p.intInt()
		case "purpose":
			e.Purpose, err = p.strErr()
		case "rule":
			e.Rule, err = p.strErr()
		case "count":
			e.Count, err = p.intInt()
		case "sides":
			e.Sides, err = p.intInt()
		case "values":
			e.Values, err = p.ints()
		case "modifier":
			e.Modifier, err = p.intInt()
		case "result":
			e.Result, err = p.intInt()
		case "orders_digest":
			e.OrdersDigest, err = p.strErr()
		case "value":
			e.Value, err = p.strErr()
		case "deck":
			e.Deck, err = p.strErr()
		case "prev":
			e.Prev, err = p.strErr()
		case "hash":
			e.Hash, err = p.strErr()
		default:
			return false
		}
		if err != nil {
			return false
		}
		if p.byte('}') {
			return p.end()
		}
		if !p.byte(',') {
			return false
		}
	}
}

// jsonScan reads the few JSON forms fastAuditEntry accepts, without blanks.
type jsonScan struct {
	b []byte
	i int
}

func (p *jsonScan) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonScan) end() bool { return p.i == len(p.b) }

// str reads a string without escapes or control characters (else: not ok).
func (p *jsonScan) str() (string, bool) {
	b, ok := p.strBytes()
	return string(b), ok
}

// strBytes is str's bytes, in place.
func (p *jsonScan) strBytes() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for ; p.i < len(p.b); p.i++ {
		switch c := p.b[p.i]; {
		case c == '"':
			p.i++
			return p.b[start : p.i-1], true
		case c == '\\' || c < 0x20 || c >= 0x80:
			return nil, false // escapes and non-ASCII (invalid UTF-8 is replaced): encoding/json's
		}
	}
	return nil, false
}

func (p *jsonScan) strErr() (string, error) {
	s, ok := p.str()
	if !ok {
		return "", errSlowPath
	}
	return s, nil
}

// int reads an integer as encoding/json writes one (no leading zeros, no fraction or
// exponent: those end it, and the caller's next byte check fails).
func (p *jsonScan) int() (int64, error) {
	neg := p.byte('-')
	start := p.i
	var n uint64
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		if n > (1<<63-1)/10 {
			return 0, errSlowPath
		}
		n = n*10 + uint64(p.b[p.i]-'0')
		p.i++
	}
	digits := p.i - start
	if digits == 0 || (digits > 1 && p.b[start] == '0') || n > 1<<63-1 {
		return 0, errSlowPath
	}
	if neg {
		return -int64(n), nil
	}
	return int64(n), nil
}

func (p *jsonScan) intInt() (int, error) {
	n, err := p.int()
	if err != nil || int64(int(n)) != n {
		return 0, errSlowPath
	}
	return int(n), nil
}

func (p *jsonScan) ints() ([]int, error) {
	if p.i+4 <= len(p.b) && string(p.b[p.i:p.i+4]) == "null" {
		p.i += 4
		return nil, nil
	}
	if !p.byte('[') {
		return nil, errSlowPath
	}
	out := []int{}
	if p.byte(']') {
		return out, nil
	}
	for {
		n, err := p.intInt()
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if p.byte(']') {
			return out, nil
		}
		if !p.byte(',') {
			return nil, errSlowPath
		}
	}
}
