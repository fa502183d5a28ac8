package adjudicator

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/store"
)

// ReplayReport summarises a replay.
type ReplayReport struct {
	Advances int // journal entries replayed
	Phases   int // phases re-adjudicated
	Mails    int // results mails re-rendered and compared
}

// Replay re-adjudicates a game from its scenario, its stored orders and its seeds, and
// compares every state and every results mail with what was recorded (invariant 4). The
// error names the first difference.
func (d *Desk) Replay(ctx context.Context, game string) (ReplayReport, error) {
	return d.replay(ctx, game, nil)
}

// replayVisit is called with each journal entry replayed, the ruleset and the states
// before and after it, once the entry is checked.
type replayVisit func(rs rules.Ruleset, j store.JournalEntry, before, after rules.State) error

// replay is Replay, calling visit (when not nil) after each journal entry: then the
// states are checked but not the results mails, which are half the work (the record of
// a game draws its pictures this way; Replay checks the mails).
func (d *Desk) replay(ctx context.Context, game string, visit replayVisit) (ReplayReport, error) {
	var (
		g       store.Game
		journal []store.JournalEntry
		seeds   []store.Seed
		outbox  []store.OutMail
		chain   []store.AuditEntry
		key     []byte
		pub     ed25519.PublicKey // an archive's: it holds no private key
	)
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		if g, err = tx.Game(game); err != nil {
			return err
		}
		if journal, err = tx.Journal(game); err != nil {
			return err
		}
		if seeds, err = tx.Seeds(game); err != nil {
			return err
		}
		if chain, err = tx.Audit(game); err != nil {
			return err
		}
		if key, err = tx.HostKey(); err != nil {
			return err
		}
		pub = archivedHostKey(tx)
		outbox, err = tx.GameOutbox(game)
		return err
	})
	if err != nil {
		return ReplayReport{}, fmt.Errorf("replay %s: %w", game, err)
	}
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return ReplayReport{}, err
	}
	seedOf := map[int]store.Seed{}
	for _, s := range seeds {
		seedOf[s.Turn] = s
	}
	bodies := map[string]store.OutMail{}
	for _, m := range outbox {
		bodies[m.MessageID] = m
	}
	st, err := rs.New(rules.Options(g.Options))
	if err != nil {
		return ReplayReport{}, fmt.Errorf("replay %s: set up: %w", game, err)
	}
	var deck *dice.Seed
	if rec, ok := seedOf[store.DeckSeedTurn]; ok {
		s, err := dice.ParseSeed(rec.Secret)
		if err != nil {
			return ReplayReport{}, fmt.Errorf("replay %s: deck seed: %w", game, err)
		}
		deck = &s
	}
	if dr, ok := rs.(rules.Dealer); ok && deck != nil && g.MatchOf == "" {
		// The decks are dealt from the deck seed when the game is created (deck.go).
		if st, _, err = dealGame(dr, game, st, *deck); err != nil {
			return ReplayReport{}, fmt.Errorf("replay %s: %w", game, err)
		}
	}
	if rv, ok := rs.(rules.Reviser); ok && g.Initial != nil && g.MatchOf == "" {
		// A game created under an older revision of the rules replays under it (the
		// second game of a match starts from its stored state, below).
		initial, err := rs.Decode(g.Initial)
		if err != nil {
			return ReplayReport{}, fmt.Errorf("replay %s: initial state: %w", game, err)
		}
		st = rv.AtRevisionOf(st, initial)
	}
	if g.MatchOf != "" {
		// The second game of a match starts from what the first one carried over.
		if st, err = rs.Decode(g.Initial); err != nil {
			return ReplayReport{}, fmt.Errorf("replay %s: initial state: %w", game, err)
		}
	} else if raw, err := rs.Encode(st); err == nil && g.Initial != nil && !jsonEqual(raw, g.Initial) {
		return ReplayReport{}, fmt.Errorf("replay %s: the scenario no longer sets up the game it started from", game)
	}
	var rep ReplayReport
	beacons := chainBeacons(chain)
	for _, j := range journal {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		before := st
		b := &batch{revealed: j.Revealed, groups: j.Groups, notes: j.Notes}
		for _, step := range j.Steps {
			if st.Turn() != step.Turn || st.Phase() != step.Phase {
				return rep, fmt.Errorf("replay %s: journal #%d: the game is at turn %d phase %s, the journal at turn %d phase %s", game, j.Seq, st.Turn(), st.Phase(), step.Turn, step.Phase)
			}
			inputs := make([]rules.Order, len(step.Orders))
			for i, o := range step.Orders {
				inputs[i] = fromStore(o)
			}
			rec, ok := seedOf[step.Turn]
			if !ok {
				return rep, fmt.Errorf("replay %s: no seed for turn %d", game, step.Turn)
			}
			seed, err := dice.ParseSeed(rec.Secret)
			if err != nil {
				return rep, fmt.Errorf("replay %s: seed of turn %d: %w", game, step.Turn, err)
			}
			title := st.PhaseTitle()
			round := beacons[beaconKey(step.Turn, step.Phase)]
			out, _, _, digest, err := resolvePhase(rs, game, st, inputs, seed, deck, beaconValue(round))
			if err != nil {
				return rep, fmt.Errorf("replay %s: %w", game, err)
			}
			if digest != step.OrdersDigest {
				return rep, fmt.Errorf("replay %s: turn %d phase %s: orders digest %s, recorded %s", game, step.Turn, step.Phase, digest, step.OrdersDigest)
			}
			b.steps = append(b.steps, stepRecord{Title: title, Events: out.Events, Turn: step.Turn, Phase: step.Phase, Digest: digest, Beacon: round})
			turn := st.Turn()
			st = out.State
			rep.Phases++
			if st.Over() || st.Turn() != turn {
				s := seedOf[turn]
				s.Revealed = true
				b.seedsRevealed = append(b.seedsRevealed, s)
				if s, ok := seedOf[store.DeckSeedTurn]; ok && st.Over() {
					s.Revealed = true
					b.deckRevealed = &s
				}
				if !st.Over() {
					next := seedOf[st.Turn()]
					next.Revealed = false
					b.commitments = append(b.commitments, next)
				}
			}
		}
		raw, err := rs.Encode(st)
		if err != nil {
			return rep, err
		}
		if h := hashBytes(raw); h != j.StateHash {
			return rep, fmt.Errorf("replay %s: journal #%d: the state differs from the recorded one (hash %s, recorded %s); replayed state: %s", game, j.Seq, h, j.StateHash, raw)
		}
		var waiting []rules.Side
		for _, w := range j.Waiting {
			waiting = append(waiting, rules.Side(w))
		}
		if visit != nil {
			if err := visit(rs, j, before, st); err != nil {
				return rep, fmt.Errorf("replay %s: journal #%d: %w", game, j.Seq, err)
			}
			rep.Advances++
			continue
		}
		signature, err := replaySignature(game, b, j, chain, key, pub, bodies)
		if err != nil {
			return rep, fmt.Errorf("replay %s: journal #%d: %w", game, j.Seq, err)
		}
		for _, id := range j.MailIDs {
			sent, ok := bodies[id]
			if !ok {
				return rep, fmt.Errorf("replay %s: journal #%d: mail %s is not in the outbox", game, j.Seq, id)
			}
			mode, ok := j.MapModes[sent.Side]
			if !ok {
				mode = "full" // written before SET MAP existed
			}
			subject, body, err := resultsMail(g, rs, mapsOf(rs, before, st), statusOf(rs, st), st, rules.Side(sent.Side), mode, b, waiting, j.Now, signature, j.Layout)
			if err != nil {
				return rep, err
			}
			if subject != sent.Subject || body != sent.Body {
				return rep, fmt.Errorf("replay %s: journal #%d: the results mail to %s differs from the one sent (%s)", game, j.Seq, sent.Side, id)
			}
			rep.Mails++
		}
		rep.Advances++
	}
	final, err := rs.Encode(st)
	if err != nil {
		return rep, err
	}
	if !jsonEqual(final, g.State) {
		return rep, fmt.Errorf("replay %s: the replayed final state differs from the game's state", game)
	}
	return rep, nil
}

// replaySignature re-signs the chain head a journal entry recorded, after checking that
// the chain still passes through it. A journal from before signing has no head and its
// mails no signature. An archive holds no private key (key nil) but the public one,
// pub: the signature of its mails is checked instead (archivedSignature).
func replaySignature(game string, b *batch, j store.JournalEntry, chain []store.AuditEntry, key []byte, pub ed25519.PublicKey, mails map[string]store.OutMail) (string, error) {
	if j.AuditHead == "" {
		return "", nil
	}
	if len(b.steps) == 0 {
		return "", fmt.Errorf("a chain head is recorded for an advance that resolved nothing")
	}
	if j.AuditSeq == 0 || j.AuditSeq > uint64(len(chain)) || chain[j.AuditSeq-1].Hash != j.AuditHead {
		return "", fmt.Errorf("the audit chain no longer passes through the head %s at entry %d that the results mails carry", j.AuditHead, j.AuditSeq)
	}
	if key == nil && pub != nil {
		return archivedSignature(game, b, j, pub, mails)
	}
	if len(key) != ed25519.SeedSize {
		return "", fmt.Errorf("the host key is missing or damaged (%d bytes)", len(key))
	}
	return signedText(ed25519.NewKeyFromSeed(key), game, b, j.AuditSeq, j.AuditHead), nil
}

func jsonEqual(a, b []byte) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ax, _ := json.Marshal(x)
	by, _ := json.Marshal(y)
	return string(ax) == string(by)
}
