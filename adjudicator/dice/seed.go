package dice

import (
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
)

// Seed is a game turn's secret: 32 bytes drawn from crypto/rand, committed to
// by SHA-256 when the turn opens, revealed when it ends.
//
// Until the turn is over a Seed must reach no one (invariant 5): its String
// method prints the secret, so never log or mail an unrevealed Seed.
type Seed [32]byte

// NewSeed draws a fresh seed from r, or from crypto/rand.Reader if r is nil.
// A reader is accepted so that tests and the demo can use a fixed source; in
// production r is nil. An error (a short read) is wrapped as "draw seed: %w".
func NewSeed(r io.Reader) (Seed, error) {
	if r == nil {
		r = rand.Reader
	}
	var s Seed
	if _, err := io.ReadFull(r, s[:]); err != nil {
		return Seed{}, fmt.Errorf("draw seed: %w", err)
	}
	return s, nil
}

// ParseSeed reads a seed written as 64 hexadecimal digits, in lower or upper
// case, as a results mail or an archive carries it. The error never quotes the
// input, since an unrevealed seed pasted by mistake must not be echoed back.
func ParseSeed(s string) (Seed, error) {
	var seed Seed
	if len(s) != 2*len(seed) {
		return Seed{}, fmt.Errorf("parse seed: want %d hex digits, got %d characters", 2*len(seed), len(s))
	}
	if _, err := hex.Decode(seed[:], []byte(s)); err != nil {
		return Seed{}, errors.New("parse seed: not a hexadecimal string")
	}
	return seed, nil
}

// String returns the seed as 64 lowercase hex digits: the form in which it is
// revealed. It prints the secret itself.
func (s Seed) String() string {
	return hex.EncodeToString(s[:])
}

// Commitment returns the lowercase hex SHA-256 of the 32 raw seed bytes (not
// of their hex form): the value published when the turn opens.
func (s Seed) Commitment() string {
	sum := sha256.Sum256(s[:])
	return hex.EncodeToString(sum[:])
}

// CheckSeed returns nil if and only if s.Commitment() equals commitment
// exactly (lowercase hex, as published). The comparison takes the same time
// wherever the strings differ, so that the check reveals nothing through
// timing (invariant 5), even where it runs on a seed not yet public.
func CheckSeed(s Seed, commitment string) error {
	if subtle.ConstantTimeCompare([]byte(s.Commitment()), []byte(commitment)) != 1 {
		return errors.New("dice: seed does not match its commitment")
	}
	return nil
}
