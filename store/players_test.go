package store_test

import (
	"os"
	"path/filepath"
	"testing"

	bolt "go.etcd.io/bbolt"

	"github.com/adjutant-pbem/adjutant/store"
)

// plays reads Plays for each address.
func plays(t *testing.T, db *store.DB, addrs ...string) map[string]bool {
	t.Helper()
	out := map[string]bool{}
	if err := db.Read(t.Context(), func(tx store.Tx) error {
		for _, a := range addrs {
			ok, err := tx.Plays(a)
			if err != nil {
				return err
			}
			out[a] = ok
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func putGames(t *testing.T, db *store.DB, games ...store.Game) {
	t.Helper()
	if err := db.Write(t.Context(), func(tx store.Tx) error {
		for _, g := range games {
			if err := tx.PutGame(g); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

func game(name string, addrs ...string) store.Game {
	g := store.Game{Name: name, Ruleset: "r"}
	for _, a := range addrs {
		g.Players = append(g.Players, store.Player{Side: a[:1], Address: a})
	}
	return g
}

// TestPlaysIndex (issue 19): Plays answers from the address index, kept by PutGame
// through an address change, in any case of the address, and a prefix of an address
// is not the address.
func TestPlaysIndex(t *testing.T) {
	db, _ := open(t)
	all := []string{"a@x.example", "b@x.example", "c@x.example", "a@x.exampl", "nobody@x.example"}
	putGames(t, db, game("g1", "a@x.example", "b@x.example"), game("g2", "A@X.example", "c@x.example"))
	for _, c := range []struct {
		step  string
		games []store.Game
		want  map[string]bool
	}{
		{"created", nil, map[string]bool{"a@x.example": true, "b@x.example": true, "c@x.example": true}},
		{"c replaced by d in g2", []store.Game{game("g2", "a@x.example", "d@x.example")},
			map[string]bool{"a@x.example": true, "b@x.example": true, "d@x.example": true}},
		{"a leaves g1, still in g2", []store.Game{game("g1", "e@x.example", "b@x.example")},
			map[string]bool{"a@x.example": true, "b@x.example": true, "d@x.example": true, "e@x.example": true}},
		{"a leaves g2", []store.Game{game("g2", "f@x.example", "d@x.example")},
			map[string]bool{"b@x.example": true, "d@x.example": true, "e@x.example": true, "f@x.example": true}},
	} {
		putGames(t, db, c.games...)
		got := plays(t, db, append(all, "d@x.example", "e@x.example", "f@x.example", "A@x.EXAMPLE")...)
		for a, ok := range got {
			want := c.want[a]
			if a == "A@x.EXAMPLE" {
				want = c.want["a@x.example"]
			}
			if ok != want {
				t.Errorf("%s: Plays(%s) = %v, want %v", c.step, a, ok, want)
			}
		}
	}
}

// TestPlaysIndexBuiltOnOpen (issue 19): a store written before the index gets it when
// opened, from its games.
func TestPlaysIndexBuiltOnOpen(t *testing.T) {
	db, path := open(t)
	putGames(t, db, game("g1", "a@x.example", "b@x.example"))
	db.Close()
	// Make it a store from before the index.
	b, err := bolt.Open(path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Update(func(tx *bolt.Tx) error {
		for _, name := range []string{"addresses", "game-addresses", "verifiers"} {
			if err := tx.DeleteBucket([]byte(name)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	b.Close()
	db, err = store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	got := plays(t, db, "a@x.example", "b@x.example", "c@x.example")
	if !got["a@x.example"] || !got["b@x.example"] || got["c@x.example"] {
		t.Errorf("Plays after opening an old store = %v, want a and b", got)
	}
	// And it is kept from then on.
	putGames(t, db, game("g1", "a@x.example", "c@x.example"))
	if got := plays(t, db, "b@x.example", "c@x.example"); got["b@x.example"] || !got["c@x.example"] {
		t.Errorf("Plays after an address change = %v, want c, not b", got)
	}
}

// TestVerifiers: a verifier is kept under its name, and an unknown name has none.
func TestVerifiers(t *testing.T) {
	db, _ := open(t)
	if err := db.Write(t.Context(), func(tx store.Tx) error { return tx.PutVerifier("host", "v1") }); err != nil {
		t.Fatal(err)
	}
	db.Read(t.Context(), func(tx store.Tx) error {
		if v, _ := tx.Verifier("host"); v != "v1" {
			t.Errorf("Verifier(host) = %q, want v1", v)
		}
		if v, _ := tx.Verifier("other"); v != "" {
			t.Errorf("Verifier(other) = %q, want none", v)
		}
		return nil
	})
}

// TestLoadKey: the key file is made once, mode 0600, and read back the same; a file
// others may read, or a damaged one, is refused with what to do.
func TestLoadKey(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.db.key")
	k1, err := store.LoadKey(path)
	if err != nil {
		t.Fatal(err)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode %v, want 0600", info.Mode().Perm())
	}
	k2, err := store.LoadKey(path)
	if err != nil || string(k1) != string(k2) || len(k1) != 32 {
		t.Errorf("second load: %x, %v; want the first key %x", k2, err, k1)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := store.LoadKey(path); err == nil {
		t.Error("a key file others may read was accepted")
	}
	if err := os.WriteFile(path, []byte("short\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o600)
	if _, err := store.LoadKey(path); err == nil {
		t.Error("a damaged key file was accepted")
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("%d files beside the key, want none left over", len(entries)-1)
	}
}
