package store

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// keyStoreSecret is the meta key of the store's secret (see [Identity]).
var keyStoreSecret = []byte("store-secret")

// storeSecretLen is the length of the store's secret in bytes.
const storeSecretLen = 32

// BounceTagLen is the length of a bounce tag in hex digits: 64 bits, which nobody
// guesses by mailing forged bounces.
const BounceTagLen = 16

// Identity is what sets one store's mail apart from every other store's. It derives
// from a secret drawn from crypto/rand once, when the store is made (or first opened
// by a version that knew it), and kept in the store's meta bucket: it never changes
// afterwards, so the Message-IDs a store gives and the tags it signs stay the same
// through restarts, resends and replays.
//
// The zero Identity has no secret: its ID is empty and it signs and accepts no tag.
type Identity struct {
	// ID names the store: random, public (it only goes into hashes), 32 hex digits.
	// The desk mixes it into every Message-ID, so that two installations that create a
	// game of the same name for the same player do not send two mails with one id.
	ID string

	secret []byte
}

// newIdentity is the identity of a store's secret.
func newIdentity(secret []byte) Identity {
	id := Identity{secret: secret}
	id.ID = hex.EncodeToString(id.mac("store-id")[:16])
	return id
}

// mac is HMAC-SHA256 under the store's secret of purpose and parts, each ended by a
// NUL so that no two lists of parts give the same input.
func (id Identity) mac(purpose string, parts ...[]byte) []byte {
	h := hmac.New(sha256.New, id.secret)
	h.Write([]byte(purpose))
	h.Write([]byte{0})
	for _, p := range parts {
		h.Write(p)
		h.Write([]byte{0})
	}
	return h.Sum(nil)
}

// BounceTag is the tag the envelope sender of outbox mail seq, with Message-ID
// messageID, carries (its VERP address, mail.VERP): BounceTagLen hex digits of an
// HMAC under the store's secret, so that only the store, and whoever saw that mail's
// envelope, can name the mail in a bounce. "" for the zero Identity.
func (id Identity) BounceTag(seq uint64, messageID string) string {
	if len(id.secret) == 0 {
		return ""
	}
	return hex.EncodeToString(id.mac("bounce", binary.BigEndian.AppendUint64(nil, seq), []byte(messageID))[:BounceTagLen/2])
}

// ValidBounceTag reports whether tag (any case) is the tag of outbox mail seq with
// Message-ID messageID. The comparison takes the same time wherever the tags differ.
func (id Identity) ValidBounceTag(seq uint64, messageID, tag string) bool {
	want := id.BounceTag(seq, messageID)
	return want != "" && hmac.Equal([]byte(want), []byte(strings.ToLower(tag)))
}

// Identity implements [Store]: read when the file was opened.
func (d *DB) Identity() Identity { return d.identity }

// openIdentity reads the store's secret, drawing and keeping one when the store has
// none yet (a new file, or one written before stores had an identity: mails queued
// before it keep the Message-IDs stored with them).
func openIdentity(b *bolt.DB) (Identity, error) {
	var secret []byte
	read := func(tx *bolt.Tx) error {
		if v := tx.Bucket(bucketMeta).Get(keyStoreSecret); v != nil {
			if len(v) != storeSecretLen {
				return fmt.Errorf("store secret: %d bytes, want %d", len(v), storeSecretLen)
			}
			secret = append([]byte(nil), v...)
		}
		return nil
	}
	if err := b.View(read); err != nil {
		return Identity{}, err
	}
	if secret != nil {
		return newIdentity(secret), nil
	}
	err := b.Update(func(tx *bolt.Tx) error {
		if err := read(tx); err != nil || secret != nil {
			return err
		}
		s := make([]byte, storeSecretLen)
		if _, err := rand.Read(s); err != nil {
			return fmt.Errorf("draw the store secret: %w", err)
		}
		secret = s
		return tx.Bucket(bucketMeta).Put(keyStoreSecret, s)
	})
	if err != nil {
		return Identity{}, fmt.Errorf("keep the store secret: %w", err)
	}
	return newIdentity(secret), nil
}
