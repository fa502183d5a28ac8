package store

import (
	"encoding/binary"
	"encoding/json"
	"time"
)

// A processed mark is kept in a binary form, behind the byte processedBinary: its
// time (seconds and nanoseconds, varints), game and outcome (a uvarint length and the
// bytes each). As JSON it was 70 bytes a mail in, a message's id besides (issue 23);
// marks written as JSON begin with '{' and are read as they are.
const processedBinary = 0x02

// encodeProcessed is p in the binary form.
func encodeProcessed(p Processed) []byte {
	b := make([]byte, 0, 1+2*binary.MaxVarintLen64+2+len(p.Game)+len(p.Outcome))
	b = append(b, processedBinary)
	b = binary.AppendVarint(b, p.At.Unix())
	b = binary.AppendUvarint(b, uint64(p.At.Nanosecond()))
	b = appendStr(b, p.Game)
	return appendStr(b, p.Outcome)
}

// DecodeProcessedRecord decodes a processed mark as the file keeps it (the value under
// a message's id in the bucket processed), for a tool that reads the bbolt file itself.
func DecodeProcessedRecord(v []byte) (Processed, error) {
	var p Processed
	if len(v) == 0 || v[0] != processedBinary {
		err := json.Unmarshal(v, &p)
		return p, err
	}
	r := auditReader{b: v[1:]}
	sec := r.varint()
	ns := r.uvarint()
	game := r.bytes(r.uvarint())
	outcome := r.bytes(r.uvarint())
	if r.err != nil || len(r.b) != 0 || ns >= uint64(time.Second) {
		return p, errAuditRecord
	}
	p.At = time.Unix(sec, int64(ns)).UTC()
	p.Game, p.Outcome = string(game), string(outcome)
	return p, nil
}
