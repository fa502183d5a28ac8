// Package dice is Adjutant's only source of randomness: every die rolled and
// every deck shuffled in a game comes from here, so that either player can
// check, after the fact, that the server neither chose nor changed a roll
// (DESIGN.md, "Verifiable dice"; invariants 3 and 4).
//
// The package knows no game. It has no global state, reads no clock and never
// uses math/rand: the only randomness it consumes is the seed, and everything
// after the seed is a deterministic function of public data, which is what
// makes replay and verification possible.
//
// # Commit and reveal
//
// For each game turn the server draws a [Seed] of 32 bytes from crypto/rand
// ([NewSeed]) and publishes its commitment, the lowercase hex SHA-256 of the
// 32 raw seed bytes ([Seed.Commitment]), in the mail that opens the turn,
// before any orders for it are due. The seed itself stays secret until the
// turn is over, then it is revealed (lowercase hex, [Seed.String]). A player
// checks the revealed seed against the commitment received earlier
// ([CheckSeed]) and then recomputes every roll of the turn ([Derive],
// [Verify]). The commitment fixes the seed before any order is known, so the
// host cannot swap in another seed once the orders are in. Every roll also
// depends on a digest of the orders the phase resolved (the players' entropy):
// when the host draws the seed it cannot know those orders, so it cannot
// search for a seed that would give it good rolls either. What the scheme
// does not give is secrecy from the host, who holds the seed all turn: the
// rolls are unchosen and checkable, not hidden from the server.
//
// # Deriving a roll
//
// A turn's rolls are grouped in streams: one [Stream] per [Context] (game,
// turn, phase and the digest of the orders the phase resolved). Inside a
// stream each roll or shuffle has an index 0, 1, 2, ... in the order the
// ruleset asked for it.
//
// The bytes of the roll at index i are the HMAC-SHA256 output, keyed with the
// 32 raw seed bytes, of
//
//	M = F("adjutant-dice-v1") || F(game) || F(turn) || F(phase) || F(index) ||
//	    F(kind) || F(purpose) || F(rule) || F(count) || F(sides) ||
//	    F(ordersDigest)
//
// where F(x) is the length of x in bytes as a 4-byte big-endian unsigned
// integer followed by the bytes of x. Strings are taken byte for byte as
// stored (UTF-8). Integers (turn, index, count, sides) are first written in
// decimal ASCII with a leading "-" if negative and no leading zeros or "+",
// exactly as Go's strconv.Itoa does, e.g. turn 12 is F("12") = 00 00 00 02 31
// 32. The length prefixes make the encoding unambiguous (no choice of field
// values can make two different field lists give the same M), and the first
// field, a fixed version tag, keeps these messages apart from any other use of
// the same key and lets a future scheme change be told apart. kind is "roll"
// or "shuffle"; for a shuffle of n cards, count is n and sides is 0.
// [Message] returns M.
//
// One HMAC output is 32 bytes; a roll that needs more is extended in counter
// mode: the byte string for the roll is
//
//	HMAC(seed, M || C(0)) || HMAC(seed, M || C(1)) || HMAC(seed, M || C(2)) || ...
//
// where C(k) is k as a 4-byte big-endian unsigned integer (not length
// prefixed: it is always the last 4 bytes). Bytes are consumed in that order,
// from the first byte of block 0, and as many blocks are computed as needed.
//
// # From bytes to a die: rejection sampling
//
// A die of s sides (2 <= s <= 256) takes the next byte b (0..255). If
// b < 256 - (256 mod s) the face is (b mod s) + 1; otherwise b is discarded
// and the next byte is taken. The accepted range is a whole multiple of s, so
// every face has exactly the same number of byte values mapping to it: taking
// b mod s of every byte would favour the low faces (a d6 would show 1 to 4 with
// probability 43/256 and 5 or 6 with 42/256). For a d6 the bytes 252..255 are
// discarded. [Face] is this mapping. The dice of a roll of count dice are taken
// one after the other from the same byte string; the roll's values are the
// faces in that order, and its result is their sum plus the modifier (the
// modifier is not part of M: it is audited by the result, and by replay).
//
// # Shuffling
//
// A shuffle of n cards (0 <= n <= 256) starts from the identity permutation
// p = [0, 1, ..., n-1] and runs Fisher-Yates from the top: for i = n-1 down to
// 1, draw j uniform in 0..i with the rejection rule above for s = i+1 (accept
// b < 256 - (256 mod (i+1)), j = b mod (i+1)) and swap p[i] and p[j]. The
// values of the shuffle are p: position k of the shuffled deck holds the card
// that was at position p[k] before. Every one of the n! orders is equally
// likely because every draw is exactly uniform.
//
// # Sealed decks
//
// A game played with cards keeps each deck's order secret until the game ends, which a
// turn's stream cannot do (its values are shown as they are made, its seed revealed
// with the turn). For such a game the server draws one more seed, the deck seed, when
// the game is created, commits to it the same way and reveals it when the game ends. A
// [Dealer] shuffles each deck from it: shuffle k of deck d is the shuffle above at
// index k of the context [DeckContext] (the game, turn 0, phase "deck " + d, no
// orders digest), and place j of the shuffled deck holds the card at position p[j] of
// the cards shuffled. A deck deals its shuffles' orders one after the other, and each
// card turned is recorded ([Deal]) by its place in that sequence. [DealOrder]
// re-derives a shuffle from the revealed deck seed. A deck shuffled before any order
// exists takes no orders digest: the deck seed's commitment proves that the order did
// not change during the game, not that the host did not choose the seed.
//
// # Checking from the mail
//
// A player needs nothing of this package to check his rolls: the results mails and the
// ROLLS reply give every field of M for every roll (adjudicator.MailField writes the
// string fields so that they survive a mail), the seed once revealed and the seed
// commitment mailed before it. docs/dice.md in the repository states the rules for
// players with a worked check in bash (sha256sum, openssl), docs/checkdice.py does the
// whole check in Python, and adjudicator.CheckMails does it in Go from mail text alone.
//
// # Audit and replay
//
// A [Stream] records every [Roll] it makes, with its index, its purpose in
// words, the rule that called for it, the raw values, the modifier and the
// result; the caller writes those records to the game's audit chain in the same
// transaction as the result that used them. [Derive] recomputes the raw values
// from the revealed seed and [Verify] checks a whole record. [Script] is a
// [Source] that replays fixed values, for conformance cases and tests.
//
// Asking for an impossible roll (a count outside 1..[MaxDice], sides outside
// 2..256, a deck outside 0..[MaxCards]) is a bug in the ruleset. It does not
// panic, because a panic in the middle of a resolution would lose the
// transaction: the roll is recorded with no values and result 0, the
// source's Err method reports it, and [Verify] refuses such a record, so the
// bug cannot slip silently into the audit chain.
package dice
