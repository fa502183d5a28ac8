package store

import (
	"encoding/json"
	"errors"
	"strings"
)

// decodeAuditEntry reads an audit entry in the binary form (auditrecord.go), or as JSON,
// as schema 1 wrote it, by hand: verifying a trail
// of 100,000 rolls spent most of its time in encoding/json (issue 23: 70 k rolls/s from
// bbolt against 799 k in memory). Anything it does not expect (an escaped string, a
// field it does not know, another layout) is left to encoding/json, which gives the same
// entry (FuzzDecodeAuditEntry holds them equal).
func decodeAuditEntry(raw []byte, e *AuditEntry) error {
	d := auditDecoder{one: true}
	return d.decode(raw, e)
}

// auditDecoder decodes the entries of one trail, as decodeAuditEntry does, handing
// their values out of shared slabs: a roll's one value is then no allocation of its own.
// Each entry's Values is capped at its length, so that an append to it reallocates
// instead of writing over the next entry's.
type auditDecoder struct {
	slab []int
	text []byte // the binary form's strings of one entry, before their one allocation
	one  bool   // decoding one entry (the chain's head on each append): no 8 KB slab for it
}

// slabInts is the size of a slab of values: 8 KB, a thousand rolls of a die or two.
const slabInts = 1024

// newSlab starts a slab with room for n values at least.
func (d *auditDecoder) newSlab(n int) {
	size := slabInts
	if d.one {
		size = 16
	}
	d.slab = make([]int, 0, max(size, n))
}

func (d *auditDecoder) decode(raw []byte, e *AuditEntry) error {
	if len(raw) > 0 && (raw[0] == auditBinary || raw[0] == auditChained) {
		return d.decodeBinary(raw, e)
	}
	if d.fast(raw, e) {
		return nil
	}
	*e = AuditEntry{}
	return json.Unmarshal(raw, e)
}

var errSlowPath = errors.New("not the usual layout")

// fast decodes raw into e when it is a flat object of the entry's fields with
// unescaped strings, and reports whether it did. The string fields are read as spans of
// raw and made strings in one allocation at the end (an entry's strings live and die
// together): one allocation for them instead of one each.
func (d *auditDecoder) fast(raw []byte, e *AuditEntry) bool {
	*e = AuditEntry{}
	p := jsonScan{b: raw, d: d}
	if !p.byte('{') {
		return false
	}
	if p.byte('}') {
		return p.end()
	}
	var spans [9][]byte // in auditStrings' order
	next := 0           // the key encoding/json writes next, if the entry has it
	for {
		k := -1
		for j := next; j < len(auditKeys); j++ {
			if p.i+len(auditKeys[j]) <= len(p.b) && string(p.b[p.i:p.i+len(auditKeys[j])]) == auditKeys[j] {
				k = j
				break
			}
		}
		if k >= 0 {
			p.i += len(auditKeys[k])
			next = k + 1
		} else { // another order, or spaces: any key as a string
			key, ok := p.strBytes()
			if !ok || !p.byte(':') {
				return false
			}
			for j, a := range auditKeys {
				if string(key) == a[1:len(a)-2] {
					k = j
				}
			}
		}
		ok := true
		var err error
		switch k {
		case keySeq:
			if p.i < len(p.b) && p.b[p.i] == '-' {
				return false // not even -0 is a uint64 to encoding/json
			}
			var n int64
			n, err = p.int()
			e.Seq = uint64(n)
		case keyTime:
			var s []byte
			if s, ok = p.strBytes(); !ok {
				return false
			}
			err = e.Time.UnmarshalText(s)
		case keyKind:
			spans[0], ok = p.strBytes()
		case keyTurn:
			e.Turn, err = p.intInt()
		case keyPhase:
			spans[1], ok = p.strBytes()
		case keyIndex:
			e.Index, err = p.intInt()
		case keyPurpose:
			spans[2], ok = p.strBytes()
		case keyRule:
			spans[3], ok = p.strBytes()
		case keyCount:
			e.Count, err = p.intInt()
		case keySides:
			e.Sides, err = p.intInt()
		case keyValues:
			e.Values, err = p.ints()
		case keyModifier:
			e.Modifier, err = p.intInt()
		case keyResult:
			e.Result, err = p.intInt()
		case keyOrdersDigest:
			spans[4], ok = p.strBytes()
		case keyValue:
			spans[5], ok = p.strBytes()
		case keyDeck:
			spans[6], ok = p.strBytes()
		case keyPrev:
			spans[7], ok = p.strBytes()
		case keyHash:
			spans[8], ok = p.strBytes()
		default:
			return false
		}
		if err != nil || !ok {
			return false
		}
		if p.byte('}') {
			break
		}
		if !p.byte(',') {
			return false
		}
	}
	if !p.end() {
		return false
	}
	n := 0
	for _, s := range spans {
		n += len(s)
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range spans {
		b.Write(s)
	}
	all := b.String()
	for i, f := range auditStrings(e) {
		*f, all = all[:len(spans[i])], all[len(spans[i]):]
	}
	return true
}

// auditKeys are an entry's keys as encoding/json writes them, in its order (the
// struct's), each with its quotes and colon: fast looks for the next one there before
// it reads a key as a string.
var auditKeys = [...]string{`"seq":`, `"time":`, `"kind":`, `"turn":`, `"phase":`, `"index":`, `"purpose":`, `"rule":`, `"count":`,
	`"sides":`, `"values":`, `"modifier":`, `"result":`, `"orders_digest":`, `"value":`, `"deck":`, `"prev":`, `"hash":`}

// The places of the keys in auditKeys.
const (
	keySeq = iota
	keyTime
	keyKind
	keyTurn
	keyPhase
	keyIndex
	keyPurpose
	keyRule
	keyCount
	keySides
	keyValues
	keyModifier
	keyResult
	keyOrdersDigest
	keyValue
	keyDeck
	keyPrev
	keyHash
)

// auditStrings are the string fields of e that fast reads as spans, in the
// order of its spans.
func auditStrings(e *AuditEntry) [9]*string {
	return [...]*string{&e.Kind, &e.Phase, &e.Purpose, &e.Rule, &e.OrdersDigest, &e.Value, &e.Deck, &e.Prev, &e.Hash}
}

// jsonScan reads the few JSON forms auditDecoder.fast accepts, without blanks.
type jsonScan struct {
	b []byte
	i int
	d *auditDecoder // its slab takes the values
}

func (p *jsonScan) byte(c byte) bool {
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *jsonScan) end() bool { return p.i == len(p.b) }

// strBytes reads a string without escapes, control characters or non-ASCII bytes
// (else: not ok), as its bytes in place.
func (p *jsonScan) strBytes() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	b, start := p.b, p.i
	i := start + plainIn(b, start)
	if i == len(b) || b[i] != '"' {
		return nil, false // escapes and non-ASCII (invalid UTF-8 is replaced): encoding/json's
	}
	p.i = i + 1
	return b[start:i], true
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
	if p.byte(']') {
		return []int{}, nil // as encoding/json: empty, not nil
	}
	if cap(p.d.slab)-len(p.d.slab) < 16 {
		p.d.newSlab(16)
	}
	start := len(p.d.slab)
	for {
		n, err := p.intInt()
		if err != nil {
			p.d.slab = p.d.slab[:start]
			return nil, err
		}
		p.d.slab = append(p.d.slab, n) // past the slab's end, a larger one for this entry's values and the next
		if p.byte(']') {
			end := len(p.d.slab)
			return p.d.slab[start:end:end], nil
		}
		if !p.byte(',') {
			p.d.slab = p.d.slab[:start]
			return nil, errSlowPath
		}
	}
}
