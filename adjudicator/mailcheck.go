package adjudicator

import (
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// MailCheck counts what CheckMails verified.
type MailCheck struct {
	Rolls      int // distinct rolls the mails give the inputs of
	Verified   int // of those, re-derived from a revealed seed
	Unrevealed int // of those, of a turn whose seed no mail has revealed yet
	Seeds      int // revealed seeds that match the commitment mailed before
	Sealed     int // revealed sealed orders that match the commitment mailed before
	Signatures int // signed chain heads verified with the host key of the invitation
	// OrderChecks are the order checks whose signature (ordersign.go) verified with the
	// host key of the invitation.
	OrderChecks int
	// Heads are the signed chain heads, by entry number, for comparing two players' mails.
	Heads map[uint64]string
	// Cards are the distinct cards turned from sealed decks that the mails record;
	// CardsVerified of them were re-derived from the deck seed the last mail revealed,
	// with the shuffles the mails record; CardsSealed were not, no mail having revealed
	// the deck seed yet.
	Cards, CardsVerified, CardsSealed int
	// Beacons are the phases whose beacon round's signature verified with drand
	// quicknet's public key (games played with --dice beacon).
	Beacons int
}

// CheckMails verifies one game from the text of the mails one player received, in the
// order received, and nothing else: no store, no archive, no host. It is what a player
// can do by hand (docs/dice.md) and what docs/checkdice.py does, written out in Go:
//
//   - every seed revealed matches its commitment, mailed before the reveal;
//   - every sealed order revealed hashes, with its salt, to a commitment mailed before;
//   - every roll whose inputs a mail gives is re-derived from its turn's revealed seed
//     (the HMAC message is built here from the package dice documentation, not by
//     calling it), and no two mails give one roll different values;
//   - every signed chain head verifies with the host key of the invitation, and no two
//     mails sign different heads for the same chain entry;
//   - every order check's signature (ordersign.go) verifies with that key over the
//     text above it;
//   - in a game played with the beacon, every roll gives its round, whose signature
//     verifies with drand quicknet's public key, and is re-derived with it;
//   - once a mail has revealed the deck seed of a game with sealed card decks, and it
//     matches the commitment of the invitation, every card a mail recorded is the card
//     its deck's shuffles (each recorded in a mail too) put at its place.
//
// The error names the first thing that does not hold.
func CheckMails(game string, bodies []string) (MailCheck, error) {
	c := &mailChecker{game: game, commits: map[int]string{}, seeds: map[int][]byte{}, rolls: map[string]mailRoll{},
		published: map[string]bool{}, res: MailCheck{Heads: map[uint64]string{}},
		shuffles: map[string]map[int]mailDeal{}, cards: map[string]map[int]mailDeal{}}
	for i, body := range bodies {
		if err := c.mail(body); err != nil {
			return c.res, fmt.Errorf("mail %d of game %s: %w", i+1, game, err)
		}
		// A commitment counts as published for the mails after the one that carries it.
		for _, h := range anyHash.FindAllString(body, -1) {
			c.published[h] = true
		}
	}
	for _, r := range c.rolls {
		seed, ok := c.seeds[r.turn]
		if !ok {
			c.res.Unrevealed++
			continue
		}
		if err := r.verify(seed, game); err != nil {
			return c.res, err
		}
		c.res.Verified++
	}
	c.res.Rolls = len(c.rolls)
	if err := c.checkCards(); err != nil {
		return c.res, err
	}
	if c.orderCheckErr != nil {
		return c.res, c.orderCheckErr
	}
	return c.res, nil
}

type mailChecker struct {
	game      string
	key       ed25519.PublicKey
	commits   map[int]string // seed commitments by turn
	seeds     map[int][]byte
	published map[string]bool // every hash of the earlier mails
	rolls     map[string]mailRoll
	res       MailCheck
	beacons   map[string]bool // the phases ("turn|phase") whose beacon round verified
	// beaconGame: the invitation said every roll hashes a beacon round.
	beaconGame bool
	// orderCheckErr is the first order check whose signature failed (ordersign.go).
	orderCheckErr error
	// Sealed decks: the deck seed's commitment and, once revealed, the seed; every
	// shuffle and card recorded, by deck and number.
	deckCommit string
	deckSeed   []byte
	shuffles   map[string]map[int]mailDeal
	cards      map[string]map[int]mailDeal
}

type mailDeal struct {
	deck, purpose, rule string
	index               int
	cards               []string
	shown               string
}

type mailRoll struct {
	turn                int
	phase, digest       string
	index               int
	kind, purpose, rule string
	count, sides        int
	values              []int
	modifier, result    int
	shown               string // the record as the mail gave it
	beacon              dice.BeaconValue
}

var (
	anyHash     = regexp.MustCompile(`\b[0-9a-f]{64}\b`)
	hostKeyLine = regexp.MustCompile(`(?m)^Ed25519 key; keep this mail, it is the key:\n  ([0-9a-f]{64})$`)
	commitBlock = regexp.MustCompile(`(?m)^(?:#\d+ )?Turn (\d+): seed drawn; SHA-256 of its 32 bytes:\n  ([0-9a-f]{64})$`)
	seedBlock   = regexp.MustCompile(`(?m)^(?:#\d+ )?Turn (\d+): seed \(32 bytes, written in hex\)\n  ([0-9a-f]{64})\n  SHA-256 of the 32 bytes \(not of their hex\), its commitment:\n  ([0-9a-f]{64})$`)
	groupBlock  = regexp.MustCompile(`(?m)^` + groupHead + `\n  ([0-9a-f]{64})\n` + groupListHead + `\n((?:  [0-9a-f]{64}(?:\n|$))+)`)
	revealBlock = regexp.MustCompile(`(?m)^(.+), text:\n((?:    .*\n)+)  salt \(hashed as these \d+ characters\): (\S*)\n  commitment, SHA-256 of the text, "\|" and the salt:\n  ([0-9a-f]{64})$`)
	// revealShort is revealBlock's short form (revealLine): the order's one line of text.
	revealShort = regexp.MustCompile(`(?m)^(\S[^\n]*)\n  salt ([0-9a-f]{32}); SHA-256 of line, "\|", salt:\n  ([0-9a-f]{64})$`)
	// revealOne is the one-line form (revealOneLine), its commitment computed.
	revealOne   = regexp.MustCompile(`(?m)^(\S[^\n]*) \(salt ([0-9a-f]{32})\)$`)
	compactKind = regexp.MustCompile(`^  (?:(\d+)d(\d+)|shuffle of (\d+)), rule "([^"]*)":$`)
	compactRoll = regexp.MustCompile(`^(\d+) \[([\d ]*)\]( [+-]\d+)? "([^"]*)"$`)
	diceGame    = regexp.MustCompile(`(?m)^Game "([^"]*)"`)
	phaseLine   = regexp.MustCompile(`^Turn (\d+), phase "([^"]*)", orders digest:$`)
	digestLine  = regexp.MustCompile(`^  ([0-9a-f]{64})$`)
	rollLine    = regexp.MustCompile(`^(?:#\d+ )?index (\d+): (?:(\d+)d(\d+) -> \[([\d ]*)\]( [+-]\d+)? = (-?\d+)|shuffle of (\d+) -> \[([\d ]*)\]), rule "([^"]*)", purpose "([^"]*)"$`)
	signedBlock = regexp.MustCompile(`(?m)^The audit chain now ends at entry (\d+)\. The host's Ed25519 key\n  ([0-9a-f]{64})\nsigns this statement \(the two lines joined, UTF-8, no line break\):\n  (\S+)\n  ([0-9a-f]{64})\nSignature \(the two lines joined, 128 hex digits\):\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})$`)
	statementRE = regexp.MustCompile(`^adjutant-results-v1\|([^|]*)\|(\d+)\|([^|]*)\|(\d+)\|([0-9a-f]{64})$`)
	crlf        = strings.NewReplacer("\r\n", "\n")
	deckCommitB = regexp.MustCompile(`(?m)^(?:#\d+ )?Deck seed drawn, sealed until the game ends; SHA-256 of its 32 bytes:\n  ([0-9a-f]{64})$`)
	deckSeedB   = regexp.MustCompile(`(?m)^(?:#\d+ )?Deck seed \(32 bytes, written in hex\), revealed at the end of the game\n  ([0-9a-f]{64})\n  SHA-256 of the 32 bytes \(not of their hex\), its commitment:\n  ([0-9a-f]{64})$`)
	dealLine    = regexp.MustCompile(`^(?:#\d+ )?deck "([^"]*)" (?:shuffle (\d+) of (\d+) cards \[([^\]]*)\]|card (\d+): (\S+)), rule "([^"]*)", purpose "([^"]*)"$`)
)

func (c *mailChecker) mail(body string) error {
	body = crlf.Replace(body)
	if err := beaconKeyIn(body); err != nil {
		return err
	}
	c.beaconGame = c.beaconGame || strings.Contains(body, beaconInvitation)
	if m := hostKeyLine.FindStringSubmatch(body); m != nil && c.key == nil {
		k, _ := hex.DecodeString(m[1])
		c.key = ed25519.PublicKey(k)
	}
	if c.key != nil {
		// A changed order check is reported after the rest of the check, which says
		// better what a change to a roll or a seed in it amounts to.
		signed, err := VerifyOrderCheck(body, c.key)
		if err != nil && c.orderCheckErr == nil {
			c.orderCheckErr = err
		}
		if signed && err == nil {
			c.res.OrderChecks++
		}
	}
	for _, m := range commitBlock.FindAllStringSubmatch(body, -1) {
		turn, _ := strconv.Atoi(m[1])
		if old, ok := c.commits[turn]; ok && old != m[2] {
			return fmt.Errorf("turn %d: seed commitment %s, an earlier mail gave %s", turn, m[2], old)
		}
		c.commits[turn] = m[2]
	}
	for _, m := range seedBlock.FindAllStringSubmatch(body, -1) {
		turn, _ := strconv.Atoi(m[1])
		seed, _ := hex.DecodeString(m[2])
		sum := sha256.Sum256(seed)
		if got := hex.EncodeToString(sum[:]); got != m[3] || c.commits[turn] != m[3] || !c.wasPublished(m[3]) {
			return fmt.Errorf("turn %d: seed %s hashes to %s; the commitment mailed before is %q", turn, m[2], got, c.commits[turn])
		}
		if _, ok := c.seeds[turn]; !ok {
			c.res.Seeds++
		}
		c.seeds[turn] = seed
	}
	// The commitments of the sealed orders of one mail, mailed to the other side as one
	// (GroupCommitment): each listed commitment counts as mailed before when the list
	// hashes to a commitment that was.
	grouped := map[string]bool{}
	for _, m := range groupBlock.FindAllStringSubmatch(body, -1) {
		list := strings.Fields(m[2])
		if got := GroupCommitment(list); got != m[1] || !c.wasPublished(m[1]) {
			return fmt.Errorf("sealed orders of one mail: their commitments hash to %s, the commitment is %s (mailed before: %v)", got, m[1], c.wasPublished(m[1]))
		}
		for _, h := range list {
			grouped[h] = true
		}
	}
	type reveal struct{ what, text, salt, commitment string }
	var reveals []reveal
	for _, m := range revealBlock.FindAllStringSubmatch(body, -1) {
		reveals = append(reveals, reveal{m[1], revealedText(m[2]), m[3], m[4]})
	}
	for _, m := range revealShort.FindAllStringSubmatch(body, -1) {
		reveals = append(reveals, reveal{m[1], m[1], m[2], m[3]})
	}
	for _, m := range revealOne.FindAllStringSubmatch(body, -1) {
		sum := sha256.Sum256([]byte(m[1] + "|" + m[2]))
		reveals = append(reveals, reveal{m[1], m[1], m[2], hex.EncodeToString(sum[:])})
	}
	for _, r := range reveals {
		sum := sha256.Sum256([]byte(r.text + "|" + r.salt))
		if got := hex.EncodeToString(sum[:]); got != r.commitment || !(c.wasPublished(r.commitment) || grouped[r.commitment]) {
			return fmt.Errorf("%s: text and salt hash to %s, the commitment is %s (mailed before: %v)", r.what, got, r.commitment, c.wasPublished(r.commitment) || grouped[r.commitment])
		}
		c.res.Sealed++
	}
	for _, m := range deckCommitB.FindAllStringSubmatch(body, -1) {
		if c.deckCommit != "" && c.deckCommit != m[1] {
			return fmt.Errorf("deck seed commitment %s, an earlier mail gave %s", m[1], c.deckCommit)
		}
		c.deckCommit = m[1]
	}
	for _, m := range deckSeedB.FindAllStringSubmatch(body, -1) {
		seed, _ := hex.DecodeString(m[1])
		sum := sha256.Sum256(seed)
		if got := hex.EncodeToString(sum[:]); got != m[2] || c.deckCommit != m[2] || !c.wasPublished(m[2]) {
			return fmt.Errorf("deck seed %s hashes to %s; the commitment mailed before is %q", m[1], got, c.deckCommit)
		}
		c.deckSeed = seed
	}
	if err := c.rollsIn(body); err != nil {
		return err
	}
	for _, m := range signedBlock.FindAllStringSubmatch(body, -1) {
		if err := c.signed(m); err != nil {
			return err
		}
	}
	return nil
}

func (c *mailChecker) wasPublished(h string) bool { return c.published[h] }

// revealedText undoes the layout of a revealed order's text: 4 spaces of indentation, a
// continuation (6 spaces) standing for one space.
func revealedText(block string) string {
	var lines []string
	for _, l := range strings.Split(strings.TrimSuffix(block, "\n"), "\n") {
		if strings.HasPrefix(l, "      ") && len(lines) > 0 {
			lines[len(lines)-1] += " " + l[6:]
			continue
		}
		lines = append(lines, l[4:])
	}
	return strings.Join(lines, "\n")
}

// rollsIn reads the roll records of a Dice section or a ROLLS reply.
func (c *mailChecker) rollsIn(body string) error {
	lines := strings.Split(body, "\n")
	turn, phase, digest := -1, "", ""
	var bv dice.BeaconValue
	bound := false // the phase's beacon lines were given (a round, or none by consent)
	gameOK := false
	if m := diceGame.FindStringSubmatch(body); m != nil {
		gameOK = m[1] == MailField(c.game)
	}
	var kind []string // the compact form's kind line in force (compactKind), or nil
	for i := 0; i < len(lines); i++ {
		if m := phaseLine.FindStringSubmatch(lines[i]); m != nil && i+1 < len(lines) {
			d := digestLine.FindStringSubmatch(lines[i+1])
			if d == nil {
				return fmt.Errorf("%q is not followed by an orders digest", lines[i])
			}
			turn, _ = strconv.Atoi(m[1])
			phase, digest = m[2], d[1]
			kind = nil
			i++
			n, v, err := c.beaconIn(lines[i+1:], m[1]+"|"+m[2])
			if err != nil {
				return fmt.Errorf("turn %d phase %s: %w", turn, phase, err)
			}
			i, bv, bound = i+n, v, n > 0
			continue
		}
		if m := compactKind.FindStringSubmatch(lines[i]); m != nil && turn >= 0 {
			kind = m
			continue
		}
		if kind != nil && strings.HasPrefix(lines[i], "  ") && len(lines[i]) > 2 && lines[i][2] >= '0' && lines[i][2] <= '9' {
			record := lines[i][2:]
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") && !strings.HasPrefix(lines[i+1], "     ") {
				i++
				record += " " + lines[i][4:]
			}
			if !gameOK {
				return fmt.Errorf("rolls of another game than %s", c.game)
			}
			r, err := parseCompactRoll(record, kind, turn, phase, digest)
			if err != nil {
				return err
			}
			if err := c.addRoll(r, bv, bound); err != nil {
				return err
			}
			continue
		}
		kind = nil // the compact records end at any other line
		if dealLine.MatchString(strings.TrimPrefix(lines[i], "  ")) || strings.HasPrefix(lines[i], "  deck \"") ||
			(strings.HasPrefix(lines[i], "  #") && strings.Contains(lines[i], " deck \"")) {
			record := strings.TrimPrefix(lines[i], "  ")
			for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") && !strings.HasPrefix(lines[i+1], "     ") {
				i++
				record += " " + lines[i][4:]
			}
			if !gameOK {
				return fmt.Errorf("cards of another game than %s", c.game)
			}
			if err := c.deal(record); err != nil {
				return err
			}
			continue
		}
		if !strings.HasPrefix(lines[i], "  index ") && !(strings.HasPrefix(lines[i], "  #") && strings.Contains(lines[i], " index ")) {
			continue
		}
		record := strings.TrimPrefix(lines[i], "  ")
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], "    ") && !strings.HasPrefix(lines[i+1], "     ") {
			i++
			record += " " + lines[i][4:]
		}
		if turn < 0 {
			return fmt.Errorf("roll %q before any phase header", record)
		}
		if !gameOK {
			return fmt.Errorf("rolls of another game than %s", c.game)
		}
		r, err := parseRoll(record, turn, phase, digest)
		if err != nil {
			return err
		}
		if err := c.addRoll(r, bv, bound); err != nil {
			return err
		}
	}
	return nil
}

// addRoll keeps a roll read from a mail, which must agree with any other mail's record
// of it, in either form. bv is the beacon round of its phase, which the mail gave
// (bound) or not.
func (c *mailChecker) addRoll(r mailRoll, bv dice.BeaconValue, bound bool) error {
	r.beacon = bv
	if c.beaconGame && !bound {
		return fmt.Errorf("turn %d phase %s index %d: the game plays with the beacon, and the mail gives no beacon round for this roll", r.turn, r.phase, r.index)
	}
	r.shown = r.canonical()
	key := fmt.Sprintf("%d|%s|%d", r.turn, r.phase, r.index)
	if old, ok := c.rolls[key]; ok && (old.shown != r.shown || old.digest != r.digest || old.beacon != r.beacon) {
		return fmt.Errorf("turn %d phase %s index %d: %q with orders digest %s, an earlier mail gave %q with %s",
			r.turn, r.phase, r.index, r.shown, r.digest, old.shown, old.digest)
	}
	c.rolls[key] = r
	return nil
}

// canonical is a roll's record in one form whichever form the mail gave it in, so
// that two mails' records of one roll compare.
func (r mailRoll) canonical() string {
	if r.kind == "shuffle" {
		return fmt.Sprintf("shuffle of %d -> %v, rule %q, purpose %q", r.count, r.values, r.rule, r.purpose)
	}
	return fmt.Sprintf("%dd%d -> %v %+d = %d, rule %q, purpose %q", r.count, r.sides, r.values, r.modifier, r.result, r.rule, r.purpose)
}

// parseCompactRoll reads a record of the compact form (diceText's) under its kind line
// (compactKind's match).
func parseCompactRoll(record string, kind []string, turn int, phase, digest string) (mailRoll, error) {
	m := compactRoll.FindStringSubmatch(record)
	if m == nil {
		return mailRoll{}, fmt.Errorf("unreadable roll %q", record)
	}
	r, err := newMailRoll(turn, digest, m[1], phase, kind[4], m[4])
	if err != nil {
		return r, err
	}
	if kind[3] != "" {
		r.kind = "shuffle"
		r.count, _ = strconv.Atoi(kind[3])
	} else {
		r.kind = "roll"
		r.count, _ = strconv.Atoi(kind[1])
		r.sides, _ = strconv.Atoi(kind[2])
		r.modifier, _ = strconv.Atoi(strings.TrimSpace(m[3]))
	}
	if err := r.withinLimits(record); err != nil {
		return r, err
	}
	for _, f := range strings.Fields(m[2]) {
		v, _ := strconv.Atoi(f)
		r.values = append(r.values, v)
		r.result += v
	}
	r.result += r.modifier
	return r, nil
}

// newMailRoll is a roll's context and quoted fields as a mail gives them, read back.
func newMailRoll(turn int, digest, index, phase, rule, purpose string) (mailRoll, error) {
	r := mailRoll{turn: turn, digest: digest}
	r.index, _ = strconv.Atoi(index)
	var err error
	if r.phase, err = UnmailField(phase); err == nil {
		if r.rule, err = UnmailField(rule); err == nil {
			r.purpose, err = UnmailField(purpose)
		}
	}
	return r, err
}

// withinLimits reports a roll no server could have made, which re-deriving would
// divide by zero or draw without end for: the limits of package dice.
func (r mailRoll) withinLimits(record string) error {
	if r.kind == "roll" && (r.count < 1 || r.count > dice.MaxDice || r.sides < dice.MinSides || r.sides > dice.MaxSides) ||
		r.kind == "shuffle" && r.count > dice.MaxCards {
		return fmt.Errorf("roll %q: no such roll (dice 1 to %d of %d to %d sides, decks up to %d)", record, dice.MaxDice, dice.MinSides, dice.MaxSides, dice.MaxCards)
	}
	return nil
}

func parseRoll(record string, turn int, phase, digest string) (mailRoll, error) {
	m := rollLine.FindStringSubmatch(record)
	if m == nil {
		return mailRoll{}, fmt.Errorf("unreadable roll %q", record)
	}
	r, err := newMailRoll(turn, digest, m[1], phase, m[9], m[10])
	if err != nil {
		return r, err
	}
	vals := m[4]
	if m[7] != "" {
		r.kind, vals = "shuffle", m[8]
		r.count, _ = strconv.Atoi(m[7])
	} else {
		r.kind = "roll"
		r.count, _ = strconv.Atoi(m[2])
		r.sides, _ = strconv.Atoi(m[3])
		r.modifier, _ = strconv.Atoi(strings.TrimSpace(m[5]))
		r.result, _ = strconv.Atoi(m[6])
	}
	if err := r.withinLimits(record); err != nil {
		return r, err
	}
	for _, f := range strings.Fields(vals) {
		v, _ := strconv.Atoi(f)
		r.values = append(r.values, v)
	}
	return r, nil
}

// verify re-derives the roll from the seed, following the package dice documentation:
// M = F("adjutant-dice-v1") || F(game) || F(turn) || F(phase) || F(index) || F(kind) ||
// F(purpose) || F(rule) || F(count) || F(sides) || F(ordersDigest), F(x) = 4-byte
// big-endian length || x; bytes HMAC-SHA256(seed, M || C(k)) for k = 0, 1, ...; a die of
// s sides takes each byte b < 256 - 256 mod s as b mod s + 1.
func (r mailRoll) verify(seed []byte, game string) error {
	want, sum := r.derive(seed, game)
	if fmt.Sprint(want) != fmt.Sprint(r.values) || (r.kind == "roll" && r.result != sum+r.modifier) {
		return fmt.Errorf("turn %d phase %s index %d (%s): the mail shows %v = %d, the revealed seed gives %v = %d",
			r.turn, r.phase, r.index, r.purpose, r.values, r.result, want, sum+r.modifier)
	}
	return nil
}

// derive computes the roll's values from the seed, and their sum.
func (r mailRoll) derive(seed []byte, game string) ([]int, int) {
	var msg []byte
	fields := []string{"adjutant-dice-v1", game, strconv.Itoa(r.turn), r.phase, strconv.Itoa(r.index), r.kind,
		r.purpose, r.rule, strconv.Itoa(r.count), strconv.Itoa(r.sides), r.digest}
	if r.beacon.Round != 0 {
		// Version 2: the beacon round and its randomness follow (docs/dice.md).
		fields[0] = "adjutant-dice-v2"
		fields = append(fields, strconv.FormatUint(r.beacon.Round, 10), hex.EncodeToString(r.beacon.Randomness[:]))
	}
	for _, f := range fields {
		msg = binary.BigEndian.AppendUint32(msg, uint32(len(f)))
		msg = append(msg, f...)
	}
	var buf []byte
	block := uint32(0)
	draw := func(s int) int {
		for {
			if len(buf) == 0 {
				mac := hmac.New(sha256.New, seed)
				mac.Write(binary.BigEndian.AppendUint32(append([]byte(nil), msg...), block))
				buf, block = mac.Sum(nil), block+1
			}
			b := int(buf[0])
			buf = buf[1:]
			if b < 256-256%s {
				return b%s + 1
			}
		}
	}
	var want []int
	sum := 0
	if r.kind == "shuffle" {
		want = make([]int, r.count)
		for i := range want {
			want[i] = i
		}
		for i := r.count - 1; i >= 1; i-- {
			j := draw(i+1) - 1
			want[i], want[j] = want[j], want[i]
		}
	} else {
		for i := 0; i < r.count; i++ {
			v := draw(r.sides)
			want, sum = append(want, v), sum+v
		}
	}
	return want, sum
}

// signed checks one signed chain head against the host key of the invitation.
func (c *mailChecker) signed(m []string) error {
	if c.key == nil {
		return fmt.Errorf("a signed chain head before the invitation that gives the host key")
	}
	if m[2] != hex.EncodeToString(c.key) {
		return fmt.Errorf("results signed with key %s, the invitation gives %x", m[2], []byte(c.key))
	}
	s, err := signedFrom(m)
	if err != nil {
		return err
	}
	if s.Game != c.game {
		return fmt.Errorf("signed statement %q: not of game %s", s.Statement(), c.game)
	}
	if err := s.Verify(c.key); err != nil {
		return err
	}
	if old, ok := c.res.Heads[s.Seq]; ok && old != s.Head {
		return fmt.Errorf("entry %d: signed head %s, an earlier mail signed %s", s.Seq, s.Head, old)
	}
	c.res.Heads[s.Seq] = s.Head
	c.res.Signatures++
	return nil
}

// deal reads one record of a sealed deck (dicetext.go's dealRecord).
func (c *mailChecker) deal(record string) error {
	m := dealLine.FindStringSubmatch(record)
	if m == nil {
		return fmt.Errorf("unreadable card record %q", record)
	}
	d := mailDeal{shown: strings.TrimSpace(record[strings.Index(record, "deck "):])}
	var err error
	if d.deck, err = UnmailField(m[1]); err == nil {
		if d.rule, err = UnmailField(m[7]); err == nil {
			d.purpose, err = UnmailField(m[8])
		}
	}
	if err != nil {
		return err
	}
	into := c.cards
	if m[2] != "" {
		d.index, _ = strconv.Atoi(m[2])
		n, _ := strconv.Atoi(m[3])
		d.cards = strings.Fields(m[4])
		if n != len(d.cards) || n > dice.MaxCards {
			return fmt.Errorf("%q: a shuffle of %d cards that lists %d", record, n, len(d.cards))
		}
		into = c.shuffles
	} else {
		d.index, _ = strconv.Atoi(m[5])
		d.cards = []string{m[6]}
	}
	if into[d.deck] == nil {
		into[d.deck] = map[int]mailDeal{}
	}
	if old, ok := into[d.deck][d.index]; ok && old.shown != d.shown {
		return fmt.Errorf("%q, an earlier mail gave %q", d.shown, old.shown)
	}
	into[d.deck][d.index] = d
	return nil
}

// checkCards re-derives every deck's order from the revealed deck seed: each shuffle
// is the package dice shuffle of its cards (turn 0, phase "deck " + the deck, the
// shuffle's number as index, no orders digest), position k holding the card at the
// permutation's k-th value, the deck's order its shuffles' orders one after the other.
func (c *mailChecker) checkCards() error {
	for _, cards := range c.cards {
		c.res.Cards += len(cards)
	}
	if c.deckSeed == nil {
		c.res.CardsSealed = c.res.Cards
		return nil
	}
	for deck, cards := range c.cards {
		var order []string
		for k := 0; k < len(c.shuffles[deck]); k++ {
			sh, ok := c.shuffles[deck][k]
			if !ok {
				return fmt.Errorf("deck %q: no mail records its shuffle %d", deck, k)
			}
			r := mailRoll{turn: 0, phase: "deck " + deck, index: k, kind: "shuffle", purpose: sh.purpose, rule: sh.rule, count: len(sh.cards)}
			p, _ := r.derive(c.deckSeed, c.game)
			for _, j := range p {
				order = append(order, sh.cards[j])
			}
		}
		for n, d := range cards {
			if n >= len(order) {
				return fmt.Errorf("deck %q card %d (%s): the mails record only %d cards shuffled into the deck", deck, n, d.purpose, len(order))
			}
			if order[n] != d.cards[0] {
				return fmt.Errorf("deck %q card %d (%s): the mail shows %s, the revealed deck seed gives %s", deck, n, d.purpose, d.cards[0], order[n])
			}
			c.res.CardsVerified++
		}
	}
	return nil
}
