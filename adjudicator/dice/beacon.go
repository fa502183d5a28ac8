package dice

import (
	"encoding/binary"
	"encoding/hex"
	"strconv"
)

// versionBeacon is the first field of the message of a roll that mixes in a public
// beacon round: version 2 of the message, which appends two fields to version 1's,
//
//	M2 = F("adjutant-dice-v2") || F(game) || F(turn) || F(phase) || F(index) ||
//	     F(kind) || F(purpose) || F(rule) || F(count) || F(sides) ||
//	     F(ordersDigest) || F(round) || F(randomness)
//
// round in decimal ASCII and randomness, SHA-256 of the round's signature, as its 64
// lowercase hex characters. The key is still the turn's seed: the beacon value is
// public, so it must never be the only secret (the seed keeps the host's commitment,
// the round keeps anybody, the host included, from knowing a roll before it exists).
const versionBeacon = "adjutant-dice-v2"

// BeaconValue is a published beacon round as it enters a roll: its number and its
// randomness (SHA-256 of its signature). Verifying the round's signature is package
// beacon's; this package only mixes the value in.
type BeaconValue struct {
	Round      uint64
	Randomness [32]byte
}

// IsZero reports whether no beacon round is given (a game without the beacon).
func (b BeaconValue) IsZero() bool { return b.Round == 0 }

func (b BeaconValue) appendFields(m []byte) []byte {
	at := len(m)
	m = append(m, 0, 0, 0, 0)
	m = strconv.AppendUint(m, b.Round, 10)
	binary.BigEndian.PutUint32(m[at:], uint32(len(m)-at-4))
	m = binary.BigEndian.AppendUint32(m, uint32(hex.EncodedLen(len(b.Randomness))))
	return hex.AppendEncode(m, b.Randomness[:])
}
