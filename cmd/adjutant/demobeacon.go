package main

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
)

// demoBeacon is the demo's beacon: a local relay on loopback serving real recorded
// quicknet rounds (beacon.Recorded), on a simulated clock that the demo moves on, so
// that the minute each phase waits for its round passes at once.
type demoBeacon struct {
	mu    sync.Mutex
	clock time.Time
	relay *beacon.Recorded
	srv   *http.Server
	url   string
}

// demoBeaconPeriod is the recorded relay's period on the simulated clock.
const demoBeaconPeriod = time.Minute

func startDemoBeacon(start time.Time) (*demoBeacon, error) {
	b := &demoBeacon{clock: start}
	b.relay = &beacon.Recorded{Rounds: beacon.RecordedRounds(), Start: start, Period: demoBeaconPeriod, Now: b.now}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("demo beacon: listen: %w", err)
	}
	b.srv = &http.Server{Handler: b.relay, ReadHeaderTimeout: 5 * time.Second}
	b.url = "http://" + ln.Addr().String()
	go func() {
		if err := b.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			b.srv.ErrorLog.Printf("demo beacon: %v", err)
		}
	}()
	return b, nil
}

func (b *demoBeacon) now() time.Time {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.clock
}

func (b *demoBeacon) set(t time.Time) {
	b.mu.Lock()
	b.clock = t
	b.mu.Unlock()
}

func (b *demoBeacon) close() { _ = b.srv.Close() }

func (b *demoBeacon) source() adjudicator.BeaconSource {
	return beacon.Source{Schedule: b.relay, Client: &beacon.Client{URL: b.url, Chain: beacon.Quicknet}}
}

// settle moves the clock on, a tick at a time, until no game waits for a beacon round;
// tick runs `adjutant tick` and returns what it printed. It returns how many rounds
// came in.
func (b *demoBeacon) settle(tick func() (string, error)) (int, error) {
	in := 0
	for range 50 {
		b.set(b.now().Add(2 * demoBeaconPeriod))
		out, err := tick()
		if err != nil {
			return in, err
		}
		n := strings.Count(out, "phase resolved")
		if n == 0 && !strings.Contains(out, "beacon round") {
			return in, nil
		}
		in += n
	}
	return in, errors.New("demo beacon: games still wait for beacon rounds after 50 ticks")
}
