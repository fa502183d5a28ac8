package adjudicator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"unicode"

	"github.com/adjutant-pbem/adjutant/store"
)

// Password verifiers.
//
// Why a verifier and not a budget: a mail forged From a player's address cannot be told
// from the player's own except by its password, so any budget of bcrypt checks per
// player or per sender that a flood can spend also locks the player out. A verifier
// recognises the right password (and refuses a wrong one) in a microsecond, with no
// bcrypt at all, so a flood costs nothing and the right password always opens.
//
// Why keyed with a secret outside the store: a verifier is a fast hash. Kept unkeyed
// beside the bcrypt hash, a copy of the store (a backup, a stolen file) would give an
// offline guesser its speed instead of bcrypt's. Keyed (HMAC-SHA256) with
// Desk.PasswordKey, which the daemon keeps in <db>.key beside the store, not in it, the
// copy alone gives nothing to guess against.
//
// A verifier is bound to the bcrypt hash it was made for and to the key: after a
// password change, a new key file or on a player who never had one, it is not current,
// and the password is checked by bcrypt (within the hourly budget of MaxFailedChecks
// failures), after which a current verifier is kept. It is made when a game is created
// and at the first successful bcrypt check of a player of an older store.

// verifierVersion starts every verifier, so that the scheme can change.
const verifierVersion = "v1"

// verifierName is the name under which the verifier of a game's side is kept.
func verifierName(game, side string) string { return "player\x00" + game + "\x00" + side }

// hostVerifierName is the name of the host password's verifier.
const hostVerifierName = "host"

func (d *Desk) mac(parts ...string) []byte {
	m := hmac.New(sha256.New, d.PasswordKey)
	for _, p := range parts {
		m.Write([]byte(p))
		m.Write([]byte{0})
	}
	return m.Sum(nil)
}

// verifier makes the verifier of password against the bcrypt hash it opens: the
// version, a tag of the hash and the key, and the HMAC of the password. "" when the
// desk has no key.
func (d *Desk) verifier(hash, password string) string {
	if len(d.PasswordKey) == 0 || hash == "" {
		return ""
	}
	return verifierVersion + "." + d.verifierTag(hash) + "." + hex.EncodeToString(d.mac("password", hash, password))
}

func (d *Desk) verifierTag(hash string) string {
	return hex.EncodeToString(d.mac("hash", hash)[:8])
}

// verifierCurrent reports whether v was made for hash with the desk's key: then it
// alone decides whether a password is right.
func (d *Desk) verifierCurrent(v, hash string) bool {
	if len(d.PasswordKey) == 0 || hash == "" {
		return false
	}
	ver, rest, ok := strings.Cut(v, ".")
	if !ok || ver != verifierVersion {
		return false
	}
	tag, _, ok := strings.Cut(rest, ".")
	return ok && hmac.Equal([]byte(tag), []byte(d.verifierTag(hash)))
}

// verifies reports whether password is the one the current verifier v was made of.
func (d *Desk) verifies(v, hash, password string) bool {
	return hmac.Equal([]byte(v), []byte(d.verifier(hash, password)))
}

// validPassword reports whether a password holds no control character and nothing
// the mail could not decode (U+FFFD, which the mail reader puts for both): such a
// password is refused unchecked, never matched with the bytes around it.
func validPassword(pw string) bool {
	for _, r := range pw {
		if unicode.IsControl(r) || r == '\uFFFD' {
			return false
		}
	}
	return true
}

// keepVerifiers stores the verifiers of a new game's players: of the passwords made or
// given for it, and, for a password carried over from the first game of a match, that
// game's verifier, made for the same hash.
func (d *Desk) keepVerifiers(tx store.Tx, g, first store.Game, creds []Credentials) error {
	if len(d.PasswordKey) == 0 {
		return nil
	}
	for _, c := range creds {
		p, _ := findPlayer(g, c.Address)
		v := ""
		if c.new {
			v = d.verifier(p.PassHash, c.Password)
		} else if prev, ok := findPlayer(first, c.Address); ok {
			var err error
			if v, err = tx.Verifier(verifierName(first.Name, prev.Side)); err != nil {
				return err
			}
		}
		if v == "" {
			continue
		}
		if err := tx.PutVerifier(verifierName(g.Name, p.Side), v); err != nil {
			return err
		}
	}
	return nil
}
