package adjudicator

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/store"
)

// AuditReport summarises a verified audit chain.
type AuditReport struct {
	Entries    int // links in the chain
	Rolls      int // rolls and shuffles
	Verified   int // rolls re-derived from a revealed seed
	Unrevealed int // rolls of turns whose seed is still secret: only their hashes are checked
	Signatures int // signed chain heads of results mails checked against the chain and the host key
	Cards      int // cards turned from sealed decks
	// CardsVerified are the cards re-derived from the revealed deck seed: each is the
	// card its deck's shuffles put at its place. Before the game ends none is.
	CardsVerified int
	HostKey       string
	// Beacons are the beacon rounds (games played with --dice beacon) whose signature
	// verified with drand quicknet's public key; every roll of such a game was
	// re-derived with its round.
	Beacons int
}

// VerifyAudit checks a game's audit chain from what is public: every hash link, every
// revealed seed against its commitment, every roll of a revealed turn re-derived; and
// every results mail's signed chain head: the chain passes through it, and its signature
// verifies with the host's public key.
func (d *Desk) VerifyAudit(ctx context.Context, game string) (AuditReport, error) {
	var (
		entries []store.AuditEntry
		journal []store.JournalEntry
		mails   = map[string]store.OutMail{}
		pub     ed25519.PublicKey
	)
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		if _, err := tx.Game(game); err != nil {
			return err
		}
		var err error
		if entries, err = tx.Audit(game); err != nil {
			return err
		}
		if journal, err = tx.Journal(game); err != nil {
			return err
		}
		signed := false
		for _, j := range journal {
			signed = signed || j.AuditHead != ""
		}
		if !signed {
			return nil // a game from before signing
		}
		if pub = archivedHostKey(tx); pub == nil { // an archive holds the public key only
			key, err := storedHostKey(tx)
			if err != nil {
				return err
			}
			pub = key.Public().(ed25519.PublicKey)
		}
		out, err := tx.GameOutbox(game)
		for _, m := range out {
			if m.Game == game && m.Kind == "results" {
				mails[m.MessageID] = m
			}
		}
		return err
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("read audit of %s: %w", game, err)
	}
	rep, err := VerifyChain(game, entries)
	if err != nil || pub == nil {
		return rep, err
	}
	rep.HostKey = hex.EncodeToString(pub)
	for _, j := range journal {
		if j.AuditHead == "" {
			continue
		}
		if j.AuditSeq == 0 || j.AuditSeq > uint64(len(entries)) || entries[j.AuditSeq-1].Hash != j.AuditHead {
			return rep, fmt.Errorf("journal #%d: its results mails carry chain head %s at entry %d, which the chain does not pass through", j.Seq, j.AuditHead, j.AuditSeq)
		}
		for _, id := range j.MailIDs {
			m, ok := mails[id]
			if !ok {
				return rep, fmt.Errorf("journal #%d: results mail %s is not in the outbox", j.Seq, id)
			}
			s, err := ParseSigned(m.Body)
			if err != nil {
				return rep, fmt.Errorf("results mail %s: %w", id, err)
			}
			if s.Seq != j.AuditSeq || s.Head != j.AuditHead || s.Game != game {
				return rep, fmt.Errorf("results mail %s signs head %s at entry %d of game %s; the journal recorded %s at %d", id, s.Head, s.Seq, s.Game, j.AuditHead, j.AuditSeq)
			}
			if err := s.Verify(pub); err != nil {
				return rep, fmt.Errorf("results mail %s: %w", id, err)
			}
			rep.Signatures++
		}
	}
	return rep, nil
}

// signedHeads lists the signed statements of a game's results mails, one per advance,
// from the journal (Ed25519 is deterministic: these are the signatures mailed).
func signedHeads(game string, journal []store.JournalEntry, key ed25519.PrivateKey) []SignedHead {
	var out []SignedHead
	for _, j := range journal {
		if j.AuditHead == "" || len(j.Steps) == 0 || key == nil {
			continue
		}
		last := j.Steps[len(j.Steps)-1]
		s := sign(key, game, last.Turn, last.Phase, j.AuditSeq, j.AuditHead)
		out = append(out, SignedHead{Seq: s.Seq, Head: s.Head, Statement: s.Statement(), Signature: hex.EncodeToString(s.Signature)})
	}
	return out
}

// SignedHead is one signed chain head as `adjutant audit export` gives it.
type SignedHead struct {
	Seq       uint64 `json:"seq"`
	Head      string `json:"head"`
	Statement string `json:"statement"` // the exact bytes signed
	Signature string `json:"signature"` // Ed25519, hex
}

// AuditExport is the JSON form of `adjutant audit export`: the chain, the host's public
// key and the signed heads, everything VerifyChain and a player need.
type AuditExport struct {
	Game        string             `json:"game"`
	HostKey     string             `json:"host_key"` // Ed25519 public key, hex
	Entries     []store.AuditEntry `json:"entries"`
	SignedHeads []SignedHead       `json:"signed_heads"`
}

// VerifyChain verifies an exported audit chain; it needs nothing else, so that a player can
// run it on the archive. The error names the first bad entry.
func VerifyChain(game string, entries []store.AuditEntry) (AuditReport, error) {
	rep := AuditReport{Entries: len(entries)}
	commits := map[int]string{}
	seeds := map[int]dice.Seed{}
	// Each entry's hash, and below each roll, is checked independently of the others:
	// on every CPU, each goroutine stopping at its first failure. The sequence, the
	// links, the seeds and the decks are followed in order, so that the error still
	// names the first bad entry.
	badHash, _ := firstError(len(entries), func() func(i int) error {
		var h linkHasher
		return func(i int) error { return h.check(&entries[i]) }
	})
	decks := sealedDecks{shuffles: map[string][]dice.Deal{}, turned: map[string]map[int]bool{}}
	var beacons beaconAudit
	var beaconOf []dice.BeaconValue // by entry, for a game played with the beacon only
	prev := ""
	for i := range entries {
		e := &entries[i]
		bad := func(format string, args ...any) error {
			return fmt.Errorf("audit entry #%d (%s, turn %d): %s", e.Seq, e.Kind, e.Turn, fmt.Sprintf(format, args...))
		}
		if e.Seq != uint64(i+1) {
			return rep, bad("sequence %d where %d was expected", e.Seq, i+1)
		}
		if e.Prev != prev {
			return rep, bad("does not link to the entry before it")
		}
		if i == badHash {
			return rep, bad("its hash does not match its contents")
		}
		prev = e.Hash
		switch e.Kind {
		case "commit":
			commits[e.Turn] = e.Value
		case "reveal":
			s, err := dice.ParseSeed(e.Value)
			if err != nil {
				return rep, bad("revealed seed unreadable: %v", err)
			}
			c, ok := commits[e.Turn]
			if !ok {
				return rep, bad("seed revealed without an earlier commitment")
			}
			if err := dice.CheckSeed(s, c); err != nil {
				return rep, bad("revealed seed does not match the commitment %s", c)
			}
			seeds[e.Turn] = s
		case dice.KindRoll, dice.KindShuffle:
			rep.Rolls++
			if _, ok := commits[e.Turn]; !ok {
				return rep, bad("roll made before its turn's seed was committed")
			}
			bv, err := beacons.forRoll(*e)
			if err != nil {
				return rep, bad("%v", err)
			}
			if !bv.IsZero() {
				if beaconOf == nil {
					beaconOf = make([]dice.BeaconValue, len(entries))
				}
				beaconOf[i] = bv
			}
		case "deck-commit", "deck-reveal", dice.KindDeckShuffle, dice.KindCard:
			if err := decks.add(*e); err != nil {
				return rep, bad("%v", err)
			}
			if e.Kind == dice.KindCard {
				rep.Cards++
			}
		case kindBeaconChain, kindBeaconRound, kindBeacon, kindBeaconWait, kindBeaconConsent, kindBeaconFallback:
			if err := beacons.add(*e); err != nil {
				return rep, bad("%v", err)
			}
			if e.Kind == kindBeacon {
				rep.Beacons++
			}
		default:
			return rep, bad("unknown kind")
		}
	}
	n, err := decks.verify(game)
	rep.CardsVerified = n
	if err != nil {
		return rep, err
	}
	badRoll, rollErr := firstError(len(entries), func() func(i int) error {
		var rc rollChecker
		return func(i int) error {
			e := &entries[i]
			seed, ok := seeds[e.Turn]
			if !isRoll(e) || !ok {
				return nil
			}
			var bv dice.BeaconValue
			if beaconOf != nil {
				bv = beaconOf[i]
			}
			return rc.check(game, seed, bv, e)
		}
	})
	for i := range entries {
		e := &entries[i]
		if !isRoll(e) {
			continue
		}
		if _, ok := seeds[e.Turn]; !ok {
			rep.Unrevealed++
			continue
		}
		if i == badRoll {
			return rep, fmt.Errorf("audit entry #%d (%s, turn %d): the revealed seed does not give this roll: %v", e.Seq, e.Kind, e.Turn, rollErr)
		}
		rep.Verified++
	}
	return rep, nil
}

func isRoll(e *store.AuditEntry) bool { return e.Kind == dice.KindRoll || e.Kind == dice.KindShuffle }

// errBadHash is a link whose hash does not match its contents (VerifyChain words it).
var errBadHash = errors.New("hash does not match")

// linkHasher checks entries' hashes in one reused buffer: no allocation a link.
type linkHasher struct{ buf []byte }

func (h *linkHasher) check(e *store.AuditEntry) error {
	h.buf = e.AppendHashInput(h.buf[:0])
	sum := sha256.Sum256(h.buf)
	var x [2 * sha256.Size]byte
	hex.Encode(x[:], sum[:])
	if string(x[:]) != e.Hash {
		return errBadHash
	}
	return nil
}

// rollChecker re-derives rolls with one Verifier per turn (a Verifier keys its HMAC
// once and reuses its buffers): no allocation a roll.
type rollChecker struct {
	turn      int
	v         *dice.Verifier
	verifiers map[int]*dice.Verifier
}

func (rc *rollChecker) check(game string, seed dice.Seed, bv dice.BeaconValue, e *store.AuditEntry) error {
	if rc.v == nil || rc.turn != e.Turn { // a chain's rolls come turn by turn
		if rc.verifiers == nil {
			rc.verifiers = map[int]*dice.Verifier{}
		}
		rc.turn, rc.v = e.Turn, rc.verifiers[e.Turn]
		if rc.v == nil {
			rc.v = dice.NewVerifier(seed)
			rc.verifiers[e.Turn] = rc.v
		}
	}
	r := dice.Roll{Index: e.Index, Kind: e.Kind, Purpose: e.Purpose, Rule: e.Rule, Count: e.Count, Sides: e.Sides, Values: e.Values, Modifier: e.Modifier, Result: e.Result}
	return rc.v.Verify(dice.Context{Game: game, Turn: e.Turn, Phase: e.Phase, OrdersDigest: e.OrdersDigest, Beacon: bv}, r)
}

// parallelMin is the fewest items worth spreading over several goroutines.
const parallelMin = 4096

// firstError calls check(i) for i in [0, n) and returns the lowest i whose check
// failed, with its error, or -1 and nil. The range is cut into GOMAXPROCS consecutive
// chunks (one, here, when n is small), each checked on its own goroutine with its own
// check from newCheck (so a check may keep state) and stopping at its first failure.
func firstError(n int, newCheck func() func(i int) error) (int, error) {
	k := runtime.GOMAXPROCS(0)
	if n < parallelMin || k < 2 {
		k = 1
	}
	type failure struct {
		i   int
		err error
	}
	first := make([]failure, k)
	var wg sync.WaitGroup
	for c := range k {
		lo, hi := n*c/k, n*(c+1)/k
		run := func() {
			first[c] = failure{i: -1}
			check := newCheck()
			for i := lo; i < hi; i++ {
				if err := check(i); err != nil {
					first[c] = failure{i, err}
					return
				}
			}
		}
		if k == 1 {
			run()
			break
		}
		wg.Go(run)
	}
	wg.Wait()
	for _, f := range first { // chunks are in order: the first failure found is the lowest
		if f.i >= 0 {
			return f.i, f.err
		}
	}
	return -1, nil
}

// ExportAudit writes a game's audit chain as "json" (an AuditExport: the entries, the
// host's public key and the signed chain heads of the results mails) or "csv" (the
// entries only).
func (d *Desk) ExportAudit(ctx context.Context, game, format string, w io.Writer) error {
	var (
		entries []store.AuditEntry
		journal []store.JournalEntry
		key     ed25519.PrivateKey
	)
	if err := d.Store.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.Game(game); err != nil {
			return err
		}
		var err error
		if entries, err = tx.Audit(game); err != nil {
			return err
		}
		if journal, err = tx.Journal(game); err != nil {
			return err
		}
		key, err = d.hostKey(tx)
		return err
	}); err != nil {
		return fmt.Errorf("export audit of %s: %w", game, err)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		x := AuditExport{Game: game, HostKey: hex.EncodeToString(key.Public().(ed25519.PublicKey)), Entries: entries,
			SignedHeads: signedHeads(game, journal, key)}
		if x.Entries == nil {
			x.Entries = []store.AuditEntry{}
		}
		if x.SignedHeads == nil {
			x.SignedHeads = []SignedHead{}
		}
		return enc.Encode(x)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"seq", "time", "kind", "turn", "phase", "index", "purpose", "rule", "count", "sides", "values", "modifier", "result", "orders_digest", "value", "prev", "hash", "deck"})
		for _, e := range entries {
			vals := make([]string, len(e.Values))
			for i, v := range e.Values {
				vals[i] = strconv.Itoa(v)
			}
			_ = cw.Write([]string{strconv.FormatUint(e.Seq, 10), e.Time.Format("2006-01-02T15:04:05.000000000Z07:00"), e.Kind, strconv.Itoa(e.Turn), e.Phase,
				strconv.Itoa(e.Index), e.Purpose, e.Rule, strconv.Itoa(e.Count), strconv.Itoa(e.Sides), strings.Join(vals, " "),
				strconv.Itoa(e.Modifier), strconv.Itoa(e.Result), e.OrdersDigest, e.Value, e.Prev, e.Hash, e.Deck})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("export audit: format %q: expected csv or json", format)
}

// VerifyExport verifies an audit export (the JSON of `adjutant audit export`) with
// nothing else, as anybody holding the archive can: the chain as VerifyChain does, and
// every signed head against the chain and the export's host key. A player compares that
// key and those heads with the ones his mails carry.
func VerifyExport(r io.Reader) (AuditReport, error) {
	var x AuditExport
	if err := json.NewDecoder(r).Decode(&x); err != nil {
		return AuditReport{}, fmt.Errorf("read audit export: %w", err)
	}
	rep, err := VerifyChain(x.Game, x.Entries)
	if err != nil {
		return rep, err
	}
	pub, err := hex.DecodeString(x.HostKey)
	if err != nil || len(pub) != ed25519.PublicKeySize {
		return rep, fmt.Errorf("audit export: host key %q is not an Ed25519 public key in hex", x.HostKey)
	}
	rep.HostKey = x.HostKey
	for _, h := range x.SignedHeads {
		if h.Seq == 0 || h.Seq > uint64(len(x.Entries)) || x.Entries[h.Seq-1].Hash != h.Head {
			return rep, fmt.Errorf("signed head %s at entry %d: the chain does not pass through it", h.Head, h.Seq)
		}
		s := Signed{Seq: h.Seq, Head: h.Head}
		if !strings.HasSuffix(h.Statement, fmt.Sprintf("|%d|%s", h.Seq, h.Head)) || !strings.HasPrefix(h.Statement, statementVersion+"|"+MailField(x.Game)+"|") {
			return rep, fmt.Errorf("signed head at entry %d: statement %q is not of game %s at that entry", h.Seq, h.Statement, x.Game)
		}
		if s.Signature, err = hex.DecodeString(h.Signature); err != nil || !ed25519.Verify(pub, []byte(h.Statement), s.Signature) {
			return rep, fmt.Errorf("signed head at entry %d: the signature does not verify with the host key", h.Seq)
		}
		rep.Signatures++
	}
	return rep, nil
}

// sealedDecks collects the sealed-deck entries of an audit chain (deck.go) as
// VerifyChain meets them, and checks every card against its deck's shuffles once the
// deck seed is revealed.
type sealedDecks struct {
	commitment string
	seed       *dice.Seed
	shuffles   map[string][]dice.Deal // by deck, in order
	size       map[string]int         // cards shuffled into each deck so far
	turned     map[string]map[int]bool
	cards      []store.AuditEntry
}

func (s *sealedDecks) add(e store.AuditEntry) error {
	switch e.Kind {
	case "deck-commit":
		if s.commitment != "" {
			return errors.New("a second deck seed commitment")
		}
		s.commitment = e.Value
	case "deck-reveal":
		seed, err := dice.ParseSeed(e.Value)
		if err != nil {
			return fmt.Errorf("revealed deck seed unreadable: %v", err)
		}
		if s.commitment == "" || dice.CheckSeed(seed, s.commitment) != nil {
			return fmt.Errorf("revealed deck seed does not match the commitment %q", s.commitment)
		}
		s.seed = &seed
	case dice.KindDeckShuffle:
		d := dealOf(e)
		switch {
		case s.commitment == "" || s.seed != nil:
			return errors.New("a deck shuffled outside the sealed time (before the deck seed's commitment or after its reveal)")
		case e.Index != len(s.shuffles[e.Deck]):
			return fmt.Errorf("shuffle %d of deck %q where shuffle %d was expected", e.Index, e.Deck, len(s.shuffles[e.Deck]))
		case e.Count != len(d.Cards) || len(d.Cards) > dice.MaxCards:
			return fmt.Errorf("shuffle of %d cards lists %d", e.Count, len(d.Cards))
		}
		s.shuffles[e.Deck] = append(s.shuffles[e.Deck], d)
		if s.size == nil {
			s.size = map[string]int{}
		}
		s.size[e.Deck] += len(d.Cards)
	case dice.KindCard:
		switch {
		case e.Index < 0 || e.Index >= s.size[e.Deck]:
			return fmt.Errorf("card %d of deck %q: the deck has had %d cards shuffled into it", e.Index, e.Deck, s.size[e.Deck])
		case s.turned[e.Deck][e.Index]:
			return fmt.Errorf("card %d of deck %q turned twice", e.Index, e.Deck)
		case len(strings.Fields(e.Value)) != 1:
			return fmt.Errorf("card %d of deck %q: %q is not one card", e.Index, e.Deck, e.Value)
		}
		if s.turned[e.Deck] == nil {
			s.turned[e.Deck] = map[int]bool{}
		}
		s.turned[e.Deck][e.Index] = true
		s.cards = append(s.cards, e)
	}
	return nil
}

// verify re-derives every deck's order from the revealed deck seed and checks every
// card turned; it returns how many cards it checked (none before the reveal).
func (s *sealedDecks) verify(game string) (int, error) {
	if s.seed == nil {
		return 0, nil
	}
	order := map[string][]string{}
	for deck, shuffles := range s.shuffles {
		for _, d := range shuffles {
			order[deck] = append(order[deck], dice.DealOrder(*s.seed, game, deck, d.Index, d.Purpose, d.Rule, d.Cards)...)
		}
	}
	for _, e := range s.cards {
		if e.Index >= len(order[e.Deck]) {
			return 0, fmt.Errorf("audit entry #%d (card, turn %d): card %d of deck %q: no such place in the deck", e.Seq, e.Turn, e.Index, e.Deck)
		}
		if want := order[e.Deck][e.Index]; want != e.Value {
			return 0, fmt.Errorf("audit entry #%d (card, turn %d): card %d of deck %q is %s, the revealed deck seed gives %s", e.Seq, e.Turn, e.Index, e.Deck, e.Value, want)
		}
	}
	return len(s.cards), nil
}
