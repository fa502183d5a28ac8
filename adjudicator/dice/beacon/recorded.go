package beacon

import (
	_ "embed"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
)

//go:embed recorded.json
var recordedJSON []byte

// RecordedRounds returns real quicknet rounds recorded from drand's relays (public
// test vectors of drand's and others' repositories), in ascending order. Every one
// verifies under [Quicknet]; a test holds them to it.
func RecordedRounds() []Round {
	var list []roundJSON
	if err := json.Unmarshal(recordedJSON, &list); err != nil {
		panic(err) // embedded at build time: a test reads it
	}
	out := make([]Round, len(list))
	for i, rj := range list {
		r, err := ParseRound(rj.Round, rj.Signature)
		if err != nil {
			panic(err)
		}
		out[i] = r
	}
	return out
}

// Recorded is a schedule and a local relay for machines that cannot reach drand:
// it maps "the round at time t" onto a list of recorded rounds. Slot k (from 0) is
// published at Start + k*Period and holds Rounds[k mod len(Rounds)]: the rounds are
// real and verify under the real key, but their numbers are not those the real chain
// publishes at t, and a long game uses each of them more than once. Fit for tests and
// the demo, never for play.
type Recorded struct {
	Rounds []Round
	Start  time.Time
	Period time.Duration
	// Now is the relay's clock (time.Now when nil): the demo runs on a simulated one.
	Now func() time.Time

	mu   sync.Mutex
	down bool
}

// RoundAt is the round of the first slot at or after t, and when that slot is.
func (rc *Recorded) RoundAt(t time.Time) (uint64, time.Time) {
	k := rc.slotAt(t)
	return rc.Rounds[k%len(rc.Rounds)].Number, rc.Start.Add(time.Duration(k) * rc.Period)
}

func (rc *Recorded) slotAt(t time.Time) int {
	if !t.After(rc.Start) {
		return 0
	}
	d := t.Sub(rc.Start)
	k := int(d / rc.Period)
	if d%rc.Period != 0 {
		k++
	}
	return k
}

// SetDown makes the relay answer 503 to everything (true) or serve again (false), to
// test a beacon that cannot be reached.
func (rc *Recorded) SetDown(down bool) {
	rc.mu.Lock()
	rc.down = down
	rc.mu.Unlock()
}

// ServeHTTP answers drand's GET /{chain hash}/public/{round} for Quicknet's hash: a
// recorded round once the first slot holding it has come, 425 Too Early before.
func (rc *Recorded) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	rc.mu.Lock()
	down := rc.down
	rc.mu.Unlock()
	if down {
		http.Error(w, "beacon down", http.StatusServiceUnavailable)
		return
	}
	rest, ok := strings.CutPrefix(req.URL.Path, "/"+Quicknet.Hash+"/public/")
	n, err := strconv.ParseUint(rest, 10, 64)
	if !ok || err != nil {
		http.NotFound(w, req)
		return
	}
	now := time.Now()
	if rc.Now != nil {
		now = rc.Now()
	}
	last := -1 // the last slot published by now
	if !now.Before(rc.Start) {
		last = int(now.Sub(rc.Start) / rc.Period)
	}
	for i, r := range rc.Rounds {
		if r.Number == n && i <= last {
			writeRound(w, r)
			return
		}
	}
	http.Error(w, "round not published yet", http.StatusTooEarly)
}
