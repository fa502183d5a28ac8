// Package beacon verifies rounds of drand's quicknet chain, the public randomness
// beacon a game played with `--dice beacon` mixes into its rolls (docs/dice.md), and
// fetches them over drand's HTTP API.
//
// A quicknet round n is a BLS signature on G1 (48 bytes compressed) by the League of
// Entropy's threshold key on G2 (96 bytes compressed) of SHA-256 of n as 8 bytes
// big-endian, hashed to the curve as RFC 9380 says with the domain separation tag
// "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_" (drand's scheme
// "bls-unchained-g1-rfc9380"); its randomness is SHA-256 of the signature. The pairing
// is circl's: this package writes no curve arithmetic.
//
// Verification is pure: it reads no clock and no network. [Client] is the only code
// that talks HTTP, and [Recorded] serves real recorded rounds on loopback for tests and
// the demo, which cannot reach the internet.
package beacon

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/cloudflare/circl/sign/bls"
)

// Scheme is the drand scheme this package verifies.
const Scheme = "bls-unchained-g1-rfc9380"

// DST is the domain separation tag quicknet hashes the round's message to G1 with. It
// is circl's for a signature on G1 (KeyG2SigG1); a test holds the two equal.
const DST = "BLS_SIG_BLS12381G1_XMD:SHA-256_SSWU_RO_NUL_"

// Chain is what a verifier must know of a drand chain: its public key and, to name a
// round by the time it is published, its genesis and period. Hash is the chain hash
// the HTTP API is addressed by.
type Chain struct {
	PublicKey []byte // the group key on G2, 96 bytes compressed
	Hash      string // hex
	Genesis   time.Time
	Period    time.Duration
}

// Quicknet is drand's quicknet chain on the League of Entropy mainnet (its /info).
var Quicknet = Chain{
	PublicKey: mustHex("83cf0f2896adee7eb8b5f01fcad3912212c437e0073e911fb90022d3e760183c8c4b450b6a0a6c3ac6a5776a2d1064510d1fec758c921cc22b0e17e63aaf4bcb5ed66304de9cf809bd274ca73bab4af5a6e9c76a4bc09e76eae8991ef5ece45a"),
	Hash:      "52db9ba70e0cc0f6eaf7803dd07447a1f5477735fd3f661792ba94600c84e971",
	Genesis:   time.Unix(1692803367, 0).UTC(),
	Period:    3 * time.Second,
}

// Round is one published beacon round.
type Round struct {
	Number    uint64
	Signature []byte // 48 bytes, a compressed G1 point
}

// Randomness is the round's public random value: SHA-256 of its signature.
func (r Round) Randomness() [32]byte {
	return sha256.Sum256(r.Signature)
}

// Message is what round n's signature signs: SHA-256 of n as 8 bytes big-endian.
func Message(n uint64) []byte {
	sum := sha256.Sum256(binary.BigEndian.AppendUint64(nil, n))
	return sum[:]
}

// ErrBadSignature is returned for a round whose signature the chain's key did not make.
var ErrBadSignature = errors.New("beacon: signature does not verify under the chain's public key")

// Verify checks that r's signature is the chain's signature of round r.Number.
func (c Chain) Verify(r Round) error {
	var pk bls.PublicKey[bls.KeyG2SigG1]
	if err := pk.UnmarshalBinary(c.PublicKey); err != nil {
		return fmt.Errorf("beacon: chain public key: %w", err)
	}
	if len(r.Signature) != 48 {
		return fmt.Errorf("beacon: round %d: signature of %d bytes, want 48", r.Number, len(r.Signature))
	}
	if !bls.Verify(&pk, Message(r.Number), bls.Signature(r.Signature)) {
		return fmt.Errorf("round %d: %w", r.Number, ErrBadSignature)
	}
	return nil
}

// Time is when round n is published: genesis + (n-1) periods (round 1 at genesis).
func (c Chain) Time(n uint64) time.Time {
	if n == 0 {
		return c.Genesis
	}
	return c.Genesis.Add(time.Duration(n-1) * c.Period)
}

// RoundAt is the first round published at or after t, and when it is.
func (c Chain) RoundAt(t time.Time) (uint64, time.Time) {
	if !t.After(c.Genesis) || c.Period <= 0 {
		return 1, c.Genesis
	}
	d := t.Sub(c.Genesis)
	n := uint64(d / c.Period)
	if d%c.Period != 0 {
		n++
	}
	return n + 1, c.Time(n + 1)
}

// ParseRound reads a round from its number and its signature in hex.
func ParseRound(n uint64, sigHex string) (Round, error) {
	sig, err := hex.DecodeString(sigHex)
	if err != nil {
		return Round{}, fmt.Errorf("beacon: round %d: signature: %w", n, err)
	}
	return Round{Number: n, Signature: sig}, nil
}

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}
