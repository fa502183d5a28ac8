package store

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
)

// The club's records: games players opened by mail and nobody joined yet, who observes
// which game, each game's observer policy, and the ladder. Their buckets are made by
// the first write that needs them, so that a store from before the club opens as it
// was; a read of a bucket not made yet reads as empty.
//
//	club-open        game name -> OpenGame (JSON)
//	club-observers   game NUL address -> Observer (JSON)
//	club-observing   address NUL game -> nothing: which games an address observes
//	club-policy      game name -> its observer policy ("open", "ask", "no")
//	club-ratings     ruleset NUL address -> Rating (JSON)
//	club-meta        "seq" -> the number of the last game opened by mail (8-byte BE)
var (
	bucketClubOpen      = []byte("club-open")
	bucketClubObservers = []byte("club-observers")
	bucketClubObserving = []byte("club-observing")
	bucketClubPolicy    = []byte("club-policy")
	bucketClubRatings   = []byte("club-ratings")
	bucketClubMeta      = []byte("club-meta")
	keyClubSeq          = []byte("seq")
)

// ClubTx is what a transaction keeps of the club (see the bucket list above).
type ClubTx interface {
	// PutOpenGame keeps a game a player opened by mail, until a second player joins it
	// (DeleteOpenGame) or its creator withdraws it.
	PutOpenGame(g OpenGame) error
	// OpenGame returns the open game of that name (ErrNotFound when none).
	OpenGame(name string) (OpenGame, error)
	DeleteOpenGame(name string) error
	// OpenGames lists every open game, by name.
	OpenGames() ([]OpenGame, error)
	// NextClubNumber counts one more game opened by mail and returns its number.
	NextClubNumber() (uint64, error)

	// PutObserver keeps (or replaces) an observer of a game; DeleteObserver drops
	// him (no error when he was none).
	PutObserver(game string, o Observer) error
	DeleteObserver(game, address string) error
	// Observers lists a game's observers (those who asked, pending, included), by
	// address: whom the record of a game also goes to (the accepted ones).
	Observers(game string) ([]Observer, error)
	// Observing lists the games an address observes or asked to observe.
	Observing(address string) ([]string, error)
	// PutObserverPolicy keeps who may observe a game: "open", "ask" or "no";
	// ObserverPolicy returns it, "" when none was set.
	PutObserverPolicy(game, policy string) error
	ObserverPolicy(game string) (string, error)

	// Rating returns a player's rating at a ruleset, the zero Rating (Games 0) when he
	// has none; PutRating keeps one; Ratings lists a ruleset's, by address.
	Rating(ruleset, address string) (Rating, error)
	PutRating(ruleset string, r Rating) error
	Ratings(ruleset string) ([]Rating, error)
	// GamesOf lists the games address plays in, from the address index PutGame keeps.
	GamesOf(address string) ([]string, error)
}

// OpenGame is a game a player opened by mail: his seat taken, the other open.
type OpenGame struct {
	Name    string          `json:"name"`
	Ruleset string          `json:"ruleset"`
	Side    string          `json:"side"` // the creator's
	Address string          `json:"address"`
	Hash    string          `json:"pass_hash"` // bcrypt of the creator's password
	Options map[string]bool `json:"options,omitempty"`
	// Observers is the game's observer policy: "open", "ask" or "no".
	Observers string `json:"observers,omitempty"`
	// Dice is "beacon" for a game whose rolls mix in a public beacon round (issue 25).
	Dice        string        `json:"dice,omitempty"`
	PhaseLength time.Duration `json:"phase_length,omitempty"`
	Opened      time.Time     `json:"opened"`
}

// Observer is an address that follows a game in the neutral view.
type Observer struct {
	Address string    `json:"address"`
	Since   time.Time `json:"since"`
	// Pending says he asked to observe a game whose policy is "ask", and no player
	// has let him yet: he gets nothing until one does.
	Pending bool `json:"pending,omitempty"`
}

// Rating is one player's standing on a ruleset's ladder.
type Rating struct {
	Address string  `json:"address"`
	Rating  float64 `json:"rating"`
	Games   int     `json:"games"`
	Wins    int     `json:"wins"`
	Draws   int     `json:"draws"`
	Losses  int     `json:"losses"`
	// Rated are the games counted, so that a game is counted once however often
	// its end is handled.
	Rated []string `json:"rated,omitempty"`
}

var _ ClubTx = (*btx)(nil)

// clubBucket returns a club bucket, made when the transaction writes; nil in a read
// transaction of a store that has none yet.
func (t *btx) clubBucket(name []byte) (*bolt.Bucket, error) {
	if b := t.tx.Bucket(name); b != nil || !t.tx.Writable() {
		return b, nil
	}
	b, err := t.tx.CreateBucket(name)
	if err != nil {
		return nil, fmt.Errorf("create bucket %s: %w", name, err)
	}
	return b, nil
}

func (t *btx) PutOpenGame(g OpenGame) error {
	b, err := t.clubBucket(bucketClubOpen)
	if err != nil {
		return err
	}
	return putJSON(b, []byte(g.Name), g)
}

func (t *btx) OpenGame(name string) (OpenGame, error) {
	var g OpenGame
	b, err := t.clubBucket(bucketClubOpen)
	if err != nil || b == nil {
		return g, fmt.Errorf("open game %s: %w", name, ErrNotFound)
	}
	ok, err := getJSON(b, []byte(name), &g)
	if err != nil {
		return g, fmt.Errorf("read open game %s: %w", name, err)
	}
	if !ok {
		return g, fmt.Errorf("open game %s: %w", name, ErrNotFound)
	}
	return g, nil
}

func (t *btx) DeleteOpenGame(name string) error {
	if b := t.tx.Bucket(bucketClubOpen); b != nil {
		return b.Delete([]byte(name))
	}
	return nil
}

func (t *btx) OpenGames() ([]OpenGame, error) {
	return eachJSON[OpenGame](t.tx.Bucket(bucketClubOpen), "open game")
}

func (t *btx) NextClubNumber() (uint64, error) {
	b, err := t.clubBucket(bucketClubMeta)
	if err != nil {
		return 0, err
	}
	var n uint64
	if v := b.Get(keyClubSeq); len(v) == 8 {
		n = binary.BigEndian.Uint64(v)
	}
	n++
	return n, b.Put(keyClubSeq, u64(n))
}

// pairKey is a club index key: a NUL b, a lower-cased when it is an address.
func pairKey(a, b string) []byte { return []byte(a + "\x00" + b) }

func (t *btx) PutObserver(game string, o Observer) error {
	o.Address = strings.ToLower(o.Address)
	obs, err := t.clubBucket(bucketClubObservers)
	if err != nil {
		return err
	}
	ing, err := t.clubBucket(bucketClubObserving)
	if err != nil {
		return err
	}
	if err := ing.Put(pairKey(o.Address, game), nil); err != nil {
		return fmt.Errorf("index observer of %s: %w", game, err)
	}
	return putJSON(obs, pairKey(game, o.Address), o)
}

func (t *btx) DeleteObserver(game, address string) error {
	address = strings.ToLower(address)
	if b := t.tx.Bucket(bucketClubObservers); b != nil {
		if err := b.Delete(pairKey(game, address)); err != nil {
			return err
		}
	}
	if b := t.tx.Bucket(bucketClubObserving); b != nil {
		return b.Delete(pairKey(address, game))
	}
	return nil
}

func (t *btx) Observers(game string) ([]Observer, error) {
	return prefixJSON[Observer](t.tx.Bucket(bucketClubObservers), game, "observer")
}

// prefixJSON decodes the values of the keys of b that start with a NUL.
func prefixJSON[T any](b *bolt.Bucket, a, what string) ([]T, error) {
	var out []T
	err := eachPair(b, a, func(k, v []byte) error {
		var x T
		if err := json.Unmarshal(v, &x); err != nil {
			return fmt.Errorf("decode %s %q: %w", what, k, err)
		}
		out = append(out, x)
		return nil
	})
	return out, err
}

// eachPair calls fn with the rest of each key of b that starts with a NUL, and its
// value, in key order; b may be nil (a bucket not made yet).
func eachPair(b *bolt.Bucket, a string, fn func(rest, v []byte) error) error {
	if b == nil {
		return nil
	}
	prefix := pairKey(a, "")
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if err := fn(k[len(prefix):], v); err != nil {
			return err
		}
	}
	return nil
}

func (t *btx) Observing(address string) ([]string, error) {
	return t.keysAfter(bucketClubObserving, strings.ToLower(address))
}

func (t *btx) GamesOf(address string) ([]string, error) {
	return t.keysAfter(bucketAddresses, strings.ToLower(address))
}

// keysAfter lists the second halves of bucket's keys a NUL ...
func (t *btx) keysAfter(bucket []byte, a string) ([]string, error) {
	var out []string
	err := eachPair(t.tx.Bucket(bucket), a, func(rest, _ []byte) error {
		out = append(out, string(rest))
		return nil
	})
	return out, err
}

func (t *btx) PutObserverPolicy(game, policy string) error {
	b, err := t.clubBucket(bucketClubPolicy)
	if err != nil {
		return err
	}
	return b.Put([]byte(game), []byte(policy))
}

func (t *btx) ObserverPolicy(game string) (string, error) {
	b := t.tx.Bucket(bucketClubPolicy)
	if b == nil {
		return "", nil
	}
	return string(b.Get([]byte(game))), nil
}

func (t *btx) Rating(ruleset, address string) (Rating, error) {
	address = strings.ToLower(address)
	r := Rating{Address: address}
	b := t.tx.Bucket(bucketClubRatings)
	if b == nil {
		return r, nil
	}
	if _, err := getJSON(b, pairKey(ruleset, address), &r); err != nil {
		return r, fmt.Errorf("rating of %s at %s: %w", address, ruleset, err)
	}
	return r, nil
}

func (t *btx) PutRating(ruleset string, r Rating) error {
	r.Address = strings.ToLower(r.Address)
	b, err := t.clubBucket(bucketClubRatings)
	if err != nil {
		return err
	}
	return putJSON(b, pairKey(ruleset, r.Address), r)
}

func (t *btx) Ratings(ruleset string) ([]Rating, error) {
	return prefixJSON[Rating](t.tx.Bucket(bucketClubRatings), ruleset, "rating")
}
