package adjudicator

import (
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// An order check is signed with the host's Ed25519 key (the key of the invitation and
// of the signed chain heads), so that a player can prove what Adjutant received and
// answered: a host who later denies a mail, or drops orders it accepted, is shown the
// signed answer. The statement is
//
//	adjutant-ordercheck-v1|<game>|<side>|<time the mail was handled, RFC 3339 UTC>|<text hash>
//
// game written as a quoted field is, and the text hash the SHA-256 (hex) of the order
// check's text above its "== Signed ==" line (the line that opens the block: the
// statement's two lines, then the signature's two, each indented two spaces): its lines without trailing spaces or tabs,
// joined by line feeds, with no line feed at the end (so that a mail client's line
// endings do not matter).
const orderCheckVersion = "adjutant-ordercheck-v1"

// orderCheckMark opens the signed block of an order check.
const orderCheckMark = "== Signed =="

// orderCheckHash is the text hash of an order check's text above its signed block.
func orderCheckHash(text string) string {
	sum := sha256.Sum256([]byte(strings.TrimRight(plainLines(text), "\n")))
	return hex.EncodeToString(sum[:])
}

// plainLines is text with line feeds for line ends and no trailing spaces or tabs.
func plainLines(text string) string {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t")
	}
	return strings.Join(lines, "\n")
}

// signOrderCheck puts the signed block into an order check, before its closing "-- ".
func (d *Desk) signOrderCheck(tx store.Tx, game, side string, now time.Time, body string) (string, error) {
	key, err := d.hostKey(tx)
	if err != nil {
		return "", err
	}
	cut := strings.LastIndex(body, "\n-- \n")
	if cut < 0 {
		cut = len(body)
	}
	above := strings.TrimRight(body[:cut], "\n")
	head := strings.Join([]string{orderCheckVersion, MailField(game), side, now.UTC().Format(time.RFC3339)}, "|") + "|"
	hash := orderCheckHash(above)
	sig := hex.EncodeToString(ed25519.Sign(key, []byte(head+hash)))
	// Five lines, so that a short order check stays short: what they are and how to
	// check them is HELP DICE's (dice-help.txt) and docs/dice.md's.
	block := strings.Join([]string{
		"", "", orderCheckMark + " (the host's key; HELP DICE says how to check)",
		"  " + head,
		"  " + hash,
		"  " + sig[:64],
		"  " + sig[64:],
	}, "\n")
	return above + block + body[cut:], nil
}

var orderCheckBlock = regexp.MustCompile(`(?m)^` + orderCheckMark + `[^\n]*\n  (` + orderCheckVersion + `\|[^\n]*\|)\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})$`)

// VerifyOrderCheck checks the signed block of an order check's text with the host's
// public key: the text above it hashes to the statement's hash and the signature
// verifies. ok is false for a mail that carries no signed block.
func VerifyOrderCheck(body string, pub ed25519.PublicKey) (ok bool, err error) {
	body = plainLines(body)
	m := orderCheckBlock.FindStringSubmatchIndex(body)
	if m == nil {
		return false, nil
	}
	head, hash := body[m[2]:m[3]], body[m[4]:m[5]]
	sig, _ := hex.DecodeString(body[m[6]:m[7]] + body[m[8]:m[9]])
	if got := orderCheckHash(body[:m[0]]); got != hash {
		return true, fmt.Errorf("order check signed for text hash %s, its text above hashes to %s: it was changed", hash, got)
	}
	if len(pub) != ed25519.PublicKeySize || !ed25519.Verify(pub, []byte(head+hash), sig) {
		return true, fmt.Errorf("order check: the signature of %q does not verify with host key %x", head+hash, []byte(pub))
	}
	return true, nil
}
