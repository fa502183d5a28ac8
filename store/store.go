// Package store keeps Adjutant's games in one bbolt file.
//
// The store knows the shape of a game's records, never a game's rules: a ruleset's state is
// an opaque JSON document to it. Everything that one handled message changes is written in
// one [Store.Update] transaction, so that a crash loses nothing and duplicates nothing
// (DESIGN.md invariants 1 and 2).
//
// # Bucket layout
//
//	meta                      "schema" -> schema version, 8-byte big-endian
//	                          "zdict..." -> the zstd dictionaries (zdict.go)
//	                          "host-key" -> the host's signing key (32-byte Ed25519 seed)
//	                          "store-secret" -> the store's secret, 32 random bytes ([Identity])
//	games                     game name -> Game (JSON, without its states)
//	game-records              game NUL kind key -> the game's own records (records.go):
//	                          orders, seeds, sealed groups, the audit chain (append-only,
//	                          hash-chained), the journal (append-only), its state and the
//	                          state it started from
//	processed                 message id -> Processed (binary, processed.go)
//	outbox                    seq (8-byte BE) -> OutMail: its head (JSON, each picture's view
//	                          deflated in view_z; pictures are dropped once the mail is sent)
//	                          compressed, then its body compressed (outboxrecord.go, zdict.go)
//	outbox-pending            seq (8-byte BE) -> nothing: the mails neither sent nor failed
//	throttle                  address -> Throttle (JSON)
//	addresses                 address NUL game -> nothing: who plays where (kept by PutGame)
//	game-addresses            game -> its players' addresses, one a line (to undo the above)
//	verifiers                 name -> password verifier (the desk's: a player's, the host's)
//	due, due-of               the deadline index (due.go): when the tick must look at a game
//	outbox-game               game NUL seq -> nothing: each game's outbox mails (gameoutbox.go)
//
// A game's own records are one contiguous range of game-records, so that they can be
// walked, exported or deleted together (schema 1 nested a bucket for each kind of them
// under the game's name; Open migrates such a store, migrate.go).
//
// Append-only logs are keyed by sequence numbers from 1 as 8-byte big-endian integers so
// that cursor order is numeric order. Values are copied out of a transaction before it ends (the JSON
// decoding does that). No network I/O ever happens inside a transaction.
package store

import (
	"bytes"
	"compress/flate"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"
)

// SchemaVersion is the version of the bucket layout this code writes. Open migrates a
// store of schema 1 (each game's records in buckets of its own, migrate.go). Schema 3
// is schema 2 with records in forms that a program of schema 2 cannot read (zstd
// bodies and records, compressed heads, chained audit entries, binary processed
// marks): each has a tag of its own, and the records of schema 2 are read as they
// are, so that a store of schema 2 is marked 3 on opening, and a program of schema 2
// refuses it instead of failing on its records.
const SchemaVersion = 3

var (
	bucketMeta      = []byte("meta")
	bucketGames     = []byte("games")
	bucketGame      = []byte("game") // schema 1's, migrated away (migrate.go)
	bucketProcessed = []byte("processed")
	bucketOutbox    = []byte("outbox")
	bucketPending   = []byte("outbox-pending")
	bucketThrottle  = []byte("throttle")

	keySchema  = []byte("schema")
	keyHostKey = []byte("host-key")
)

// ErrNotFound is returned when a named record does not exist.
var ErrNotFound = errors.New("not found")

// Store is what the desk needs of persistent storage. The bbolt implementation is [DB];
// a replicated one (etcd) can take its place without the desk knowing.
type Store interface {
	// Read runs fn in a read-only transaction.
	Read(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in a read-write transaction, committed only when fn returns nil.
	Write(ctx context.Context, fn func(Tx) error) error
	// Identity returns the store's identity, the same for the life of the store.
	Identity() Identity
}

// Tx is one transaction on the store.
type Tx interface {
	Game(name string) (Game, error)
	PutGame(g Game) error
	GameNames() ([]string, error)
	// DueGames returns the games whose deadline tick is due at now ([NextLook]),
	// without reading any other game.
	DueGames(now time.Time) ([]string, error)

	Processed(messageID string) (bool, error)
	MarkProcessed(messageID string, p Processed) error

	PutOrder(game string, o Order) error
	DeleteOrder(game string, o Order) error
	Orders(game string) ([]Order, error)

	PutSeed(game string, s Seed) error
	Seeds(game string) ([]Seed, error)

	AppendAudit(game string, e AuditEntry) (AuditEntry, error)
	Audit(game string) ([]AuditEntry, error)
	// AuditHead returns the last entry of a game's audit chain without reading the
	// others, or the zero entry when the chain is empty.
	AuditHead(game string) (AuditEntry, error)

	// HostKey returns the host's signing key as stored (nil when there is none yet);
	// PutHostKey stores it. The store keeps the bytes and knows nothing of their use.
	HostKey() ([]byte, error)
	PutHostKey(key []byte) error

	AppendJournal(game string, j JournalEntry) (JournalEntry, error)
	Journal(game string) ([]JournalEntry, error)

	Enqueue(m OutMail) (OutMail, error)
	Outbox() ([]OutMail, error)
	// GameOutbox returns the outbox mails of one game, whole, in outbox order, reading
	// no other game's.
	GameOutbox(game string) ([]OutMail, error)
	// OutMailAt returns the outbox mail with sequence number seq.
	OutMailAt(seq uint64) (OutMail, error)
	// PendingHeads returns the mails neither sent nor failed, in outbox order, without
	// reading the ones already sent, and without their bodies and pictures (Body
	// empty, Pictures nil): what the sender decides on, read without inflating a body
	// for every pending mail at every pass. OutMailAt gives a mail whole.
	PendingHeads() ([]OutMail, error)
	// PendingHeadsAfter is PendingHeads of the mails queued after the mail seq: what a
	// sender in the middle of a pass has not seen yet.
	PendingHeadsAfter(seq uint64) ([]OutMail, error)
	// LastOutMail returns the latest outbox mail whose head (the mail without its body
	// and pictures) match accepts, whole, reading the heads from the newest back and no
	// further than that mail; found is false when none does.
	LastOutMail(match func(head OutMail) bool) (m OutMail, found bool, err error)
	PutOutMail(m OutMail) error
	// PutSealedGroup keeps the commitments of the sealed orders of one mail under
	// group, the commitment the other side was mailed for them (Order.Group);
	// SealedGroup returns them, nil when there are none.
	PutSealedGroup(game, group string, commitments []string) error
	SealedGroup(game, group string) ([]string, error)
	// PutDelivery stores the delivery record of m (Sent, SentAt, Failed, Attempts,
	// Refusals, Drops, NextAttempt, LastError) onto the outbox mail m.Seq, whose text
	// and pictures stay as stored (masked and dropped as PutOutMail does once it is
	// sent or given up): m may come from PendingHeads.
	PutDelivery(m OutMail) error
	// MarkSent marks the outbox mail seq sent at at (one more attempt), as PutOutMail
	// of the mail so changed would, without inflating and deflating its body when
	// nothing in it is to be redacted. It reports false for a mail already sent.
	MarkSent(seq uint64, at time.Time) (bool, error)

	Throttle(address string) (Throttle, error)
	PutThrottle(address string, t Throttle) error
	// PurgeThrottles deletes the throttle records whose window started before the given
	// time, and says how many it deleted.
	PurgeThrottles(before time.Time) (int, error)

	// Plays reports whether address is a player's in some game (as PutGame last
	// stored it), without reading any game.
	Plays(address string) (bool, error)
	// Verifier returns the password verifier kept under name ("" when none);
	// PutVerifier keeps one. The desk makes and reads them (they recognise a
	// password without bcrypt); the store keeps the bytes and knows nothing of their
	// use.
	Verifier(name string) (string, error)
	PutVerifier(name, v string) error

	ClubTx // club.go: open games, observers, ratings
}

// Pictures reports whether the player's results mails and MAP replies carry a
// picture of the map besides its text: unless he sent SET PICTURE OFF.
func (p Player) Pictures() bool { return p.Picture != "off" }

// UnmarshalJSON reads a player, and the two-state picture choices of earlier stores
// as the player's explicit choice: "picture": true was SET PICTURE ON when pictures
// were opt-in, "no_picture": true was SET PICTURE OFF before that. (While pictures were
// opt-in a SET PICTURE OFF was stored as nothing at all, like no choice: such a player
// gets the default.)
func (p *Player) UnmarshalJSON(b []byte) error {
	type plain Player // without this method
	var aux struct {
		plain
		On  bool `json:"picture"`
		Off bool `json:"no_picture"`
	}
	if err := json.Unmarshal(b, &aux); err != nil {
		return err
	}
	*p = Player(aux.plain)
	if p.Picture == "" {
		switch {
		case aux.Off:
			p.Picture = "off"
		case aux.On:
			p.Picture = "on"
		}
	}
	return nil
}

// Player is one side's player.
type Player struct {
	Side     string `json:"side"`
	Address  string `json:"address"`
	PassHash string `json:"pass_hash"` // bcrypt; never the password
	// MapMode is the player's SET MAP choice: "full", "changes" or "none" ("" is the
	// default, "changes").
	MapMode string `json:"map_mode,omitempty"`
	// Picture is the player's SET PICTURE choice: "on", "off", or "" for the default,
	// on (see [Player.Pictures]). Stores written before it had three states are read
	// by [Player.UnmarshalJSON].
	Picture string `json:"picture_choice,omitempty"`
	// Thread is the Message-ID of the player's invitation, the root of the thread every
	// later mail of the game refers to.
	Thread string `json:"thread,omitempty"`
	// Bouncing is set when mail to the player came back undelivered (matched by its
	// VERP envelope sender), and cleared by his next accepted mail: deadlines do not
	// give him default orders meanwhile.
	Bouncing bool `json:"bouncing,omitempty"`
	// BouncingSince is when the player was marked bouncing (zero in games marked before
	// it was kept): deadlines wait for a bouncing player no longer than the game's
	// absence allowance, so that a bounce, even one he forged of his own mail, cannot
	// stall the game for good.
	BouncingSince time.Time `json:"bouncing_since,omitempty"`
	// AbsentUntil is the end of the player's announced absence (ABSENT UNTIL): no
	// deadline of the game falls before it. AbsenceUsed is how much of the game's
	// absence allowance he has taken.
	AbsentUntil time.Time     `json:"absent_until,omitzero"`
	AbsenceUsed time.Duration `json:"absence_used,omitempty"`
}

// Game is one game's record.
type Game struct {
	Name    string          `json:"name"`
	Ruleset string          `json:"ruleset"`
	Options map[string]bool `json:"options,omitempty"`
	Players []Player        `json:"players"`
	State   json.RawMessage `json:"state"` // the ruleset's, opaque here
	// Initial is the state the game started from, for replay.
	Initial json.RawMessage `json:"initial,omitempty"`
	Created time.Time       `json:"created"`
	// MatchOf names the first game of a two-game match this game is the second of.
	MatchOf string `json:"match_of,omitempty"`

	// Deadlines (njudge model): each waiting phase has one.
	PhaseLength  time.Duration `json:"phase_length"`
	NoOrders     string        `json:"no_orders"` // "wait" or "default"
	Grace        time.Duration `json:"grace"`
	Deadline     time.Time     `json:"deadline,omitzero"`
	RemindAt     time.Time     `json:"remind_at,omitzero"`
	Reminded     bool          `json:"reminded,omitempty"`
	LateNotified bool          `json:"late_notified,omitempty"`
	Over         bool          `json:"over,omitempty"`
	// Ended says why a game is over before its rules ended it: ended by the host, or
	// a player resigned. Empty when the rules ended it or it goes on.
	Ended string `json:"ended,omitempty"`
	// PausedAt is when the host paused the game (zero: not paused): a paused game runs
	// no deadline; orders are still checked and filed.
	PausedAt time.Time `json:"paused_at,omitzero"`
	// AbsenceLimit is how long in all each player may be absent (ABSENT UNTIL) in this
	// game: 0 is the default, 14 days; negative allows no absence.
	AbsenceLimit time.Duration `json:"absence_limit,omitempty"`
	// Dice is "beacon" for a game whose rolls mix in a public beacon round (`game new
	// --dice beacon`), empty for the turn's seed alone.
	Dice string `json:"dice,omitempty"`
}

// Order is one accepted order block of one side, as canonical text.
type Order struct {
	Phase      string `json:"phase"` // the phase it is for, as the ruleset names it
	Side       string `json:"side"`
	Key        string `json:"key"`               // replacement key within phase and side
	Kind       string `json:"kind"`              // the ruleset's word: "plot", "placement", ...
	Text       string `json:"text"`              // canonical text, what the ruleset re-parses
	Summary    string `json:"summary,omitempty"` // what it is, without its content
	Sealed     bool   `json:"sealed,omitempty"`
	Salt       string `json:"salt,omitempty"`
	Commitment string `json:"commitment,omitempty"` // SHA-256(text | salt)
	// Group is the commitment the other side was mailed for the sealed orders of one
	// mail together: SHA-256 of their commitments, one a line (Tx.SealedGroup), so that
	// the notice tells neither their words nor how many they are. Empty for orders
	// sealed before groups, whose notice gave each commitment.
	Group     string    `json:"group,omitempty"`
	Fixed     bool      `json:"fixed,omitempty"` // may no longer be replaced
	Revealed  bool      `json:"revealed,omitempty"`
	MessageID string    `json:"message_id"`
	Filed     time.Time `json:"filed"`
}

func (o Order) storeKey() []byte { return []byte(o.Phase + "|" + o.Side + "|" + o.Key) }

// Seed is a turn's dice seed. Secret is the hex seed; it is revealed when the turn ends.
// The seed stored under Turn [DeckSeedTurn] is the game's deck seed instead, from which
// a ruleset with sealed card decks shuffles them; it is revealed when the game ends.
type Seed struct {
	Turn       int    `json:"turn"`
	Secret     string `json:"secret"`
	Commitment string `json:"commitment"`
	Revealed   bool   `json:"revealed,omitempty"`
}

// DeckSeedTurn is the Turn under which a game's deck seed is stored: no turn has it.
const DeckSeedTurn = -1

// AuditEntry is one link of a game's audit chain: a roll, a shuffle, a seed commitment or a
// seed reveal. Hash is SHA-256 over Prev and the entry's other fields ([AuditEntry.ComputeHash]).
type AuditEntry struct {
	Seq  uint64    `json:"seq"`
	Time time.Time `json:"time"`
	// Kind is "roll", "shuffle", "commit", "reveal", or for sealed decks "deck-commit",
	// "deck-shuffle", "card", "deck-reveal".
	Kind         string `json:"kind"`
	Turn         int    `json:"turn"`
	Phase        string `json:"phase,omitempty"`
	Index        int    `json:"index"`
	Purpose      string `json:"purpose,omitempty"`
	Rule         string `json:"rule,omitempty"`
	Count        int    `json:"count,omitempty"`
	Sides        int    `json:"sides,omitempty"`
	Values       []int  `json:"values,omitempty"`
	Modifier     int    `json:"modifier,omitempty"`
	Result       int    `json:"result,omitempty"`
	OrdersDigest string `json:"orders_digest,omitempty"`
	Value        string `json:"value,omitempty"` // the commitment or the revealed seed
	// Deck names the sealed deck of a "deck-shuffle" or "card" entry. For those, Value
	// holds the cards shuffled (space-separated, in their order before the shuffle) or
	// the card turned, and Index the shuffle's number or the card's in the deck.
	Deck string `json:"deck,omitempty"`
	Prev string `json:"prev"`
	Hash string `json:"hash"`
}

// JournalEntry records one advance of a game (the phases resolved together), so that
// `adjutant replay` can re-adjudicate it.
type JournalEntry struct {
	Seq       uint64        `json:"seq"`
	Now       time.Time     `json:"now"`
	Steps     []JournalStep `json:"steps"`
	MailIDs   []string      `json:"mail_ids"`
	StateHash string        `json:"state_hash"`
	Revealed  []Order       `json:"revealed,omitempty"` // sealed orders shown by this advance
	// Groups are the commitments of each mail some of whose orders Revealed shows, by
	// the group commitment the other side was told (Order.Group).
	Groups  map[string][]string `json:"groups,omitempty"`
	Waiting []string            `json:"waiting,omitempty"` // sides the next phase waits for
	Notes   []string            `json:"notes,omitempty"`   // e.g. orders given by default at a deadline
	// MapModes is the SET MAP choice each side's results mail was rendered with;
	// missing in entries written before the choice existed, which carried full maps.
	MapModes map[string]string `json:"map_modes,omitempty"`
	// AuditSeq and AuditHead are the audit chain's last entry after this advance, as its
	// results mails carry and sign them (empty in journals from before signing).
	AuditSeq  uint64 `json:"audit_seq,omitempty"`
	AuditHead string `json:"audit_head,omitempty"`
	// Layout is the layout its results mails were written in (adjudicator's
	// LayoutOriginal and the rest); 0 in entries written before layouts were numbered,
	// which were in LayoutOriginal.
	Layout int `json:"layout,omitempty"`
}

// JournalStep is one resolved phase: which turn and phase, and the orders it used.
type JournalStep struct {
	Turn         int     `json:"turn"`
	Phase        string  `json:"phase"`
	Orders       []Order `json:"orders"`
	OrdersDigest string  `json:"orders_digest"`
}

// Processed records a handled message.
type Processed struct {
	At      time.Time `json:"at"`
	Game    string    `json:"game,omitempty"`
	Outcome string    `json:"outcome"`
}

// OutMail is one mail waiting in, or sent from, the outbox.
type OutMail struct {
	Seq         uint64    `json:"seq"`
	MessageID   string    `json:"message_id"`
	To          []string  `json:"to"`
	Subject     string    `json:"subject"`
	Body        string    `json:"body"`
	InReplyTo   string    `json:"in_reply_to,omitempty"`
	References  []string  `json:"references,omitempty"`
	AutoReplied bool      `json:"auto_replied,omitempty"` // answers a player's mail
	Game        string    `json:"game,omitempty"`
	Side        string    `json:"side,omitempty"`
	Kind        string    `json:"kind"`
	Queued      time.Time `json:"queued"`
	Sent        bool      `json:"sent"`
	Failed      bool      `json:"failed,omitempty"` // refused for good (5xx) after its retries: given up
	SentAt      time.Time `json:"sent_at,omitzero"`
	Attempts    int       `json:"attempts,omitempty"`
	Refusals    int       `json:"refusals,omitempty"` // of those, permanent (5xx) refusals
	Drops       int       `json:"drops,omitempty"`    // of those, sessions that dropped while it was sent
	NextAttempt time.Time `json:"next_attempt,omitzero"`
	LastError   string    `json:"last_error,omitempty"`
	// Redact lists secrets in Body (an invitation's password) that the store masks once
	// the mail is sent or given up, so that no plaintext password stays in the file.
	Redact []string `json:"redact,omitempty"`
	// Pictures are shown after the text, which stays the whole mail for a client that
	// shows only text (e.g. a side's map, adjudicator/mapimage).
	Pictures []Picture `json:"pictures,omitempty"`
}

// Picture is a PNG image a mail carries: drawn by the sender from View just before
// the mail is sent, or already drawn (PNG).
type Picture struct {
	Name string `json:"name"` // file name, e.g. "map-de.png"
	Alt  string `json:"alt"`  // what it shows, for a client that cannot show it
	// Before is a line of the mail's text before which a reader of its HTML part sees
	// the picture (the heading of the text map); "", or a line the text lacks: after the
	// text.
	Before string `json:"before,omitempty"`
	// View is what to draw, in the bytes the sender's renderer reads (a map view,
	// adjudicator/mapimage.Encode): drawing the picture there, outside the transaction
	// that queued the mail, keeps 0.15-0.2 s of CPU a picture out of the store's lock.
	// The file keeps it deflated.
	View []byte `json:"-"`
	// PNG is a picture drawn already (mails queued before pictures were drawn late).
	PNG []byte `json:"png,omitempty"`
}

// storedPicture is a Picture as the file keeps it: its view deflated.
type storedPicture struct {
	Picture
	ViewZ []byte `json:"view_z,omitempty"`
}

// Redacted is what a redacted secret reads as in a sent mail's body.
const Redacted = "******** (removed once sent)"

// Throttle counts refusals sent to one address in the current window.
type Throttle struct {
	WindowStart time.Time `json:"window_start"`
	Count       int       `json:"count"`
}

// allocSize is how much the file grows when bbolt needs more room.
const allocSize = 1 << 20

// DB is the bbolt implementation of [Store].
type DB struct {
	bolt     *bolt.DB
	identity Identity
}

var _ Store = (*DB)(nil)

// Open opens (creating if needed) the bbolt file at path, creates every bucket and checks
// the schema version.
func Open(path string) (*DB, error) {
	b, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: 5 * time.Second})
	if errors.Is(err, bolterrors.ErrTimeout) {
		return nil, fmt.Errorf("open store %s: it is locked by another process (is 'adjutant serve' running on it?): %w", path, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	// The file grows a MB at a time, not bbolt's 16 MB: a store of a few hundred games
	// was a third air at its end, which the host's disk and the store's bytes a mail
	// counted.
	b.AllocSize = allocSize
	schema, err := schemaOf(b)
	if err == nil && schema > SchemaVersion {
		err = fmt.Errorf("schema version %d, this program knows %d", schema, SchemaVersion)
	}
	if err == nil && schema == 1 {
		err = migrate1to2(b)
	}
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	err = b.Update(func(tx *bolt.Tx) error {
		for _, name := range [][]byte{bucketMeta, bucketGames, bucketRecords, bucketProcessed, bucketOutbox, bucketThrottle} {
			if _, err := tx.CreateBucketIfNotExists(name); err != nil {
				return fmt.Errorf("create bucket %s: %w", name, err)
			}
		}
		if tx.Bucket(bucketPending) == nil {
			// An outbox from before the index: index its pending mails once.
			pending, err := tx.CreateBucket(bucketPending)
			if err != nil {
				return fmt.Errorf("create bucket %s: %w", bucketPending, err)
			}
			err = tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
				m, err := decodeHead(v)
				if err != nil {
					return fmt.Errorf("index outbox mail %x: %w", k, err)
				}
				if m.Sent || m.Failed {
					return nil
				}
				return pending.Put(k, nil)
			})
			if err != nil {
				return err
			}
		}
		if err := openPlayerBuckets(tx); err != nil {
			return err
		}
		if err := openDueIndex(tx); err != nil {
			return err
		}
		if err := openGameOutboxIndex(tx); err != nil {
			return err
		}
		meta := tx.Bucket(bucketMeta)
		if v := meta.Get(keySchema); v != nil {
			got := binary.BigEndian.Uint64(v)
			if got == 2 {
				return meta.Put(keySchema, u64(SchemaVersion)) // nothing to move: see SchemaVersion
			}
			if got != SchemaVersion {
				return fmt.Errorf("schema version %d, this program knows %d", got, SchemaVersion)
			}
			return nil
		}
		return meta.Put(keySchema, u64(SchemaVersion))
	})
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	id, err := openIdentity(b)
	if err != nil {
		b.Close()
		return nil, fmt.Errorf("open store %s: %w", path, err)
	}
	return &DB{bolt: b, identity: id}, nil
}

// Close closes the file.
func (d *DB) Close() error { return d.bolt.Close() }

// Read implements [Store].
func (d *DB) Read(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.bolt.View(func(tx *bolt.Tx) error { return fn(newTx(tx)) })
}

// Write implements [Store].
func (d *DB) Write(ctx context.Context, fn func(Tx) error) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	return d.bolt.Update(func(tx *bolt.Tx) error {
		t := newTx(tx)
		if err := fn(t); err != nil {
			return err // the encoders still running touch no transaction: let them end
		}
		return t.writeEnqueued()
	})
}

// Size returns the size of the bbolt file in bytes.
func (d *DB) Size() (int64, error) {
	var n int64
	err := d.bolt.View(func(tx *bolt.Tx) error { n = tx.Size(); return nil })
	return n, err
}

type btx struct {
	tx *bolt.Tx
	// heads is the hash of each game's last audit entry appended in this transaction, so
	// that appending a phase's rolls does not decode the entry before each one.
	heads map[string]string
	// orders and seeds are each game's as read in this (write) transaction and written
	// since.
	orders kept[Order]
	seeds  kept[Seed]
	// states are the games' states (and initial states) as the store holds them in
	// this write transaction, by their records' prefix (putState).
	states map[string]json.RawMessage
	// enqueued are the outbox mails enqueued in this transaction whose records are
	// being encoded on other cores (encodeEnqueued); each is written before anything
	// reads the outbox and before the commit.
	enqueued []*encoding
}

// encoding is an outbox mail's record being made: its body and pictures deflated and
// the whole encoded, off the goroutine that handles the mails (the deflate is about a
// fifth of the desk's work on a results mail).
type encoding struct {
	seq  uint64
	raw  []byte
	err  error
	done chan struct{}
}

// outboxFill is the fill of the outbox's pages as mails are appended.
const outboxFill = 0.9

// encodeSlots bounds the records encoded at once to the CPUs: each holds a flate writer
// (about 800 KB) while it runs.
var encodeSlots = make(chan struct{}, runtime.GOMAXPROCS(0))

// encodeEnqueued starts encoding m's record on another goroutine, its body deflated
// with the dictionary d of id.
func (t *btx) encodeEnqueued(m OutMail, id string, d []byte) {
	e := &encoding{seq: m.Seq, done: make(chan struct{})}
	t.enqueued = append(t.enqueued, e)
	go func() {
		defer close(e.done)
		encodeSlots <- struct{}{}
		defer func() { <-encodeSlots }()
		e.raw, e.err = encodeMail(m, id, d)
	}()
}

// writeEnqueued waits for the records of the mails enqueued in this transaction and
// writes them, in the order they were enqueued.
func (t *btx) writeEnqueued() error {
	if len(t.enqueued) == 0 {
		return nil
	}
	b := t.tx.Bucket(bucketOutbox)
	// Mails are appended in sequence, and a record only shrinks once sent (its pictures
	// dropped): pages filled to 90 %, not bbolt's half, where a burst left the outbox's
	// pages half empty.
	b.FillPercent = outboxFill
	for _, e := range t.enqueued {
		<-e.done
		if e.err != nil {
			return fmt.Errorf("outbox mail %d: %w", e.seq, e.err)
		}
		if err := b.Put(u64(e.seq), e.raw); err != nil {
			return fmt.Errorf("outbox mail %d: %w", e.seq, err)
		}
	}
	t.enqueued = nil
	return nil
}

// newTx is a transaction of the store.
func newTx(tx *bolt.Tx) *btx {
	return &btx{tx: tx,
		// By filing time, then key: Orders' order.
		orders: kept[Order]{key: Order.storeKey, cmp: func(a, b Order) int { return a.Filed.Compare(b.Filed) }},
		seeds:  kept[Seed]{key: seedKey},
	}
}

func u64(n uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], n)
	return b[:]
}

func getJSON(b *bolt.Bucket, key []byte, v any) (bool, error) {
	raw := b.Get(key)
	if raw == nil {
		return false, nil
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return true, fmt.Errorf("decode %s: %w", key, err)
	}
	return true, nil
}

func putJSON(b *bolt.Bucket, key []byte, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	return b.Put(key, raw)
}

func eachJSON[T any](b *bolt.Bucket, what string) ([]T, error) {
	if b == nil {
		return nil, nil
	}
	var out []T
	err := b.ForEach(func(k, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("decode %s %x: %w", what, k, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// eachRecord decodes each of the records r views, in key order.
func eachRecord[T any](r records, what string) ([]T, error) {
	var out []T
	err := r.each(func(k, v []byte) error {
		var x T
		if err := unpackJSON(r.b.Tx(), v, &x); err != nil {
			return fmt.Errorf("decode %s %x: %w", what, k, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// storedGame is a Game as the games bucket keeps it: its states are kept apart, in
// the game's records (records.go); a record of schema 1 still holds them.
type storedGame struct {
	Game
	State   json.RawMessage `json:"state,omitempty"`   // shadows Game.State
	Initial json.RawMessage `json:"initial,omitempty"` // shadows Game.Initial
}

func (t *btx) Game(name string) (Game, error) {
	var sg storedGame
	ok, err := getJSON(t.tx.Bucket(bucketGames), []byte(name), &sg)
	if err != nil {
		return Game{}, fmt.Errorf("read game %s: %w", name, err)
	}
	if !ok {
		return Game{}, fmt.Errorf("game %s: %w", name, ErrNotFound)
	}
	g := sg.Game
	g.State, g.Initial = sg.State, sg.Initial
	for _, s := range []struct {
		kind byte
		to   *json.RawMessage
	}{{recState, &g.State}, {recInitial, &g.Initial}} {
		v := t.recordsOf(name, s.kind).get(nil)
		if v == nil {
			continue
		}
		raw, err := unpack(t.tx, v)
		if err != nil {
			return Game{}, fmt.Errorf("read game %s: %w", name, err)
		}
		*s.to = bytes.Clone(raw) // unpack may return the page's bytes
		t.keepState(name, s.kind, *s.to)
	}
	return g, nil
}

// keepState remembers the state of kind (recState, recInitial) of game as the store
// holds it in this write transaction, so that PutGame leaves it alone when unchanged.
func (t *btx) keepState(game string, kind byte, raw json.RawMessage) {
	if !t.tx.Writable() {
		return
	}
	if t.states == nil {
		t.states = map[string]json.RawMessage{}
	}
	t.states[string(recPrefix(game, kind))] = raw
}

func (t *btx) PutGame(g Game) error {
	if g.Name == "" {
		return errors.New("put game: empty name")
	}
	if strings.IndexByte(g.Name, 0) >= 0 {
		return errors.New("put game: a NUL in its name") // it ends the name in the keys
	}
	if err := t.indexPlayers(g); err != nil {
		return err
	}
	if err := indexDue(t.tx, g); err != nil {
		return err
	}
	if err := t.putState(g.Name, recState, g.State); err != nil {
		return err
	}
	if err := t.putState(g.Name, recInitial, g.Initial); err != nil {
		return err
	}
	return putJSON(t.tx.Bucket(bucketGames), []byte(g.Name), storedGame{Game: g})
}

// putState stores a state of game (kind recState or recInitial) packed, unless the
// store holds it already: the initial state is written once, not with every mail.
func (t *btx) putState(game string, kind byte, raw json.RawMessage) error {
	r := t.recordsOf(game, kind)
	if old, ok := t.states[string(r.prefix)]; ok && bytes.Equal(old, raw) {
		return nil
	}
	if raw == nil {
		if err := r.delete(nil); err != nil {
			return fmt.Errorf("put game %s: %w", game, err)
		}
		t.keepState(game, kind, nil)
		return nil
	}
	v, err := t.packRecord(kind, raw)
	if err != nil {
		return fmt.Errorf("put game %s: pack its state: %w", game, err)
	}
	if !bytes.Equal(r.get(nil), v) {
		if err := r.put(nil, v); err != nil {
			return fmt.Errorf("put game %s: %w", game, err)
		}
	}
	t.keepState(game, kind, bytes.Clone(raw))
	return nil
}

func (t *btx) GameNames() ([]string, error) {
	var names []string
	err := t.tx.Bucket(bucketGames).ForEach(func(k, _ []byte) error {
		names = append(names, string(k))
		return nil
	})
	return names, err
}

func (t *btx) Processed(id string) (bool, error) {
	return t.tx.Bucket(bucketProcessed).Get([]byte(id)) != nil, nil
}

func (t *btx) MarkProcessed(id string, p Processed) error {
	if id == "" {
		return errors.New("mark processed: empty message id")
	}
	return t.tx.Bucket(bucketProcessed).Put([]byte(id), encodeProcessed(p))
}

// kept is, for each game, its records of one kind (orders, seeds) as a read in this
// write transaction gave them, kept as a read would give them after the transaction's
// own writes: the desk reads them again after each of its writes (every phase of an
// advance), and decoding them each time cost more than resolving the phase.
type kept[T any] struct {
	games map[string][]T
	key   func(T) []byte // the record's key in its bucket
	// cmp orders records as a read returns them (nil: by key, bbolt's order).
	cmp func(a, b T) int
}

// get returns a copy of game's records, if kept.
func (k *kept[T]) get(game string) ([]T, bool) {
	rs, ok := k.games[game]
	return slices.Clone(rs), ok
}

// set keeps what a read of game's records gave.
func (k *kept[T]) set(game string, rs []T) {
	if k.games == nil {
		k.games = map[string][]T{}
	}
	k.games[game] = slices.Clone(rs)
}

// put keeps a record just stored as raw, as a read decodes it (a time as decoded, not
// as given), in its place: a replaced record may move.
func (k *kept[T]) put(game string, raw []byte) {
	rs, ok := k.games[game]
	if !ok {
		return
	}
	var r T
	if err := json.Unmarshal(raw, &r); err != nil {
		delete(k.games, game) // read again next time
		return
	}
	key := k.key(r)
	rs = slices.DeleteFunc(rs, func(x T) bool { return bytes.Equal(k.key(x), key) })
	rs = append(rs, r)
	slices.SortFunc(rs, func(a, b T) int {
		if k.cmp != nil {
			if c := k.cmp(a, b); c != 0 {
				return c
			}
		}
		return bytes.Compare(k.key(a), k.key(b))
	})
	k.games[game] = rs
}

// remove forgets a record deleted from the store.
func (k *kept[T]) remove(game string, key []byte) {
	if rs, ok := k.games[game]; ok {
		k.games[game] = slices.DeleteFunc(rs, func(x T) bool { return bytes.Equal(k.key(x), key) })
	}
}

// putKept stores v under key in r, packed by pack (nil: plain JSON), and keeps it in k.
func putKept[T any](r records, k *kept[T], game string, key []byte, v T, pack func([]byte) ([]byte, error)) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode %s: %w", key, err)
	}
	stored := raw
	if pack != nil {
		if stored, err = pack(raw); err != nil {
			return fmt.Errorf("pack %s: %w", key, err)
		}
	}
	if err := r.put(key, stored); err != nil {
		delete(k.games, game)
		return err
	}
	k.put(game, raw)
	return nil
}

func (t *btx) PutOrder(game string, o Order) error {
	// An order of orderPackMin bytes or more is packed. A shorter one stays plain
	// JSON: packed, the dictionary's tables set up for each cost the desk about 0.1 ms
	// a mail to write and as much to read (issue 23's desk goal is 1 ms), for 1.3 KB a
	// mail in the bench's Soldiers games of two set-up mails, 0.3 KB at ten mails a
	// game. A sealed order stays plain: its text goes into no dictionary, which
	// outlives the game's records.
	pack := func(raw []byte) ([]byte, error) {
		if o.Sealed || len(raw) < orderPackMin {
			return raw, nil
		}
		return t.packRecord(recOrder, raw)
	}
	return putKept(t.recordsOf(game, recOrder), &t.orders, game, o.storeKey(), o, pack)
}

// orderPackMin is the JSON length from which an order is packed.
const orderPackMin = 1 << 10

func (t *btx) DeleteOrder(game string, o Order) error {
	if err := t.recordsOf(game, recOrder).delete(o.storeKey()); err != nil {
		delete(t.orders.games, game)
		return err
	}
	t.orders.remove(game, o.storeKey())
	return nil
}

func (t *btx) Orders(game string) ([]Order, error) {
	if os, ok := t.orders.get(game); ok {
		return os, nil
	}
	out, err := eachRecord[Order](t.recordsOf(game, recOrder), "order")
	// Filing order, then key, so that "in the order written" survives the key order.
	sort.SliceStable(out, func(i, j int) bool { return out[i].Filed.Before(out[j].Filed) })
	if err == nil && t.tx.Writable() {
		t.orders.set(game, out)
	}
	return out, err
}

func (t *btx) PutSeed(game string, s Seed) error {
	return putKept(t.recordsOf(game, recSeed), &t.seeds, game, seedKey(s), s, nil)
}

func seedKey(s Seed) []byte { return u64(uint64(s.Turn)) }

func (t *btx) Seeds(game string) ([]Seed, error) {
	if ss, ok := t.seeds.get(game); ok {
		return ss, nil
	}
	out, err := eachRecord[Seed](t.recordsOf(game, recSeed), "seed")
	if err == nil && t.tx.Writable() {
		t.seeds.set(game, out)
	}
	return out, err
}

func (t *btx) AppendAudit(game string, e AuditEntry) (AuditEntry, error) {
	r := t.recordsOf(game, recAudit)
	prev, ok := t.heads[game]
	if !ok {
		if _, v := r.last(); v != nil {
			var last AuditEntry
			if err := decodeAuditEntry(v, &last); err != nil {
				return e, fmt.Errorf("read last audit entry of %s: %w", game, err)
			}
			prev = last.Hash
		}
	}
	seq := r.nextSeq()
	e.Seq, e.Prev, e.Time = seq, prev, e.Time.UTC()
	e.Hash = e.ComputeHash()
	if err := r.put(u64(seq), encodeChained(e)); err != nil {
		return e, err
	}
	if t.heads == nil {
		t.heads = map[string]string{}
	}
	t.heads[game] = e.Hash
	return e, nil
}

func (t *btx) AuditHead(game string) (AuditEntry, error) {
	var e AuditEntry
	r := t.recordsOf(game, recAudit)
	k, v := r.last()
	if v == nil {
		return e, nil
	}
	if err := decodeAuditEntry(v, &e); err != nil {
		return e, fmt.Errorf("read audit entry %x of %s: %w", k, game, err)
	}
	if v[0] == auditChained && e.Seq > 1 {
		// Its prev is the hash of the entry before it.
		pv := r.get(u64(e.Seq - 1))
		var prev AuditEntry
		if pv == nil {
			return e, fmt.Errorf("read audit entry %d of %s: %w", e.Seq-1, game, ErrNotFound)
		}
		if err := decodeAuditEntry(pv, &prev); err != nil {
			return e, fmt.Errorf("read audit entry %d of %s: %w", e.Seq-1, game, err)
		}
		e.Prev = prev.Hash
	}
	return e, nil
}

func (t *btx) HostKey() ([]byte, error) {
	v := t.tx.Bucket(bucketMeta).Get(keyHostKey)
	if v == nil {
		return nil, nil
	}
	return append([]byte(nil), v...), nil
}

func (t *btx) PutHostKey(key []byte) error {
	if len(key) == 0 {
		return errors.New("put host key: empty key")
	}
	return t.tx.Bucket(bucketMeta).Put(keyHostKey, key)
}

func (t *btx) Audit(game string) ([]AuditEntry, error) {
	r := t.recordsOf(game, recAudit)
	var out []AuditEntry
	if k, _ := r.last(); len(k) == 8 {
		out = make([]AuditEntry, 0, binary.BigEndian.Uint64(k)) // numbered from 1
	}
	var dec auditDecoder // one for the trail: values from shared slabs
	prev := ""           // the hash of the entry before: the prev of one in the chained form
	err := r.each(func(k, v []byte) error {
		out = append(out, AuditEntry{})
		e := &out[len(out)-1]
		if err := dec.decode(v, e); err != nil {
			return fmt.Errorf("decode audit entry %x: %w", k, err)
		}
		if v[0] == auditChained {
			e.Prev = prev
		}
		prev = e.Hash
		return nil
	})
	return out, err
}

func (t *btx) AppendJournal(game string, j JournalEntry) (JournalEntry, error) {
	r := t.recordsOf(game, recJournal)
	j.Seq = r.nextSeq()
	// A journal entry is a few KB of JSON (the orders of every phase it resolved), read
	// only by replay and the game's record: packed.
	v, err := t.packJSON(recJournal, j)
	if err != nil {
		return j, fmt.Errorf("encode journal entry %d of %s: %w", j.Seq, game, err)
	}
	return j, r.put(u64(j.Seq), v)
}

func (t *btx) Journal(game string) ([]JournalEntry, error) {
	return eachRecord[JournalEntry](t.recordsOf(game, recJournal), "journal entry")
}

func (t *btx) Enqueue(m OutMail) (OutMail, error) {
	b := t.tx.Bucket(bucketOutbox)
	seq, err := b.NextSequence()
	if err != nil {
		return m, err
	}
	m.Seq = seq
	if err := t.tx.Bucket(bucketPending).Put(u64(seq), nil); err != nil {
		return m, err
	}
	if err := t.indexGameMail(m.Game, seq); err != nil {
		return m, err
	}
	id, d, err := t.zdictFor(m.Kind, m.Body, m.Redact)
	if err != nil {
		return m, err
	}
	t.encodeEnqueued(m, id, d)
	return m, nil
}

func (t *btx) PendingHeads() ([]OutMail, error) { return t.PendingHeadsAfter(0) }

func (t *btx) PendingHeadsAfter(seq uint64) ([]OutMail, error) {
	if err := t.writeEnqueued(); err != nil {
		return nil, err
	}
	out := t.tx.Bucket(bucketOutbox)
	var mails []OutMail
	c := t.tx.Bucket(bucketPending).Cursor()
	for k, _ := c.Seek(u64(seq + 1)); k != nil; k, _ = c.Next() {
		raw := out.Get(k)
		if raw == nil {
			return mails, fmt.Errorf("pending outbox mail %x: %w", k, ErrNotFound)
		}
		m, err := decodeHead(raw)
		if err != nil {
			return mails, fmt.Errorf("pending outbox mail %x: %w", k, err)
		}
		mails = append(mails, m)
	}
	return mails, nil
}

func (t *btx) LastOutMail(match func(OutMail) bool) (OutMail, bool, error) {
	if err := t.writeEnqueued(); err != nil {
		return OutMail{}, false, err
	}
	c := t.tx.Bucket(bucketOutbox).Cursor()
	for k, v := c.Last(); k != nil; k, v = c.Prev() {
		h, err := decodeHead(v)
		if err != nil {
			return OutMail{}, false, fmt.Errorf("outbox mail %x: %w", k, err)
		}
		if match(h) {
			m, err := t.decodeMail(v)
			if err != nil {
				return OutMail{}, false, fmt.Errorf("outbox mail %x: %w", k, err)
			}
			return m, true, nil
		}
	}
	return OutMail{}, false, nil
}

// skipJSON is a field read past without decoding it (a head's body and pictures).
type skipJSON struct{}

func (*skipJSON) UnmarshalJSON([]byte) error { return nil }

// storedHead is a storedMail read without its body and pictures.
type storedHead struct {
	OutMail
	Body     skipJSON `json:"body"`
	BodyZ    skipJSON `json:"body_z"`
	Pictures skipJSON `json:"pictures"`
}

func decodeHead(raw []byte) (OutMail, error) {
	var h storedHead
	head, _, err := splitStored(raw)
	if err == nil {
		err = json.Unmarshal(head, &h)
	}
	return h.OutMail, err
}

func (t *btx) PutSealedGroup(game, group string, commitments []string) error {
	return t.recordsOf(game, recGroup).put([]byte(group), []byte(strings.Join(commitments, "\n")))
}

func (t *btx) SealedGroup(game, group string) ([]string, error) {
	v := t.recordsOf(game, recGroup).get([]byte(group))
	if v == nil {
		return nil, nil
	}
	return strings.Split(string(v), "\n"), nil
}

func (t *btx) PutDelivery(m OutMail) error {
	whole, err := t.OutMailAt(m.Seq)
	if err != nil {
		return fmt.Errorf("update delivery of outbox mail %d: %w", m.Seq, err)
	}
	whole.Sent, whole.SentAt, whole.Failed = m.Sent, m.SentAt, m.Failed
	whole.Attempts, whole.Refusals, whole.Drops = m.Attempts, m.Refusals, m.Drops
	whole.NextAttempt, whole.LastError = m.NextAttempt, m.LastError
	return t.PutOutMail(whole)
}

func (t *btx) OutMailAt(seq uint64) (OutMail, error) {
	if err := t.writeEnqueued(); err != nil {
		return OutMail{}, err
	}
	raw := t.tx.Bucket(bucketOutbox).Get(u64(seq))
	if raw == nil {
		return OutMail{}, fmt.Errorf("outbox mail %d: %w", seq, ErrNotFound)
	}
	return t.decodeMail(raw)
}

func (t *btx) Outbox() ([]OutMail, error) {
	if err := t.writeEnqueued(); err != nil {
		return nil, err
	}
	var mails []OutMail
	err := t.tx.Bucket(bucketOutbox).ForEach(func(k, v []byte) error {
		m, err := t.decodeMail(v)
		if err != nil {
			return fmt.Errorf("outbox mail %x: %w", k, err)
		}
		mails = append(mails, m)
		return nil
	})
	return mails, err
}

func (t *btx) PutOutMail(m OutMail) error {
	if err := t.writeEnqueued(); err != nil {
		return err
	}
	b := t.tx.Bucket(bucketOutbox)
	var old []byte
	if m.Seq != 0 {
		old = b.Get(u64(m.Seq))
	}
	if old == nil {
		return fmt.Errorf("update outbox mail %d: %w", m.Seq, ErrNotFound)
	}
	if m.Sent || m.Failed {
		m.Body = maskSecrets(m.Body, m.Redact)
		m.Redact = nil
		// A picture is for the player's eyes once; kept, a results mail's view (a few KB)
		// or PNG (100-250 KB) would grow the file a game. The text, which replay
		// compares, stays.
		m.Pictures = nil
	}
	pending := t.tx.Bucket(bucketPending)
	var err error
	if m.Sent || m.Failed {
		err = pending.Delete(u64(m.Seq))
	} else {
		err = pending.Put(u64(m.Seq), nil)
	}
	if err != nil {
		return err
	}
	// Marking a mail sent leaves its body as it was: keep the deflated bytes rather than
	// deflating it again (inflating to compare is the cheaper way round).
	var prev storedMail
	if decodeStored(old, &prev) == nil && len(prev.BodyZ) > 0 {
		if body, err := t.decodeBody(prev.Codec, prev.Dict, prev.BodyZ); err == nil && body == m.Body {
			return putStored(b, m, prev.BodyZ, prev.Codec, prev.Dict)
		}
	}
	return t.putMail(b, m)
}

// inflaters keeps flate readers for reuse, as deflaters does writers.
var inflaters sync.Pool

// codecCalls counts compressions and decompressions of outbox bodies (flate or zstd),
// so that a test can hold the cost of a path to its number of them.
var codecCalls atomic.Int64

func inflate(z []byte) (string, error) { return inflateDict(z, nil) }

// inflateDict inflates z, deflated with the dictionary d (nil: none).
func inflateDict(z, d []byte) (string, error) {
	codecCalls.Add(1)
	r, _ := inflaters.Get().(io.ReadCloser)
	if r == nil {
		r = flate.NewReaderDict(bytes.NewReader(z), d)
	} else if err := r.(flate.Resetter).Reset(bytes.NewReader(z), d); err != nil {
		return "", err
	}
	defer inflaters.Put(r)
	body, err := io.ReadAll(r)
	return string(body), err
}

// storedMail is an outbox record as the file keeps it: the body deflated, because sent
// mails stay (replay compares them, players may ask for them again) and their bodies,
// maps and all, are most of the file.
type storedMail struct {
	OutMail
	Body  string `json:"body,omitempty"` // shadows OutMail.Body: kept empty
	BodyZ []byte `json:"body_z,omitempty"`
	// Dict is the id of the dictionary BodyZ was compressed with (zdict.go, dict.go);
	// "": none.
	Dict string `json:"zd,omitempty"`
	// Codec is what compressed BodyZ: "zstd" (zdict.go), or "" for deflate (dict.go).
	Codec    string          `json:"zc,omitempty"`
	Pictures []storedPicture `json:"pictures,omitempty"` // shadows OutMail.Pictures
}

// deflaters keeps flate writers for reuse: a new one allocates about 800 KB of state and
// costs 1.4 ms, a reset one 0.09 ms for a mail body (BenchmarkDeflate), and a handled
// message queues three or four mails.
var deflaters = sync.Pool{New: func() any {
	// Level 2: on the demo's mails it deflates in 68% of the default level's time and
	// 83% of level 4's, 5% and 2% larger (0.235 of the text against 0.225 and 0.231).
	w, _ := flate.NewWriter(nil, 2) // the level is valid: no error
	return w
}}

// putMail writes m, its body compressed with the dictionary of its kind.
func (t *btx) putMail(b *bolt.Bucket, m OutMail) error {
	id, d, err := t.zdictFor(m.Kind, m.Body, m.Redact)
	if err != nil {
		return err
	}
	raw, err := encodeMail(m, id, d)
	if err != nil {
		return err
	}
	return b.Put(u64(m.Seq), raw)
}

// putStored writes m with its body compressed as bodyZ by codec with the dictionary
// dict, deflating its pictures' views.
func putStored(b *bolt.Bucket, m OutMail, bodyZ []byte, codec, dict string) error {
	raw, err := encodeStored(m, bodyZ, codec, dict)
	if err != nil {
		return err
	}
	return b.Put(u64(m.Seq), raw)
}

// encodeMail is m's record: its body compressed by zstd with the dictionary d of id,
// its pictures' views deflated.
func encodeMail(m OutMail, id string, d []byte) ([]byte, error) {
	z, err := zstdEncode(m.Body, id, d)
	if err != nil {
		return nil, fmt.Errorf("compress outbox mail %d: %w", m.Seq, err)
	}
	return encodeStored(m, z, codecZstd, id)
}

// encodeStored is m's record with its body z compressed by codec, deflating its
// pictures' views.
func encodeStored(m OutMail, bodyZ []byte, codec, dict string) ([]byte, error) {
	s := storedMail{OutMail: m, BodyZ: bodyZ, Dict: dict, Codec: codec}
	for _, p := range m.Pictures {
		sp := storedPicture{Picture: p}
		if len(p.View) > 0 {
			z, err := deflate(string(p.View))
			if err != nil {
				return nil, fmt.Errorf("deflate outbox mail %d: picture %s: %w", m.Seq, p.Name, err)
			}
			sp.ViewZ = z
		}
		s.Pictures = append(s.Pictures, sp)
	}
	return s.encode()
}

func deflate(text string) ([]byte, error) {
	codecCalls.Add(1)
	var z bytes.Buffer
	w := deflaters.Get().(*flate.Writer)
	defer deflaters.Put(w)
	w.Reset(&z)
	_, err := io.WriteString(w, text)
	if err == nil {
		err = w.Close()
	}
	return z.Bytes(), err
}

func (t *btx) MarkSent(seq uint64, at time.Time) (bool, error) {
	if err := t.writeEnqueued(); err != nil {
		return false, err
	}
	b := t.tx.Bucket(bucketOutbox)
	raw := b.Get(u64(seq))
	if raw == nil {
		return false, fmt.Errorf("outbox mail %d: %w", seq, ErrNotFound)
	}
	var sm storedMail
	if err := decodeStored(raw, &sm); err != nil {
		return false, fmt.Errorf("outbox mail %d: %w", seq, err)
	}
	if sm.Sent {
		return false, nil
	}
	if len(sm.Redact) > 0 {
		// One inflate and one deflate, and only when a secret is in the body: a fold of
		// 20,000 invitations did each twice over (issue 23).
		if err := t.redact(&sm); err != nil {
			return false, fmt.Errorf("outbox mail %d: %w", seq, err)
		}
	}
	sm.Sent, sm.SentAt, sm.Attempts = true, at, sm.Attempts+1
	sm.LastError, sm.NextAttempt = "", time.Time{}
	sm.Pictures = nil // as PutOutMail: a picture is for the player's eyes once
	if err := t.tx.Bucket(bucketPending).Delete(u64(seq)); err != nil {
		return false, err
	}
	v, err := sm.encode()
	if err != nil {
		return false, err
	}
	return true, b.Put(u64(seq), v)
}

// redact masks the secrets of Redact in sm's stored body, compressed again as it was,
// and forgets them.
func (t *btx) redact(sm *storedMail) error {
	secrets := sm.Redact
	sm.Redact = nil
	if sm.Body != "" { // a record from before bodies were deflated
		sm.Body = maskSecrets(sm.Body, secrets)
		return nil
	}
	if len(sm.BodyZ) == 0 {
		return nil
	}
	body, err := t.decodeBody(sm.Codec, sm.Dict, sm.BodyZ)
	if err != nil {
		return fmt.Errorf("inflate body: %w", err)
	}
	masked := maskSecrets(body, secrets)
	if masked == body {
		return nil
	}
	z, err := t.encodeBody(sm.Codec, sm.Dict, masked)
	if err != nil {
		return fmt.Errorf("compress body: %w", err)
	}
	sm.BodyZ = z
	return nil
}

// maskSecrets replaces each secret in body with [Redacted].
func maskSecrets(body string, secrets []string) string {
	for _, secret := range secrets {
		if secret != "" {
			body = strings.ReplaceAll(body, secret, Redacted)
		}
	}
	return body
}

func (t *btx) decodeMail(raw []byte) (OutMail, error) {
	var s storedMail
	if err := decodeStored(raw, &s); err != nil {
		return OutMail{}, err
	}
	m := s.OutMail
	m.Body = s.Body
	if len(s.BodyZ) > 0 {
		body, err := t.decodeBody(s.Codec, s.Dict, s.BodyZ)
		if err != nil {
			return OutMail{}, fmt.Errorf("inflate body: %w", err)
		}
		m.Body = body
	}
	m.Pictures = nil
	for _, sp := range s.Pictures {
		p := sp.Picture
		if len(sp.ViewZ) > 0 {
			view, err := inflate(sp.ViewZ)
			if err != nil {
				return OutMail{}, fmt.Errorf("inflate picture %s: %w", p.Name, err)
			}
			p.View = []byte(view)
		}
		m.Pictures = append(m.Pictures, p)
	}
	return m, nil
}

func (t *btx) Throttle(addr string) (Throttle, error) {
	var th Throttle
	_, err := getJSON(t.tx.Bucket(bucketThrottle), []byte(addr), &th)
	return th, err
}

func (t *btx) PutThrottle(addr string, th Throttle) error {
	return putJSON(t.tx.Bucket(bucketThrottle), []byte(addr), th)
}

func (t *btx) PurgeThrottles(before time.Time) (int, error) {
	b := t.tx.Bucket(bucketThrottle)
	var old [][]byte
	err := b.ForEach(func(k, v []byte) error {
		var th Throttle
		if err := json.Unmarshal(v, &th); err != nil || th.WindowStart.Before(before) {
			old = append(old, append([]byte(nil), k...))
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("read throttles: %w", err)
	}
	for _, k := range old {
		if err := b.Delete(k); err != nil {
			return 0, fmt.Errorf("delete throttle: %w", err)
		}
	}
	return len(old), nil
}
