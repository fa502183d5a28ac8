package store_test

// Benchmarks of the store for BENCHMARKS.md (issue 5, item 3): what one message's
// transaction costs with an fsync per commit, what group commit (several messages' writes
// in one transaction) would change, and two costs of the outbox drain. `make bench`
// runs them and prints their figures in its table.

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

func benchOpen(b *testing.B) *store.DB {
	b.Helper()
	db, err := store.Open(filepath.Join(b.TempDir(), "bench.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	return db
}

// benchReplyBody is the size of a typical order check (about 2.5 KB).
var benchReplyBody = strings.Repeat("  line 3: PLOT TURN 1 1911x3, 3603x3, 1401x3, 2901x3\n      ok: sealed: 12 marker(s) for turn 1 [rule 3.2]\n", 24)

const benchGames = 200

// benchMessage writes what handling one order mail writes at least: its processed mark,
// its reply in the outbox, and two audit entries of its game (a roll and, say, a commit).
func benchMessage(tx store.Tx, i int, now time.Time) error {
	id := fmt.Sprintf("bench-%d@players.example", i)
	game := fmt.Sprintf("g%04d", i%benchGames)
	if err := tx.MarkProcessed(id, store.Processed{At: now, Game: game, Outcome: "handled"}); err != nil {
		return err
	}
	if _, err := tx.Enqueue(store.OutMail{
		MessageID: fmt.Sprintf("adjutant-%024x@localhost", i), To: []string{"us-" + game + "@players.example"},
		Subject: "[" + game + "] Order check", Body: benchReplyBody, InReplyTo: id, References: []string{id},
		AutoReplied: true, Game: game, Side: "us", Kind: "reply", Queued: now,
	}); err != nil {
		return err
	}
	for k := range 2 {
		e := store.AuditEntry{Time: now, Kind: "roll", Turn: 1, Phase: "I", Index: 2*i + k,
			Purpose: "12.2 US bombardment of 1911 at 2:1, German infantry platoon 1 of 3", Rule: "10.8",
			Count: 1, Sides: 6, Values: []int{3}, Result: 3, OrdersDigest: strings.Repeat("ab", 32)}
		if _, err := tx.AppendAudit(game, e); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkGroupCommit writes N messages' worth in each Write. N=1 is today's structure,
// one Write (one fsync) per message; N>1 is what a group commit of N waiting messages
// would cost per message.
func BenchmarkGroupCommit(b *testing.B) {
	for _, size := range []int{1, 4, 16, 64} {
		b.Run(fmt.Sprintf("N=%d", size), func(b *testing.B) {
			db := benchOpen(b)
			ctx := context.Background()
			now := time.Now()
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				err := db.Write(ctx, func(tx store.Tx) error {
					for range size {
						if err := benchMessage(tx, n, now); err != nil {
							return err
						}
						n++
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "msgs/s")
		})
	}
}

// BenchmarkMarkSent compares the sender's marking of accepted mails: one Write per mail
// (mail/send.go today) against one Write for the mails of a pass (20 here).
func BenchmarkMarkSent(b *testing.B) {
	for _, perTx := range []int{1, 20} {
		name := "one-tx-per-mail"
		if perTx > 1 {
			name = "one-tx-per-pass"
		}
		b.Run(name, func(b *testing.B) {
			db := benchOpen(b)
			ctx := context.Background()
			now := time.Now()
			var queued []store.OutMail
			n := 0
			b.ReportAllocs()
			for b.Loop() {
				if len(queued) < perTx {
					b.StopTimer()
					err := db.Write(ctx, func(tx store.Tx) error {
						for range 1000 {
							m, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@localhost", n+len(queued)), To: []string{"p@players.example"},
								Subject: "Order check", Body: benchReplyBody, Kind: "reply", Queued: now})
							if err != nil {
								return err
							}
							queued = append(queued, m)
						}
						return nil
					})
					if err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				batch := queued[:perTx]
				queued = queued[perTx:]
				err := db.Write(ctx, func(tx store.Tx) error {
					for _, m := range batch {
						m.Sent, m.SentAt, m.Attempts = true, now, 1
						if err := tx.PutOutMail(m); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
				n += perTx
			}
			b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "mails/s")
		})
	}
}

// benchOutbox is a store with the 7,200 mails the 2,000-mail burst of `make bench`
// leaves in the outbox (200 games x 36 mails: invitations, replies, notices, results),
// all sent but the last 10.
func benchOutbox(b *testing.B) *store.DB {
	const mails = 7200
	db := benchOpen(b)
	now := time.Now()
	err := db.Write(context.Background(), func(tx store.Tx) error {
		for i := range mails {
			m, err := tx.Enqueue(store.OutMail{MessageID: fmt.Sprintf("m%d@localhost", i), To: []string{"p@players.example"},
				Subject: "Order check", Body: benchReplyBody, Kind: "reply", Queued: now, Game: fmt.Sprintf("g%03d", i%200)})
			if err != nil {
				return err
			}
			m.Sent, m.SentAt = i < mails-10, now
			if err := tx.PutOutMail(m); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db
}

// BenchmarkOutboxRead reads the whole outbox, as `adjutant outbox` does (the sender
// reads the pending heads only, RESEND the heads from the newest back, replay and
// audit verify one game's mails: BenchmarkGameOutboxRead), with 7,200 mails.
func BenchmarkOutboxRead(b *testing.B) {
	db := benchOutbox(b)
	b.ReportAllocs()
	for b.Loop() {
		err := db.Read(context.Background(), func(tx store.Tx) error {
			all, err := tx.Outbox()
			if err == nil && len(all) != 7200 {
				err = fmt.Errorf("%d mails", len(all))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(7200, "mails")
}

// BenchmarkGameOutboxRead reads one game's mails (36) out of the same 7,200, as replay
// and audit verify do.
func BenchmarkGameOutboxRead(b *testing.B) {
	db := benchOutbox(b)
	b.ReportAllocs()
	for b.Loop() {
		err := db.Read(context.Background(), func(tx store.Tx) error {
			mine, err := tx.GameOutbox("g007")
			if err == nil && len(mine) != 36 {
				err = fmt.Errorf("%d mails", len(mine))
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(7200, "mails")
	b.ReportMetric(36, "game-mails")
}

// BenchmarkDeflate is the cost of storing one mail body: deflating it with a reused
// writer (putMail's pool).
func BenchmarkDeflate(b *testing.B) {
	db := benchOpen(b)
	body := strings.Repeat(benchReplyBody, 4)
	b.ReportAllocs()
	for b.Loop() {
		if err := db.Write(context.Background(), func(tx store.Tx) error {
			_, err := tx.Enqueue(store.OutMail{To: []string{"p@example.org"}, Subject: "s", Body: body, Kind: "reply"})
			return err
		}); err != nil {
			b.Fatal(err)
		}
	}
}
