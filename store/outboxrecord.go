package store

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/klauspost/compress/zstd"
)

// An outbox record is its head as JSON (the mail without its body: storedMail with
// BodyZ empty), compressed by zstd with a dictionary built in (headDict), and its
// compressed body as it is, behind the byte [packedHead] and the compressed head's
// length (uvarint):
//
//	0x04 | len(head) | head compressed | body compressed
//
// A head is 300 bytes of JSON whose field names, times and addresses recur (700 bytes
// of the outbox a mail in, issue 23); compressed, about a third. Records before it
// kept the head as JSON behind the byte [packed] (0x01), and before those the body was
// base64 in the JSON (which begins with '{'): both are read as they are.
const packedHead = 0x04

// encode is the record of s.
func (s storedMail) encode() ([]byte, error) {
	z := s.BodyZ
	s.BodyZ = nil
	head, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("encode outbox mail %d: %w", s.Seq, err)
	}
	hc, err := headCoders()
	if err != nil {
		return nil, err
	}
	zh := hc.enc.EncodeAll(head, make([]byte, 0, len(head)/2+16))
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(zh)+len(z))
	out = append(out, packedHead)
	out = binary.AppendUvarint(out, uint64(len(zh)))
	out = append(out, zh...)
	return append(out, z...), nil
}

// headDict is the dictionary of the heads: heads of the kinds of mail, as the store
// writes them. Records name no version of it: it must never change (a test holds its
// digest); a better one needs a tag of its own beside packedHead.
const headDict = `{"seq":1,"message_id":"adjutant-0123456789abcdef01234567@localhost","to":["player@example.org"],"subject":"[game] Soldiers: Decision in the Trenches, 1918: US","references":["adjutant-0123456789abcdef01234567@localhost"],"game":"game","side":"us","kind":"notice","queued":"2026-11-28T10:00:00.000000000Z","sent":false}` +
	`{"seq":2,"message_id":"adjutant-0123456789abcdef01234567@localhost","to":["player@example.org"],"subject":"[game] Soldiers: Decision in the Trenches, 1918: German","in_reply_to":"<message@players.example>","references":["adjutant-0123456789abcdef01234567@localhost","<message@players.example>"],"auto_replied":true,"game":"game","side":"de","kind":"reply","queued":"2026-11-28T10:00:00Z","sent":true,"sent_at":"2026-11-28T10:00:00Z","attempts":1,"zd":"0123456789abcdef","zc":"zstd"}` +
	`{"seq":3,"message_id":"<game-1@adjutant.example>","to":["player@example.org"],"subject":"[game] invite","game":"game","side":"us","kind":"invite","queued":"2026-11-28T10:00:00Z","sent":false,"redact":["password"],"zd":"0123456789abcdef","zc":"zstd"}` +
	`{"seq":4,"message_id":"<game-2@adjutant.example>","to":["player@example.org"],"subject":"[game] results","game":"game","side":"de","kind":"results","queued":"2026-11-28T10:00:00Z","sent":true,"sent_at":"2026-11-28T10:00:00Z","attempts":1,"zd":"0123456789abcdef","zc":"zstd","pictures":[{"name":"game-de-turn5.png","alt":"The map of game for de, turn 5: the units and what changed since the last results.","before":"== Map ==","view_z":""}]}`

// headWindow is the window of the heads' encoder.
const headWindow = 32 << 10

// headCoders are the encoder and decoder of heads, made once.
var headCoders = sync.OnceValues(func() (headCoder, error) {
	// A head is a few hundred bytes: a small window keeps each encoder's history small.
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderCRC(false), zstd.WithWindowSize(headWindow),
		zstd.WithLowerEncoderMem(true), zstd.WithEncoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithEncoderDictRaw(0, []byte(headDict)))
	if err != nil {
		return headCoder{}, fmt.Errorf("zstd head encoder: %w", err)
	}
	dec, err := zstd.NewReader(nil, zstd.WithDecoderMaxMemory(zstdMaxBody), zstd.WithDecoderMaxWindow(zstdWindow),
		zstd.WithDecoderLowmem(true), zstd.WithDecoderConcurrency(runtime.GOMAXPROCS(0)), zstd.WithDecoderDictRaw(0, []byte(headDict)))
	if err != nil {
		return headCoder{}, fmt.Errorf("zstd head decoder: %w", err)
	}
	return headCoder{enc, dec}, nil
})

type headCoder struct {
	enc *zstd.Encoder
	dec *zstd.Decoder
}

var errBadRecord = errors.New("malformed outbox record")

// splitStored returns the head (JSON) and the compressed body of an outbox record;
// the head of an older record is the whole of it, body_z and all, and its body nil.
func splitStored(raw []byte) (head, bodyZ []byte, err error) {
	if len(raw) == 0 || (raw[0] != packed && raw[0] != packedHead) {
		return raw, nil, nil
	}
	n, w := binary.Uvarint(raw[1:])
	if w <= 0 || n > uint64(len(raw)-1-w) {
		return nil, nil, errBadRecord
	}
	head = raw[1+w : 1+w+int(n)]
	if raw[0] == packedHead {
		hc, err := headCoders()
		if err != nil {
			return nil, nil, err
		}
		if head, err = hc.dec.DecodeAll(head, nil); err != nil {
			return nil, nil, fmt.Errorf("outbox record's head: %w", err)
		}
	}
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
