package adjudicator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"slices"
	"sync"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"github.com/adjutant-pbem/adjutant/store"
)

// batch is everything that one advance resolved, which the results mails tell.
type batch struct {
	steps         []stepRecord
	revealed      []store.Order
	groups        map[string][]string // the commitments of the mails of revealed (Order.Group)
	seedsRevealed []store.Seed
	commitments   []store.Seed
	notes         []string
	deckRevealed  *store.Seed // the game's deck seed, revealed when the game ends
	// shared is what the sides' results mails have alike, made once (nil: each
	// mail makes all its own).
	shared *resultsShared
}

type stepRecord struct {
	Title  string
	Events []rules.Event
	// Turn, Phase and Digest are the dice context of the step's rolls (dice.Context).
	Turn   int
	Phase  string
	Digest string
	// Beacon is the public round the step's rolls mixed in (games played with
	// --dice beacon), nil otherwise.
	Beacon *beacon.Round
}

// advanced is the result of running the phase machine after a change.
type advanced struct {
	game   store.Game
	rs     rules.Ruleset
	before rules.State // the state the advance started from
	// beforeRaw is before as the store held it, so that its maps can be memoised.
	beforeRaw []byte
	state     rules.State
	// digest is digestOf the state as stored, when a phase was resolved.
	digest  [32]byte
	waiting []rules.Side
	batch   *batch // nil when no phase was resolved
	journal store.JournalEntry
	cause   string
	now     time.Time
	// beacon is the round the next phase waits for, when it does (beacondice.go).
	beacon *beaconPending
}

// resolvePhase resolves the current phase with dice derived from the turn's seed, and
// cards from the game's sealed decks when it has a deck seed (deck, else nil). It is
// the one path both play and replay take (invariant 4).
func resolvePhase(rs rules.Ruleset, game string, st rules.State, inputs []rules.Order, seed dice.Seed, deck *dice.Seed, bv dice.BeaconValue) (rules.Outcome, []dice.Roll, []dice.Deal, string, error) {
	digest := rules.OrdersDigest(inputs)
	stream := dice.NewStream(seed, dice.Context{Game: game, Turn: st.Turn(), Phase: st.Phase(), OrdersDigest: digest, Beacon: bv})
	src, dealer := dealSource(stream, game, deck)
	out, err := rs.Resolve(st, inputs, src)
	if err != nil {
		return rules.Outcome{}, nil, nil, digest, fmt.Errorf("%w: resolve turn %d phase %s: %w", ErrAdjudication, st.Turn(), st.Phase(), err)
	}
	if err := stream.Err(); err != nil {
		return rules.Outcome{}, nil, nil, digest, fmt.Errorf("%w: resolve turn %d phase %s: bad dice request: %w", ErrAdjudication, st.Turn(), st.Phase(), err)
	}
	var deals []dice.Deal
	if dealer != nil {
		if err := dealer.Err(); err != nil {
			return rules.Outcome{}, nil, nil, digest, fmt.Errorf("%w: resolve turn %d phase %s: bad shuffle: %w", ErrAdjudication, st.Turn(), st.Phase(), err)
		}
		deals = dealer.Deals()
	}
	return out, stream.Rolls(), deals, digest, nil
}

// advance resolves every phase that waits for nobody, until one needs a decision or the
// game ends. Everything is written in tx; the results mails are queued by flushResults.
// st is the game's state as decoded from g.
func (d *Desk) advance(ctx context.Context, tx store.Tx, g *store.Game, rs rules.Ruleset, st rules.State, now time.Time, cause string) (advanced, error) {
	adv := advanced{rs: rs, cause: cause, now: now, before: st, beforeRaw: g.State}
	b := &batch{}
	var steps []store.JournalStep
	for {
		// One read of the orders on file a phase: what the ruleset sees, and the stored
		// records (salts and commitments) the journal keeps.
		stored, err := tx.Orders(g.Name)
		if err != nil {
			return adv, err
		}
		filed := make([]rules.Order, len(stored))
		for i, o := range stored {
			filed[i] = fromStore(o)
		}
		if st.Over() || g.Over {
			break // g.Over: ended by the host or a resignation (host.go)
		}
		if adv.waiting = rs.Waiting(st, filed); len(adv.waiting) > 0 {
			break
		}
		if err := ctx.Err(); err != nil {
			return adv, err
		}
		// The records by id, for a phase that resolves: pointers into a copy of its
		// own, which applyOrderChanges updates in place (the store's records are the
		// store's).
		own := slices.Clone(stored)
		byID := make(map[string]*store.Order, len(own))
		for i := range own {
			byID[filed[i].ID()] = &own[i]
		}
		turn, phase, title := st.Turn(), st.Phase(), st.PhaseTitle()
		inputs := rs.Inputs(st, filed)
		seed, err := d.turnSeed(tx, g.Name, turn, now, nil)
		if err != nil {
			return adv, err
		}
		deck, err := deckSeed(tx, g.Name)
		if err != nil {
			return adv, err
		}
		round, pending, err := d.beaconFor(tx, g, rs, st, inputs, seed, deck, now)
		if err != nil {
			return adv, err
		}
		if pending != nil {
			adv.beacon = pending
			break
		}
		out, rolls, deals, digest, err := resolvePhase(rs, g.Name, st, inputs, seed, deck, beaconValue(round))
		if err != nil {
			return adv, err
		}
		for _, r := range rolls {
			e := store.AuditEntry{Time: now, Kind: r.Kind, Turn: turn, Phase: phase, Index: r.Index, Purpose: r.Purpose, Rule: r.Rule,
				Count: r.Count, Sides: r.Sides, Values: r.Values, Modifier: r.Modifier, Result: r.Result, OrdersDigest: digest}
			if _, err := tx.AppendAudit(g.Name, e); err != nil {
				return adv, fmt.Errorf("audit roll %d of turn %d phase %s: %w", r.Index, turn, phase, err)
			}
		}
		if err := auditDeals(tx, g.Name, turn, phase, deals, now); err != nil {
			return adv, err
		}
		js := store.JournalStep{Turn: turn, Phase: phase, OrdersDigest: digest}
		for _, in := range inputs {
			if o := byID[in.ID()]; o != nil {
				js.Orders = append(js.Orders, *o)
			} else {
				js.Orders = append(js.Orders, store.Order{}) // as the map's zero value was
			}
		}
		steps = append(steps, js)
		if err := applyOrderChanges(tx, g.Name, byID, out, b); err != nil {
			return adv, err
		}
		b.steps = append(b.steps, stepRecord{Title: title, Events: out.Events, Turn: turn, Phase: phase, Digest: digest, Beacon: round})
		st = out.State
		if st.Over() || st.Turn() != turn {
			if err := d.revealSeed(tx, g.Name, turn, now, b); err != nil {
				return adv, err
			}
			if st.Over() {
				// The decks' order is shown now that no card is left to turn.
				if err := d.revealSeed(tx, g.Name, store.DeckSeedTurn, now, b); err != nil {
					return adv, err
				}
			} else {
				if _, err := d.turnSeed(tx, g.Name, st.Turn(), now, b); err != nil {
					return adv, err
				}
			}
		}
	}
	adv.state = st
	if len(b.steps) == 0 {
		adv.game = *g
		return adv, nil
	}
	if st.Over() {
		// Whatever is still sealed (a cancelled plot) is shown now, so that every
		// commitment can be checked.
		stored, err := tx.Orders(g.Name)
		if err != nil {
			return adv, err
		}
		for _, o := range stored {
			if o.Sealed && !o.Revealed {
				o.Revealed = true
				b.revealed = append(b.revealed, o)
				if err := tx.PutOrder(g.Name, o); err != nil {
					return adv, err
				}
			}
		}
		g.Over, g.Deadline, g.RemindAt = true, time.Time{}, time.Time{}
		if err := rateGame(tx, *g, rs, st, ""); err != nil { // ladder.go
			return adv, err
		}
		if verdict, err := matchVerdict(tx, *g, rs, st); err != nil {
			return adv, err
		} else if verdict != "" {
			b.notes = append(b.notes, verdict)
		}
	} else {
		d.setDeadline(g, now)
		if note := deadlineNote(*g, now); note != "" {
			b.notes = append(b.notes, note) // journaled, so replay renders it too
		}
		if adv.beacon != nil {
			b.notes = append(b.notes, beaconNote(adv.beacon))
		}
	}
	raw, err := rs.Encode(st)
	if err != nil {
		return adv, fmt.Errorf("encode state of %s: %w", g.Name, err)
	}
	g.State = raw
	if err := tx.PutGame(*g); err != nil {
		return adv, err
	}
	// The commitments of the mails the revealed orders were sealed in (groupLines).
	for _, o := range b.revealed {
		if o.Group == "" || b.groups[o.Group] != nil {
			continue
		}
		list, err := tx.SealedGroup(g.Name, o.Group)
		if err != nil {
			return adv, fmt.Errorf("sealed group %s of %s: %w", o.Group, g.Name, err)
		}
		if b.groups == nil {
			b.groups = map[string][]string{}
		}
		b.groups[o.Group] = list
	}
	adv.game, adv.batch = *g, b
	adv.digest = sha256.Sum256(raw)
	adv.journal = store.JournalEntry{Now: now, Steps: steps, StateHash: hex.EncodeToString(adv.digest[:]), Revealed: b.revealed,
		Groups: b.groups, Waiting: sideStrings(adv.waiting), Notes: b.notes}
	return adv, nil
}

func sideStrings(sides []rules.Side) []string {
	out := make([]string, len(sides))
	for i, s := range sides {
		out[i] = string(s)
	}
	return out
}

func hashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// applyOrderChanges carries out an outcome's revealed, fixed and consumed orders.
func applyOrderChanges(tx store.Tx, game string, byID map[string]*store.Order, out rules.Outcome, b *batch) error {
	change := func(ids []string, what string, f func(*store.Order) error) error {
		for _, id := range ids {
			o, ok := byID[id]
			if !ok {
				return fmt.Errorf("%s order %s: not on file", what, id)
			}
			if err := f(o); err != nil {
				return fmt.Errorf("%s order %s: %w", what, id, err)
			}
		}
		return nil
	}
	err := change(out.Revealed, "reveal", func(o *store.Order) error {
		if !o.Sealed {
			return nil // never committed to in a mail: nothing to reveal
		}
		o.Revealed = true
		b.revealed = append(b.revealed, *o)
		return tx.PutOrder(game, *o)
	})
	if err == nil {
		err = change(out.Fixed, "fix", func(o *store.Order) error {
			o.Fixed = true
			return tx.PutOrder(game, *o)
		})
	}
	if err == nil {
		err = change(out.Consumed, "consume", func(o *store.Order) error { return tx.DeleteOrder(game, *o) })
	}
	return err
}

// turnSeed returns the seed of a turn, drawing and committing to a new one when the turn
// has none yet. The commitment is published before any orders for the turn are due.
func (d *Desk) turnSeed(tx store.Tx, game string, turn int, now time.Time, b *batch) (dice.Seed, error) {
	seeds, err := tx.Seeds(game)
	if err != nil {
		return dice.Seed{}, err
	}
	for _, s := range seeds {
		if s.Turn == turn {
			return dice.ParseSeed(s.Secret)
		}
	}
	seed, err := dice.NewSeed(d.rand())
	if err != nil {
		return dice.Seed{}, fmt.Errorf("seed turn %d of %s: %w", turn, game, err)
	}
	rec := store.Seed{Turn: turn, Secret: seed.String(), Commitment: seed.Commitment()}
	if err := tx.PutSeed(game, rec); err != nil {
		return dice.Seed{}, err
	}
	if _, err := tx.AppendAudit(game, store.AuditEntry{Time: now, Kind: "commit", Turn: turn, Value: rec.Commitment,
		Purpose: fmt.Sprintf("commitment to the dice seed of turn %d", turn)}); err != nil {
		return dice.Seed{}, err
	}
	if b != nil {
		b.commitments = append(b.commitments, rec)
	}
	return seed, nil
}

func (d *Desk) revealSeed(tx store.Tx, game string, turn int, now time.Time, b *batch) error {
	seeds, err := tx.Seeds(game)
	if err != nil {
		return err
	}
	for _, s := range seeds {
		if s.Turn != turn || s.Revealed {
			continue
		}
		s.Revealed = true
		if err := tx.PutSeed(game, s); err != nil {
			return err
		}
		e := store.AuditEntry{Time: now, Kind: "reveal", Turn: turn, Value: s.Secret,
			Purpose: fmt.Sprintf("the dice seed of turn %d, revealed", turn)}
		if turn == store.DeckSeedTurn {
			e = store.AuditEntry{Time: now, Kind: "deck-reveal", Value: s.Secret, Purpose: "the deck seed of the game, revealed"}
		}
		if _, err := tx.AppendAudit(game, e); err != nil {
			return err
		}
		if turn == store.DeckSeedTurn {
			b.deckRevealed = &s
			continue
		}
		b.seedsRevealed = append(b.seedsRevealed, s)
	}
	return nil
}

func (d *Desk) setDeadline(g *store.Game, now time.Time) {
	if g.PhaseLength <= 0 {
		g.Deadline, g.RemindAt = time.Time{}, time.Time{}
		return
	}
	start := now
	if !g.PausedAt.IsZero() {
		// Paused: the phase's time starts when the game resumes (host.go's resume
		// moves the deadline on by the pause).
		start = g.PausedAt
	}
	g.Deadline = start.Add(g.PhaseLength)
	if back := latestAbsence(*g, now); back.After(g.Deadline) {
		g.Deadline = back // no deadline falls in a player's absence (ABSENT UNTIL)
	}
	g.RemindAt = g.Deadline.Add(-g.PhaseLength / 4)
	g.Reminded, g.LateNotified = false, false
}

// flushResults queues the results mail of an advance to every side and journals it.
func (d *Desk) flushResults(tx store.Tx, adv advanced) error {
	if adv.batch == nil {
		return nil
	}
	g := adv.game
	signature, err := d.signAdvance(tx, g.Name, adv.batch, &adv.journal)
	if err != nil {
		return err
	}
	before := digestOf(adv.beforeRaw)
	maps := func(after bool, side rules.Side) string {
		if after {
			return d.maps.render(adv.rs, adv.state, &adv.digest, side)
		}
		return d.maps.render(adv.rs, adv.before, before, side)
	}
	status := func(side rules.Side) string { return d.statuses.status(adv.rs, adv.state, &adv.digest, side) }
	if adv.journal.MapModes == nil {
		adv.journal.MapModes = map[string]string{}
	}
	for _, p := range g.Players {
		adv.journal.MapModes[p.Side] = mapMode(p)
	}
	adv.journal.Layout = d.layout()
	adv.batch.shared = &resultsShared{}
	// Each side's mail is a pure function of the advance (resultsMail), so the sides'
	// mails are rendered at once, on as many cores; they are queued in the players'
	// order.
	mails := make([]sideResults, len(g.Players))
	var wg sync.WaitGroup
	for i, p := range g.Players {
		render := func() {
			r := &mails[i]
			defer func() {
				// As handleIn's: a ruleset's panic fails the mail, not the daemon,
				// and a goroutine's would escape handleIn's recover.
				if x := recover(); x != nil {
					r.err = fmt.Errorf("%w: panic: %v", ErrAdjudication, x)
				}
			}()
			mode := mapMode(p)
			r.subject, r.body, r.err = resultsMail(g, adv.rs, maps, status, adv.state, rules.Side(p.Side), mode, adv.batch, adv.waiting, adv.now, signature, adv.journal.Layout)
			// SET MAP NONE: no map in the results, as text or as a picture.
			if r.err == nil && mode != "none" {
				r.pictures, r.err = mapPictures(g, adv.rs, adv.before, adv.state, p, "== Map ==", eventArrows(adv.batch.steps, rules.Side(p.Side)))
			}
		}
		if i == len(g.Players)-1 {
			render()
		} else {
			wg.Go(render)
		}
	}
	wg.Wait()
	for i, p := range g.Players {
		r := mails[i]
		if r.err != nil {
			return r.err
		}
		m, err := tx.Enqueue(store.OutMail{
			Pictures:  r.pictures,
			MessageID: d.messageID(adv.cause, "results", p.Side, []string{p.Address}),
			To:        []string{p.Address}, Subject: r.subject, Body: r.body,
			Game: g.Name, Side: p.Side, Kind: "results", Queued: adv.now, References: threadRefs(p.Thread),
		})
		if err != nil {
			return err
		}
		adv.journal.MailIDs = append(adv.journal.MailIDs, m.MessageID)
	}
	if _, err = tx.AppendJournal(g.Name, adv.journal); err != nil {
		return err
	}
	if err := d.tellObservers(tx, adv, signature); err != nil { // observe.go
		return err
	}
	if adv.state.Over() {
		// After the last results, so that each record holds them (recordmail.go).
		return d.queueRecords(tx, g, adv.rs, adv.state, adv.now, adv.cause)
	}
	return nil
}

// sideResults is one side's results mail of an advance, rendered.
type sideResults struct {
	subject, body string
	pictures      []store.Picture
	err           error
}

// mapMode is a player's SET MAP choice, "changes" unless he made one.
func mapMode(p store.Player) string {
	if p.MapMode == "" {
		return "changes"
	}
	return p.MapMode
}

// matchVerdict judges a finished second game of a match against its first game.
func matchVerdict(tx store.Tx, g store.Game, rs rules.Ruleset, st rules.State) (string, error) {
	m, ok := rs.(rules.Matcher)
	if !ok || g.MatchOf == "" {
		return "", nil
	}
	first, err := tx.Game(g.MatchOf)
	if err != nil {
		return "", fmt.Errorf("match verdict: %w", err)
	}
	prev, err := rs.Decode(first.State)
	if err != nil {
		return "", err
	}
	players := func(g store.Game) map[rules.Side]string {
		out := map[rules.Side]string{}
		for _, p := range g.Players {
			out[rules.Side(p.Side)] = p.Address
		}
		return out
	}
	return m.MatchVerdict(prev, st, players(first), players(g)), nil
}
