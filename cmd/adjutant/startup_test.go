package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// gatedStore holds the deadline tick, once it has read the due games (after that read
// transaction, so that no transaction waits), until a mail has been handled (its
// message marked processed), and says whether it had to give up waiting.
type gatedStore struct {
	store.Store
	handled  chan struct{}
	once     sync.Once
	mu       sync.Mutex
	gaveUp   bool
	answered bool // a mail was handled while the tick waited
}

type gatedTx struct {
	store.Tx
	s      *gatedStore
	sawDue *bool
}

func (t gatedTx) MarkProcessed(id string, p store.Processed) error {
	err := t.Tx.MarkProcessed(id, p)
	t.s.once.Do(func() { close(t.s.handled) })
	return err
}

func (t gatedTx) DueGames(now time.Time) ([]string, error) {
	*t.sawDue = true
	return t.Tx.DueGames(now)
}

func (s *gatedStore) Read(ctx context.Context, fn func(store.Tx) error) error {
	saw := false
	err := s.Store.Read(ctx, func(tx store.Tx) error { return fn(gatedTx{tx, s, &saw}) })
	if saw {
		s.mu.Lock()
		defer s.mu.Unlock()
		select {
		case <-s.handled:
			s.answered = true
		case <-time.After(20 * time.Second): // the intake is not running: it waits for this tick
			s.gaveUp = true
		}
	}
	return err
}

func (s *gatedStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	var saw bool
	return s.Store.Write(ctx, func(tx store.Tx) error { return fn(gatedTx{tx, s, &saw}) })
}

// TestStartupAnswersBeforeTheTick: a daemon that starts with a mail waiting answers it
// while its first deadline tick is still running: the tick runs beside the intake, not
// before it (issue 23: a tick over 10,000 games kept a restart deaf for 15 s).
func TestStartupAnswersBeforeTheTick(t *testing.T) {
	r := newRig(t)
	const id = "startup-1@players.example"
	raw := eml(scripted{From: sampleUS, Subject: "status", Body: ordersFor(samplePassUS, "STATUS\n")}, sampleAddress, id, time.Now())
	if err := r.srv.Deliver(sampleAddress, raw); err != nil {
		t.Fatal(err)
	}
	e := &env{ctx: r.ctx, stdin: strings.NewReader(""), stdout: io.Discard, stderr: r.logs, cost: 4}
	d, err := newDaemon(e, r.cfg, slog.New(slog.NewTextHandler(r.logs, nil)))
	if err != nil {
		t.Fatal(err)
	}
	gate := &gatedStore{Store: d.desk.Store, handled: make(chan struct{})}
	d.desk.Store = gate
	ctx, cancel := context.WithCancel(r.ctx)
	done := make(chan error, 1)
	go func() { done <- d.run(ctx) }()
	r.reply(r.us, id)
	// The first tick has looked at the due games (or given up) once the reply is out;
	// wait for it before reading what it saw.
	for {
		gate.mu.Lock()
		seen := gate.answered || gate.gaveUp
		gate.mu.Unlock()
		if seen {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("daemon stopped with %v", err)
	}
	if gate.gaveUp {
		t.Error("the first deadline tick ran before the intake answered the waiting mail")
	}
}
