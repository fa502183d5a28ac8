package store

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"time"
)

// An audit entry is kept in the file in a binary form, not as JSON: the chain is most
// of a game's own records (eight rolls a mail in the bench's games, 430 bytes each as
// JSON, of which 128 are the two hashes in hex and a third the field names), and the
// form decodes several times faster. Its hash is what it always was: SHA-256 of the
// entry's JSON ([AuditEntry.ComputeHash]), whatever form the file keeps it in.
//
//	auditBinary  seq  time-s  time-ns  kind  turn  phase  index  purpose  rule  count
//	             sides  len(values) values...  modifier  result  orders_digest  value
//	             deck  prev  hash
//
// Numbers are varints (seq, time-ns and len(values) uvarints); strings a uvarint length
// and their bytes; the four hex fields (orders_digest, value, prev, hash) a uvarint
// whose low bit says whether the bytes that follow are the string's or its lowercase
// hex decoded, and the rest their length. Entries written as JSON (schema 1 and
// before) begin with '{' and are read as they are.
//
// An entry that AppendAudit wrote is in the chained form, auditChained: the same
// without prev, which is the hash of the entry before it in the trail (33 bytes of
// the 170 of a roll). Nothing is lost to the audit: an entry's hash still covers its
// prev, so an entry changed, taken out or put in makes the hash of the one after it
// (recomputed over the prev it is read with) differ from the one stored.
const (
	auditBinary  = 0x02
	auditChained = 0x03
)

// encodeAuditEntry is e in the binary form.
func encodeAuditEntry(e AuditEntry) []byte { return appendAuditEntry(e, true) }

// encodeChained is e in the chained form: e.Prev must be the hash of the entry before
// it in the trail, as AppendAudit makes it.
func encodeChained(e AuditEntry) []byte { return appendAuditEntry(e, false) }

// appendAuditEntry is e in the binary form, or with withPrev false, the chained form.
func appendAuditEntry(e AuditEntry, withPrev bool) []byte {
	b := make([]byte, 0, 64+len(e.Purpose)+len(e.Rule)+len(e.Phase)+len(e.Kind)+len(e.Value)+len(e.Deck)+len(e.OrdersDigest)/2+64)
	if withPrev {
		b = append(b, auditBinary)
	} else {
		b = append(b, auditChained)
	}
	b = binary.AppendUvarint(b, e.Seq)
	b = binary.AppendVarint(b, e.Time.Unix())
	b = binary.AppendUvarint(b, uint64(e.Time.Nanosecond()))
	b = appendStr(b, e.Kind)
	b = binary.AppendVarint(b, int64(e.Turn))
	b = appendStr(b, e.Phase)
	b = binary.AppendVarint(b, int64(e.Index))
	b = appendStr(b, e.Purpose)
	b = appendStr(b, e.Rule)
	b = binary.AppendVarint(b, int64(e.Count))
	b = binary.AppendVarint(b, int64(e.Sides))
	b = binary.AppendUvarint(b, uint64(len(e.Values)))
	for _, v := range e.Values {
		b = binary.AppendVarint(b, int64(v))
	}
	b = binary.AppendVarint(b, int64(e.Modifier))
	b = binary.AppendVarint(b, int64(e.Result))
	b = appendHexStr(b, e.OrdersDigest)
	b = appendHexStr(b, e.Value)
	b = appendStr(b, e.Deck)
	if withPrev {
		b = appendHexStr(b, e.Prev)
	}
	return appendHexStr(b, e.Hash)
}

func appendStr(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// appendHexStr appends s, as the bytes it spells when it is lowercase hex.
func appendHexStr(b []byte, s string) []byte {
	if len(s) > 0 && len(s)%2 == 0 && isLowerHex(s) {
		b = binary.AppendUvarint(b, uint64(len(s)/2)<<1|1)
		b, _ = hex.AppendDecode(b, []byte(s)) // s is hex: no error
		return b
	}
	b = binary.AppendUvarint(b, uint64(len(s))<<1)
	return append(b, s...)
}

func isLowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

var errAuditRecord = errors.New("malformed audit record")

// auditReader reads the binary form; its first error sticks.
type auditReader struct {
	b   []byte
	err error
}

func (r *auditReader) uvarint() uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err = errAuditRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *auditReader) varint() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err = errAuditRecord
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *auditReader) int() int { return int(r.varint()) }

func (r *auditReader) bytes(n uint64) []byte {
	if r.err != nil {
		return nil
	}
	if n > uint64(len(r.b)) {
		r.err = errAuditRecord
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// text appends a string field's bytes to buf and returns buf and the field's end in it.
func (r *auditReader) text(buf []byte) ([]byte, int) {
	buf = append(buf, r.bytes(r.uvarint())...)
	return buf, len(buf)
}

// hexText appends a hex field to buf as its text (the stored bytes in lowercase hex,
// or the string as stored) and returns buf and the field's end in it.
func (r *auditReader) hexText(buf []byte) ([]byte, int) {
	n := r.uvarint()
	v := r.bytes(n >> 1)
	if n&1 == 1 {
		buf = hex.AppendEncode(buf, v)
	} else {
		buf = append(buf, v...)
	}
	return buf, len(buf)
}

// decodeBinary decodes the binary form (its first byte auditBinary) or the chained
// form (auditChained: its Prev left empty, for the reader of the trail to fill) into e. The entry's
// strings are made in one allocation and its values come from the decoder's slab, so
// that verifying a long trail costs about one allocation a roll (issue 23).
func (d *auditDecoder) decodeBinary(raw []byte, e *AuditEntry) error {
	*e = AuditEntry{}
	r := auditReader{b: raw[1:]}
	e.Seq = r.uvarint()
	sec := r.varint()
	ns := r.uvarint()
	if ns >= uint64(time.Second) {
		return errAuditRecord
	}
	e.Time = time.Unix(sec, int64(ns)).UTC()
	// The strings' bytes, one after another, in the order of ends below.
	var ends [9]int
	buf := d.text[:0]
	buf, ends[0] = r.text(buf) // kind
	e.Turn = r.int()
	buf, ends[1] = r.text(buf) // phase
	e.Index = r.int()
	buf, ends[2] = r.text(buf) // purpose
	buf, ends[3] = r.text(buf) // rule
	e.Count = r.int()
	e.Sides = r.int()
	if n := r.uvarint(); n > 0 {
		if n > uint64(len(r.b)) { // a varint is a byte at least
			return errAuditRecord
		}
		e.Values = d.ints(int(n))
		for i := range e.Values {
			e.Values[i] = r.int()
		}
	}
	e.Modifier = r.int()
	e.Result = r.int()
	buf, ends[4] = r.hexText(buf) // orders digest
	buf, ends[5] = r.hexText(buf) // value
	buf, ends[6] = r.text(buf)    // deck
	if raw[0] == auditChained {
		ends[7] = len(buf) // prev: not stored
	} else {
		buf, ends[7] = r.hexText(buf)
	}
	buf, ends[8] = r.hexText(buf) // hash
	d.text = buf
	if r.err == nil && len(r.b) != 0 {
		return errAuditRecord
	}
	if r.err != nil {
		return r.err
	}
	all := string(buf)
	field := func(i int) string {
		from := 0
		if i > 0 {
			from = ends[i-1]
		}
		return all[from:ends[i]]
	}
	e.Kind, e.Phase, e.Purpose, e.Rule = field(0), field(1), field(2), field(3)
	e.OrdersDigest, e.Value, e.Deck, e.Prev, e.Hash = field(4), field(5), field(6), field(7), field(8)
	return nil
}

// ints is n values from the decoder's slab, capped at n so that an append to them
// reallocates instead of writing over the next entry's.
func (d *auditDecoder) ints(n int) []int {
	if cap(d.slab)-len(d.slab) < n {
		d.newSlab(n)
	}
	start := len(d.slab)
	d.slab = d.slab[:start+n]
	return d.slab[start : start+n : start+n]
}

// DecodeAuditRecord decodes an audit entry as the file keeps it (the value under its
// key in game-records, records.go), for a tool that reads the bbolt file itself. An
// entry in the chained form (what AppendAudit writes) comes without its Prev, which
// is the Hash of the entry before it.
func DecodeAuditRecord(v []byte) (AuditEntry, error) {
	var e AuditEntry
	err := decodeAuditEntry(v, &e)
	return e, err
}

// EncodeAuditRecord is e as AppendAudit writes it, in the chained form: without its
// Prev, which a reader of the trail takes from the entry before it.
func EncodeAuditRecord(e AuditEntry) []byte { return encodeChained(e) }
