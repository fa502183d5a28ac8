package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The deadline index: when the deadline tick must next look at each game, so that a
// tick reads the games that are due and no other (issue 23: a tick over 10,000 games
// was 20,004 fdatasyncs and 14.5 s, at start and every minute).
//
//	due     time (8-byte BE Unix ns) | game -> nothing
//	due-of  game -> its key in due
var (
	bucketDue   = []byte("due")
	bucketDueOf = []byte("due-of")
)

// NextLook is when the deadline tick must next look at g, from its record alone, and
// false when nothing but a change of the record (a mail, a host command) can make
// its deadline act. It errs on the early side: a game looked at early is left as it
// was.
func NextLook(g Game) (time.Time, bool) {
	switch {
	case g.Dice == "beacon" && !g.Over:
		// A phase may wait for a beacon round, at a time the audit chain holds: looked at
		// every tick, as every game was (these are few: a host chose them).
		return time.Time{}, true
	case g.Over || g.Deadline.IsZero() || !g.PausedAt.IsZero():
		return time.Time{}, false
	case !g.Reminded:
		return g.RemindAt, true // zero: at once
	case !g.LateNotified:
		return g.Deadline.Add(g.Grace), true
	case g.NoOrders != "default":
		return time.Time{}, false // the game waits for a player's mail or the host
	}
	// Late-notified under the default policy: a bouncing player held the defaults back,
	// until an allowance only the desk knows runs out. Looked at every tick.
	return g.Deadline.Add(g.Grace), true
}

func dueKey(at time.Time, game string) []byte {
	var ns uint64
	if at.After(time.Unix(0, 0)) {
		ns = uint64(at.UnixNano())
	}
	k := make([]byte, 8, 8+len(game))
	binary.BigEndian.PutUint64(k, ns)
	return append(k, game...)
}

// indexDue keeps g's place in the deadline index.
func indexDue(tx *bolt.Tx, g Game) error {
	due, of := tx.Bucket(bucketDue), tx.Bucket(bucketDueOf)
	name := []byte(g.Name)
	at, ok := NextLook(g)
	var key []byte
	if ok {
		key = dueKey(at, g.Name)
	}
	if old := of.Get(name); old != nil {
		if string(old) == string(key) {
			return nil
		}
		if err := due.Delete(old); err != nil {
			return fmt.Errorf("index deadline of %s: %w", g.Name, err)
		}
	}
	if !ok {
		return of.Delete(name)
	}
	if err := due.Put(key, nil); err != nil {
		return fmt.Errorf("index deadline of %s: %w", g.Name, err)
	}
	return of.Put(name, key)
}

// openDueIndex creates the deadline index, indexing every game of a store from before
// it.
func openDueIndex(tx *bolt.Tx) error {
	if tx.Bucket(bucketDue) != nil && tx.Bucket(bucketDueOf) != nil {
		return nil
	}
	for _, name := range [][]byte{bucketDue, bucketDueOf} {
		if _, err := tx.CreateBucketIfNotExists(name); err != nil {
			return fmt.Errorf("create bucket %s: %w", name, err)
		}
	}
	return tx.Bucket(bucketGames).ForEach(func(k, v []byte) error {
		var g Game
		if err := json.Unmarshal(v, &g); err != nil {
			return fmt.Errorf("index deadline of %s: %w", k, err)
		}
		return indexDue(tx, g)
	})
}

// DueGames returns the games the deadline tick must look at now: those whose
// [NextLook] is at or before now, earliest first.
func (t *btx) DueGames(now time.Time) ([]string, error) {
	var names []string
	limit := dueKey(now, "")
	c := t.tx.Bucket(bucketDue).Cursor()
	for k, _ := c.First(); k != nil && string(k[:8]) <= string(limit[:8]); k, _ = c.Next() {
		names = append(names, string(k[8:]))
	}
	return names, nil
}
