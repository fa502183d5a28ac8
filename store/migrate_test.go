package store_test

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// schema1Game is what a store of schema 1 holds of one game, and what it must read as
// after the migration.
type schema1Game struct {
	game    store.Game
	orders  []store.Order
	seeds   []store.Seed
	groups  map[string][]string
	audit   []store.AuditEntry
	journal []store.JournalEntry
}

func makeSchema1Game(i int) schema1Game {
	name := fmt.Sprintf("g%03d", i)
	at := time.Date(2026, 11, 1, 10, 0, i, 0, time.UTC)
	state := fmt.Sprintf(`{"turn":%d,"units":[%s]}`, i, bytes.Repeat([]byte(`{"hex":"2301","kind":"infantry","steps":3},`), 20)) // packed: over packMin
	state = state[:len(state)-3] + "]}"
	g := schema1Game{
		game: store.Game{Name: name, Ruleset: "soldiers1918", Created: at,
			Players: []store.Player{{Side: "us", Address: name + "-us@x.example", PassHash: "h"}},
			State:   json.RawMessage(state), Initial: json.RawMessage(`{"turn":0}`)},
		groups: map[string][]string{"grp" + name: {"c1", "c2"}},
	}
	if i%3 == 0 {
		g.game.Initial = nil // a game from before initial states were kept
	}
	for k := range 2 {
		g.orders = append(g.orders, store.Order{Phase: "I", Side: "us", Key: fmt.Sprint(k), Kind: "plot", Text: "PLOT 2301x3", Filed: at.Add(time.Duration(k) * time.Second), Group: "grp" + name})
	}
	for turn := range 2 {
		g.seeds = append(g.seeds, store.Seed{Turn: turn + 1, Secret: "ab", Commitment: "cd"})
	}
	prev := ""
	for seq := range uint64(3) {
		e := store.AuditEntry{Seq: seq + 1, Time: at, Kind: "roll", Turn: 1, Phase: "I", Index: int(seq), Purpose: "fire", Count: 1, Sides: 6, Values: []int{int(seq) + 1}, Result: int(seq) + 1, Prev: prev}
		e.Hash = e.ComputeHash()
		prev = e.Hash
		g.audit = append(g.audit, e)
	}
	g.journal = []store.JournalEntry{{Seq: 1, Now: at, MailIDs: []string{"m1"}, StateHash: "s1",
		Steps: []store.JournalStep{{Turn: 1, Phase: "I", Orders: g.orders, OrdersDigest: "d"}}}}
	return g
}

// writeSchema1 writes games into a new bbolt file as schema 1 laid them out: each game's
// records in buckets nested under its name in the bucket "game", its states in its Game
// record.
func writeSchema1(t *testing.T, path string, games []schema1Game) {
	t.Helper()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	put := func(bk *bolt.Bucket, k []byte, v any) {
		raw, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if err := bk.Put(k, raw); err != nil {
			t.Fatal(err)
		}
	}
	u64 := func(n uint64) []byte { return binary.BigEndian.AppendUint64(nil, n) }
	err = b.Update(func(tx *bolt.Tx) error {
		meta, _ := tx.CreateBucket([]byte("meta"))
		meta.Put([]byte("schema"), u64(1))
		gamesB, _ := tx.CreateBucket([]byte("games"))
		root, _ := tx.CreateBucket([]byte("game"))
		for _, g := range games {
			put(gamesB, []byte(g.game.Name), g.game)
			gb, _ := root.CreateBucket([]byte(g.game.Name))
			orders, _ := gb.CreateBucket([]byte("orders"))
			for _, o := range g.orders {
				put(orders, []byte(o.Phase+"|"+o.Side+"|"+o.Key), o)
			}
			seeds, _ := gb.CreateBucket([]byte("seeds"))
			for _, s := range g.seeds {
				put(seeds, u64(uint64(s.Turn)), s)
			}
			groups, _ := gb.CreateBucket([]byte("sealed-groups"))
			for k, cs := range g.groups {
				groups.Put([]byte(k), []byte(cs[0]+"\n"+cs[1]))
			}
			audit, _ := gb.CreateBucket([]byte("audit"))
			for _, e := range g.audit {
				audit.NextSequence()
				put(audit, u64(e.Seq), e)
			}
			journal, _ := gb.CreateBucket([]byte("journal"))
			for _, j := range g.journal {
				journal.NextSequence()
				put(journal, u64(j.Seq), j)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestMigrateSchema1: a store of schema 1 (each game's records in nested buckets, its
// states in its Game record) opens as schema 2 with every record read as before, in
// more than one batch of games; appending to a game's audit chain and journal goes on
// from where it was; the nested buckets are gone.
func TestMigrateSchema1(t *testing.T) {
	defer store.SetMigrateBatch(4)()
	path := filepath.Join(t.TempDir(), "old.db")
	var games []schema1Game
	for i := range 10 {
		games = append(games, makeSchema1Game(i))
	}
	writeSchema1(t, path, games)
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	err = db.Read(ctx, func(tx store.Tx) error {
		for _, want := range games {
			name := want.game.Name
			g, err := tx.Game(name)
			if err != nil {
				return err
			}
			if !jsonEq(t, g, want.game) {
				t.Errorf("%s: Game = %+v, want %+v", name, g, want.game)
			}
			orders, _ := tx.Orders(name)
			seeds, _ := tx.Seeds(name)
			audit, _ := tx.Audit(name)
			journal, _ := tx.Journal(name)
			head, _ := tx.AuditHead(name)
			group, _ := tx.SealedGroup(name, "grp"+name)
			for _, c := range []struct {
				what      string
				got, want any
			}{
				{"Orders", orders, want.orders}, {"Seeds", seeds, want.seeds}, {"Audit", audit, want.audit},
				{"Journal", journal, want.journal}, {"AuditHead", head, want.audit[len(want.audit)-1]},
				{"SealedGroup", group, want.groups["grp"+name]},
			} {
				if !jsonEq(t, c.got, c.want) {
					t.Errorf("%s: %s = %+v, want %+v", name, c.what, c.got, c.want)
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// The chain and the journal go on.
	err = db.Write(ctx, func(tx store.Tx) error {
		e, err := tx.AppendAudit("g001", store.AuditEntry{Kind: "roll", Time: time.Now()})
		if err != nil {
			return err
		}
		if e.Seq != 4 || e.Prev != games[1].audit[2].Hash {
			t.Errorf("appended audit entry %d after %s, want 4 after %s", e.Seq, e.Prev, games[1].audit[2].Hash)
		}
		j, err := tx.AppendJournal("g001", store.JournalEntry{Now: time.Now()})
		if j.Seq != 2 {
			t.Errorf("appended journal entry %d, want 2", j.Seq)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		if tx.Bucket([]byte("game")) != nil {
			t.Error("the nested buckets of schema 1 are still there")
		}
		if v := tx.Bucket([]byte("meta")).Get([]byte("schema")); binary.BigEndian.Uint64(v) != store.SchemaVersion {
			t.Errorf("schema %x after the migration, want %d", v, store.SchemaVersion)
		}
		// No Game record keeps its states inline any more.
		return tx.Bucket([]byte("games")).ForEach(func(k, v []byte) error {
			if bytes.Contains(v, []byte(`"state"`)) || bytes.Contains(v, []byte(`"initial"`)) {
				t.Errorf("game %s still holds its states: %s", k, v)
			}
			return nil
		})
	})
}

// TestRecordsOfOneGame: a game's records are read back whole whatever games sit beside
// it in the keys (a name that begins another's), and removing a game leaves the others'.
func TestRecordsOfOneGame(t *testing.T) {
	db, _ := open(t)
	ctx := t.Context()
	names := []string{"a", "a b", "ab", "a\x01"}
	err := db.Write(ctx, func(tx store.Tx) error {
		for i, n := range names {
			if err := tx.PutGame(store.Game{Name: n, State: json.RawMessage(fmt.Sprintf(`{"n":%d}`, i))}); err != nil {
				return err
			}
			for k := range i + 1 {
				if _, err := tx.AppendAudit(n, store.AuditEntry{Kind: "roll", Index: k}); err != nil {
					return err
				}
				if err := tx.PutOrder(n, store.Order{Phase: "I", Side: "us", Key: fmt.Sprint(k)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	check := func(skip string) {
		t.Helper()
		db.Read(ctx, func(tx store.Tx) error {
			for i, n := range names {
				if n == skip {
					continue
				}
				audit, _ := tx.Audit(n)
				orders, _ := tx.Orders(n)
				head, _ := tx.AuditHead(n)
				g, _ := tx.Game(n)
				if len(audit) != i+1 || len(orders) != i+1 || head.Seq != uint64(i+1) || string(g.State) != fmt.Sprintf(`{"n":%d}`, i) {
					t.Errorf("game %q: %d audit entries, %d orders, head %d, state %s; want %d, %d, %d, {\"n\":%d}", n, len(audit), len(orders), head.Seq, g.State, i+1, i+1, i+1, i)
				}
			}
			return nil
		})
	}
	check("")
	if err := db.RemoveGame(ctx, "a", nil); err != nil {
		t.Fatal(err)
	}
	check("a")
	db.Read(ctx, func(tx store.Tx) error {
		if audit, _ := tx.Audit("a"); len(audit) != 0 {
			t.Errorf("removed game a still has %d audit entries", len(audit))
		}
		if orders, _ := tx.Orders("a"); len(orders) != 0 {
			t.Errorf("removed game a still has %d orders", len(orders))
		}
		return nil
	})
}

// jsonEq reports whether a and b encode to the same JSON (a time as decoded, not as
// given).
func jsonEq(t *testing.T, a, b any) bool {
	t.Helper()
	ra, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := json.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	var va, vb any
	json.Unmarshal(ra, &va)
	json.Unmarshal(rb, &vb)
	ra, _ = json.Marshal(va)
	rb, _ = json.Marshal(vb)
	return slices.Equal(ra, rb)
}

// TestStatesApartAndPacked: a game's state and initial state are kept in its records,
// deflated, not in its Game record, and a journal entry deflated; all read back as
// they were written.
func TestStatesApartAndPacked(t *testing.T) {
	db, path := open(t)
	ctx := t.Context()
	units := bytes.Repeat([]byte(`{"hex":"2301","kind":"infantry","steps":3,"side":"de"},`), 150)
	state := json.RawMessage(`{"turn":4,"units":[` + string(units[:len(units)-1]) + `]}`)
	initial := json.RawMessage(`{"turn":1,"units":[` + string(units[:len(units)-1]) + `]}`)
	j := store.JournalEntry{Now: time.Unix(100, 0).UTC(), MailIDs: []string{"m1"}, Notes: []string{string(units)}}
	err := db.Write(ctx, func(tx store.Tx) error {
		if err := tx.PutGame(store.Game{Name: "g", Ruleset: "r", State: state, Initial: initial}); err != nil {
			return err
		}
		var err error
		j, err = tx.AppendJournal("g", j)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		g, err := tx.Game("g")
		if err != nil || !bytes.Equal(g.State, state) || !bytes.Equal(g.Initial, initial) {
			t.Errorf("Game = %.60s / %.60s, %v; want the states as written", g.State, g.Initial, err)
		}
		js, err := tx.Journal("g")
		if err != nil || len(js) != 1 || !jsonEq(t, js[0], j) {
			t.Errorf("Journal = %+v, %v", js, err)
		}
		return nil
	})
	db.Close()
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	b.View(func(tx *bolt.Tx) error {
		if v := tx.Bucket([]byte("games")).Get([]byte("g")); bytes.Contains(v, []byte("infantry")) {
			t.Errorf("the Game record holds a state: %.80s", v)
		}
		recs := tx.Bucket([]byte("game-records"))
		for _, c := range []struct {
			key  string
			size int
		}{{"g\x00T", len(state)}, {"g\x00I", len(initial)}, {"g\x00j\x00\x00\x00\x00\x00\x00\x00\x01", len(units)}} {
			v := recs.Get([]byte(c.key))
			if len(v) == 0 || len(v) > c.size/4 || bytes.Contains(v, []byte("infantry")) {
				t.Errorf("record %q is %d bytes for %d of JSON: not deflated", c.key, len(v), c.size)
			}
		}
		return nil
	})
}

// TestAppendAfterDeletes: appending to a game's journal and audit chain in a write
// transaction that deleted the game's orders (the keys after them) goes on from the
// last entry: a step back from a Seek missed the range, and the second game of the
// demo's match had its first journal entry written over.
func TestAppendAfterDeletes(t *testing.T) {
	db, _ := open(t)
	ctx := t.Context()
	games := []string{"sample", "sample-return"}
	big := strings.Repeat("x", 300)
	for round := range 8 {
		err := db.Write(ctx, func(tx store.Tx) error {
			for _, g := range games {
				for k := range 6 {
					if err := tx.PutOrder(g, store.Order{Phase: fmt.Sprint(round), Side: "us", Key: fmt.Sprint(k), Text: big}); err != nil {
						return err
					}
				}
				if err := tx.PutSeed(g, store.Seed{Turn: round, Secret: big}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		err = db.Write(ctx, func(tx store.Tx) error {
			for _, g := range games {
				orders, err := tx.Orders(g)
				if err != nil {
					return err
				}
				for _, o := range orders {
					if err := tx.DeleteOrder(g, o); err != nil {
						return err
					}
				}
				j, err := tx.AppendJournal(g, store.JournalEntry{Notes: []string{big}})
				if err != nil {
					return err
				}
				if j.Seq != uint64(round+1) {
					t.Errorf("round %d: journal entry of %s numbered %d", round, g, j.Seq)
				}
				e, err := tx.AppendAudit(g, store.AuditEntry{Kind: "roll", Purpose: big})
				if err != nil {
					return err
				}
				if e.Seq != uint64(round+1) {
					t.Errorf("round %d: audit entry of %s numbered %d", round, g, e.Seq)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
