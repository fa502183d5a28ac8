package adjudicator

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/adjutant-pbem/adjutant/store"
)

// A finished game leaves the live store as an archive (store.Archive): its complete
// record in one file that `adjutant replay` and `adjutant audit verify` read as they
// read the store (through store.ArchiveStore). The archive holds the host's public key
// and no private one, so replay checks each results mail's signature instead of
// signing again (archivedSignature): Ed25519 is deterministic, so the two are the same
// check.

// ArchiveOf reads the complete record of a finished game from the live store.
func (d *Desk) ArchiveOf(ctx context.Context, game string) (store.Archive, error) {
	g, err := d.readGame(ctx, game)
	if err != nil {
		return store.Archive{}, fmt.Errorf("archive %s: %w", game, err)
	}
	if !g.Over {
		return store.Archive{}, fmt.Errorf("archive %s: the game is not over (only a finished game leaves the live store)", game)
	}
	a, err := d.liveRecord(ctx, game, store.ReadGameArchive)
	if err != nil {
		return store.Archive{}, fmt.Errorf("archive %s: %w", game, err)
	}
	a.Archived = d.now()
	return a, nil
}

// liveRecord reads a game's record from the live store with read (store.ReadGameArchive
// or store.ReadGameRecord), with the host's public key and the audit export.
func (d *Desk) liveRecord(ctx context.Context, game string, read func(store.Tx, string) (store.Archive, error)) (store.Archive, error) {
	var export bytes.Buffer
	if err := d.ExportAudit(ctx, game, "json", &export); err != nil {
		return store.Archive{}, err
	}
	var a store.Archive
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		if a, err = read(tx, game); err != nil {
			return err
		}
		key, err := storedHostKey(tx)
		if err != nil {
			return err
		}
		a.HostPublicKey = hex.EncodeToString(key.Public().(ed25519.PublicKey))
		return nil
	})
	a.AuditExport = export.Bytes()
	return a, err
}

// ArchiveCheck is what checking an archive found.
type ArchiveCheck struct {
	Audit  AuditReport
	Replay ReplayReport
}

// CheckArchive verifies an archive on its own, as `adjutant audit verify --archive` and
// `adjutant replay --archive` do: the audit chain and every signed head of its results
// mails, its audit export, and the replay of every phase and results mail.
func (d *Desk) CheckArchive(ctx context.Context, a store.Archive) (ArchiveCheck, error) {
	var c ArchiveCheck
	ad := &Desk{Store: store.ArchiveStore{A: a}, Rulesets: d.Rulesets, Address: d.Address, ResultsLayout: d.ResultsLayout}
	var err error
	if c.Audit, err = ad.VerifyAudit(ctx, a.Game.Name); err != nil {
		return c, fmt.Errorf("archive of %s: %w", a.Game.Name, err)
	}
	if len(a.AuditExport) > 0 {
		if _, err := VerifyExport(bytes.NewReader(a.AuditExport)); err != nil {
			return c, fmt.Errorf("archive of %s: its audit export: %w", a.Game.Name, err)
		}
	}
	if c.Replay, err = ad.Replay(ctx, a.Game.Name); err != nil {
		return c, fmt.Errorf("archive of %s: %w", a.Game.Name, err)
	}
	return c, nil
}

// VerifierNames are the names of a game's password verifiers, which leave the store
// with the game.
func VerifierNames(g store.Game) []string {
	var out []string
	for _, p := range g.Players {
		out = append(out, verifierName(g.Name, p.Side))
	}
	return out
}

// ErrMatchPending is returned when a game to archive is the first of a match whose
// second game is still in the live store: that game reads it.
var ErrMatchPending = errors.New("the second game of its match is still in the live store")

// CheckArchivable refuses a game that another live game still needs: the first game of
// a match, while the second is in the store (it reads the first's players).
func (d *Desk) CheckArchivable(ctx context.Context, game string) error {
	return d.EachGame(ctx, func(_ store.Tx, g store.Game) error {
		if g.MatchOf == game && !g.Over {
			return fmt.Errorf("archive %s: %w (%s)", game, ErrMatchPending, g.Name)
		}
		return nil
	})
}

// EachGame calls fn with every game of the store, in one read transaction, until fn
// fails.
func (d *Desk) EachGame(ctx context.Context, fn func(tx store.Tx, g store.Game) error) error {
	return d.Store.Read(ctx, func(tx store.Tx) error {
		names, err := tx.GameNames()
		if err != nil {
			return err
		}
		for _, n := range names {
			g, err := tx.Game(n)
			if err != nil {
				return err
			}
			if err := fn(tx, g); err != nil {
				return err
			}
		}
		return nil
	})
}

// publicKeyHolder is a transaction that holds the host's public key only: an archive's.
type publicKeyHolder interface{ HostPublicKey() string }

// archivedHostKey is the host public key of an archive's transaction, nil for the live
// store's (or an archive whose key is unreadable: its signatures then fail to verify).
func archivedHostKey(tx store.Tx) ed25519.PublicKey {
	h, ok := tx.(publicKeyHolder)
	if !ok {
		return nil
	}
	pub, err := hex.DecodeString(h.HostPublicKey())
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return ed25519.PublicKey(make([]byte, ed25519.PublicKeySize)) // verifies nothing
	}
	return pub
}

// archivedSignature is the signature of an archive's results mails of journal entry j
// (replaySignature checked the head): the one they carry, checked against the head
// and the host's public key, in the form the mails show it.
func archivedSignature(game string, b *batch, j store.JournalEntry, pub ed25519.PublicKey, mails map[string]store.OutMail) (string, error) {
	if len(j.MailIDs) == 0 {
		return "", nil
	}
	m, ok := mails[j.MailIDs[0]]
	if !ok {
		return "", fmt.Errorf("mail %s is not in the archive", j.MailIDs[0])
	}
	s, err := ParseSigned(m.Body)
	if err != nil {
		return "", fmt.Errorf("results mail %s: %w", m.MessageID, err)
	}
	last := b.steps[len(b.steps)-1]
	want := Signed{Game: game, Turn: last.Turn, Phase: last.Phase, Seq: j.AuditSeq, Head: j.AuditHead, Signature: s.Signature}
	if err := want.Verify(pub); err != nil {
		return "", fmt.Errorf("results mail %s: %w", m.MessageID, err)
	}
	return signatureText(want, pub), nil
}
