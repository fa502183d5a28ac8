package adjudicator

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"io"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// NewGame is a host's request for a game.
type NewGame struct {
	Name      string
	Ruleset   string
	Players   map[rules.Side]string // side -> address
	Passwords map[rules.Side]string // optional; generated when missing
	Options   rules.Options
	// PhaseLength is the deadline of each waiting phase (0: no deadlines).
	PhaseLength time.Duration
	// Grace is how long after a deadline the no-orders policy applies.
	Grace time.Duration
	// NoOrders is "wait" (the default) or "default" (resolve with the ruleset's defaults).
	NoOrders string
	// MatchOf, when set, makes this the second game of a match with that finished game:
	// sides switched (players may be left empty: each plays the other side, with the
	// same password) and what carries over carried over (Soldiers 1918 4.2).
	MatchOf string
	// AbsenceLimit is how long in all each player may be absent (ABSENT UNTIL): 0 is
	// [DefaultAbsenceLimit], negative allows no absence.
	AbsenceLimit time.Duration
	// PassHashes are bcrypt hashes of passwords the players chose themselves (a game
	// opened and joined by mail, club.go): the invitation then does not repeat them.
	PassHashes map[rules.Side]string
	// Observers is who may observe the game: "open" (also ""), "ask" or "no".
	Observers string
	// Dice is "beacon" to mix a public beacon round into every roll (beacondice.go);
	// "" or "seed" for the turn's seed alone.
	Dice string
}

// Credentials are one player's, printed once to the host.
type Credentials struct {
	Side     rules.Side
	Address  string
	Password string
	new      bool // a password of this game, not carried over from a match's first
	chosen   bool // the player chose it by mail (NewGame.PassHashes): Password says so
}

// passwordAlphabet avoids letters that are easy to misread (0/O, 1/l/I).
const passwordAlphabet = "abcdefghijkmnpqrstuvwxyz23456789"

func (d *Desk) newPassword() (string, error) {
	b := make([]byte, 12)
	out := make([]byte, 0, 12)
	for len(out) < 12 {
		if _, err := io.ReadFull(d.rand(), b); err != nil {
			return "", fmt.Errorf("generate password: %w", err)
		}
		for _, c := range b {
			// 256 = 8*32: no bias.
			if len(out) < 12 {
				out = append(out, passwordAlphabet[int(c)%len(passwordAlphabet)])
			}
		}
	}
	return string(out), nil
}

// CreateGame creates a game, queues an invitation to every player and returns their
// credentials.
func (d *Desk) CreateGame(ctx context.Context, ng NewGame) ([]Credentials, error) {
	var first *store.Game
	if rs, _ := d.ruleset(ng.Ruleset); ng.MatchOf != "" && rs != nil {
		if _, ok := rs.(rules.Matcher); ok {
			g1, err := d.readGame(ctx, ng.MatchOf)
			if err != nil {
				return nil, fmt.Errorf("match of %s: %w", ng.MatchOf, err)
			}
			first = &g1
		}
	}
	p, err := d.prepareGame(ng, first)
	if err != nil {
		return nil, err
	}
	err = d.Store.Write(ctx, func(tx store.Tx) error { return d.createIn(ctx, tx, p) })
	if err != nil {
		return nil, fmt.Errorf("create game %s: %w", ng.Name, err)
	}
	return p.creds, nil
}

// preparedGame is a game checked and set up, ready to be stored (createIn).
type preparedGame struct {
	g     store.Game
	rs    rules.Ruleset
	st    rules.State
	creds []Credentials
	first *store.Game
	// observers is the game's observer policy ("" leaves none set: open).
	observers string
}

// prepareGame checks a request for a game and sets it up, outside any transaction
// (bcrypt hashes the new passwords). first is the first game of the match ng.MatchOf
// names, nil when none.
func (d *Desk) prepareGame(ng NewGame, first *store.Game) (preparedGame, error) {
	rs, err := d.ruleset(ng.Ruleset)
	if err != nil {
		return preparedGame{}, err
	}
	if !validGame.MatchString(ng.Name) {
		return preparedGame{}, fmt.Errorf("game name %q: use 1 to %d letters, digits, '-', '_' or '.'", ng.Name, maxGameLen)
	}
	switch ng.NoOrders {
	case "":
		ng.NoOrders = "wait"
	case "wait", "default":
	default:
		return preparedGame{}, fmt.Errorf("no-orders policy %q: expected wait or default", ng.NoOrders)
	}
	if err := CheckSpan("deadline", ng.PhaseLength); err != nil {
		return preparedGame{}, err
	}
	if err := CheckSpan("grace", ng.Grace); err != nil {
		return preparedGame{}, err
	}
	if _, ok := observerPolicies[ng.Observers]; !ok && ng.Observers != "" {
		return preparedGame{}, fmt.Errorf("observers %q: expected open, ask or no", ng.Observers)
	}
	for name := range ng.Options {
		if _, ok := rs.OptionNames()[name]; !ok {
			return preparedGame{}, fmt.Errorf("option %q: %s has no such optional rule", name, rs.Name())
		}
	}
	if ng.MatchOf != "" {
		if _, ok := rs.(rules.Matcher); !ok {
			return preparedGame{}, fmt.Errorf("match: %s games are not played as matches", rs.Name())
		}
		if first == nil || first.Ruleset != rs.Name() || !first.Over {
			return preparedGame{}, fmt.Errorf("match of %s: it must be a finished %s game", ng.MatchOf, rs.Name())
		}
		if ng.Options == nil {
			ng.Options = rules.Options(first.Options)
		}
		if len(ng.Players) == 0 {
			ng.Players = switchedSides(rs, *first)
		}
	} else {
		first = nil
	}
	if err := d.checkDice(&ng, first); err != nil {
		return preparedGame{}, err
	}
	seen := map[string]bool{}
	var creds []Credentials
	g := store.Game{Dice: ng.Dice, Name: ng.Name, Ruleset: rs.Name(), Options: ng.Options, Created: d.now(), PhaseLength: ng.PhaseLength, Grace: ng.Grace, NoOrders: ng.NoOrders, AbsenceLimit: ng.AbsenceLimit}
	for _, s := range rs.Sides() {
		addr := strings.ToLower(strings.TrimSpace(ng.Players[s.ID]))
		if !strings.Contains(addr, "@") {
			return preparedGame{}, fmt.Errorf("side %s: a player address is needed (--player %s=ADDRESS)", s.ID, s.ID)
		}
		if seen[addr] {
			return preparedGame{}, fmt.Errorf("side %s: %s already plays another side", s.ID, addr)
		}
		if strings.EqualFold(addr, d.Address) {
			return preparedGame{}, fmt.Errorf("side %s: %s is the game mailbox itself", s.ID, addr)
		}
		seen[addr] = true
		pw := ng.Passwords[s.ID]
		var hash string
		carried := false
		if prev, ok := findPlayer(derefGame(first), addr); ok && pw == "" {
			hash, pw = prev.PassHash, "unchanged: the same as in game "+first.Name // second game of a match
			carried = true
		} else if chosen := ng.PassHashes[s.ID]; chosen != "" {
			// A player who opened or joined the game by mail chose his own password,
			// which only its hash knows: the invitation does not repeat it.
			hash, pw, carried = chosen, "the one you chose in your mail to the game (not repeated here)", true
		} else {
			if pw == "" {
				if pw, err = d.newPassword(); err != nil {
					return preparedGame{}, err
				}
			} else if !validPassword(pw) {
				return preparedGame{}, fmt.Errorf("side %s: a password may not hold control characters", s.ID)
			}
			if hash, err = d.hashPassword(pw); err != nil {
				return preparedGame{}, err
			}
		}
		// The invitation opens the player's thread: its Message-ID is derived as enqueue
		// derives it below, so that every later mail can refer to it.
		thread := d.messageID("create:"+ng.Name, "invite", string(s.ID), []string{addr})
		g.Players = append(g.Players, store.Player{Side: string(s.ID), Address: addr, PassHash: hash, Thread: thread})
		creds = append(creds, Credentials{Side: s.ID, Address: addr, Password: pw, new: hash != "" && !carried, chosen: ng.PassHashes[s.ID] != ""})
	}
	for side := range ng.Players {
		if !hasSide(rs, side) {
			_, err := findSide(rs, string(side))
			return preparedGame{}, err
		}
	}
	var st rules.State
	if first != nil {
		prev, err := rs.Decode(first.State)
		if err != nil {
			return preparedGame{}, err
		}
		st, err = rs.(rules.Matcher).NewMatchGame(prev, ng.Options)
		if err != nil {
			return preparedGame{}, fmt.Errorf("set up %s: %w", ng.Name, err)
		}
		g.MatchOf = first.Name
	} else if st, err = rs.New(ng.Options); err != nil {
		return preparedGame{}, fmt.Errorf("set up %s: %w", ng.Name, err)
	}
	if g.State, err = rs.Encode(st); err != nil {
		return preparedGame{}, err
	}
	g.Initial = g.State
	return preparedGame{g: g, rs: rs, st: st, creds: creds, first: first, observers: ng.Observers}, nil
}

// createIn stores a prepared game in tx and queues its invitations and first results.
func (d *Desk) createIn(ctx context.Context, tx store.Tx, p preparedGame) error {
	g, rs, st, creds, first := p.g, p.rs, p.st, p.creds, p.first
	now := d.now()
	if _, err := tx.Game(g.Name); err == nil {
		return fmt.Errorf("game %s already exists", g.Name)
	} else if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if _, err := tx.OpenGame(g.Name); err == nil {
		return fmt.Errorf("game %s already exists, opened by a player and waiting for a second", g.Name)
	}
	if p.observers != "" {
		if err := tx.PutObserverPolicy(g.Name, p.observers); err != nil {
			return err
		}
	}
	d.setDeadline(&g, now)
	if err := tx.PutGame(g); err != nil {
		return err
	}
	if err := d.keepVerifiers(tx, g, derefGame(first), creds); err != nil {
		return err
	}
	if err := declareBeacon(tx, g, now); err != nil {
		return err
	}
	turnSeed, err := d.turnSeed(tx, g.Name, st.Turn(), now, nil)
	if err != nil {
		return err
	}
	dealt, deckCommitment, err := d.dealNew(tx, &g, rs, st, now)
	if err != nil {
		return err
	}
	if dealt != nil {
		st = dealt
		if g.State, err = rs.Encode(st); err != nil {
			return err
		}
		g.Initial = g.State
		if err := tx.PutGame(g); err != nil {
			return err
		}
	}
	decks, err := deckInvitation(tx, g.Name, deckCommitment)
	if err != nil {
		return err
	}
	key, err := d.hostKey(tx)
	if err != nil {
		return err
	}
	h := &handling{desk: d, tx: tx, msg: Message{ID: "create:" + g.Name}, now: now, game: g}
	for _, c := range creds {
		body, err := render("invite.txt", map[string]any{
			"Game": g.Name, "Title": rs.Title(), "Side": sideName(rs, c.Side), "Password": c.Password, "Chosen": c.chosen,
			"Address": d.Address, "Commitment": turnSeed.Commitment(), "Turn": st.Turn(), "Decks": decks, "HostKey": hex.EncodeToString(key.Public().(ed25519.PublicKey)), "Phase": st.PhaseTitle(),
			"Deadline": g.Deadline, "Help": helpDigest(rs), "NoOrders": g.NoOrders, "Defaults": rules.DefaultOrdersOf(rs), "Options": g.Options,
			"Beacon": g.Dice == DiceBeacon,
		})
		if err != nil {
			return err
		}
		if _, err := h.enqueue([]string{c.Address}, g.Name, string(c.Side), "invite", fmt.Sprintf("[%s] You are invited to play %s", g.Name, sideName(rs, c.Side)), body, false, secretOf(c)...); err != nil {
			return err
		}
	}
	adv, err := d.advance(ctx, tx, &g, rs, st, now, "create:"+g.Name)
	if err != nil {
		return err
	}
	return d.flushResults(tx, adv)
}

// secretOf lists what of an invitation must not stay in the store once it is sent: a
// new password (the second game of a match keeps the first game's, and says so).
func secretOf(c Credentials) []string {
	if c.new {
		return []string{c.Password}
	}
	return nil
}

// findSide reads a side as a host or a player writes it: its id ("de") or its name
// ("German"), in any case. The error lists the valid sides.
func findSide(rs rules.Ruleset, s string) (rules.Side, error) {
	var valid []string
	for _, info := range rs.Sides() {
		if strings.EqualFold(string(info.ID), s) || strings.EqualFold(info.Name, s) {
			return info.ID, nil
		}
		valid = append(valid, fmt.Sprintf("%s (%s)", info.ID, info.Name))
	}
	return "", fmt.Errorf("side %q: %s has the sides %s", s, rs.Title(), strings.Join(valid, " and "))
}

func hasSide(rs rules.Ruleset, side rules.Side) bool {
	for _, s := range rs.Sides() {
		if s.ID == side {
			return true
		}
	}
	return false
}

func derefGame(g *store.Game) store.Game {
	if g == nil {
		return store.Game{}
	}
	return *g
}

// switchedSides gives each player of a two-sided game the other side (4.2).
func switchedSides(rs rules.Ruleset, g store.Game) map[rules.Side]string {
	sides := rs.Sides()
	out := map[rules.Side]string{}
	if len(sides) != 2 {
		return out
	}
	for _, p := range g.Players {
		other := sides[0].ID
		if rules.Side(p.Side) == other {
			other = sides[1].ID
		}
		out[other] = p.Address
	}
	return out
}

func (d *Desk) readGame(ctx context.Context, name string) (store.Game, error) {
	var g store.Game
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		g, err = tx.Game(name)
		return err
	})
	return g, err
}
