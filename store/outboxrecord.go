package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// An outbox record is the mail's head, in the outbox under its number: the mail
// without its body (storedMail with BodyZ empty), as JSON behind the byte [headOnly].
// Its body, deflated, is kept as it is among its game's records, under game NUL 'm'
// seq (records.go):
//
//	outbox        seq -> 0x03 | head (JSON)
//	game-records  game NUL 'm' seq -> the body deflated
//
// A body of one to three KB alone in the outbox filled its pages to half or three
// quarters (bbolt keeps at least two keys a page, and a mail appended a transaction
// leaves pages of two), and every sent mark rewrote it; among the game's small records
// it fills them, and a mark rewrites the head alone. Older records hold their body:
// all JSON (they begin with '{', the body base64 in body_z), or behind the byte
// [packed] and the head's length (uvarint), the body as it is after the head.
const headOnly = 0x03

// recMail is the kind of a game's records that holds its mails' bodies.
const recMail = 'm'

// mailRecord is an outbox mail as the file keeps it: its head for the outbox, its body
// deflated for its game's records.
type mailRecord struct {
	head, body []byte
}

// record is the record of s.
func (s storedMail) record() (mailRecord, error) {
	z := s.BodyZ
	s.BodyZ = nil
	head, err := json.Marshal(s)
	if err != nil {
		return mailRecord{}, fmt.Errorf("encode outbox mail %d: %w", s.Seq, err)
	}
	return mailRecord{head: append([]byte{headOnly}, head...), body: z}, nil
}

// putRecord writes the record of the outbox mail seq of game into the outbox b and
// the game's records; a nil body is left as it is.
func (t *btx) putRecord(b *bolt.Bucket, seq uint64, game string, r mailRecord) error {
	if r.body != nil {
		if err := t.recordsOf(game, recMail).put(u64(seq), r.body); err != nil {
			return err
		}
	}
	return b.Put(u64(seq), r.head)
}

var errBadRecord = errors.New("malformed outbox record")

// splitStored returns the head (JSON) of an outbox record and the deflated body it
// holds (nil for a head alone; for a record all JSON, the head is the whole of it, its
// body inside).
func splitStored(raw []byte) (head, bodyZ []byte, err error) {
	switch {
	case len(raw) > 0 && raw[0] == headOnly:
		return raw[1:], nil, nil
	case len(raw) == 0 || raw[0] != packed:
		return raw, nil, nil
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || n > uint64(len(raw)-1-w) {
		return nil, nil, errBadRecord
	}
	head = raw[1+w : 1+w+int(n)]
	return head, raw[1+w+int(n):], nil
}

// readStored decodes an outbox record into s, its body read from the game's records
// when the outbox holds its head alone.
func (t *btx) readStored(raw []byte, s *storedMail) error { return t.readRecord(raw, s, true) }

// readRecord is readStored, without reading a body kept apart unless withBody (s.BodyZ
// nil then, s.inRecords true).
func (t *btx) readRecord(raw []byte, s *storedMail, withBody bool) error {
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
	if len(raw) > 0 && raw[0] == headOnly {
		s.inRecords = true
		if withBody {
			return t.readBody(s)
		}
	}
	return nil
}

// readBody reads the body of s, kept apart, from its game's records.
func (t *btx) readBody(s *storedMail) error {
	v := t.recordsOf(s.Game, recMail).get(u64(s.Seq))
	if v == nil {
		return fmt.Errorf("the body of outbox mail %d of %q: %w", s.Seq, s.Game, ErrNotFound)
	}
	s.BodyZ = append([]byte(nil), v...)
	return nil
}
