package store

import (
	"encoding/binary"
	"encoding/json"
	"fmt"

	bolt "go.etcd.io/bbolt"
)

// migrateBatch is how many games one transaction of the migration from schema 1 moves:
// a store of 10,000 games is not rewritten in one transaction (whose dirty pages all
// stay in memory until it commits), and each game moves whole, so that a migration cut
// short goes on at the next open.
var migrateBatch = 200 // a var: a test makes batches of a few games

// schemaOf returns the schema version the store at b was written with (0: a new file).
func schemaOf(b *bolt.DB) (uint64, error) {
	var v uint64
	err := b.View(func(tx *bolt.Tx) error {
		if meta := tx.Bucket(bucketMeta); meta != nil {
			if raw := meta.Get(keySchema); len(raw) == 8 {
				v = binary.BigEndian.Uint64(raw)
			}
		}
		return nil
	})
	return v, err
}

// migrate1to2 moves every game's records from the buckets nested under its name in
// the bucket "game" into the bucket of records (records.go), and its states out of its
// Game record, a batch of games a transaction; the last one sets schema 2.
func migrate1to2(b *bolt.DB) error {
	for done := false; !done; {
		err := b.Update(func(tx *bolt.Tx) error {
			recs, err := tx.CreateBucketIfNotExists(bucketRecords)
			if err != nil {
				return fmt.Errorf("create bucket %s: %w", bucketRecords, err)
			}
			root := tx.Bucket(bucketGame)
			var names [][]byte
			if root != nil {
				c := root.Cursor()
				for k, v := c.First(); k != nil && len(names) < migrateBatch; k, v = c.Next() {
					if v == nil { // a game's bucket
						names = append(names, append([]byte(nil), k...))
					}
				}
			}
			for _, name := range names {
				if err := migrateGame(tx, recs, root, string(name)); err != nil {
					return fmt.Errorf("migrate game %s to schema 2: %w", name, err)
				}
			}
			if len(names) == migrateBatch {
				return nil // more to move
			}
			// The games without nested buckets (none recorded yet) keep their states inline
			// until now.
			games := tx.Bucket(bucketGames)
			var inline [][]byte
			if err := games.ForEach(func(k, v []byte) error {
				var sg storedGame
				if err := json.Unmarshal(v, &sg); err != nil {
					return fmt.Errorf("migrate game %s to schema 2: %w", k, err)
				}
				if sg.State != nil || sg.Initial != nil {
					inline = append(inline, append([]byte(nil), k...))
				}
				return nil
			}); err != nil {
				return err
			}
			for _, name := range inline {
				if err := moveStates(tx, recs, string(name)); err != nil {
					return fmt.Errorf("migrate game %s to schema 2: %w", name, err)
				}
			}
			if root != nil {
				if err := tx.DeleteBucket(bucketGame); err != nil {
					return fmt.Errorf("migrate to schema 2: %w", err)
				}
			}
			done = true
			return tx.Bucket(bucketMeta).Put(keySchema, u64(2))
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// schema1Subs are the buckets schema 1 nested under a game's name, with the kind of
// record each holds in schema 2.
var schema1Subs = []struct {
	name []byte
	kind byte
}{
	{[]byte("orders"), recOrder},
	{[]byte("seeds"), recSeed},
	{[]byte("sealed-groups"), recGroup},
	{[]byte("audit"), recAudit},
	{[]byte("journal"), recJournal},
}

// migrateGame moves one game's nested buckets into recs and deletes them, and moves its
// states out of its Game record.
func migrateGame(tx *bolt.Tx, recs, root *bolt.Bucket, game string) error {
	g := root.Bucket([]byte(game))
	for _, sub := range schema1Subs {
		b := g.Bucket(sub.name)
		if b == nil {
			continue
		}
		err := b.ForEach(func(k, v []byte) error {
			switch sub.kind {
			case recJournal:
				var err error
				if v, err = packRaw(v); err != nil {
					return err
				}
			case recAudit:
				v = auditToBinary(v)
			default:
				v = append([]byte(nil), v...)
			}
			return recs.Put(recKey(game, sub.kind, k), v)
		})
		if err != nil {
			return fmt.Errorf("its %s: %w", sub.name, err)
		}
	}
	if err := root.DeleteBucket([]byte(game)); err != nil {
		return err
	}
	if tx.Bucket(bucketGames).Get([]byte(game)) == nil {
		return nil // records of a game no longer there: moved as they were
	}
	return moveStates(tx, recs, game)
}

// moveStates moves the states of a game's record of schema 1 into recs.
func moveStates(tx *bolt.Tx, recs *bolt.Bucket, game string) error {
	games := tx.Bucket(bucketGames)
	var sg storedGame
	if err := json.Unmarshal(games.Get([]byte(game)), &sg); err != nil {
		return err
	}
	for _, s := range []struct {
		kind byte
		raw  json.RawMessage
	}{{recState, sg.State}, {recInitial, sg.Initial}} {
		if s.raw == nil {
			continue
		}
		v, err := packRaw(s.raw)
		if err != nil {
			return err
		}
		if err := recs.Put(recKey(game, s.kind, nil), v); err != nil {
			return err
		}
	}
	sg.State, sg.Initial = nil, nil
	raw, err := json.Marshal(sg)
	if err != nil {
		return err
	}
	return games.Put([]byte(game), raw)
}

// auditToBinary is an audit entry of schema 1 (JSON) in the binary form, or as it was
// when the binary form would not hash the same (an entry the chain's verification must
// see as it was written).
func auditToBinary(v []byte) []byte {
	var e, back AuditEntry
	if decodeAuditEntry(v, &e) != nil {
		return append([]byte(nil), v...)
	}
	b := encodeAuditEntry(e)
	if decodeAuditEntry(b, &back) != nil || back.ComputeHash() != e.ComputeHash() || back.Hash != e.Hash || back.Prev != e.Prev {
		return append([]byte(nil), v...)
	}
	return b
}
