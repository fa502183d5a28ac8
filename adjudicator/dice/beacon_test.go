package dice_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// quicknet1000 is the randomness of drand quicknet round 1000 (SHA-256 of its
// signature; package beacon verifies the signature).
func quicknet1000(t *testing.T) dice.BeaconValue {
	t.Helper()
	b, err := hex.DecodeString("fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd")
	if err != nil {
		t.Fatal(err)
	}
	return dice.BeaconValue{Round: 1000, Randomness: [32]byte(b)}
}

// TestBeaconMessage holds version 2 of the message to docs/dice.md byte for byte: the
// version tag changes and the round and its randomness follow the orders digest.
func TestBeaconMessage(t *testing.T) {
	bv := quicknet1000(t)
	ctx := dice.Context{Game: "g", Turn: 1, Phase: "I", Beacon: bv}
	want := "00000010" + hex.EncodeToString([]byte("adjutant-dice-v2")) +
		"00000001" + "67" + "00000001" + "31" + "00000001" + "49" + "00000001" + "30" +
		"00000004" + hex.EncodeToString([]byte("roll")) +
		"0000000c" + hex.EncodeToString([]byte("known answer")) +
		"00000001" + "30" + "00000001" + "31" + "00000001" + "36" +
		"00000000" + // orders digest ""
		"00000004" + hex.EncodeToString([]byte("1000")) +
		"00000040" + hex.EncodeToString([]byte("fe290beca10872ef2fb164d2aa4442de4566183ec51c56ff3cd603d930e54fdd"))
	if got := hex.EncodeToString(dice.Message(ctx, 0, dice.KindRoll, "known answer", "0", 1, 6)); got != want {
		t.Fatalf("Message() = %s\nwant        %s", got, want)
	}
	// The first die is the first byte of HMAC-SHA256(seed, M2 || 00000000) under the
	// rejection rule, as a verifier in any language computes it.
	seed := countingSeed()
	msg, _ := hex.DecodeString(want)
	mac := hmac.New(sha256.New, seed[:])
	mac.Write(binary.BigEndian.AppendUint32(msg, 0))
	b := mac.Sum(nil)[0]
	if b >= 252 {
		t.Fatalf("first byte %d is rejected: choose another known answer", b)
	}
	got := dice.NewStream(seed, ctx).Roll(dice.Request{Purpose: "known answer", Rule: "0", Count: 1, Sides: 6})
	if got.Values[0] != int(b)%6+1 {
		t.Fatalf("die %d, first byte %d gives %d", got.Values[0], b, int(b)%6+1)
	}
}

// TestBeaconChangesEveryRoll: the same seed, context and requests give other rolls
// under another round, so that the host, who knows the seed, cannot know a roll before
// the round exists; without a round the message is version 1, as before.
func TestBeaconChangesEveryRoll(t *testing.T) {
	seed := testSeed(t)
	base := testContext()
	rolls := func(ctx dice.Context) []int {
		s := dice.NewStream(seed, ctx)
		var out []int
		for range 40 {
			out = append(out, s.Roll(dice.Request{Purpose: "p", Rule: "1", Count: 2, Sides: 6}).Values...)
		}
		return append(out, s.Shuffle("deck", "1", 52).Values...)
	}
	v1 := rolls(base)
	withA, withB := base, base
	withA.Beacon = quicknet1000(t)
	withB.Beacon = quicknet1000(t)
	withB.Beacon.Round = 1001
	a, b := rolls(withA), rolls(withB)
	if slices.Equal(a, v1) || slices.Equal(a, b) {
		t.Fatal("the beacon round does not change the rolls")
	}
	withC := withA
	withC.Beacon.Randomness[31] ^= 1
	if slices.Equal(rolls(withC), a) {
		t.Fatal("the beacon randomness does not change the rolls")
	}
	if !strings.HasPrefix(string(dice.Message(base, 0, "roll", "p", "1", 2, 6)[4:]), "adjutant-dice-v1") {
		t.Fatal("a context without a beacon is no longer version 1")
	}
	// Verify re-derives under the same beacon, and fails under another.
	s := dice.NewStream(seed, withA)
	r := s.Roll(dice.Request{Purpose: "p", Rule: "1", Count: 3, Sides: 6})
	if err := dice.Verify(seed, withA, r); err != nil {
		t.Fatal(err)
	}
	bad := 0
	for range 5 {
		r = s.Roll(dice.Request{Purpose: "p", Rule: "1", Count: 3, Sides: 6})
		if dice.Verify(seed, withB, r) != nil {
			bad++
		}
	}
	if bad == 0 {
		t.Fatal("five rolls verify under another round")
	}
}

// TestBeaconIsNeverTheOnlySecret: the round is public once published; knowing it and
// every other field, but not the seed, gives other rolls, so a player learns nothing
// of the rolls to come before the seed is revealed.
func TestBeaconIsNeverTheOnlySecret(t *testing.T) {
	ctx := testContext()
	ctx.Beacon = quicknet1000(t)
	guess := dice.NewStream(countingSeed(), ctx)
	real := dice.NewStream(testSeed(t), ctx)
	same := 0
	for range 50 {
		req := dice.Request{Purpose: "p", Rule: "1", Count: 1, Sides: 6}
		if guess.Roll(req).Values[0] == real.Roll(req).Values[0] {
			same++
		}
	}
	// Independent d6: about 1 in 6 agree; all 50 agreeing would mean the round decides.
	if same > 25 {
		t.Fatalf("%d of 50 rolls agree under another seed and the same round", same)
	}
}
