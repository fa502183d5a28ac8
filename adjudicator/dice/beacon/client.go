package beacon

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// ErrNotYet is returned by [Client.Fetch] for a round the chain has not published yet.
var ErrNotYet = errors.New("beacon: round not published yet")

// Client fetches rounds from a drand HTTP relay (GET {URL}/{chain hash}/public/{round})
// and verifies each against Chain before returning it: a relay is trusted for
// nothing.
type Client struct {
	URL   string // e.g. https://api.drand.sh
	Chain Chain
	HTTP  *http.Client // http.DefaultClient when nil
}

// roundJSON is a round as drand's HTTP API writes it.
type roundJSON struct {
	Round      uint64 `json:"round"`
	Randomness string `json:"randomness,omitempty"`
	Signature  string `json:"signature"`
}

// Fetch returns round n, verified. A round not published yet is ErrNotYet (drand
// answers 425 Too Early, older relays 404); any other failure is an error saying
// what went wrong, and the caller keeps waiting.
func (c *Client) Fetch(ctx context.Context, n uint64) (Round, error) {
	url := strings.TrimSuffix(c.URL, "/") + "/" + c.Chain.Hash + "/public/" + strconv.FormatUint(n, 10)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return Round{}, fmt.Errorf("beacon: fetch round %d: %w", n, err)
	}
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return Round{}, fmt.Errorf("beacon: fetch round %d: %w", n, err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
	case http.StatusTooEarly, http.StatusNotFound:
		return Round{}, fmt.Errorf("round %d from %s: %w", n, c.URL, ErrNotYet)
	default:
		return Round{}, fmt.Errorf("beacon: fetch round %d from %s: %s", n, c.URL, resp.Status)
	}
	var rj roundJSON
	if err := json.NewDecoder(io.LimitReader(resp.Body, 1<<16)).Decode(&rj); err != nil {
		return Round{}, fmt.Errorf("beacon: fetch round %d: decode: %w", n, err)
	}
	if rj.Round != n {
		return Round{}, fmt.Errorf("beacon: asked for round %d, got round %d", n, rj.Round)
	}
	r, err := ParseRound(rj.Round, rj.Signature)
	if err != nil {
		return Round{}, err
	}
	if err := c.Chain.Verify(r); err != nil {
		return Round{}, err
	}
	if rand := r.Randomness(); rj.Randomness != "" && rj.Randomness != hex.EncodeToString(rand[:]) {
		return Round{}, fmt.Errorf("beacon: round %d: randomness is not SHA-256 of the signature", n)
	}
	return r, nil
}

func writeRound(w http.ResponseWriter, r Round) {
	rand := r.Randomness()
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(roundJSON{Round: r.Number, Randomness: hex.EncodeToString(rand[:]), Signature: hex.EncodeToString(r.Signature)})
}

// Schedule says which round is the first published at or after a time: [Chain] by its
// genesis and period, [Recorded] by its list.
type Schedule interface {
	RoundAt(t time.Time) (uint64, time.Time)
}

// Source names rounds by a Schedule and fetches them with a Client: what the desk
// needs of the beacon (adjudicator.BeaconSource).
type Source struct {
	Schedule Schedule
	Client   *Client
}

// RoundAt is the Schedule's.
func (s Source) RoundAt(t time.Time) (uint64, time.Time) { return s.Schedule.RoundAt(t) }

// Fetch is the Client's.
func (s Source) Fetch(ctx context.Context, n uint64) (Round, error) { return s.Client.Fetch(ctx, n) }
