package store

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	bolt "go.etcd.io/bbolt"
)

// The address index answers "does this address play in some game?" for the refusal
// limits of every mail, at the cost of one cursor seek whatever the number of games.
var (
	bucketAddresses     = []byte("addresses")
	bucketGameAddresses = []byte("game-addresses")

	bucketVerifiers = []byte("verifiers")
)

// addressKey is the index key of address playing in game: the address first, so that
// all of one address's games are together.
func addressKey(address, game string) []byte {
	return []byte(strings.ToLower(address) + "\x00" + game)
}

// playerAddresses are the lower-case addresses of g's players, sorted.
func playerAddresses(g Game) []string {
	out := make([]string, 0, len(g.Players))
	for _, p := range g.Players {
		if p.Address != "" {
			out = append(out, strings.ToLower(p.Address))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// openPlayerBuckets creates the verifiers bucket and the address index, the index by
// reading every game once, when the store has none yet (a store written before it).
func openPlayerBuckets(tx *bolt.Tx) error {
	if _, err := tx.CreateBucketIfNotExists(bucketVerifiers); err != nil {
		return fmt.Errorf("create bucket %s: %w", bucketVerifiers, err)
	}
	if tx.Bucket(bucketAddresses) != nil && tx.Bucket(bucketGameAddresses) != nil {
		return nil
	}
	for _, name := range [][]byte{bucketAddresses, bucketGameAddresses} {
		if tx.Bucket(name) != nil {
			if err := tx.DeleteBucket(name); err != nil {
				return fmt.Errorf("reset bucket %s: %w", name, err)
			}
		}
		if _, err := tx.CreateBucket(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	t := newTx(tx)
	return tx.Bucket(bucketGames).ForEach(func(k, v []byte) error {
		var g Game
		if err := json.Unmarshal(v, &g); err != nil {
			return fmt.Errorf("index the players of game %s: %w", k, err)
		}
		g.Name = string(k)
		return t.indexPlayers(g)
	})
}

// indexPlayers brings the address index up to date with g's players: nothing is
// written when they are the ones indexed already, which is the case of nearly every
// PutGame.
func (t *btx) indexPlayers(g Game) error {
	byGame := t.tx.Bucket(bucketGameAddresses)
	index := t.tx.Bucket(bucketAddresses)
	now := playerAddresses(g)
	joined := []byte(strings.Join(now, "\n"))
	old := byGame.Get([]byte(g.Name))
	if old != nil && bytes.Equal(old, joined) {
		return nil
	}
	if len(old) > 0 {
		for _, a := range strings.Split(string(old), "\n") {
			if err := index.Delete(addressKey(a, g.Name)); err != nil {
				return fmt.Errorf("unindex %s in game %s: %w", a, g.Name, err)
			}
		}
	}
	for _, a := range now {
		if err := index.Put(addressKey(a, g.Name), nil); err != nil {
			return fmt.Errorf("index %s in game %s: %w", a, g.Name, err)
		}
	}
	if err := byGame.Put([]byte(g.Name), joined); err != nil {
		return fmt.Errorf("index the players of game %s: %w", g.Name, err)
	}
	return nil
}

func (t *btx) Plays(address string) (bool, error) {
	if address == "" {
		return false, nil
	}
	prefix := addressKey(address, "")
	k, _ := t.tx.Bucket(bucketAddresses).Cursor().Seek(prefix)
	return k != nil && bytes.HasPrefix(k, prefix), nil
}

func (t *btx) Verifier(name string) (string, error) {
	return string(t.tx.Bucket(bucketVerifiers).Get([]byte(name))), nil
}

func (t *btx) PutVerifier(name, v string) error {
	if err := t.tx.Bucket(bucketVerifiers).Put([]byte(name), []byte(v)); err != nil {
		return fmt.Errorf("put verifier: %w", err)
	}
	return nil
}
