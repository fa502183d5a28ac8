package store

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"time"
	"unicode/utf8"
)

// ComputeHash returns the hash the entry must carry: SHA-256 of its JSON encoding (as
// encoding/json writes it, fields in order, omitempty honoured, HTML characters escaped)
// with Hash empty and Time in UTC. Prev is included, so the entries form a chain.
//
// The encoding is written out by hand because verifying an archive of a million rolls
// hashes a million entries; a test holds it byte for byte to encoding/json's.
func (e AuditEntry) ComputeHash() string {
	sum := sha256.Sum256(e.appendJSON(make([]byte, 0, 512)))
	return hex.EncodeToString(sum[:])
}

func (e AuditEntry) appendJSON(b []byte) []byte {
	b = append(b, `{"seq":`...)
	b = strconv.AppendUint(b, e.Seq, 10)
	b = append(b, `,"time":"`...)
	b = e.Time.UTC().AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","kind":`...)
	b = appendJSONString(b, e.Kind)
	b = append(b, `,"turn":`...)
	b = strconv.AppendInt(b, int64(e.Turn), 10)
	b = appendOmitString(b, "phase", e.Phase)
	b = append(b, `,"index":`...)
	b = strconv.AppendInt(b, int64(e.Index), 10)
	b = appendOmitString(b, "purpose", e.Purpose)
	b = appendOmitString(b, "rule", e.Rule)
	b = appendOmitInt(b, "count", e.Count)
	b = appendOmitInt(b, "sides", e.Sides)
	if len(e.Values) > 0 {
		b = append(b, `,"values":[`...)
		for i, v := range e.Values {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(v), 10)
		}
		b = append(b, ']')
	}
	b = appendOmitInt(b, "modifier", e.Modifier)
	b = appendOmitInt(b, "result", e.Result)
	b = appendOmitString(b, "orders_digest", e.OrdersDigest)
	b = appendOmitString(b, "value", e.Value)
	b = appendOmitString(b, "deck", e.Deck)
	b = append(b, `,"prev":`...)
	b = appendJSONString(b, e.Prev)
	return append(b, `,"hash":""}`...)
}

func appendOmitString(b []byte, key, v string) []byte {
	if v == "" {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return appendJSONString(b, v)
}

func appendOmitInt(b []byte, key string, v int) []byte {
	if v == 0 {
		return b
	}
	b = append(b, ',', '"')
	b = append(b, key...)
	b = append(b, '"', ':')
	return strconv.AppendInt(b, int64(v), 10)
}

// appendJSONString writes s as encoding/json does with HTML escaping.
func appendJSONString(b []byte, s string) []byte {
	const hexd = "0123456789abcdef"
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		i += plainOut(s, i)
		if i == len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexd[c>>4], hexd[c&0xF])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexd[r&0xF])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
