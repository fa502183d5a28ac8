package dice_test

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// countingSeed is the seed 00 01 02 ... 1f used by the known-answer tests.
func countingSeed() dice.Seed {
	var s dice.Seed
	for i := range s {
		s[i] = byte(i)
	}
	return s
}

func TestNewSeed(t *testing.T) {
	fixed := bytes.Repeat([]byte{0xab}, 40)
	tests := []struct {
		name    string
		r       io.Reader
		want    string // hex, when no error
		wantErr error
	}{
		{name: "fixed reader", r: bytes.NewReader(fixed), want: strings.Repeat("ab", 32)},
		{name: "short reader", r: bytes.NewReader(fixed[:31]), wantErr: io.ErrUnexpectedEOF},
		{name: "empty reader", r: bytes.NewReader(nil), wantErr: io.EOF},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dice.NewSeed(tt.r)
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || !strings.HasPrefix(err.Error(), "draw seed: ") {
					t.Fatalf("NewSeed() error = %v, want %q wrapping %v", err, "draw seed: ...", tt.wantErr)
				}
				if got != (dice.Seed{}) {
					t.Errorf("NewSeed() = %v on error, want the zero seed", got)
				}
				return
			}
			if err != nil {
				t.Fatalf("NewSeed() error = %v", err)
			}
			if got.String() != tt.want {
				t.Errorf("NewSeed() = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNewSeedCryptoRand(t *testing.T) {
	a, err := dice.NewSeed(nil)
	if err != nil {
		t.Fatalf("NewSeed(nil) error = %v", err)
	}
	b, err := dice.NewSeed(nil)
	if err != nil {
		t.Fatalf("NewSeed(nil) error = %v", err)
	}
	// Two draws of 256 bits from crypto/rand being equal, or zero, means
	// the reader was not used.
	if a == b || a == (dice.Seed{}) {
		t.Errorf("NewSeed(nil) = %v then %v, want two different random seeds", a, b)
	}
}

func TestParseSeed(t *testing.T) {
	lower := "000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"
	tests := []struct {
		name    string
		in      string
		want    dice.Seed
		wantErr bool
	}{
		{name: "lowercase", in: lower, want: countingSeed()},
		{name: "uppercase", in: strings.ToUpper(lower), want: countingSeed()},
		{name: "mixed case", in: "000102030405060708090A0B0C0D0E0F101112131415161718191a1b1c1d1e1f", want: countingSeed()},
		{name: "empty", in: "", wantErr: true},
		{name: "one digit short", in: lower[:63], wantErr: true},
		{name: "one digit long", in: lower + "0", wantErr: true},
		{name: "not hex", in: "g" + lower[1:], wantErr: true},
		{name: "spaces", in: " " + lower[1:], wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := dice.ParseSeed(tt.in)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("ParseSeed(%q) = %v, want an error", tt.in, got)
				}
				// Invariant 5: a seed pasted by mistake is not echoed.
				if len(tt.in) > 8 && strings.Contains(err.Error(), tt.in[1:9]) {
					t.Errorf("ParseSeed() error %q quotes the input", err)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Errorf("ParseSeed(%q) = %v, %v, want %v, nil", tt.in, got, err, tt.want)
			}
			if got.String() != lower {
				t.Errorf("String() = %v, want %v", got.String(), lower)
			}
		})
	}
}

func TestCommitment(t *testing.T) {
	// SHA-256 of the 32 bytes 00..1f (not of their hex), as any sha256sum
	// of those bytes prints it.
	const want = "630dcd2966c4336691125448bbb25b4ff412a49c732db2c8abc1b8581bd710dd"
	if got := countingSeed().Commitment(); got != want {
		t.Errorf("Commitment() = %v, want %v", got, want)
	}
}

func TestCheckSeed(t *testing.T) {
	seed := countingSeed()
	commitment := seed.Commitment()
	if err := dice.CheckSeed(seed, commitment); err != nil {
		t.Fatalf("CheckSeed(seed, its commitment) = %v, want nil", err)
	}
	for i := range seed {
		for _, mask := range []byte{0x01, 0x80} {
			bad := seed
			bad[i] ^= mask
			if err := dice.CheckSeed(bad, commitment); err == nil {
				t.Errorf("CheckSeed(seed with byte %d ^ %#x) = nil, want an error", i, mask)
			}
		}
	}
	for i := range len(commitment) {
		c := []byte(commitment)
		if c[i] == '0' {
			c[i] = '1'
		} else {
			c[i] = '0'
		}
		if err := dice.CheckSeed(seed, string(c)); err == nil {
			t.Errorf("CheckSeed(commitment with digit %d changed) = nil, want an error", i)
		}
	}
	for _, c := range []string{"", strings.ToUpper(commitment), commitment + "0", commitment[:63], seed.String()} {
		if err := dice.CheckSeed(seed, c); err == nil {
			t.Errorf("CheckSeed(seed, %q) = nil, want an error", c)
		}
	}
}
