package store

import (
	"bytes"
	"fmt"
	"strconv"
	"sync"

	"github.com/klauspost/compress/zstd"
	bolt "go.etcd.io/bbolt"
)

// Outbox bodies are compressed with zstd and a raw dictionary a kind of mail, made of
// the first bodies of that kind the store queued (their secrets masked): up to
// zdictSamples of them, the newest zdictMax bytes. One body made a poor dictionary for
// the next (a results mail's map and events change from turn to turn): twelve of them
// halve a Soldiers results mail against deflate with the first (1,546 -> 794 bytes a
// mail of the demo's after the twelve; Soissons' 2,718 -> 1,875), and zstd's encoder,
// made once a dictionary, costs about 40 % of deflate's, which re-read its 32 KB window
// for every mail (BenchmarkEncodeMail, issue 23).
//
//	meta  "zdict-for:" kind     -> the id of that kind's dictionary, space, the samples seen
//	      "zdict:" id           -> the dictionary
//	      "zdict-samples:" kind -> the samples seen, until the last dictionary is made
//
// A record says its codec (storedMail.Codec) and names its dictionary
// (storedMail.Dict): records deflated before zstd (dict.go) are read as they were.
// A dictionary that grew leaves the first in place for the records that use it.
const (
	codecZstd    = "zstd"
	zdictSamples = 12
	zdictMax     = 192 << 10
	// zstdWindow bounds what a body's matches reach back to, the dictionary included:
	// 256 KB reach a results mail's twelve samples (Soissons' 2,196 bytes a mail with
	// 64 KB, 1,875 with 256). Each encoder keeps a history of about that size, so that
	// a game's records, whose dictionaries are 64 KB, have a window of recordWindow.
	zstdWindow   = 256 << 10
	recordWindow = 64 << 10
	// zstdMaxBody is the largest body a record may inflate to: a corrupt record claims
	// any size, and must not be able to take the process's memory.
	zstdMaxBody = 64 << 20
)

// zencoders and zdecoders are the zstd encoders and decoders made so far, by dictionary
// id ("": none): made once each, their tables are not refilled for every mail. Each
// works one mail at a time and in its lower-memory mode: a coder a dictionary is
// 0.75 MB kept, against 1.3 MB or more with one coder a core.
var zencoders, zdecoders sync.Map

// dictRule says which texts a dictionary grows from: at least minBody bytes long, the
// first samples of them, to max bytes (the newest kept).
type dictRule struct{ minBody, samples, max int }

var (
	// outboxDicts: a mail shorter than 1 KB shares too little to be worth a sample.
	outboxDicts = dictRule{minBody: dictMinBody, samples: zdictSamples, max: zdictMax}
	// recordDicts: a game's records (journal entries, states, long orders) are JSON of
	// a few KB whose field names and phrases recur: more, smaller samples.
	recordDicts = dictRule{minBody: packMin, samples: 16, max: 64 << 10}
)

// zdictFor returns the zstd dictionary of an outbox kind (id "" is none), first growing
// it with body (secrets masked) while it holds fewer than zdictSamples bodies.
func (t *btx) zdictFor(kind, body string, secrets []string) (id string, d []byte, err error) {
	return t.zdictGrow(kind, outboxDicts, func() []byte { return []byte(maskSecrets(body, secrets)) }, len(body))
}

// zdictGrow returns the dictionary of kind, first grown with sample() (of n0 bytes)
// as rule says. A kind has two dictionaries in its life: its first sample alone, from
// the first record on, then all its samples, from the last sample on; the samples in
// between wait in meta ("zdict-samples:" kind). A dictionary for every sample kept
// every size of it: 1.6 MB of dictionaries in a store of 300 games.
func (t *btx) zdictGrow(kind string, rule dictRule, sample func() []byte, n0 int) (id string, d []byte, err error) {
	meta := t.tx.Bucket(bucketMeta)
	n := 0
	if v := meta.Get([]byte("zdict-for:" + kind)); v != nil {
		idv, nv, ok := bytes.Cut(v, []byte(" "))
		if n, err = strconv.Atoi(string(nv)); !ok || err != nil {
			return "", nil, fmt.Errorf("the %s dictionary's entry %q: %w", kind, v, errBadRecord)
		}
		id = string(idv)
		if d, err = t.zdictByID(id); err != nil {
			return "", nil, err
		}
	}
	if n >= rule.samples || n0 < rule.minBody || !t.tx.Writable() {
		return id, d, nil
	}
	samplesKey := []byte("zdict-samples:" + kind)
	samples := append(bytes.Clone(meta.Get(samplesKey)), sample()...)
	if len(samples) > rule.max {
		samples = samples[len(samples)-rule.max:]
	}
	n++
	full := n >= rule.samples || len(samples) >= rule.max // the last dictionary of kind
	if full {
		n = rule.samples
	}
	if n == 1 || full {
		if full && id != "" {
			// The first dictionary's encoder (a MB) serves no mail any more; its records
			// still decode with a decoder made when one is read.
			zencoders.Delete(id)
		}
		id = dictID(samples)
		if err := meta.Put([]byte("zdict:"+id), samples); err != nil {
			return "", nil, fmt.Errorf("store the %s dictionary: %w", kind, err)
		}
		dicts.Store("z"+id, samples)
		d = samples
	}
	if full {
		err = meta.Delete(samplesKey)
	} else {
		err = meta.Put(samplesKey, samples)
	}
	if err == nil {
		err = meta.Put([]byte("zdict-for:"+kind), []byte(id+" "+strconv.Itoa(n)))
	}
	if err != nil {
		return "", nil, fmt.Errorf("store the %s dictionary: %w", kind, err)
	}
	return id, d, nil
}

// zdictByID returns the zstd dictionary id ("": none).
func (t *btx) zdictByID(id string) ([]byte, error) { return zdictIn(t.tx, id) }

// zdictIn returns the zstd dictionary id ("": none) of the store tx reads.
func zdictIn(tx *bolt.Tx, id string) ([]byte, error) {
	if id == "" {
		return nil, nil
	}
	if d, ok := dicts.Load("z" + id); ok {
		return d.([]byte), nil
	}
	v := tx.Bucket(bucketMeta).Get([]byte("zdict:" + id))
	if v == nil {
		return nil, fmt.Errorf("zstd dictionary %s: %w", id, ErrNotFound)
	}
	d := bytes.Clone(v)
	dicts.Store("z"+id, d)
	return d, nil
}

// zencoder returns the encoder of the dictionary d of id, made once, with the window
// its kind of text needs (zstdWindow, recordWindow).
func zencoder(id string, d []byte, window int) (*zstd.Encoder, error) {
	if e, ok := zencoders.Load(id); ok {
		return e.(*zstd.Encoder), nil
	}
	opts := []zstd.EOption{zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithWindowSize(window),
		zstd.WithEncoderConcurrency(1), zstd.WithLowerEncoderMem(true)}
	if id != "" {
		opts = append(opts, zstd.WithEncoderDictRaw(0, d)) // id 0: the record names it, not the frame
	}
	e, err := zstd.NewWriter(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("zstd encoder: %w", err)
	}
	e2, _ := zencoders.LoadOrStore(id, e)
	return e2.(*zstd.Encoder), nil
}

// zdecoder returns the decoder of the dictionary d of id, made once.
func zdecoder(id string, d []byte) (*zstd.Decoder, error) {
	if z, ok := zdecoders.Load(id); ok {
		return z.(*zstd.Decoder), nil
	}
	opts := []zstd.DOption{zstd.WithDecoderMaxMemory(zstdMaxBody), zstd.WithDecoderMaxWindow(zstdWindow),
		zstd.WithDecoderConcurrency(1), zstd.WithDecoderLowmem(true)}
	if id != "" {
		opts = append(opts, zstd.WithDecoderDictRaw(0, d))
	}
	z, err := zstd.NewReader(nil, opts...)
	if err != nil {
		return nil, fmt.Errorf("zstd decoder: %w", err)
	}
	z2, _ := zdecoders.LoadOrStore(id, z)
	return z2.(*zstd.Decoder), nil
}

// zstdEncode compresses text with the dictionary d of id ("": none).
func zstdEncode(text, id string, d []byte) ([]byte, error) {
	codecCalls.Add(1)
	e, err := zencoder(id, d, zstdWindow)
	if err != nil {
		return nil, err
	}
	return e.EncodeAll([]byte(text), make([]byte, 0, len(text)/6+64)), nil
}

// zstdDecode decompresses z, compressed with the dictionary d of id ("": none).
func zstdDecode(z []byte, id string, d []byte) (string, error) {
	codecCalls.Add(1)
	dec, err := zdecoder(id, d)
	if err != nil {
		return "", err
	}
	out, err := dec.DecodeAll(z, nil)
	if err != nil {
		return "", fmt.Errorf("zstd: %w", err)
	}
	return string(out), nil
}

// encodeBody compresses a body with codec and the dictionary of id (the record's).
func (t *btx) encodeBody(codec, id, text string) ([]byte, error) {
	if codec == codecZstd {
		d, err := t.zdictByID(id)
		if err != nil {
			return nil, err
		}
		return zstdEncode(text, id, d)
	}
	d, err := t.dictByID(id)
	if err != nil {
		return nil, err
	}
	return deflateDict(text, id, d)
}

// decodeBody decompresses a body stored with codec and the dictionary of id.
func (t *btx) decodeBody(codec, id string, z []byte) (string, error) {
	switch codec {
	case codecZstd:
		d, err := t.zdictByID(id)
		if err != nil {
			return "", err
		}
		return zstdDecode(z, id, d)
	case "":
		d, err := t.dictByID(id)
		if err != nil {
			return "", err
		}
		return inflateDict(z, d)
	}
	return "", fmt.Errorf("body codec %q: %w", codec, errBadRecord)
}
