package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
)

// An outbox record is its head as JSON (the mail without its body: storedMail with
// BodyZ empty) and its deflated body as it is, behind the byte [packed] and the head's
// length (uvarint):
//
//	0x01 | len(head) | head | body deflated
//
// Its body was base64 in the JSON of older records (which begin with '{', and are read
// as they are): a third more bytes for the biggest part of the outbox (issue 23).

// encode is the record of s.
func (s storedMail) encode() ([]byte, error) {
	z := s.BodyZ
	s.BodyZ = nil
	head, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode outbox mail %d: %w", s.Seq, err)
	}
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(head)+len(z))
	out = append(out, packed)
	out = binary.AppendUvarint(out, uint64(len(head)))
	out = append(out, head...)
	return append(out, z...), nil
}

var errBadRecord = errors.New("malformed outbox record")

// splitStored returns the head (JSON) and the deflated body of an outbox record; the
// head of an older record is the whole of it, body_z and all, and its body nil.
func splitStored(raw []byte) (head, bodyZ []byte, err error) {
	if len(raw) == 0 || raw[0] != packed {
		return raw, nil, nil
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || n > uint64(len(raw)-1-w) {
		return nil, nil, errBadRecord
	}
	head = raw[1+w : 1+w+int(n)]
	return head, raw[1+w+int(n):], nil
}

// decodeStored decodes an outbox record into s.
func decodeStored(raw []byte, s *storedMail) error {
	head, z, err := splitStored(raw)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(head, s); err != nil {
		return err
	}
	if z != nil {
		s.BodyZ = append([]byte(nil), z...) // raw is the page's: copied out of the transaction
	}
	return nil
}
