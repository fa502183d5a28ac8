package store

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"sync"
	"time"
)

// SentLog is a small append-only file, next to the store, in which the sender notes
// each mail the SMTP server accepted, the moment it accepted it: one write(2) of a
// 20-byte record, no fsync. The marks are folded into the store (OutMail.Sent) after
// each round of a sender pass, in short transactions (FoldSentMarks), and whatever the
// file still holds when the daemon starts again is folded first.
//
// Why: marking each mail sent in its own transaction costs an fsync per mail (most of
// a burst's commits) and leaves the mail "accepted but not marked" for the length of
// that fsync, the window in which a crash makes the mail go out twice. A write that
// has returned survives the process being killed (it is in the kernel's page cache),
// so the window shrinks to the write itself. Only a power loss or a kernel crash can
// lose the last marks, and then the mails they name are sent again, with the same
// Message-ID: a duplicate, never a loss. A record cut short by such a loss fails its
// checksum and ends the reading.
type SentLog struct {
	mu   sync.Mutex
	f    *os.File
	path string
}

// sentRecordSize is one record: the outbox sequence number, the time accepted (Unix
// nanoseconds), and a CRC-32 (Castagnoli) of the two.
const sentRecordSize = 8 + 8 + 4

var sentCRC = crc32.MakeTable(crc32.Castagnoli)

// SentMark is one record of the log: a mail of the outbox and when the server took it.
type SentMark struct {
	Seq uint64
	At  time.Time
}

// OpenSentLog opens (creating it, mode 0600) the log at path.
func OpenSentLog(path string) (*SentLog, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open sent log: %w", err)
	}
	return &SentLog{f: f, path: path}, nil
}

// Append records that the mail seq was accepted at at.
func (l *SentLog) Append(seq uint64, at time.Time) error {
	var rec [sentRecordSize]byte
	binary.BigEndian.PutUint64(rec[0:8], seq)
	binary.BigEndian.PutUint64(rec[8:16], uint64(at.UnixNano()))
	binary.BigEndian.PutUint32(rec[16:20], crc32.Checksum(rec[:16], sentCRC))
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.f.Write(rec[:]); err != nil {
		return fmt.Errorf("append to sent log: %w", err)
	}
	return nil
}

// Marks returns every whole, intact record in the order written. A torn or corrupt
// record ends the list: what follows it cannot be trusted, and at worst the mails it
// named are sent again.
func (l *SentLog) Marks() ([]SentMark, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	raw, err := io.ReadAll(io.NewSectionReader(l.f, 0, 1<<40))
	if err != nil {
		return nil, fmt.Errorf("read sent log: %w", err)
	}
	var marks []SentMark
	for len(raw) >= sentRecordSize {
		rec := raw[:sentRecordSize]
		raw = raw[sentRecordSize:]
		if crc32.Checksum(rec[:16], sentCRC) != binary.BigEndian.Uint32(rec[16:20]) {
			break
		}
		marks = append(marks, SentMark{
			Seq: binary.BigEndian.Uint64(rec[0:8]),
			At:  time.Unix(0, int64(binary.BigEndian.Uint64(rec[8:16]))).UTC(),
		})
	}
	return marks, nil
}

// Reset empties the log. Call it only once the marks it holds are committed to the
// store.
func (l *SentLog) Reset() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if err := l.f.Truncate(0); err != nil {
		return fmt.Errorf("empty sent log: %w", err)
	}
	return nil
}

// Close closes the file.
func (l *SentLog) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("sent log already closed")
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// FoldSentMarks marks the mails named in marks sent at their time, in tx (the caller
// keeps marks few enough for a short transaction). A mark for a mail already sent,
// failed or unknown is skipped: folding the same marks twice (a crash between the
// commit and Reset) changes nothing.
func FoldSentMarks(tx Tx, marks []SentMark) (int, error) {
	n := 0
	for _, mk := range marks {
		ok, err := tx.MarkSent(mk.Seq, mk.At)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return n, err
		}
		if ok {
			n++
		}
	}
	return n, nil
}
