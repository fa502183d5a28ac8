package store

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"sync"

	bolt "go.etcd.io/bbolt"
)

// A game's own records (orders, seeds, sealed groups, audit chain, journal, state) are
// kept in one top-level bucket, keyed by the game's name, NUL, a byte for the kind of
// record and the record's key:
//
//	game-records  game NUL 'o' phase|side|key -> Order (JSON, packed from 1 KB)
//	              game NUL 's' turn (8-byte BE) -> Seed (JSON)
//	              game NUL 'g' group            -> its commitments, one a line
//	              game NUL 'a' seq (8-byte BE)  -> AuditEntry (binary, auditrecord.go)
//	              game NUL 'j' seq (8-byte BE)  -> JournalEntry (packed JSON)
//	              game NUL 'T'                  -> the game's state (packed JSON)
//	              game NUL 'I'                  -> the state it started from (packed JSON)
//
// Schema 1 kept them in five buckets nested under each game's name: each of those took
// at least a page of its own once it outgrew its parent's page, 36 KB of pages for 20 KB
// of records a game (issue 23). Here a game's records share pages with the games beside
// it, and stay one contiguous range, which a cursor's Seek reaches: archive, export and
// removal walk that range. The game's state lives here rather than in its Game record,
// so that a mail that changes the state rewrites neither the initial state nor the
// players, and the initial state is written once.
//
// A packed value ([btx.packRecord]) is JSON compressed, behind a byte that no JSON
// begins with; a value that begins with '{' is plain JSON.
var bucketRecords = []byte("game-records")

// Kinds of a game's records.
const (
	recOrder   = 'o'
	recSeed    = 's'
	recGroup   = 'g'
	recAudit   = 'a'
	recJournal = 'j'
	recState   = 'T'
	recInitial = 'I'
)

// recPrefix is the prefix of game's records of kind (kind 0: all of them).
func recPrefix(game string, kind byte) []byte {
	p := make([]byte, 0, len(game)+2+8)
	p = append(p, game...)
	p = append(p, 0)
	if kind != 0 {
		p = append(p, kind)
	}
	return p
}

// recKey is the key of game's record of kind under key.
func recKey(game string, kind byte, key []byte) []byte {
	return append(recPrefix(game, kind), key...)
}

// records is the view of one game's records of one kind.
type records struct {
	b      *bolt.Bucket
	prefix []byte
}

// recordsOf returns the view of game's records of kind (its bucket nil in a read of a
// store that has no records at all).
func (t *btx) recordsOf(game string, kind byte) records {
	b := t.tx.Bucket(bucketRecords)
	if b != nil && t.tx.Writable() {
		// Records are appended at the end of each game's range, in the middle of the
		// bucket: split at bbolt's default half, each page kept what it had at its split,
		// and the bucket's pages stayed half empty (BenchmarkStoreSize). Split near full,
		// the page a game appends to is the small remainder of the split.
		b.FillPercent = recordsFill
	}
	return records{b: b, prefix: recPrefix(game, kind)}
}

// recordsFill is the fill of the records' pages at a split.
const recordsFill = 0.9

func (r records) key(k []byte) []byte { return append(bytes.Clone(r.prefix), k...) }

func (r records) get(k []byte) []byte {
	if r.b == nil {
		return nil
	}
	return r.b.Get(r.key(k))
}

func (r records) put(k, v []byte) error { return r.b.Put(r.key(k), v) }

func (r records) delete(k []byte) error { return r.b.Delete(r.key(k)) }

// each calls fn with each record's key (without the prefix) and value, in key order.
func (r records) each(fn func(k, v []byte) error) error {
	if r.b == nil {
		return nil
	}
	c := r.b.Cursor()
	for k, v := c.Seek(r.prefix); k != nil && bytes.HasPrefix(k, r.prefix); k, v = c.Next() {
		if err := fn(k[len(r.prefix):], v); err != nil {
			return err
		}
	}
	return nil
}

// last returns the last record's key (without the prefix) and value, nil when there is
// none.
func (r records) last() (k, v []byte) {
	if r.b == nil {
		return nil, nil
	}
	c := r.b.Cursor()
	// The first key after the range is the prefix with its last byte one more.
	end := bytes.Clone(r.prefix)
	end[len(end)-1]++
	if k, _ = c.Seek(end); k == nil {
		k, v = c.Last()
	} else {
		k, v = c.Prev()
	}
	if k == nil || !bytes.HasPrefix(k, r.prefix) {
		// Checked from the range's start: in a write transaction that had deleted keys
		// after the range, the step back from the Seek missed it, and a journal entry
		// was written over the game's first (the demo's second game).
		if k, v = c.Seek(r.prefix); k == nil || !bytes.HasPrefix(k, r.prefix) {
			return nil, nil
		}
	}
	// On to the range's end, whatever the step back gave: usually no step at all.
	for nk, nv := c.Next(); nk != nil && bytes.HasPrefix(nk, r.prefix); nk, nv = c.Next() {
		k, v = nk, nv
	}
	return k[len(r.prefix):], v
}

// nextSeq is the sequence number of the next record of an append-only log keyed by
// 8-byte sequence numbers from 1: one more than its last.
func (r records) nextSeq() uint64 {
	k, _ := r.last()
	if len(k) != 8 {
		return 1
	}
	return binary.BigEndian.Uint64(k) + 1
}

// packed marks a packed value: JSON deflated. No JSON value begins with it. Stores
// before zstd wrote it; packedZstd is what is written now:
//
//	0x03 | len(id) (uvarint) | id | JSON compressed by zstd with the dictionary id
//
// where id names a dictionary of the kind of record (zdict.go; "": none).
const (
	packed     = 0x01
	packedZstd = 0x03
)

// packMin is the shortest JSON worth compressing: below it, zstd saves too little.
const packMin = 64

// packRecord packs the JSON raw of a record of kind (recJournal, recState, recOrder) with
// zstd and that kind's dictionary, grown with raw first while it takes samples. A
// value that packs no smaller is kept as it is.
func (t *btx) packRecord(kind byte, raw []byte) ([]byte, error) {
	if len(raw) < packMin {
		return bytes.Clone(raw), nil // bbolt keeps it until the commit
	}
	id, d, err := t.zdictGrow("rec:"+string(kind), recordDicts, func() []byte { return bytes.Clone(raw) }, len(raw))
	if err != nil {
		return nil, err
	}
	e, err := zencoder(id, d, recordWindow)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, 1+binary.MaxVarintLen64+len(id)+len(raw)/3+32)
	out = append(out, packedZstd)
	out = binary.AppendUvarint(out, uint64(len(id)))
	out = append(out, id...)
	out = e.EncodeAll(raw, out)
	if len(out) >= len(raw) {
		return bytes.Clone(raw), nil
	}
	return out, nil
}

// packJSON is v as JSON, packed by packRecord.
func (t *btx) packJSON(kind byte, v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return t.packRecord(kind, raw)
}

// packRaw packs the JSON raw with deflate, as stores before zstd did (the migration
// of schema 1 still does).
func packRaw(raw []byte) ([]byte, error) {
	if len(raw) < 256 {
		return bytes.Clone(raw), nil // bbolt keeps it until the commit
	}
	var z bytes.Buffer
	z.Grow(len(raw)/3 + 16)
	z.WriteByte(packed)
	w := packers.Get().(*flate.Writer)
	defer packers.Put(w)
	w.Reset(&z)
	if _, err := w.Write(raw); err != nil {
		return nil, err
	}
	if err := w.Close(); err != nil {
		return nil, err
	}
	if z.Len() >= len(raw) {
		return bytes.Clone(raw), nil
	}
	return z.Bytes(), nil
}

// packers are the flate writers of packRaw. Level 1: the records are small and
// written with every mail; a higher level saves a few per cent of them at twice the
// time.
var packers = sync.Pool{New: func() any {
	w, _ := flate.NewWriter(nil, 1) // the level is valid: no error
	return w
}}

// unpack returns the JSON of a packed value (plain JSON as it is) of the store tx
// reads.
func unpack(tx *bolt.Tx, v []byte) ([]byte, error) {
	if len(v) == 0 {
		return v, nil
	}
	switch v[0] {
	case packed:
		return inflateRecord(v[1:])
	case packedZstd:
		n, w := binary.Uvarint(v[1:])
		if w <= 0 || n > uint64(len(v)-1-w) {
			return nil, errBadRecord
		}
		id := string(v[1+w : 1+w+int(n)])
		d, err := zdictIn(tx, id)
		if err != nil {
			return nil, err
		}
		dec, err := zdecoder(id, d)
		if err != nil {
			return nil, err
		}
		out, err := dec.DecodeAll(v[1+w+int(n):], nil)
		if err != nil {
			return nil, fmt.Errorf("unpack record: %w", err)
		}
		return out, nil
	}
	return v, nil
}

// inflateRecord inflates a record packRaw deflated (without its first byte).
func inflateRecord(z []byte) ([]byte, error) {
	r, _ := inflaters.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReader(bytes.NewReader(z))
	} else if err := r.(flate.Resetter).Reset(bytes.NewReader(z), nil); err != nil {
		return nil, err
	}
	defer inflaters.Put(r)
	var out bytes.Buffer
	out.Grow(4 * len(z))
	if _, err := out.ReadFrom(r); err != nil {
		return nil, fmt.Errorf("inflate record: %w", err)
	}
	return out.Bytes(), nil
}

// unpackJSON decodes a packed value of the store tx reads into v.
func unpackJSON(tx *bolt.Tx, raw []byte, v any) error {
	j, err := unpack(tx, raw)
	if err != nil {
		return err
	}
	return json.Unmarshal(j, v)
}

// deleteRecords deletes every record of game.
func deleteRecords(tx *bolt.Tx, game string) error {
	b := tx.Bucket(bucketRecords)
	prefix := recPrefix(game, 0)
	c := b.Cursor()
	// Deleting at a cursor moves it to the next key: no Next after a Delete.
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, _ = c.Seek(prefix) {
		if err := c.Delete(); err != nil {
			return err
		}
	}
	return nil
}
