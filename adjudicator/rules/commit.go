package rules

import (
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
)

// Commitment is the public commitment to a sealed order: hex SHA-256 of its canonical
// text, a "|" and its salt.
func Commitment(text, salt string) string {
	sum := sha256.Sum256([]byte(text + "|" + salt))
	return hex.EncodeToString(sum[:])
}

// OrdersDigest is the digest of the orders a phase resolved, mixed into every roll of that
// phase. Orders enter by their commitment (salted: the desk gives every order one), so
// that the digest reveals nothing; an order filed before unsealed orders had one enters
// by the SHA-256 of its text, as it did then, so that replay gives the same digest.
func OrdersDigest(inputs []Order) string {
	parts := make([]string, len(inputs))
	for i, o := range inputs {
		body := o.Commitment
		if body == "" {
			sum := sha256.Sum256([]byte(o.Text))
			body = hex.EncodeToString(sum[:])
		}
		parts[i] = o.ID() + "\x00" + body
	}
	sort.Strings(parts)
	sum := sha256.Sum256([]byte(strings.Join(parts, "\n")))
	return hex.EncodeToString(sum[:])
}
