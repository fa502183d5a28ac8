package adjudicator

import (
	"bytes"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/adjutant-pbem/adjutant/store"
)

// Every results mail carries the head of the game's audit chain after the advance it
// reports, and the host's Ed25519 signature over one canonical statement:
//
//	adjutant-results-v1|<game>|<turn>|<phase>|<seq>|<head>
//
// game and phase as MailField writes them (so that no field holds a "|"), turn and seq in
// decimal, seq the number of the chain's last entry and head its hash (64 lowercase hex
// digits); turn and phase are those of the last phase the mail reports. The statement is
// UTF-8 with no line break; the signature is over exactly those bytes. It holds nothing
// secret: the chain head is a hash over rolls, commitments and revealed seeds only.
//
// The body of the mail is not signed: a mail client may re-wrap or re-encode it, and the
// head already fixes every roll (an audit export shows the entries that hash to it).
// Both players receive the same statement and signature, so either can compare them with
// the other's mails or with an exported chain; a host who rewrites the chain later cannot
// make it pass through the heads already mailed, and cannot deny having signed them.
// Ed25519 signatures are deterministic, so replay re-signs and reproduces the mail.

// statementVersion is the first field of the signed statement; a change of its form must
// change it.
const statementVersion = "adjutant-results-v1"

// Signed is one signed statement of a results mail.
type Signed struct {
	Game      string
	Turn      int
	Phase     string
	Seq       uint64 // the chain's last entry
	Head      string // its hash
	Signature []byte
}

// Statement returns the exact bytes signed.
func (s Signed) Statement() string {
	return strings.Join([]string{statementVersion, MailField(s.Game), strconv.Itoa(s.Turn), MailField(s.Phase),
		strconv.FormatUint(s.Seq, 10), s.Head}, "|")
}

// Verify checks the signature with the host's public key.
func (s Signed) Verify(pub ed25519.PublicKey) error {
	if len(pub) != ed25519.PublicKeySize {
		return fmt.Errorf("host key: %d bytes, want %d", len(pub), ed25519.PublicKeySize)
	}
	if !ed25519.Verify(pub, []byte(s.Statement()), s.Signature) {
		return fmt.Errorf("signature over %q does not verify with host key %x", s.Statement(), []byte(pub))
	}
	return nil
}

// signatureText is the mail form of a signed statement, every line within 78 columns:
// the statement broken before its head, the signature in two halves.
func signatureText(s Signed, pub ed25519.PublicKey) string {
	st := s.Statement()
	cut := len(st) - len(s.Head)
	sig := hex.EncodeToString(s.Signature)
	half := len(sig) / 2
	return strings.Join([]string{
		fmt.Sprintf("The audit chain now ends at entry %d. The host's Ed25519 key", s.Seq),
		"  " + hex.EncodeToString(pub),
		"signs this statement (the two lines joined, UTF-8, no line break):",
		"  " + st[:cut],
		"  " + st[cut:],
		"Signature (the two lines joined, 128 hex digits):",
		"  " + sig[:half],
		"  " + sig[half:],
		"Both players receive the same statement and signature: an audit chain",
		"that later does not pass through this head has been rewritten.",
	}, "\n")
}

// hostKeySeed is the stored form of the host key: the 32-byte Ed25519 seed.
const hostKeySeed = ed25519.SeedSize

// hostKey returns the host's signing key, drawing and storing one the first time a game
// needs it (the invitation of the first game the store holds).
func (d *Desk) hostKey(tx store.Tx) (ed25519.PrivateKey, error) {
	raw, err := tx.HostKey()
	if err != nil {
		return nil, fmt.Errorf("read host key: %w", err)
	}
	if raw == nil {
		raw = make([]byte, hostKeySeed)
		if _, err := io.ReadFull(d.rand(), raw); err != nil {
			return nil, fmt.Errorf("draw host key: %w", err)
		}
		if err := tx.PutHostKey(raw); err != nil {
			return nil, err
		}
	}
	if len(raw) != hostKeySeed {
		return nil, fmt.Errorf("host key: stored key has %d bytes, want %d", len(raw), hostKeySeed)
	}
	return d.keys.fromSeed(raw), nil
}

// keyMemo remembers the signing key derived from the stored seed: every order check
// and results mail is signed, and deriving the key (a scalar multiplication) cost as
// much as the signature. It is keyed by the seed itself, so a new stored key is never
// answered with the old one.
type keyMemo struct {
	mu      sync.Mutex
	seed    []byte
	key     ed25519.PrivateKey
	derived atomic.Int64 // for tests: how many keys were derived
}

// fromSeed returns the key of seed, a copy the caller may keep.
func (m *keyMemo) fromSeed(seed []byte) ed25519.PrivateKey {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.key == nil || !bytes.Equal(m.seed, seed) {
		m.derived.Add(1)
		m.seed, m.key = bytes.Clone(seed), ed25519.NewKeyFromSeed(seed)
	}
	return bytes.Clone(m.key)
}

// storedHostKey reads the host's key without creating one.
func storedHostKey(tx store.Tx) (ed25519.PrivateKey, error) {
	raw, err := tx.HostKey()
	if err != nil {
		return nil, fmt.Errorf("read host key: %w", err)
	}
	if raw == nil {
		return nil, errors.New("this store has no host key yet")
	}
	if len(raw) != hostKeySeed {
		return nil, fmt.Errorf("host key: stored key has %d bytes, want %d", len(raw), hostKeySeed)
	}
	return ed25519.NewKeyFromSeed(raw), nil
}

// sign makes the signed statement of a results mail.
func sign(key ed25519.PrivateKey, game string, turn int, phase string, seq uint64, head string) Signed {
	s := Signed{Game: game, Turn: turn, Phase: phase, Seq: seq, Head: head}
	s.Signature = ed25519.Sign(key, []byte(s.Statement()))
	return s
}

// signAdvance records the audit chain's head after an advance in its journal entry and
// returns the signed statement as the results mails show it.
func (d *Desk) signAdvance(tx store.Tx, game string, b *batch, j *store.JournalEntry) (string, error) {
	head, err := tx.AuditHead(game)
	if err != nil {
		return "", fmt.Errorf("sign results of %s: %w", game, err)
	}
	key, err := d.hostKey(tx)
	if err != nil {
		return "", fmt.Errorf("sign results of %s: %w", game, err)
	}
	j.AuditSeq, j.AuditHead = head.Seq, head.Hash
	return signedText(key, game, b, head.Seq, head.Hash), nil
}

// signedText signs the head of an advance that resolved b's steps; replay calls it with
// the head its journal recorded.
func signedText(key ed25519.PrivateKey, game string, b *batch, seq uint64, head string) string {
	last := b.steps[len(b.steps)-1]
	return signatureText(sign(key, game, last.Turn, last.Phase, seq, head), key.Public().(ed25519.PublicKey))
}

// ParseSigned reads the signed statement out of a results mail's text.
func ParseSigned(body string) (Signed, error) {
	m := signedBlock.FindStringSubmatch(crlf.Replace(body))
	if m == nil {
		return Signed{}, errors.New("no signed chain head in the mail")
	}
	return signedFrom(m)
}

// signedFrom reads a match of signedBlock: the entry number, the key, the statement's
// two lines and the signature's two.
func signedFrom(m []string) (Signed, error) {
	st := statementRE.FindStringSubmatch(m[3] + m[4])
	if st == nil || st[4] != m[1] {
		return Signed{}, fmt.Errorf("signed statement %q: unreadable, or not of entry %s", m[3]+m[4], m[1])
	}
	s := Signed{Head: st[5]}
	var err error
	if s.Game, err = UnmailField(st[1]); err != nil {
		return s, err
	}
	if s.Phase, err = UnmailField(st[3]); err != nil {
		return s, err
	}
	s.Turn, _ = strconv.Atoi(st[2])
	s.Seq, _ = strconv.ParseUint(st[4], 10, 64)
	if s.Signature, err = hex.DecodeString(m[5] + m[6]); err != nil {
		return s, fmt.Errorf("signature: %w", err)
	}
	return s, nil
}
