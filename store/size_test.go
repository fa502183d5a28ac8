package store_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// A game's records as a game of Soissons 1918 wrote them (the old demo game kept in
// adjudicator/testdata/oldgames, 51 advances, 102 results mails): what the size figures
// below fill a store with, so that the texts deflate as a real game's do.
type sampleRecords struct {
	game    store.Game
	audit   []store.AuditEntry
	journal []store.JournalEntry
	results []store.OutMail
	orders  []store.Order
}

func loadSampleRecords(tb testing.TB) sampleRecords {
	tb.Helper()
	db, err := store.Open(store.OpenSoissons(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var s sampleRecords
	err = db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		if s.game, err = tx.Game("soissons"); err != nil {
			return err
		}
		if s.audit, err = tx.Audit("soissons"); err != nil {
			return err
		}
		if s.journal, err = tx.Journal("soissons"); err != nil {
			return err
		}
		if s.results, err = tx.GameOutbox("soissons"); err != nil {
			return err
		}
		for _, j := range s.journal {
			for _, st := range j.Steps {
				s.orders = append(s.orders, st.Orders...)
			}
		}
		return nil
	})
	if err != nil || len(s.audit) == 0 || len(s.journal) == 0 || len(s.results) == 0 || len(s.orders) == 0 {
		tb.Fatalf("sample records: %v (%d audit entries, %d journal entries, %d mails, %d orders)", err, len(s.audit), len(s.journal), len(s.results), len(s.orders))
	}
	return s
}

// sizeRun fills a store with games played as the bench's peak-RSS run plays them: each
// game created with two invitations, then mailsPerGame order mails, one Write each:
// the processed mark, an order check, the orders filed, eight rolls, and every second
// mail an advance (a journal entry, two results mails, the state rewritten). Then the
// sender marks every mail sent, 256 a Write. It returns the store, still open, and the
// order mails handled.
func sizeRun(tb testing.TB, s sampleRecords, games, mailsPerGame int) (*store.DB, int) {
	tb.Helper()
	dir := tb.TempDir()
	if d := os.Getenv("SIZE_DIR"); d != "" { // to look at the file afterwards
		dir = d
	}
	db, err := store.Open(filepath.Join(dir, fmt.Sprintf("size-%d-%d.db", games, mailsPerGame)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	mail := func(tx store.Tx, game, side, kind, body string) error {
		_, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("<%s-%d@adjutant.example>", game, now.UnixNano()), To: []string{side + "@" + game + ".example"},
			Subject: "[" + game + "] " + kind, Body: body, Game: game, Side: side, Kind: kind, Queued: now})
		return err
	}
	name := func(g int) string { return fmt.Sprintf("game%05d", g) }
	for g := range games {
		err := db.Write(ctx, func(tx store.Tx) error {
			game := s.game
			game.Name = name(g)
			game.Players = append([]store.Player(nil), s.game.Players...)
			for i := range game.Players {
				game.Players[i].Address = game.Players[i].Side + "@" + game.Name + ".example"
			}
			if err := tx.PutGame(game); err != nil {
				return err
			}
			for _, p := range game.Players {
				if err := mail(tx, game.Name, p.Side, "invite", s.results[0].Body); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	handled, audit, journal, results, orders := 0, 0, 0, 0, 0
	for m := range mailsPerGame {
		for g := range games {
			game := name(g)
			now = now.Add(time.Second)
			err := db.Write(ctx, func(tx store.Tx) error {
				if err := tx.MarkProcessed(fmt.Sprintf("<in-%s-%d@players.example>", game, m), store.Processed{At: now, Game: game, Outcome: "handled"}); err != nil {
					return err
				}
				gr, err := tx.Game(game)
				if err != nil {
					return err
				}
				o := s.orders[orders%len(s.orders)]
				orders++
				if err := tx.PutOrder(game, o); err != nil {
					return err
				}
				r := s.results[results%len(s.results)]
				if err := mail(tx, game, o.Side, "reply", r.Body[:min(len(r.Body), 2600)]); err != nil {
					return err
				}
				for range 8 {
					e := s.audit[audit%len(s.audit)]
					audit++
					if _, err := tx.AppendAudit(game, e); err != nil {
						return err
					}
				}
				if m%2 == 1 {
					if _, err := tx.AppendJournal(game, s.journal[journal%len(s.journal)]); err != nil {
						return err
					}
					journal++
					for _, p := range gr.Players {
						r := s.results[results%len(s.results)]
						results++
						if err := mail(tx, game, p.Side, "results", r.Body); err != nil {
							return err
						}
					}
					// The state changes with every advance.
					var st map[string]any
					if err := json.Unmarshal(gr.State, &st); err != nil {
						return err
					}
					st["advance"] = m
					if gr.State, err = json.Marshal(st); err != nil {
						return err
					}
				}
				return tx.PutGame(gr)
			})
			if err != nil {
				tb.Fatal(err)
			}
			handled++
		}
	}
	for {
		var heads []store.OutMail
		err := db.Read(ctx, func(tx store.Tx) error {
			var err error
			heads, err = tx.PendingHeads()
			return err
		})
		if err != nil {
			tb.Fatal(err)
		}
		if len(heads) == 0 {
			break
		}
		err = db.Write(ctx, func(tx store.Tx) error {
			for _, h := range heads[:min(len(heads), 256)] {
				if _, err := tx.MarkSent(h.Seq, now); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			tb.Fatal(err)
		}
	}
	return db, handled
}

// BenchmarkStoreSize reports the live store's bytes a mail in (the file's size over
// the order mails handled, the games' creation included) after games of 2 and 10 mails
// each, and where they go, bucket by bucket (go test -run '^$' -bench StoreSize -v
// ./store/ prints the table).
func BenchmarkStoreSize(b *testing.B) {
	s := loadSampleRecords(b)
	for _, c := range []struct{ games, mails int }{{300, 2}, {300, 10}} {
		b.Run(fmt.Sprintf("games=%d/mails=%d", c.games, c.mails), func(b *testing.B) {
			var space store.Space
			var handled int
			for b.Loop() {
				db, n := sizeRun(b, s, c.games, c.mails)
				var err error
				if space, err = db.Space(context.Background()); err != nil {
					b.Fatal(err)
				}
				handled = n
			}
			b.ReportMetric(float64(space.FileSize)/float64(handled), "file-bytes/mail")
			used := 0
			for _, bk := range space.Buckets {
				used += bk.Alloc + bk.Inline
			}
			b.ReportMetric(float64(used)/float64(handled), "page-bytes/mail")
			b.Logf("%d games, %d mails in:\n%s", c.games, handled, space)
		})
	}
}
