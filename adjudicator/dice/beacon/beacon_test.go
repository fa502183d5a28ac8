package beacon

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/cloudflare/circl/sign/bls"
)

// TestRecordedRoundsVerify holds every recorded round to the real quicknet key, and the
// randomness drand published for those whose randomness was recorded too.
func TestRecordedRoundsVerify(t *testing.T) {
	var list []roundJSON
	if err := json.Unmarshal(recordedJSON, &list); err != nil {
		t.Fatal(err)
	}
	if len(list) < 5 {
		t.Fatalf("%d recorded rounds", len(list))
	}
	for i, r := range RecordedRounds() {
		if err := Quicknet.Verify(r); err != nil {
			t.Errorf("round %d: %v", r.Number, err)
		}
		if want := list[i].Randomness; want != "" {
			got := r.Randomness()
			if hex.EncodeToString(got[:]) != want {
				t.Errorf("round %d: randomness %x, drand published %s", r.Number, got, want)
			}
		}
	}
}

// TestVerifyRejects: a tampered round fails, whatever is changed.
func TestVerifyRejects(t *testing.T) {
	good := RecordedRounds()[0]
	other := RecordedRounds()[1]
	flip := func(b []byte, i int, x byte) []byte {
		c := append([]byte(nil), b...)
		c[i] ^= x
		return c
	}
	wrongKey := Quicknet
	wrongKey.PublicKey = flip(Quicknet.PublicKey, 95, 1)
	for _, c := range []struct {
		name  string
		chain Chain
		r     Round
	}{
		{"another round's number", Quicknet, Round{Number: good.Number + 1, Signature: good.Signature}},
		{"another round's signature", Quicknet, Round{Number: good.Number, Signature: other.Signature}},
		{"last byte of the signature", Quicknet, Round{Number: good.Number, Signature: flip(good.Signature, 47, 1)}},
		{"a middle byte of the signature", Quicknet, Round{Number: good.Number, Signature: flip(good.Signature, 20, 0x80)}},
		{"the compression flag", Quicknet, Round{Number: good.Number, Signature: flip(good.Signature, 0, 0x20)}},
		{"a short signature", Quicknet, Round{Number: good.Number, Signature: good.Signature[:47]}},
		{"no signature", Quicknet, Round{Number: good.Number}},
		{"another key", wrongKey, good},
	} {
		t.Run(c.name, func(t *testing.T) {
			if err := c.chain.Verify(c.r); err == nil {
				t.Fatal("verified")
			}
		})
	}
}

// TestDST: Verify takes a signature circl makes on G1 (whose tag is DST, the one
// quicknet signs with: the recorded rounds prove it) and the tag is quicknet's.
func TestDST(t *testing.T) {
	priv, err := bls.KeyGen[bls.KeyG2SigG1](make([]byte, 32), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	msg := Message(7)
	sig := bls.Sign(priv, msg)
	pub := priv.PublicKey()
	raw, _ := pub.MarshalBinary()
	c := Chain{PublicKey: raw}
	if err := c.Verify(Round{Number: 7, Signature: sig}); err != nil {
		t.Fatal(err)
	}
	if DST != "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_" {
		t.Fatal(DST)
	}
}

func TestMessage(t *testing.T) {
	// SHA-256 of 00 00 00 00 00 00 03 e8, as sha256sum gives it.
	if got := hex.EncodeToString(Message(1000)); got != "f652498d092acd949bad74e40683bf3824fb817980504a0c7e6722cfc5a9c0a3" {
		t.Fatal(got)
	}
	if hex.EncodeToString(Message(1)) == hex.EncodeToString(Message(256)) {
		t.Fatal("rounds 1 and 256 share a message")
	}
}

func TestRoundAt(t *testing.T) {
	g := Quicknet.Genesis
	for _, c := range []struct {
		t    time.Time
		want uint64
	}{
		{g, 1},
		{g.Add(time.Second), 2},
		{g.Add(3 * time.Second), 2},
		{g.Add(3*time.Second + 1), 3},
		{time.Unix(1692803367+999*3, 0), 1000},
	} {
		n, at := Quicknet.RoundAt(c.t)
		if n != c.want || at.Before(c.t) || !at.Equal(Quicknet.Time(n)) {
			t.Errorf("RoundAt(%v) = %d at %v, want %d", c.t, n, at, c.want)
		}
	}
}

func TestClientAgainstRecordedRelay(t *testing.T) {
	now := time.Date(2026, 11, 28, 8, 0, 0, 0, time.UTC)
	rc := &Recorded{Rounds: RecordedRounds(), Start: now, Period: time.Minute, Now: func() time.Time { return now }}
	srv := httptest.NewServer(rc)
	defer srv.Close()
	cl := &Client{URL: srv.URL, Chain: Quicknet}
	ctx := context.Background()

	n, at := rc.RoundAt(now.Add(30 * time.Second))
	if n != rc.Rounds[1].Number || !at.Equal(now.Add(time.Minute)) {
		t.Fatalf("RoundAt = %d at %v", n, at)
	}
	if _, err := cl.Fetch(ctx, n); !errors.Is(err, ErrNotYet) {
		t.Fatalf("before its slot: %v", err)
	}
	now = at
	r, err := cl.Fetch(ctx, n)
	if err != nil || r.Number != n {
		t.Fatalf("at its slot: %v %v", r, err)
	}
	rc.SetDown(true)
	if _, err := cl.Fetch(ctx, n); err == nil || errors.Is(err, ErrNotYet) {
		t.Fatalf("down: %v", err)
	}
}

// TestClientRejectsForgedRelay: a relay that serves a tampered round is not believed.
func TestClientRejectsForgedRelay(t *testing.T) {
	good := RecordedRounds()[0]
	for _, c := range []struct {
		name string
		body roundJSON
	}{
		{"tampered signature", roundJSON{Round: good.Number, Signature: hex.EncodeToString(append(append([]byte(nil), good.Signature[:47]...), good.Signature[47]^1))}},
		{"another round", roundJSON{Round: good.Number + 1, Signature: hex.EncodeToString(good.Signature)}},
		{"wrong randomness", roundJSON{Round: good.Number, Signature: hex.EncodeToString(good.Signature), Randomness: "00"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_ = json.NewEncoder(w).Encode(c.body)
			}))
			defer srv.Close()
			cl := &Client{URL: srv.URL, Chain: Quicknet}
			if _, err := cl.Fetch(context.Background(), good.Number); err == nil {
				t.Fatal("accepted")
			}
		})
	}
}

func FuzzParseRoundVerify(f *testing.F) {
	good := RecordedRounds()[0]
	f.Add(good.Number, hex.EncodeToString(good.Signature))
	f.Fuzz(func(t *testing.T, n uint64, sig string) {
		r, err := ParseRound(n, sig)
		if err != nil {
			return
		}
		if Quicknet.Verify(r) == nil && (n != good.Number || sig != hex.EncodeToString(good.Signature)) {
			// Only recorded rounds can verify; any other that does is a real round.
			for _, rr := range RecordedRounds() {
				if rr.Number == n {
					return
				}
			}
			t.Fatalf("unknown round %d verified", n)
		}
	})
}
