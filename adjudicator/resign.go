package adjudicator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base32"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// Resigning cannot be undone, so a RESIGN alone only answers with a code, and a second
// mail RESIGN <code> (with the password, as every mail) ends the game. A RESIGN the
// player never meant (a hidden line, a forwarded mail, a slip of the finger) then ends
// nothing.
//
// The code is not stored: it is an HMAC, under a key derived from the store's host key
// (which no player sees), of the game, the side, the player's address and password
// hash, and the day it was issued. It is the same for a player all day, another player
// (the opponent) cannot compute it, and it lapses after ResignCodeDays or when the
// side's player changes.

// ResignCodeDays is how many days a RESIGN code stays valid.
const ResignCodeDays = 7

// resignEncoding writes codes without the letters read as digits (Crockford's base32).
var resignEncoding = base32.NewEncoding("0123456789ABCDEFGHJKMNPQRSTVWXYZ").WithPadding(base32.NoPadding)

// resignCode is the code of p in game for the day of at, grouped in fours:
// "7K3Q-M2XD-PW4A-9HTB" (80 bits).
func (h *handling) resignCode(game string, p store.Player, at time.Time) (string, error) {
	return h.keyedCode("adjutant resign code v1", at, game, p.Side, strings.ToLower(p.Address), p.PassHash)
}

// keyedCode is a code only the desk can make, for the day of at: an HMAC under a key
// derived from the host key and domain (what the code is for) of fields, in Crockford's
// base32 grouped in fours.
func (h *handling) keyedCode(domain string, at time.Time, fields ...string) (string, error) {
	key, err := h.desk.hostKey(h.tx)
	if err != nil {
		return "", err
	}
	sub := hmac.New(sha256.New, key.Seed())
	sub.Write([]byte(domain))
	mac := hmac.New(sha256.New, sub.Sum(nil))
	for _, f := range append(fields, at.UTC().Format(time.DateOnly)) {
		mac.Write([]byte(f))
		mac.Write([]byte{0})
	}
	code := resignEncoding.EncodeToString(mac.Sum(nil)[:10])
	return code[:4] + "-" + code[4:8] + "-" + code[8:12] + "-" + code[12:], nil
}

// resignCodeOK reports whether written is a code of p's issued today or on one of the
// ResignCodeDays days before (so it holds at least ResignCodeDays days from its mail),
// as the player may copy it: in any case, with or without dashes.
func (h *handling) resignCodeOK(game string, p store.Player, written string) (bool, error) {
	return h.codeOK(written, func(at time.Time) (string, error) { return h.resignCode(game, p, at) })
}

// codeOK reports whether written is the code code gives for today or one of the
// ResignCodeDays days before, as a player may copy it: in any case, with or without
// dashes.
func (h *handling) codeOK(written string, code func(at time.Time) (string, error)) (bool, error) {
	norm := func(s string) string {
		// Crockford's base32 reads O as 0 and I and L as 1.
		return strings.NewReplacer("-", "", " ", "", "O", "0", "I", "1", "L", "1").Replace(strings.ToUpper(s))
	}
	got := norm(written)
	for back := range ResignCodeDays + 1 {
		want, err := code(h.now.AddDate(0, 0, -back))
		if err != nil {
			return false, err
		}
		if hmac.Equal([]byte(got), []byte(norm(want))) {
			return true, nil
		}
	}
	return false, nil
}
