package adjudicator

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// NewGame is a host's request for a game.
type NewGame struct {
	Name      string
	Ruleset   string
	Players   map[Side]string // side -> address
	Passwords map[Side]string // optional; generated when missing
	Options   Options
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
}

// Credentials are one player's, printed once to the host.
type Credentials struct {
	Side     Side
	Address  string
	Password string
	new      bool // a password of this game, not carried over from a match's first
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
	rs, err := d.ruleset(ng.Ruleset)
	if err != nil {
		return nil, err
	}
	if !validGame.MatchString(ng.Name) {
		return nil, fmt.Errorf("game name %q: use 1 to %d letters, digits, '-', '_' or '.'", ng.Name, maxGameLen)
	}
	switch ng.NoOrders {
	case "":
		ng.NoOrders = "wait"
	case "wait", "default":
	default:
		return nil, fmt.Errorf("no-orders policy %q: expected wait or default", ng.NoOrders)
	}
	if err := CheckSpan("deadline", ng.PhaseLength); err != nil {
		return nil, err
	}
	if err := CheckSpan("grace", ng.Grace); err != nil {
		return nil, err
	}
	for name := range ng.Options {
		if _, ok := rs.OptionNames()[name]; !ok {
			return nil, fmt.Errorf("option %q: %s has no such optional rule", name, rs.Name())
		}
	}
	var first *store.Game
	if ng.MatchOf != "" {
		if _, ok := rs.(Matcher); !ok {
			return nil, fmt.Errorf("match: %s games are not played as matches", rs.Name())
		}
		g1, err := d.readGame(ctx, ng.MatchOf)
		if err != nil {
			return nil, fmt.Errorf("match of %s: %w", ng.MatchOf, err)
		}
		if g1.Ruleset != rs.Name() || !g1.Over {
			return nil, fmt.Errorf("match of %s: it must be a finished %s game", ng.MatchOf, rs.Name())
		}
		if ng.Options == nil {
			ng.Options = Options(g1.Options)
		}
		if len(ng.Players) == 0 {
			ng.Players = switchedSides(rs, g1)
		}
		first = &g1
	}
	seen := map[string]bool{}
	var creds []Credentials
	g := store.Game{Name: ng.Name, Ruleset: rs.Name(), Options: ng.Options, Created: d.now(), PhaseLength: ng.PhaseLength, Grace: ng.Grace, NoOrders: ng.NoOrders, AbsenceLimit: ng.AbsenceLimit}
	for _, s := range rs.Sides() {
		addr := strings.ToLower(strings.TrimSpace(ng.Players[s.ID]))
		if !strings.Contains(addr, "@") {
			return nil, fmt.Errorf("side %s: a player address is needed (--player %s=ADDRESS)", s.ID, s.ID)
		}
		if seen[addr] {
			return nil, fmt.Errorf("side %s: %s already plays another side", s.ID, addr)
		}
		if strings.EqualFold(addr, d.Address) {
			return nil, fmt.Errorf("side %s: %s is the game mailbox itself", s.ID, addr)
		}
		seen[addr] = true
		pw := ng.Passwords[s.ID]
		var hash string
		carried := false
		if prev, ok := findPlayer(derefGame(first), addr); ok && pw == "" {
			hash, pw = prev.PassHash, "unchanged: the same as in game "+first.Name // second game of a match
			carried = true
		} else {
			if pw == "" {
				if pw, err = d.newPassword(); err != nil {
					return nil, err
				}
			} else if !validPassword(pw) {
				return nil, fmt.Errorf("side %s: a password may not hold control characters", s.ID)
			}
			if hash, err = d.hashPassword(pw); err != nil {
				return nil, err
			}
		}
		// The invitation opens the player's thread: its Message-ID is derived as enqueue
		// derives it below, so that every later mail can refer to it.
		thread := d.messageID("create:"+ng.Name, "invite", string(s.ID), []string{addr})
		g.Players = append(g.Players, store.Player{Side: string(s.ID), Address: addr, PassHash: hash, Thread: thread})
		creds = append(creds, Credentials{Side: s.ID, Address: addr, Password: pw, new: hash != "" && !carried})
	}
	for side := range ng.Players {
		if !hasSide(rs, side) {
			_, err := findSide(rs, string(side))
			return nil, err
		}
	}
	var st State
	if first != nil {
		prev, err := rs.Decode(first.State)
		if err != nil {
			return nil, err
		}
		st, err = rs.(Matcher).NewMatchGame(prev, ng.Options)
		if err != nil {
			return nil, fmt.Errorf("set up %s: %w", ng.Name, err)
		}
		g.MatchOf = first.Name
	} else if st, err = rs.New(ng.Options); err != nil {
		return nil, fmt.Errorf("set up %s: %w", ng.Name, err)
	}
	if g.State, err = rs.Encode(st); err != nil {
		return nil, err
	}
	g.Initial = g.State
	now := d.now()
	err = d.Store.Write(ctx, func(tx store.Tx) error {
		if _, err := tx.Game(ng.Name); err == nil {
			return fmt.Errorf("game %s already exists", ng.Name)
		} else if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		d.setDeadline(&g, now)
		if err := tx.PutGame(g); err != nil {
			return err
		}
		if err := d.keepVerifiers(tx, g, derefGame(first), creds); err != nil {
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
				"Game": g.Name, "Title": rs.Title(), "Side": sideName(rs, c.Side), "Password": c.Password,
				"Address": d.Address, "Commitment": turnSeed.Commitment(), "Turn": st.Turn(), "Decks": decks, "HostKey": hex.EncodeToString(key.Public().(ed25519.PublicKey)), "Phase": st.PhaseTitle(),
				"Deadline": g.Deadline, "Help": helpDigest(rs), "NoOrders": g.NoOrders, "Defaults": DefaultOrdersOf(rs), "Options": ng.Options,
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
	})
	if err != nil {
		return nil, fmt.Errorf("create game %s: %w", ng.Name, err)
	}
	return creds, nil
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
func findSide(rs Ruleset, s string) (Side, error) {
	var valid []string
	for _, info := range rs.Sides() {
		if strings.EqualFold(string(info.ID), s) || strings.EqualFold(info.Name, s) {
			return info.ID, nil
		}
		valid = append(valid, fmt.Sprintf("%s (%s)", info.ID, info.Name))
	}
	return "", fmt.Errorf("side %q: %s has the sides %s", s, rs.Title(), strings.Join(valid, " and "))
}

func hasSide(rs Ruleset, side Side) bool {
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
func switchedSides(rs Ruleset, g store.Game) map[Side]string {
	sides := rs.Sides()
	out := map[Side]string{}
	if len(sides) != 2 {
		return out
	}
	for _, p := range g.Players {
		other := sides[0].ID
		if Side(p.Side) == other {
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
