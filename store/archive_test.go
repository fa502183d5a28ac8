package store_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// twoGames stores games g and h, each with a player, an order, a seed, an audit entry,
// a journal entry and a mail, and a processed message of g.
func twoGames(t *testing.T, db *store.DB) {
	t.Helper()
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	err := db.Write(t.Context(), func(tx store.Tx) error {
		for _, g := range []string{"g", "h"} {
			err := tx.PutGame(store.Game{Name: g, Ruleset: "r", Over: g == "g", Created: at,
				Players: []store.Player{{Side: "us", Address: g + "@players.example", PassHash: "$2a$secret"}}})
			if err != nil {
				return err
			}
			if err := tx.PutOrder(g, store.Order{Phase: "1", Side: "us", Key: "k", Text: "MOVE", Sealed: true, Group: "grp", Filed: at}); err != nil {
				return err
			}
			if err := tx.PutSealedGroup(g, "grp", []string{"c1", "c2"}); err != nil {
				return err
			}
			if err := tx.PutSeed(g, store.Seed{Turn: 1, Secret: "s", Commitment: "c", Revealed: true}); err != nil {
				return err
			}
			if _, err := tx.AppendAudit(g, store.AuditEntry{Kind: "commit", Turn: 1, Value: "c", Time: at}); err != nil {
				return err
			}
			if _, err := tx.AppendJournal(g, store.JournalEntry{Now: at}); err != nil {
				return err
			}
			if _, err := tx.Enqueue(store.OutMail{MessageID: g + "-1@x", To: []string{g + "@players.example"}, Body: "to " + g, Game: g, Side: "us", Kind: "results", Queued: at}); err != nil {
				return err
			}
			if err := tx.PutVerifier("player\x00"+g+"\x00us", "v"); err != nil {
				return err
			}
		}
		return tx.MarkProcessed("m1@players.example", store.Processed{At: at, Game: "g", Outcome: "handled"})
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestArchiveOfAGame: a game's record read whole, written and read back the same, no
// password hash in it; removing the game takes its records, mails, address index and
// verifiers and leaves the other game and the processed messages.
func TestArchiveOfAGame(t *testing.T) {
	db, _ := open(t)
	twoGames(t, db)
	var a store.Archive
	err := db.Read(t.Context(), func(tx store.Tx) error {
		_, err := store.ReadGameArchive(tx, "g")
		if !errors.Is(err, store.ErrMailsPending) {
			t.Errorf("archive with a mail unsent: %v, want ErrMailsPending", err)
		}
		a, err = store.ReadGameRecord(tx, "g")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Orders) != 1 || len(a.Seeds) != 1 || len(a.Audit) != 1 || len(a.Journal) != 1 || len(a.Mails) != 1 ||
		len(a.Groups["grp"]) != 2 || a.Game.Players[0].PassHash != "" || a.Mails[0].Body != "to g" {
		t.Fatalf("record of g: %+v", a)
	}
	var buf bytes.Buffer
	if err := store.WriteArchive(&buf, a); err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(buf.Bytes(), []byte("$2a$")) {
		t.Error("the archive file holds a password hash")
	}
	back, err := store.ReadArchive(bytes.NewReader(buf.Bytes()))
	if err != nil || back.Game.Name != "g" || len(back.Mails) != 1 || back.Audit[0].Hash != a.Audit[0].Hash {
		t.Fatalf("read back: %+v, %v", back, err)
	}
	// Served as a read-only store.
	as := store.ArchiveStore{A: back}
	if err := as.Write(t.Context(), func(store.Tx) error { return nil }); !errors.Is(err, store.ErrArchiveReadOnly) {
		t.Errorf("write to an archive: %v", err)
	}
	as.Read(t.Context(), func(tx store.Tx) error {
		if _, err := tx.Game("h"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("another game from the archive of g: %v", err)
		}
		if err := tx.PutSeed("g", store.Seed{}); !errors.Is(err, store.ErrArchiveReadOnly) {
			t.Errorf("PutSeed on an archive: %v", err)
		}
		return nil
	})

	if err := db.RemoveGame(t.Context(), "g", []string{"player\x00g\x00us"}); !errors.Is(err, store.ErrMailsPending) {
		t.Fatalf("remove with a mail unsent: %v", err)
	}
	db.Write(t.Context(), func(tx store.Tx) error { _, err := tx.MarkSent(a.Mails[0].Seq, time.Now()); return err })
	if err := db.RemoveGame(t.Context(), "g", []string{"player\x00g\x00us"}); err != nil {
		t.Fatal(err)
	}
	db.Read(t.Context(), func(tx store.Tx) error {
		names, _ := tx.GameNames()
		plays, _ := tx.Plays("g@players.example")
		playsH, _ := tx.Plays("h@players.example")
		processed, _ := tx.Processed("m1@players.example")
		v, _ := tx.Verifier("player\x00g\x00us")
		vh, _ := tx.Verifier("player\x00h\x00us")
		out, _ := tx.Outbox()
		audit, _ := tx.Audit("g")
		if mails, err := tx.GameOutbox("g"); err != nil || len(mails) != 0 {
			t.Errorf("after removing g the outbox index lists %d of its mails (%v)", len(mails), err)
		}
		if len(names) != 1 || names[0] != "h" || plays || !playsH || !processed || v != "" || vh == "" || len(out) != 1 || out[0].Game != "h" || len(audit) != 0 {
			t.Errorf("after removing g: games %v, g plays %v, h plays %v, processed %v, verifiers %q %q, outbox %d, audit of g %d",
				names, plays, playsH, processed, v, vh, len(out), len(audit))
		}
		return nil
	})
	if err := db.RemoveGame(t.Context(), "g", nil); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("removing g again: %v", err)
	}
}

// TestCompact: the compacted file holds every record and is smaller once a game's
// records are gone.
func TestCompact(t *testing.T) {
	db, path := open(t)
	twoGames(t, db)
	// Letters at random: records are compressed, and a MB of zeros is a few bytes.
	big := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range big {
		big[i] = 'a' + byte(rng.IntN(26))
	}
	db.Write(t.Context(), func(tx store.Tx) error {
		for i := range 4 {
			if _, err := tx.AppendJournal("g", store.JournalEntry{Notes: []string{string(big[:(i+1)<<18])}}); err != nil {
				return err
			}
		}
		out, _ := tx.Outbox()
		for _, m := range out {
			tx.MarkSent(m.Seq, time.Now())
		}
		return nil
	})
	if err := db.RemoveGame(t.Context(), "g", nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	rep, err := store.Compact(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep.After >= rep.Before {
		t.Errorf("compacted %d bytes, %d before", rep.After, rep.Before)
	}
	db2, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	db2.Read(t.Context(), func(tx store.Tx) error {
		g, err := tx.Game("h")
		out, _ := tx.Outbox()
		if err != nil || g.Name != "h" || len(out) != 1 {
			t.Errorf("after compaction: game h %v, %v; outbox %d", g.Name, err, len(out))
		}
		return nil
	})
}

// FuzzReadArchive: any file read as an archive gives an archive or an error.
func FuzzReadArchive(f *testing.F) {
	var buf bytes.Buffer
	store.WriteArchive(&buf, store.Archive{Format: store.ArchiveFormat, Game: store.Game{Name: "g"}})
	f.Add(buf.Bytes())
	f.Add([]byte("not gzip"))
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(`{"format":"adjutant-archive-v1","game":{"name":""}}`))
	zw.Close()
	f.Add(z.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := store.ReadArchive(bytes.NewReader(data))
		if err == nil && (a.Format != store.ArchiveFormat || a.Game.Name == "") {
			t.Errorf("accepted an archive of format %q, game %q", a.Format, a.Game.Name)
		}
	})
}

// TestGameRecordReadsItsOwnMails: reading a game's record inflates its own mails'
// bodies and no other game's (it read the whole outbox: issue 23).
func TestGameRecordReadsItsOwnMails(t *testing.T) {
	db, _ := open(t)
	ctx := t.Context()
	err := db.Write(ctx, func(tx store.Tx) error {
		for _, g := range []string{"a", "b", "c"} {
			if err := tx.PutGame(store.Game{Name: g}); err != nil {
				return err
			}
			for i := range 5 {
				if _, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("%s%d@x", g, i), Game: g, Kind: "results", Body: strings.Repeat("a line of a map\n", 100)}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	db.Read(ctx, func(tx store.Tx) error {
		before := store.CodecCalls()
		a, err := store.ReadGameRecord(tx, "b")
		if err != nil || len(a.Mails) != 5 {
			t.Fatalf("ReadGameRecord(b) = %d mails, %v", len(a.Mails), err)
		}
		if n := store.CodecCalls() - before; n != 5 {
			t.Errorf("reading the record of a game of 5 mails inflated %d bodies", n)
		}
		return nil
	})
}
