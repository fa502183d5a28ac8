package store

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// ArchiveFormat names the form of an archive file; a change of the form must change it.
const ArchiveFormat = "adjutant-archive-v1"

// Archive is the complete record of one game as it leaves the live store: everything
// `adjutant replay` and `adjutant audit verify` read (the game, its orders, seeds,
// sealed groups, audit chain, journal and every mail it sent), and the host's public
// key. The file form is gzipped JSON ([WriteArchive], [ReadArchive]); [ArchiveStore]
// serves it read-only as a [Store], so that the same replay and verification run on it.
//
// It holds no password: the players' bcrypt hashes are left out, and every mail was
// masked when it was sent. It holds no private key either: replay checks the results
// mails' signatures with HostPublicKey instead of signing again.
type Archive struct {
	Format   string    `json:"format"`
	Archived time.Time `json:"archived"`
	Game     Game      `json:"game"`
	Orders   []Order   `json:"orders"`
	Seeds    []Seed    `json:"seeds"`
	// Groups are the sealed groups of the game's orders (Tx.SealedGroup), by group.
	Groups  map[string][]string `json:"groups,omitempty"`
	Audit   []AuditEntry        `json:"audit"`
	Journal []JournalEntry      `json:"journal"`
	// Mails are every mail of the game, in outbox order, as they were sent.
	Mails []OutMail `json:"mails"`
	// HostPublicKey is the host's Ed25519 public key in hex (the desk fills it in: the
	// store knows nothing of the key's use).
	HostPublicKey string `json:"host_public_key"`
	// AuditExport is the game's audit export (the desk's JSON, `adjutant audit
	// export`), kept as the desk wrote it.
	AuditExport json.RawMessage `json:"audit_export,omitempty"`
}

// ErrMailsPending is returned by [ReadGameArchive] while mails of the game are still
// to be sent: removing the game then would lose them.
var ErrMailsPending = errors.New("mails of the game are still to be sent")

// ReadGameArchive reads a game's complete record in tx. Every mail of the game must be
// sent or given up ([ErrMailsPending] otherwise).
func ReadGameArchive(tx Tx, game string) (Archive, error) {
	a, err := ReadGameRecord(tx, game)
	if err != nil {
		return a, err
	}
	pending := 0
	for _, m := range a.Mails {
		if !m.Sent && !m.Failed {
			pending++
		}
	}
	if pending > 0 {
		return a, fmt.Errorf("archive %s: %d %w", game, pending, ErrMailsPending)
	}
	return a, nil
}

// ReadGameRecord reads a game's complete record in tx, as [ReadGameArchive] does, the
// mails still to send included.
func ReadGameRecord(tx Tx, game string) (Archive, error) {
	a := Archive{Format: ArchiveFormat}
	var err error
	if a.Game, err = tx.Game(game); err != nil {
		return a, err
	}
	for i := range a.Game.Players {
		a.Game.Players[i].PassHash = "" // not needed to replay; kept out of the file
	}
	if a.Orders, err = tx.Orders(game); err != nil {
		return a, fmt.Errorf("read orders of %s: %w", game, err)
	}
	if a.Seeds, err = tx.Seeds(game); err != nil {
		return a, fmt.Errorf("read seeds of %s: %w", game, err)
	}
	for _, o := range a.Orders {
		if o.Group == "" || a.Groups[o.Group] != nil {
			continue
		}
		cs, err := tx.SealedGroup(game, o.Group)
		if err != nil {
			return a, fmt.Errorf("read sealed group of %s: %w", game, err)
		}
		if cs != nil {
			if a.Groups == nil {
				a.Groups = map[string][]string{}
			}
			a.Groups[o.Group] = cs
		}
	}
	if a.Audit, err = tx.Audit(game); err != nil {
		return a, fmt.Errorf("read audit of %s: %w", game, err)
	}
	if a.Journal, err = tx.Journal(game); err != nil {
		return a, fmt.Errorf("read journal of %s: %w", game, err)
	}
	mails, err := tx.GameOutbox(game) // this game's, not the store's (issue 23)
	if err != nil {
		return a, fmt.Errorf("read mails of %s: %w", game, err)
	}
	for _, m := range mails {
		m.Pictures = nil // drawn for the player's eyes once, as the outbox drops them
		a.Mails = append(a.Mails, m)
	}
	return a, nil
}

// WriteArchive writes a as gzipped JSON.
func WriteArchive(w io.Writer, a Archive) error {
	zw := gzip.NewWriter(w)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(a); err != nil {
		return fmt.Errorf("write archive of %s: %w", a.Game.Name, err)
	}
	if err := zw.Close(); err != nil {
		return fmt.Errorf("write archive of %s: %w", a.Game.Name, err)
	}
	return nil
}

// maxArchive bounds what ReadArchive inflates: a game's record is a few MB; a file that
// inflates beyond this is not one.
const maxArchive = 1 << 30

// ReadArchive reads an archive file written by [WriteArchive].
func ReadArchive(r io.Reader) (Archive, error) {
	var a Archive
	zr, err := gzip.NewReader(r)
	if err != nil {
		return a, fmt.Errorf("read archive: not a gzipped archive: %w", err)
	}
	dec := json.NewDecoder(io.LimitReader(zr, maxArchive))
	if err := dec.Decode(&a); err != nil {
		return a, fmt.Errorf("read archive: %w", err)
	}
	if a.Format != ArchiveFormat {
		return a, fmt.Errorf("read archive: format %q, this program reads %q", a.Format, ArchiveFormat)
	}
	if a.Game.Name == "" {
		return a, errors.New("read archive: it names no game")
	}
	return a, nil
}

// RemoveGame deletes a game from the live store: its record, its per-game buckets,
// its mails (which must all be sent or given up), its players' place in the address
// index, and the verifiers named. The processed-message records stay, so that a mail
// of the game delivered again is still recognised as handled (invariant 1).
func (d *DB) RemoveGame(ctx context.Context, game string, verifiers []string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.bolt.Update(func(tx *bolt.Tx) error {
		name := []byte(game)
		if tx.Bucket(bucketGames).Get(name) == nil {
			return fmt.Errorf("remove game %s: %w", game, ErrNotFound)
		}
		// The game's mails, found through the outbox's index by game (gameoutbox.go),
		// go with their index entries; its deadline leaves the due index (due.go).
		out, pending, idx := tx.Bucket(bucketOutbox), tx.Bucket(bucketPending), tx.Bucket(bucketOutboxGame)
		prefix := append([]byte(game), 0)
		var gone [][]byte
		c := idx.Cursor()
		for k, _ := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix) && len(k) == len(prefix)+8; k, _ = c.Next() {
			seq := k[len(prefix):]
			if pending.Get(seq) != nil {
				return fmt.Errorf("remove game %s: outbox mail %d: %w", game, binary.BigEndian.Uint64(seq), ErrMailsPending)
			}
			gone = append(gone, slices.Clone(k))
		}
		for _, k := range gone {
			if err := out.Delete(k[len(prefix):]); err != nil {
				return fmt.Errorf("remove game %s: mail %x: %w", game, k, err)
			}
			if err := idx.Delete(k); err != nil {
				return fmt.Errorf("remove game %s: unindex mail %x: %w", game, k, err)
			}
		}
		due, of := tx.Bucket(bucketDue), tx.Bucket(bucketDueOf)
		if key := of.Get(name); key != nil {
			if err := due.Delete(key); err != nil {
				return fmt.Errorf("remove game %s: its deadline: %w", game, err)
			}
			if err := of.Delete(name); err != nil {
				return fmt.Errorf("remove game %s: its deadline: %w", game, err)
			}
		}
		if err := deleteRecords(tx, game); err != nil {
			return fmt.Errorf("remove game %s: its records: %w", game, err)
		}
		byGame := tx.Bucket(bucketGameAddresses)
		if old := byGame.Get(name); len(old) > 0 {
			for _, a := range strings.Split(string(old), "\n") {
				if err := tx.Bucket(bucketAddresses).Delete(addressKey(a, game)); err != nil {
					return fmt.Errorf("remove game %s: unindex %s: %w", game, a, err)
				}
			}
		}
		if err := byGame.Delete(name); err != nil {
			return fmt.Errorf("remove game %s: %w", game, err)
		}
		for _, v := range verifiers {
			if err := tx.Bucket(bucketVerifiers).Delete([]byte(v)); err != nil {
				return fmt.Errorf("remove game %s: verifier: %w", game, err)
			}
		}
		return tx.Bucket(bucketGames).Delete(name)
	})
}

// ArchiveStore serves an [Archive] as a read-only [Store] of one game: replay and audit
// verification read it as they read the live store. Every write fails with
// [ErrArchiveReadOnly].
type ArchiveStore struct{ A Archive }

// ErrArchiveReadOnly is what a write to an [ArchiveStore] fails with.
var ErrArchiveReadOnly = errors.New("an archived game is read-only")

var _ Store = ArchiveStore{}

// Read implements [Store].
func (s ArchiveStore) Read(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return fn(archiveTx{&s.A})
}

// Write implements [Store]: it fails.
func (s ArchiveStore) Write(ctx context.Context, fn func(Tx) error) error {
	return ErrArchiveReadOnly
}

// Identity implements [Store]: an archive has none (it sends nothing).
func (s ArchiveStore) Identity() Identity { return Identity{} }

// archiveTx is a read transaction on an archive; the copies it returns are the
// caller's to change.
type archiveTx struct{ a *Archive }

func (t archiveTx) has(game string) bool { return game == t.a.Game.Name }

func (t archiveTx) Game(name string) (Game, error) {
	if !t.has(name) {
		return Game{}, fmt.Errorf("game %s: %w (the archive holds %s)", name, ErrNotFound, t.a.Game.Name)
	}
	var g Game
	raw, err := json.Marshal(t.a.Game) // a deep copy: the caller may change it
	if err == nil {
		err = json.Unmarshal(raw, &g)
	}
	return g, err
}

func (t archiveTx) GameNames() ([]string, error) { return []string{t.a.Game.Name}, nil }

func (t archiveTx) Processed(string) (bool, error) { return false, nil }

func (t archiveTx) Orders(game string) ([]Order, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Orders), nil
}

func (t archiveTx) Seeds(game string) ([]Seed, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Seeds), nil
}

func (t archiveTx) Audit(game string) ([]AuditEntry, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Audit), nil
}

func (t archiveTx) AuditHead(game string) (AuditEntry, error) {
	if !t.has(game) || len(t.a.Audit) == 0 {
		return AuditEntry{}, nil
	}
	return t.a.Audit[len(t.a.Audit)-1], nil
}

// HostKey implements [Tx]: an archive holds no private key (nil, as a store without one).
func (t archiveTx) HostKey() ([]byte, error) { return nil, nil }

func (t archiveTx) Journal(game string) ([]JournalEntry, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Journal), nil
}

func (t archiveTx) Outbox() ([]OutMail, error) { return slices.Clone(t.a.Mails), nil }

func (t archiveTx) OutMailAt(seq uint64) (OutMail, error) {
	for _, m := range t.a.Mails {
		if m.Seq == seq {
			return m, nil
		}
	}
	return OutMail{}, fmt.Errorf("outbox mail %d: %w", seq, ErrNotFound)
}

func (t archiveTx) PendingHeads() ([]OutMail, error) { return nil, nil }

func (t archiveTx) LastOutMail(match func(OutMail) bool) (OutMail, bool, error) {
	for i := len(t.a.Mails) - 1; i >= 0; i-- {
		if match(t.a.Mails[i]) {
			return t.a.Mails[i], true, nil
		}
	}
	return OutMail{}, false, nil
}

func (t archiveTx) SealedGroup(game, group string) ([]string, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Groups[group]), nil
}

func (t archiveTx) Throttle(string) (Throttle, error) { return Throttle{}, nil }

func (t archiveTx) Plays(address string) (bool, error) {
	for _, p := range t.a.Game.Players {
		if strings.EqualFold(p.Address, address) {
			return true, nil
		}
	}
	return false, nil
}

func (t archiveTx) Verifier(string) (string, error) { return "", nil }

// HostPublicKey is the archive's host public key, in hex: what replay and audit
// verification check signatures with when the store holds no private key.
func (t archiveTx) HostPublicKey() string { return t.a.HostPublicKey }

// The writes of an archive transaction.

func (archiveTx) PutGame(Game) error                            { return ErrArchiveReadOnly }
func (archiveTx) MarkProcessed(string, Processed) error         { return ErrArchiveReadOnly }
func (archiveTx) PutOrder(string, Order) error                  { return ErrArchiveReadOnly }
func (archiveTx) DeleteOrder(string, Order) error               { return ErrArchiveReadOnly }
func (archiveTx) PutSeed(string, Seed) error                    { return ErrArchiveReadOnly }
func (archiveTx) PutHostKey([]byte) error                       { return ErrArchiveReadOnly }
func (archiveTx) PutOutMail(OutMail) error                      { return ErrArchiveReadOnly }
func (archiveTx) PutSealedGroup(string, string, []string) error { return ErrArchiveReadOnly }
func (archiveTx) PutDelivery(OutMail) error                     { return ErrArchiveReadOnly }
func (archiveTx) PutThrottle(string, Throttle) error            { return ErrArchiveReadOnly }
func (archiveTx) PutVerifier(string, string) error              { return ErrArchiveReadOnly }
func (archiveTx) AppendAudit(string, AuditEntry) (AuditEntry, error) {
	return AuditEntry{}, ErrArchiveReadOnly
}
func (archiveTx) AppendJournal(string, JournalEntry) (JournalEntry, error) {
	return JournalEntry{}, ErrArchiveReadOnly
}
func (archiveTx) Enqueue(OutMail) (OutMail, error)         { return OutMail{}, ErrArchiveReadOnly }
func (archiveTx) MarkSent(uint64, time.Time) (bool, error) { return false, ErrArchiveReadOnly }
func (archiveTx) PurgeThrottles(time.Time) (int, error)    { return 0, ErrArchiveReadOnly }
