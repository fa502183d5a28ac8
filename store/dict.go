package store

import (
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"sync"
)

// Outbox bodies were deflated with a preset dictionary, one a kind of mail: the first
// body of that kind the store queued (its secrets masked); they are compressed by zstd
// now (zdict.go), and this is the reader of the records written before. Mails of one kind are mostly
// the same text (an invitation is the game's HELP, a results mail the same map frame and
// phrases), so a dictionary makes an 11 KB invitation a few hundred bytes where alone it
// deflated to 5 KB (issue 23: the outbox was 40 % of the file).
//
//	meta  "dict-for:" kind -> the id of that kind's dictionary
//	      "dict:" id       -> the dictionary (at most 32 KB, deflate's window)
//
// An id is a digest of the dictionary's bytes, so that a dictionary read once serves
// every store of the process, and a record names its own (storedMail.Dict); records
// without one were deflated without.
const (
	dictMinBody = 1 << 10  // a shorter body makes no dictionary: too little to share
	dictMax     = 32 << 10 // deflate's window: a longer dictionary is cut to its end
)

// dicts are the dictionaries read so far, by id; dictWriters a pool of flate writers for
// each.
var dicts, dictWriters sync.Map

func dictID(d []byte) string {
	sum := sha256.Sum256(d)
	return hex.EncodeToString(sum[:8])
}

// dictByID returns the dictionary id ("": none).
func (t *btx) dictByID(id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	if d, ok := dicts.Load(id); ok {
		return d.([]byte), nil
	}
	v := t.tx.Bucket(bucketMeta).Get([]byte("dict:" + id))
	if v == nil {
		return nil, fmt.Errorf("deflate dictionary %s: %w", id, ErrNotFound)
	}
	d := bytes.Clone(v)
	dicts.Store(id, d)
	return d, nil
}

// deflateDict deflates text with the dictionary d of id (none: deflate).
func deflateDict(text, id string, d []byte) ([]byte, error) {
	if id == "" {
		return deflate(text)
	}
	codecCalls.Add(1)
	p, _ := dictWriters.LoadOrStore(id, &sync.Pool{})
	pool := p.(*sync.Pool)
	var z bytes.Buffer
	z.Grow(len(text)/4 + 64) // a mail deflates to a fifth or so: no growing on the way
	w, _ := pool.Get().(*flate.Writer)
	if w == nil {
		var err error
		if w, err = flate.NewWriterDict(&z, 2, d); err != nil {
			return nil, err
		}
	} else {
		w.Reset(&z)
	}
	defer pool.Put(w)
	_, err := io.WriteString(w, text)
	if err == nil {
		err = w.Close()
	}
	return z.Bytes(), err
}
