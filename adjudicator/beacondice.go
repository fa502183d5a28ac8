package adjudicator

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"regexp"
	"strconv"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"github.com/adjutant-pbem/adjutant/store"
)

// Games played with `--dice beacon` (DESIGN.md "Verifiable dice"): when the last order
// of a phase that rolls is in, the desk names a round of drand's quicknet chain that
// does not exist yet, the first at least BeaconDelay later, and resolves the phase when
// the round is published, every roll mixing in its randomness (dice message version
// 2). The host, who holds the seed, can then no more know a roll before every order is
// fixed than a player can. The audit chain records:
//
//	beacon-chain     at creation: Value the chain's public key (hex); Purpose its hash
//	beacon-round     a round named: Turn, Phase, Index the round, Value when it is
//	                 published (RFC 3339), OrdersDigest the orders it was named for
//	beacon           the round fetched and verified: Index the round, Value its
//	                 signature (hex)
//	beacon-wait      the round could not be fetched BeaconPatience after it was due:
//	                 both players were told (Index the round)
//	beacon-consent   a player agreed by mail (DICE SEED ALONE) to roll the phase from
//	                 the seed alone: Value the side
//	beacon-fallback  every player agreed: the phase rolls from the seed alone
//
// and VerifyChain checks every signature and re-derives every roll with its round.

// DiceBeacon is NewGame.Dice and store.Game.Dice for a game whose rolls mix in a
// public beacon round.
const DiceBeacon = "beacon"

// BeaconDelay is how long after the last order the named round is published, at least:
// long enough that no one can know it when the orders are fixed, short enough not to
// keep the players waiting.
const BeaconDelay = time.Minute

// BeaconSource names and fetches beacon rounds: [beacon.Source] over HTTP.
type BeaconSource interface {
	// RoundAt is the first round published at or after t, and when.
	RoundAt(t time.Time) (uint64, time.Time)
	// Fetch returns round n, its signature verified; beacon.ErrNotYet before it is out.
	Fetch(ctx context.Context, n uint64) (beacon.Round, error)
}

// beaconChain is the chain every beacon game uses; VerifyChain and CheckMails hold the
// rounds to its key, whatever key an archive or a mail claims.
var beaconChain = beacon.Quicknet

// Audit kinds of the beacon.
const (
	kindBeaconChain    = "beacon-chain"
	kindBeaconRound    = "beacon-round"
	kindBeacon         = "beacon"
	kindBeaconWait     = "beacon-wait"
	kindBeaconConsent  = "beacon-consent"
	kindBeaconFallback = "beacon-fallback"
)

// BeaconPatience is how long after its round is due a phase waits before the players
// are told the beacon cannot be reached (and may agree to roll from the seed alone).
const BeaconPatience = 10 * time.Minute

// beaconPending is a phase waiting for its named round.
type beaconPending struct {
	Turn  int
	Phase string
	Round uint64
	At    time.Time
}

// String names the round for a mail: which round and when it is published.
func (p beaconPending) String() string {
	return fmt.Sprintf("drand quicknet round %d, published at %s", p.Round, p.At.Format(timeFormat))
}

// checkDice validates NewGame.Dice (a match's second game plays as its first).
func (d *Desk) checkDice(ng *NewGame, first *store.Game) error {
	if ng.Dice == "" && first != nil {
		ng.Dice = first.Dice
	}
	switch ng.Dice {
	case "", "seed":
		ng.Dice = ""
	case DiceBeacon:
		if d.Beacon == nil {
			return errors.New("dice beacon: no beacon is configured for this desk ([beacon] in the configuration)")
		}
	default:
		return fmt.Errorf("dice %q: expected seed or beacon", ng.Dice)
	}
	return nil
}

// declareBeacon records, in a beacon game's first audit entries, which chain its
// rounds come from.
func declareBeacon(tx store.Tx, g store.Game, now time.Time) error {
	if g.Dice != DiceBeacon {
		return nil
	}
	_, err := tx.AppendAudit(g.Name, store.AuditEntry{Time: now, Kind: kindBeaconChain, Value: hex.EncodeToString(beaconChain.PublicKey),
		Purpose: "every roll of this game mixes in a round of drand quicknet, chain " + beaconChain.Hash})
	if err != nil {
		return fmt.Errorf("declare the beacon of %s: %w", g.Name, err)
	}
	return nil
}

// beaconState is what a game's audit chain says of the beacon at one phase.
type beaconState struct {
	named   *beaconPending
	fetched *beacon.Round
	// told: the players were told the beacon cannot be reached; consents are the sides
	// that agreed to the seed alone, fallback that all did.
	told     bool
	consents map[string]bool
	fallback bool
}

// phaseBeacon reads the beacon entries of a game's turn and phase.
func phaseBeacon(tx store.Tx, game string, turn int, phase string) (beaconState, error) {
	entries, err := tx.Audit(game)
	if err != nil {
		return beaconState{}, fmt.Errorf("read the audit chain of %s: %w", game, err)
	}
	var bs beaconState
	for _, e := range entries {
		if e.Turn != turn || e.Phase != phase {
			continue
		}
		switch e.Kind {
		case kindBeaconRound:
			at, _ := time.Parse(time.RFC3339, e.Value)
			bs = beaconState{named: &beaconPending{Turn: turn, Phase: phase, Round: uint64(e.Index), At: at}}
		case kindBeacon:
			r, err := beacon.ParseRound(uint64(e.Index), e.Value)
			if err != nil {
				return bs, err
			}
			bs.fetched = &r
		case kindBeaconWait:
			bs.told = true
		case kindBeaconConsent:
			if bs.consents == nil {
				bs.consents = map[string]bool{}
			}
			bs.consents[e.Value] = true
		case kindBeaconFallback:
			bs.fallback = true
		}
	}
	return bs, nil
}

// beaconFor decides the beacon of a phase about to be resolved: its value when the round
// is in; a pending round (the phase waits) when one is named or must be, that is when
// the phase rolls (a dry run of the resolution, which is pure, tells).
func (d *Desk) beaconFor(tx store.Tx, g *store.Game, rs rules.Ruleset, st rules.State, inputs []rules.Order, seed dice.Seed, deck *dice.Seed, now time.Time) (*beacon.Round, *beaconPending, error) {
	if g.Dice != DiceBeacon {
		return nil, nil, nil
	}
	bs, err := phaseBeacon(tx, g.Name, st.Turn(), st.Phase())
	if err != nil {
		return nil, nil, err
	}
	switch {
	case bs.fetched != nil:
		return bs.fetched, nil, nil
	case bs.fallback:
		return &beacon.Round{}, nil, nil // round 0: the seed alone, by consent
	case bs.named != nil:
		return nil, bs.named, nil
	}
	// The dry run resolves a copy: a ruleset may change the state it is given.
	raw, err := rs.Encode(st)
	if err != nil {
		return nil, nil, err
	}
	dry, err := rs.Decode(raw)
	if err != nil {
		return nil, nil, err
	}
	_, rolls, _, digest, err := resolvePhase(rs, g.Name, dry, inputs, seed, deck, dice.BeaconValue{})
	if err != nil || len(rolls) == 0 {
		return nil, nil, err // resolved as is: an error says itself there
	}
	if d.Beacon == nil {
		return nil, nil, fmt.Errorf("%w: game %s rolls with the beacon, and no beacon is configured", ErrAdjudication, g.Name)
	}
	n, at := d.Beacon.RoundAt(now.Add(BeaconDelay))
	p := &beaconPending{Turn: st.Turn(), Phase: st.Phase(), Round: n, At: at.UTC()}
	if _, err := tx.AppendAudit(g.Name, store.AuditEntry{Time: now, Kind: kindBeaconRound, Turn: p.Turn, Phase: p.Phase, Index: int(n),
		Value: p.At.Format(time.RFC3339), OrdersDigest: digest,
		Purpose: fmt.Sprintf("drand quicknet round %d named for the dice of turn %d phase %s", n, p.Turn, p.Phase)}); err != nil {
		return nil, nil, fmt.Errorf("name the beacon round of %s: %w", g.Name, err)
	}
	return nil, p, nil
}

// pendingBeacon is the round a beacon game's current phase waits for, if any.
func (d *Desk) pendingBeacon(tx store.Tx, g store.Game) (*beaconPending, error) {
	if g.Dice != DiceBeacon || g.Over {
		return nil, nil
	}
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return nil, err
	}
	st, err := rs.Decode(g.State)
	if err != nil {
		return nil, err
	}
	if st.Over() {
		return nil, nil
	}
	bs, err := phaseBeacon(tx, g.Name, st.Turn(), st.Phase())
	if err != nil || bs.fetched != nil || bs.fallback {
		return nil, err
	}
	return bs.named, nil
}

// beaconFixedReason refuses orders while the phase waits for its round: they were fixed
// when it was named, and a change now would let whoever learns the round first choose.
func (d *Desk) beaconFixedReason(tx store.Tx, g store.Game) (string, error) {
	p, err := d.pendingBeacon(tx, g)
	if err != nil || p == nil {
		return "", err
	}
	return fmt.Sprintf("the orders of this phase are fixed: its dice wait for %s (HELP DICE); send orders again after the results", p), nil
}

// tickBeacons fetches the rounds beacon games wait for, once published, and resolves
// their phases. The fetch is outside any transaction; the round is checked again inside.
func (d *Desk) tickBeacons(ctx context.Context, names []string, now time.Time) ([]string, error) {
	if d.Beacon == nil {
		return nil, nil
	}
	var report []string
	for _, name := range names {
		var p *beaconPending
		if err := d.Store.Read(ctx, func(tx store.Tx) error {
			g, err := tx.Game(name)
			if err != nil {
				return err
			}
			p, err = d.pendingBeacon(tx, g)
			return err
		}); err != nil {
			return report, fmt.Errorf("beacon of %s: %w", name, err)
		}
		if p == nil || now.Before(p.At) {
			continue
		}
		r, err := d.Beacon.Fetch(ctx, p.Round)
		if err == nil {
			// A relay that serves forgeries is as good as none: the phase waits.
			err = beaconChain.Verify(r)
		}
		if err != nil {
			d.log().Warn("beacon round not available; the phase waits", "game", name, "round", p.Round, "err", err)
			report = append(report, fmt.Sprintf("%s: beacon round %d not available (%v); the phase waits", name, p.Round, err))
			if now.Sub(p.At) >= BeaconPatience {
				if err := d.Store.Write(ctx, func(tx store.Tx) error { return d.tellBeaconDown(tx, name, *p, now) }); err != nil {
					return report, fmt.Errorf("beacon of %s: %w", name, err)
				}
			}
			continue
		}
		err = d.Store.Write(ctx, func(tx store.Tx) error {
			g, err := tx.Game(name)
			if err != nil {
				return err
			}
			again, err := d.pendingBeacon(tx, g)
			if err != nil || again == nil || *again != *p {
				return err // resolved meanwhile
			}
			if _, err := tx.AppendAudit(name, store.AuditEntry{Time: now, Kind: kindBeacon, Turn: p.Turn, Phase: p.Phase, Index: int(r.Number),
				Value: hex.EncodeToString(r.Signature), Purpose: "drand quicknet round " + strconv.FormatUint(r.Number, 10)}); err != nil {
				return err
			}
			rs, err := d.ruleset(g.Ruleset)
			if err != nil {
				return err
			}
			st, err := rs.Decode(g.State)
			if err != nil {
				return err
			}
			// The cause names the phase too: a Message-ID is derived from it, and a round
			// may serve two phases (the demo's recorded relay reuses its rounds).
			adv, err := d.advance(ctx, tx, &g, rs, st, now, fmt.Sprintf("beacon:%s:%d:%s:%d", name, p.Turn, p.Phase, r.Number))
			if err != nil {
				return err
			}
			return d.flushResults(tx, adv)
		})
		if err != nil {
			return report, fmt.Errorf("resolve %s with beacon round %d: %w", name, r.Number, err)
		}
		report = append(report, fmt.Sprintf("%s: beacon round %d in, phase resolved", name, r.Number))
	}
	return report, nil
}

// beaconNote tells, in the mails of an advance that stops at a phase waiting for its
// round, which round and when.
func beaconNote(p *beaconPending) string {
	return fmt.Sprintf("The dice of turn %d, phase %s wait for %s, which nobody, the host included, can know before then; the results follow it. Until then the orders of the phase are fixed.",
		p.Turn, p.Phase, p)
}

// beaconValue is what a round mixes into a roll; nil: none.
func beaconValue(r *beacon.Round) dice.BeaconValue {
	if r == nil {
		return dice.BeaconValue{}
	}
	return dice.BeaconValue{Round: r.Number, Randomness: r.Randomness()}
}

// chainBeacons maps "turn|phase" to the round an audit chain recorded for its dice.
func chainBeacons(entries []store.AuditEntry) map[string]*beacon.Round {
	out := map[string]*beacon.Round{}
	for _, e := range entries {
		if e.Kind == kindBeaconFallback {
			out[beaconKey(e.Turn, e.Phase)] = &beacon.Round{}
		}
		if e.Kind != kindBeacon {
			continue
		}
		if r, err := beacon.ParseRound(uint64(e.Index), e.Value); err == nil {
			out[beaconKey(e.Turn, e.Phase)] = &r
		}
	}
	return out
}

func beaconKey(turn int, phase string) string { return strconv.Itoa(turn) + "|" + phase }

// beaconAudit follows the beacon entries of an audit chain (VerifyChain): the chain
// declared must be quicknet, every round fetched must be the one named and carry the
// chain's signature, and once a game declares the beacon every roll needs its round.
type beaconAudit struct {
	declared bool
	named    map[string]uint64
	rounds   map[string]*beacon.Round
	told     map[string]bool
	consents map[string]map[string]bool
}

func (ba *beaconAudit) add(e store.AuditEntry) error {
	key := beaconKey(e.Turn, e.Phase)
	switch e.Kind {
	case kindBeaconChain:
		if e.Value != hex.EncodeToString(beaconChain.PublicKey) {
			return fmt.Errorf("beacon public key %s is not drand quicknet's", e.Value)
		}
		ba.declared = true
		ba.named, ba.rounds = map[string]uint64{}, map[string]*beacon.Round{}
		ba.told, ba.consents = map[string]bool{}, map[string]map[string]bool{}
	case kindBeaconRound:
		if !ba.declared {
			return errors.New("beacon round named in a game that declared no beacon")
		}
		if e.Index <= 0 {
			return fmt.Errorf("beacon round %d", e.Index)
		}
		ba.named[key] = uint64(e.Index)
	case kindBeacon:
		n, ok := ba.named[key]
		if !ok || n != uint64(e.Index) {
			return fmt.Errorf("beacon round %d recorded, not the round named for turn %d phase %s", e.Index, e.Turn, e.Phase)
		}
		r, err := beacon.ParseRound(n, e.Value)
		if err != nil {
			return err
		}
		if err := beaconChain.Verify(r); err != nil {
			return err
		}
		ba.rounds[key] = &r
	case kindBeaconWait, kindBeaconConsent, kindBeaconFallback:
		if n, ok := ba.named[key]; !ok || n != uint64(e.Index) || ba.rounds[key] != nil {
			return fmt.Errorf("%s for round %d, not a round named and still awaited for turn %d phase %s", e.Kind, e.Index, e.Turn, e.Phase)
		}
		switch {
		case e.Kind == kindBeaconWait:
			ba.told[key] = true
		case !ba.told[key]:
			return errors.New("consent to the seed alone before the players were told the beacon failed")
		case e.Kind == kindBeaconConsent:
			if ba.consents[key] == nil {
				ba.consents[key] = map[string]bool{}
			}
			ba.consents[key][e.Value] = true
		case len(ba.consents[key]) < 2:
			return fmt.Errorf("the seed alone for turn %d phase %s with the consent of %d players", e.Turn, e.Phase, len(ba.consents[key]))
		default:
			ba.rounds[key] = &beacon.Round{} // round 0: the seed alone
		}
	}
	return nil
}

// forRoll is the beacon value a roll's message holds.
func (ba *beaconAudit) forRoll(e store.AuditEntry) (dice.BeaconValue, error) {
	if !ba.declared {
		return dice.BeaconValue{}, nil
	}
	r := ba.rounds[beaconKey(e.Turn, e.Phase)]
	if r == nil {
		return dice.BeaconValue{}, errors.New("roll of a beacon game before its phase's beacon round was recorded")
	}
	return beaconValue(r), nil
}

// beaconLines give, under a phase's orders digest in a results mail, the round its
// rolls mixed in and the round's signature, which anybody can check against the chain's
// public key (beaconKeyLines).
func beaconLines(r *beacon.Round) []string {
	if r == nil {
		return nil
	}
	if r.Number == 0 {
		return []string{beaconNone}
	}
	sig := hex.EncodeToString(r.Signature)
	return []string{fmt.Sprintf("  beacon: drand quicknet round %d, signature (the two lines joined):", r.Number), "  " + sig[:len(sig)/2], "  " + sig[len(sig)/2:]}
}

// beaconEntryLines render a beacon entry of the audit chain in a ROLLS reply; nil for
// any other entry. The rounds themselves are shown with the rolls they serve.
func beaconEntryLines(e store.AuditEntry) []string {
	switch e.Kind {
	case kindBeaconChain:
		key := e.Value
		if len(key) != 192 {
			return []string{fmt.Sprintf("#%d beacon chain key %s", e.Seq, key)}
		}
		return []string{fmt.Sprintf("#%d Every roll of this game mixes in a round of drand's quicknet chain", e.Seq),
			"  " + beaconChain.Hash, "whose public key is (the three lines joined, 96 bytes):", "  " + key[:64], "  " + key[64:128], "  " + key[128:]}
	case kindBeaconRound, kindBeacon, kindBeaconWait, kindBeaconConsent, kindBeaconFallback:
		return wrapRecord(fmt.Sprintf("#%d %s (turn %d, phase \"%s\")", e.Seq, e.Purpose, e.Turn, MailField(e.Phase)), "", "    ")
	}
	return nil
}

// beaconKeyLines close the dice of a mail with a beacon round: the chain and its key.
func beaconKeyLines(groups []diceGroup) []string {
	for _, g := range groups {
		if g.Beacon != nil && len(g.Rolls) > 0 {
			key := hex.EncodeToString(beaconChain.PublicKey)
			return []string{"Each beacon round is signed by drand's quicknet chain", "  " + beaconChain.Hash,
				"whose public key is (the three lines joined, 96 bytes):", "  " + key[:64], "  " + key[64:128], "  " + key[128:]}
		}
	}
	return nil
}

var (
	beaconNone = "  beacon: none; the beacon could not be reached and both players agreed to the seed alone"
	beaconHead = regexp.MustCompile(`^  beacon: drand quicknet round (\d+), signature \(the two lines joined\):$`)
	beaconHalf = regexp.MustCompile(`^  ([0-9a-f]{48})$`)
	beaconKeyB = regexp.MustCompile(`(?m)^whose public key is \(the three lines joined, 96 bytes\):\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})$`)
)

// beaconIn reads the beacon lines that may follow a phase's orders digest in a mail
// (beaconLines), verifies the round's signature with quicknet's key, and returns how
// many lines they took and the value the phase's rolls mix in.
func (c *mailChecker) beaconIn(lines []string, phase string) (int, dice.BeaconValue, error) {
	if len(lines) > 0 && lines[0] == beaconNone {
		// A player knows whether he agreed; that the other did is in the audit chain.
		return 1, dice.BeaconValue{}, nil
	}
	if len(lines) < 3 {
		return 0, dice.BeaconValue{}, nil
	}
	m := beaconHead.FindStringSubmatch(lines[0])
	if m == nil {
		return 0, dice.BeaconValue{}, nil
	}
	a, b := beaconHalf.FindStringSubmatch(lines[1]), beaconHalf.FindStringSubmatch(lines[2])
	if a == nil || b == nil {
		return 0, dice.BeaconValue{}, fmt.Errorf("%q is not followed by a signature of 48 bytes", lines[0])
	}
	n, err := strconv.ParseUint(m[1], 10, 64)
	if err != nil {
		return 0, dice.BeaconValue{}, fmt.Errorf("beacon round %q: %w", m[1], err)
	}
	r, err := beacon.ParseRound(n, a[1]+b[1])
	if err != nil {
		return 0, dice.BeaconValue{}, err
	}
	if err := beaconChain.Verify(r); err != nil {
		return 0, dice.BeaconValue{}, err
	}
	if c.beacons == nil {
		c.beacons = map[string]bool{}
	}
	if !c.beacons[phase] {
		c.beacons[phase] = true
		c.res.Beacons++
	}
	return 3, beaconValue(&r), nil
}

// beaconInvitation is what the invitation of a beacon game says (templates/invite.txt).
const beaconInvitation = "This game plays with the beacon:"

// beaconKeyIn checks that the beacon key a mail gives is quicknet's: the rounds are
// verified with the key built in, and a mail naming another would mislead a player who
// checks by hand.
func beaconKeyIn(body string) error {
	m := beaconKeyB.FindStringSubmatch(body)
	if m != nil && m[1]+m[2]+m[3] != hex.EncodeToString(beaconChain.PublicKey) {
		return fmt.Errorf("the mail gives beacon key %s, not drand quicknet's", m[1]+m[2]+m[3])
	}
	return nil
}

// tellBeaconDown tells both players, once a round, that the beacon cannot be reached:
// the phase waits, and they may agree to roll it from the seed alone.
func (d *Desk) tellBeaconDown(tx store.Tx, name string, p beaconPending, now time.Time) error {
	g, err := tx.Game(name)
	if err != nil {
		return err
	}
	bs, err := phaseBeacon(tx, name, p.Turn, p.Phase)
	if err != nil || bs.told || bs.fetched != nil || bs.fallback || bs.named == nil || *bs.named != p {
		return err
	}
	if _, err := tx.AppendAudit(name, store.AuditEntry{Time: now, Kind: kindBeaconWait, Turn: p.Turn, Phase: p.Phase, Index: int(p.Round),
		Purpose: fmt.Sprintf("drand quicknet round %d could not be fetched; both players told", p.Round)}); err != nil {
		return err
	}
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return err
	}
	h := &handling{desk: d, tx: tx, msg: Message{ID: fmt.Sprintf("beacon-down:%s:%d:%s", name, p.Turn, p.Phase)}, now: now, game: g}
	for _, pl := range g.Players {
		body, err := render("beacon-down.txt", map[string]any{"Game": g.Name, "Side": sideName(rs, rules.Side(pl.Side)), "Round": p.String(),
			"Turn": p.Turn, "Phase": p.Phase})
		if err != nil {
			return err
		}
		if _, err := h.enqueue([]string{pl.Address}, g.Name, pl.Side, "beacon-down", fmt.Sprintf("[%s] The dice wait: the beacon cannot be reached", g.Name), body, false); err != nil {
			return err
		}
	}
	return nil
}

// seedAlone is a player's DICE SEED ALONE: his consent, recorded in the audit chain, to
// roll the phase that waits for an unreachable beacon from the seed alone; when every
// player has given it the phase resolves (the advance after the requests).
func (h *handling) seedAlone(side rules.Side) request {
	p, err := h.desk.pendingBeacon(h.tx, h.game)
	if err != nil {
		return request{apply: func() (string, error) { return "", err }}
	}
	var bs beaconState
	if p != nil {
		if bs, err = phaseBeacon(h.tx, h.game.Name, p.Turn, p.Phase); err != nil {
			return request{apply: func() (string, error) { return "", err }}
		}
	}
	switch {
	case p == nil:
		return request{reason: "no phase of this game waits for the beacon"}
	case !bs.told:
		return request{reason: fmt.Sprintf("the beacon has not failed: the phase waits for %s, and resolves when it is in", p)}
	case bs.consents[string(side)]:
		return request{reason: "you have agreed already; the phase rolls from the seed alone once the other player agrees too"}
	}
	return request{apply: func() (string, error) {
		g := h.game
		if _, err := h.tx.AppendAudit(g.Name, store.AuditEntry{Time: h.now, Kind: kindBeaconConsent, Turn: p.Turn, Phase: p.Phase, Index: int(p.Round),
			Value: string(side), Purpose: fmt.Sprintf("the %s player agrees by mail to roll turn %d phase %s from the seed alone", side, p.Turn, p.Phase)}); err != nil {
			return "", err
		}
		for _, pl := range g.Players {
			if pl.Side != string(side) && !bs.consents[pl.Side] {
				return "recorded in the audit chain; the phase rolls from the seed alone once the other player sends DICE SEED ALONE too, or from the beacon if it comes back first", nil
			}
		}
		if _, err := h.tx.AppendAudit(g.Name, store.AuditEntry{Time: h.now, Kind: kindBeaconFallback, Turn: p.Turn, Phase: p.Phase, Index: int(p.Round),
			Purpose: fmt.Sprintf("every player agreed: turn %d phase %s rolls from the seed alone", p.Turn, p.Phase)}); err != nil {
			return "", err
		}
		return "every player has agreed, as the audit chain records: the phase rolls from the seed alone", nil
	}}
}
