package store

import (
	"bytes"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// The outbox by game: replay, audit verify and a game's record read one game's mails
// without decoding the store's (issue 23: Tx.Outbox() with 7,200 mails took 100 ms and
// 74.6 MB for one game's few dozen).
//
//	outbox-game  game NUL seq (8-byte BE) -> nothing
var bucketOutboxGame = []byte("outbox-game")

func gameOutboxKey(game string, seq uint64) []byte {
	k := make([]byte, 0, len(game)+9)
	k = append(k, game...)
	k = append(k, 0)
	return append(k, u64(seq)...)
}

// indexGameMail files the outbox mail seq under its game.
func (t *btx) indexGameMail(game string, seq uint64) error {
	if game == "" {
		return nil
	}
	if err := t.tx.Bucket(bucketOutboxGame).Put(gameOutboxKey(game, seq), nil); err != nil {
		return fmt.Errorf("index outbox mail %d of %s: %w", seq, game, err)
	}
	return nil
}

// GameOutbox returns the outbox mails of game (OutMail.Game), whole, in outbox order.
func (t *btx) GameOutbox(game string) ([]OutMail, error) {
	if err := t.writeEnqueued(); err != nil {
		return nil, err
	}
	out := t.tx.Bucket(bucketOutbox)
	prefix := append([]byte(game), 0)
	var mails []OutMail
	c := t.tx.Bucket(bucketOutboxGame).Cursor()
	for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, _ = c.Next() {
		seq := k[len(prefix):]
		raw := out.Get(seq)
		if raw == nil {
			return mails, fmt.Errorf("outbox mail %x of %s: %w", seq, game, ErrNotFound)
		}
		m, err := t.decodeMail(raw)
		if err != nil {
			return mails, fmt.Errorf("outbox mail %x of %s: %w", seq, game, err)
		}
		mails = append(mails, m)
	}
	return mails, nil
}

// openGameOutboxIndex creates the outbox's index by game, filing every mail of a store
// from before it.
func openGameOutboxIndex(tx *bolt.Tx) error {
	if tx.Bucket(bucketOutboxGame) != nil {
		return nil
	}
	idx, err := tx.CreateBucket(bucketOutboxGame)
	if err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketOutboxGame, err)
	}
	return tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
		h, err := decodeHead(v)
		if err != nil {
			return fmt.Errorf("index outbox mail %x: %w", k, err)
		}
		if h.Game == "" {
			return nil
		}
		return idx.Put(append(append([]byte(h.Game), 0), k...), nil)
	})
}
