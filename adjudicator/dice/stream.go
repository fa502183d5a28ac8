package dice

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"strconv"
)

// Kinds of Roll.
const (
	// KindRoll marks a roll of Count dice of Sides faces.
	KindRoll = "roll"
	// KindShuffle marks a shuffle of Count cards; its Values are a permutation.
	KindShuffle = "shuffle"
)

// Limits on what may be asked for. Beyond them a request is a bug in the
// caller (see the package doc for what happens then).
const (
	// MinSides is the fewest faces a die may have.
	MinSides = 2
	// MaxSides is the most faces a die may have: a die is drawn from one
	// byte, so 256 is the most the byte mapping can serve without bias.
	MaxSides = 256
	// MaxDice is the most dice one Request may ask for. No wargame rolls
	// that many at once; the bound keeps a miscomputed count from eating
	// memory in the middle of a resolution.
	MaxDice = 1000
	// MaxCards is the largest deck a Shuffle may shuffle: each Fisher-Yates
	// draw is one byte, so at most 256 choices.
	MaxCards = 256
)

// version is the first field of every message. Changing the scheme in any
// way must change it, so that old audit trails still verify under the old
// rules and a new trail can never be mistaken for an old one.
const version = "adjutant-dice-v1"

// Context names the stream a roll belongs to.
//
// All four fields enter every roll's HMAC message, so a seed yields unrelated
// rolls in different games, turns and phases, and the rolls of a phase depend
// on the orders it resolved (OrdersDigest, whatever digest of the sealed
// orders the desk fixes; it may be empty for a phase without orders).
type Context struct {
	Game         string
	Turn         int
	Phase        string
	OrdersDigest string
	// Beacon is the public beacon round mixed into the phase's rolls in a game played
	// with `--dice beacon`; zero otherwise. With one, the message is version 2
	// (beacon.go).
	Beacon BeaconValue
}

// Request asks for Count dice of Sides faces; Modifier is added to the sum to
// give Result.
//
// Purpose says in words why the roll is made and Rule cites the rule section
// that calls for it; both are recorded in the audit trail and both enter the
// HMAC message, so the record cannot be relabelled after the fact.
type Request struct {
	Purpose  string
	Rule     string
	Count    int
	Sides    int
	Modifier int
}

// Roll is one audited roll (or shuffle).
type Roll struct {
	Index    int    // position in its Context's stream, from 0
	Kind     string // "roll" or "shuffle"
	Purpose  string // e.g. "12.2 bombardment of 4300 at 2:1, unit 1 of 2"
	Rule     string // e.g. "12.2"
	Count    int
	Sides    int
	Values   []int // raw faces 1..Sides (roll), or a permutation of 0..n-1 (shuffle, Count=n, Sides=0)
	Modifier int
	Result   int // sum(Values)+Modifier for rolls; 0 for shuffles
}

// Source is what a ruleset rolls with. Implementations record every roll in
// order.
//
// A ruleset takes a Source rather than a Stream so that conformance cases can
// hand it a Script with the dice the rulebook example uses.
type Source interface {
	// Roll rolls req.Count dice of req.Sides faces and records the roll.
	Roll(req Request) Roll
	// Shuffle draws a permutation of n cards and records it.
	Shuffle(purpose, rule string, n int) Roll
	// Rolls returns copies of every roll made so far, in order.
	Rolls() []Roll
}

// Stream derives rolls from a seed: HMAC-SHA256(seed, message) where message
// encodes game|turn|phase|index|kind|purpose|rule|count|sides|ordersDigest
// unambiguously (length-prefixed fields), extended in counter mode (append a
// 4-byte block counter) as many blocks as rejection sampling needs. The
// package doc gives the exact encoding.
//
// A Stream implements Source. It is not safe for concurrent use: the order
// of the rolls is part of what they are, so a resolution rolls from one
// goroutine.
type Stream struct {
	// mac is keyed with the seed; the seed itself is not kept, so that
	// printing a Stream by mistake cannot reveal it.
	mac   hash.Hash
	ctx   Context
	rolls []Roll
	err   error
}

// NewStream returns the stream of rolls of ctx under seed. Its first roll has
// Index 0.
func NewStream(seed Seed, ctx Context) *Stream {
	return &Stream{mac: hmac.New(sha256.New, seed[:]), ctx: ctx}
}

// Roll rolls req.Count dice of req.Sides faces, records the roll and returns
// it. An invalid request (Count outside 1..MaxDice or Sides outside
// MinSides..MaxSides) is recorded with no Values and Result 0, and Err
// reports it; see the package doc for why this does not panic.
func (s *Stream) Roll(req Request) Roll {
	r := Roll{
		Index:    len(s.rolls),
		Kind:     KindRoll,
		Purpose:  req.Purpose,
		Rule:     req.Rule,
		Count:    req.Count,
		Sides:    req.Sides,
		Modifier: req.Modifier,
	}
	if err := checkShape(r.Kind, r.Count, r.Sides); err != nil {
		s.fail(r, err)
	} else {
		r.Values = derive(s.mac, s.ctx, r.Index, r.Kind, r.Purpose, r.Rule, r.Count, r.Sides)
		r.Result = sum(r.Values) + r.Modifier
	}
	s.rolls = append(s.rolls, r)
	return clone(r)
}

// Shuffle draws a uniformly random permutation of n cards (Fisher-Yates, see
// the package doc), records it and returns it as a Roll of Kind "shuffle",
// Count n, Sides 0, Modifier and Result 0. n outside 0..MaxCards is
// recorded with no Values and reported by Err.
func (s *Stream) Shuffle(purpose, rule string, n int) Roll {
	r := Roll{
		Index:   len(s.rolls),
		Kind:    KindShuffle,
		Purpose: purpose,
		Rule:    rule,
		Count:   n,
	}
	if err := checkShape(r.Kind, r.Count, r.Sides); err != nil {
		s.fail(r, err)
	} else {
		r.Values = derive(s.mac, s.ctx, r.Index, r.Kind, r.Purpose, r.Rule, r.Count, r.Sides)
	}
	s.rolls = append(s.rolls, r)
	return clone(r)
}

// Rolls returns copies of every roll made so far, in order; changing them
// does not change the stream's record.
func (s *Stream) Rolls() []Roll {
	out := make([]Roll, len(s.rolls))
	for i, r := range s.rolls {
		out[i] = clone(r)
	}
	return out
}

// Err returns the first invalid request the stream was given, or nil. The
// desk checks it before committing a resolution.
func (s *Stream) Err() error {
	return s.err
}

func (s *Stream) fail(r Roll, err error) {
	if s.err == nil {
		s.err = fmt.Errorf("dice: %s %d (%q): %w", r.Kind, r.Index, r.Purpose, err)
	}
}

// Face maps one byte to a face of a die of sides faces, without bias: it
// returns (b mod sides)+1 and true if b < 256-(256 mod sides), and 0 and false
// if b must be discarded (or sides is outside MinSides..MaxSides). Every face
// is the image of exactly 256/sides (rounded down) accepted bytes.
func Face(b byte, sides int) (face int, ok bool) {
	if sides < MinSides || sides > MaxSides {
		return 0, false
	}
	if int(b) >= 256-256%sides {
		return 0, false
	}
	return int(b)%sides + 1, true
}

// Message returns the HMAC message M of the package doc for the roll at
// index of ctx: the length-prefixed fields version, game, turn, phase, index,
// kind, purpose, rule, count, sides and orders digest. It is exported so that
// a verifier can compare its own encoding byte for byte.
func Message(ctx Context, index int, kind, purpose, rule string, count, sides int) []byte {
	return appendMessage(nil, ctx, index, kind, purpose, rule, count, sides)
}

// appendMessage appends Message's bytes to m: written in place, field by field, so
// that verifying an archive builds a million messages in one buffer.
func appendMessage(m []byte, ctx Context, index int, kind, purpose, rule string, count, sides int) []byte {
	v := version
	if !ctx.Beacon.IsZero() {
		v = versionBeacon
	}
	m = appendField(m, v)
	m = appendField(m, ctx.Game)
	m = appendIntField(m, int64(ctx.Turn))
	m = appendField(m, ctx.Phase)
	m = appendIntField(m, int64(index))
	m = appendField(m, kind)
	m = appendField(m, purpose)
	m = appendField(m, rule)
	m = appendIntField(m, int64(count))
	m = appendIntField(m, int64(sides))
	m = appendField(m, ctx.OrdersDigest)
	if !ctx.Beacon.IsZero() {
		m = ctx.Beacon.appendFields(m)
	}
	return m
}

// appendField appends F(f): f's length as 4 bytes big-endian, then f.
func appendField(m []byte, f string) []byte {
	m = binary.BigEndian.AppendUint32(m, uint32(len(f)))
	return append(m, f...)
}

// appendIntField appends F of n in decimal ASCII (strconv.Itoa's digits), written
// after room for its length, which is filled in once the digits are there.
func appendIntField(m []byte, n int64) []byte {
	at := len(m)
	m = append(m, 0, 0, 0, 0)
	m = strconv.AppendInt(m, n, 10)
	binary.BigEndian.PutUint32(m[at:], uint32(len(m)-at-4))
	return m
}

// Derive recomputes the raw Values of the roll at index for verification:
// Derive(seed, ctx, r.Index, r.Kind, r.Purpose, r.Rule, r.Count, r.Sides)
// must equal r.Values. It returns nil for a roll no Stream could have made
// (negative index, unknown kind, count or sides out of range).
func Derive(seed Seed, ctx Context, index int, kind, purpose, rule string, count, sides int) []int {
	if index < 0 || checkShape(kind, count, sides) != nil {
		return nil
	}
	return derive(hmac.New(sha256.New, seed[:]), ctx, index, kind, purpose, rule, count, sides)
}

// Verify re-derives r from seed and ctx and checks its Values and Result
// (and, for a shuffle, that Modifier and Result are 0). The error says what
// differs. A record of an invalid request fails too.
func Verify(seed Seed, ctx Context, r Roll) error {
	if err := verify(seed, ctx, r); err != nil {
		return fmt.Errorf("dice: %s %d (%q): %w", r.Kind, r.Index, r.Purpose, err)
	}
	return nil
}

// Verifier checks many rolls of one seed, keying the HMAC once and reusing its
// buffers: verifying a long archive is then bound by hashing, and a roll that
// verifies allocates nothing. A Verifier is not for two goroutines at once.
type Verifier struct {
	mac  hash.Hash
	bs   byteStream // its msg and buf are reused from roll to roll
	want []int
}

// NewVerifier returns a Verifier for seed.
func NewVerifier(seed Seed) *Verifier {
	return &Verifier{mac: hmac.New(sha256.New, seed[:])}
}

// Verify is [Verify] with the Verifier's seed.
func (v *Verifier) Verify(ctx Context, r Roll) error {
	if err := v.check(ctx, r); err != nil {
		return fmt.Errorf("dice: %s %d (%q): %w", r.Kind, r.Index, r.Purpose, err)
	}
	return nil
}

func (v *Verifier) check(ctx Context, r Roll) error {
	if err := checkRecord(r); err != nil {
		return err
	}
	v.bs.reset(v.mac)
	v.bs.msg = appendMessage(v.bs.msg[:0], ctx, r.Index, r.Kind, r.Purpose, r.Rule, r.Count, r.Sides)
	v.want = v.bs.values(v.want[:0], r.Kind, r.Count, r.Sides)
	return compare(r, v.want)
}

// verify is Verify without the prefix naming the roll, which is built only
// when there is an error to report.
func verify(seed Seed, ctx Context, r Roll) error {
	return verifyWith(hmac.New(sha256.New, seed[:]), ctx, r)
}

func verifyWith(mac hash.Hash, ctx Context, r Roll) error {
	if err := checkRecord(r); err != nil {
		return err
	}
	return compare(r, derive(mac, ctx, r.Index, r.Kind, r.Purpose, r.Rule, r.Count, r.Sides))
}

// checkRecord reports why r records no roll a Stream makes, before anything is derived.
func checkRecord(r Roll) error {
	if r.Index < 0 {
		return errors.New("negative index")
	}
	if err := checkShape(r.Kind, r.Count, r.Sides); err != nil {
		return err
	}
	if len(r.Values) != r.Count {
		return fmt.Errorf("%d values recorded, count is %d", len(r.Values), r.Count)
	}
	return nil
}

// compare checks r's Values and Result against want, the values its seed gives.
func compare(r Roll, want []int) error {
	for i, v := range r.Values {
		if v != want[i] {
			return fmt.Errorf("value %d is %d, the seed gives %d", i+1, v, want[i])
		}
	}
	switch r.Kind {
	case KindRoll:
		if s := sum(want); r.Result != s+r.Modifier {
			return fmt.Errorf("result is %d, want %d (sum %d, modifier %+d)", r.Result, s+r.Modifier, s, r.Modifier)
		}
	case KindShuffle:
		if r.Modifier != 0 || r.Result != 0 {
			return fmt.Errorf("a shuffle has modifier and result 0, got %d and %d", r.Modifier, r.Result)
		}
	}
	return nil
}

// checkShape reports why kind, count and sides describe no roll a Stream
// makes, or returns nil.
func checkShape(kind string, count, sides int) error {
	switch kind {
	case KindRoll:
		if count < 1 || count > MaxDice {
			return fmt.Errorf("count %d not in 1..%d", count, MaxDice)
		}
		if sides < MinSides || sides > MaxSides {
			return fmt.Errorf("sides %d not in %d..%d", sides, MinSides, MaxSides)
		}
	case KindShuffle:
		if count < 0 || count > MaxCards {
			return fmt.Errorf("deck of %d cards not in 0..%d", count, MaxCards)
		}
		if sides != 0 {
			return fmt.Errorf("a shuffle has sides 0, got %d", sides)
		}
	default:
		return fmt.Errorf("unknown kind %q", kind)
	}
	return nil
}

// derive computes the values of a valid roll with mac, an HMAC-SHA256 keyed
// with the seed (it is Reset before each block).
func derive(mac hash.Hash, ctx Context, index int, kind, purpose, rule string, count, sides int) []int {
	bs := byteStream{mac: mac, msg: Message(ctx, index, kind, purpose, rule, count, sides)}
	return bs.values(make([]int, 0, count), kind, count, sides)
}

// values appends to v the count values the stream gives a roll of kind: faces of
// dice of sides faces, or for a shuffle the Fisher-Yates permutation of 0..count-1.
func (bs *byteStream) values(v []int, kind string, count, sides int) []int {
	if kind == KindShuffle {
		for i := range count {
			v = append(v, i)
		}
		p := v[len(v)-count:]
		for i := count - 1; i >= 1; i-- {
			j := bs.face(i+1) - 1
			p[i], p[j] = p[j], p[i]
		}
		return v
	}
	for range count {
		v = append(v, bs.face(sides))
	}
	return v
}

// byteStream yields the bytes HMAC(seed, msg||C(0)) || HMAC(seed, msg||C(1))
// || ... one at a time.
type byteStream struct {
	mac   hash.Hash
	msg   []byte
	block uint32 // counter of the next block to compute
	buf   []byte // the current block
	pos   int    // next unread byte of buf
}

// reset starts the stream over with mac, keeping msg's and buf's memory for reuse.
func (bs *byteStream) reset(mac hash.Hash) {
	bs.mac, bs.block, bs.buf, bs.pos = mac, 0, bs.buf[:0], 0
}

func (bs *byteStream) next() byte {
	if bs.pos == len(bs.buf) {
		// A block counter wrap would need 2^32 blocks of rejected bytes,
		// which an HMAC output does not produce in practice; it is not
		// guarded because no caller could do anything sensible about it.
		// The counter goes after msg in msg's own buffer: one Write, and nothing that
		// escapes into the hash to allocate.
		n := len(bs.msg)
		bs.msg = binary.BigEndian.AppendUint32(bs.msg, bs.block)
		bs.mac.Reset()
		bs.mac.Write(bs.msg)
		bs.msg = bs.msg[:n]
		bs.buf = bs.mac.Sum(bs.buf[:0])
		bs.pos = 0
		bs.block++
	}
	b := bs.buf[bs.pos]
	bs.pos++
	return b
}

// face draws one face of a die of sides faces by rejection sampling.
func (bs *byteStream) face(sides int) int {
	for {
		if f, ok := Face(bs.next(), sides); ok {
			return f
		}
	}
}

func sum(v []int) int {
	t := 0
	for _, x := range v {
		t += x
	}
	return t
}

func clone(r Roll) Roll {
	if r.Values != nil {
		r.Values = append([]int(nil), r.Values...)
	}
	return r
}
