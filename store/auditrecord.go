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
const auditBinary = 0x02

// encodeAuditEntry is e in the binary form.
func encodeAuditEntry(e AuditEntry) []byte {
	b := make([]byte, 0, 64+len(e.Purpose)+len(e.Rule)+len(e.Phase)+len(e.Kind)+len(e.Value)+len(e.Deck)+len(e.OrdersDigest)/2+64)
	b = append(b, auditBinary)
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
	b = appendHexStr(b, e.Prev)
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

func (r *auditReader) str() string { return string(r.bytes(r.uvarint())) }

func (r *auditReader) hexStr() string {
	n := r.uvarint()
	v := r.bytes(n >> 1)
	if n&1 == 1 {
		return hex.EncodeToString(v)
	}
	return string(v)
}

// decodeAuditBinary decodes the binary form (its first byte auditBinary) into e.
func decodeAuditBinary(raw []byte, e *AuditEntry) error {
	*e = AuditEntry{}
	r := auditReader{b: raw[1:]}
	e.Seq = r.uvarint()
	sec := r.varint()
	ns := r.uvarint()
	if ns >= uint64(time.Second) {
		return errAuditRecord
	}
	e.Time = time.Unix(sec, int64(ns)).UTC()
	e.Kind = r.str()
	e.Turn = r.int()
	e.Phase = r.str()
	e.Index = r.int()
	e.Purpose = r.str()
	e.Rule = r.str()
	e.Count = r.int()
	e.Sides = r.int()
	if n := r.uvarint(); n > 0 {
		if n > uint64(len(r.b)) { // a varint is a byte at least
			return errAuditRecord
		}
		e.Values = make([]int, n)
		for i := range e.Values {
			e.Values[i] = r.int()
		}
	}
	e.Modifier = r.int()
	e.Result = r.int()
	e.OrdersDigest = r.hexStr()
	e.Value = r.hexStr()
	e.Deck = r.str()
	e.Prev = r.hexStr()
	e.Hash = r.hexStr()
	if r.err == nil && len(r.b) != 0 {
		return errAuditRecord
	}
	return r.err
}

// DecodeAuditRecord decodes an audit entry as the file keeps it (the value under its
// key in game-records, records.go), for a tool that reads the bbolt file itself.
func DecodeAuditRecord(v []byte) (AuditEntry, error) {
	var e AuditEntry
	err := decodeAuditEntry(v, &e)
	return e, err
}

// EncodeAuditRecord is e as the file keeps it.
func EncodeAuditRecord(e AuditEntry) []byte { return encodeAuditEntry(e) }
