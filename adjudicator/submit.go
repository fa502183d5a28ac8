package adjudicator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

// lineView is one line of an order check.
type lineView struct {
	No      int
	Text    string
	Verdict string
	Reason  string
	Rule    string
}

type section struct {
	Title string
	Body  string
}

type sealView struct {
	Summary    string
	Commitment string
}

// submit handles an authenticated player's mail: desk commands, then order lines.
func (h *handling) submit(ctx context.Context, player store.Player, cmd deskCommands, ignored []orders.Ignored) (string, error) {
	d, g := h.desk, h.game
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return "", err
	}
	st, err := rs.Decode(g.State)
	if err != nil {
		return "", fmt.Errorf("decode state of %s: %w", g.Name, err)
	}
	side := Side(player.Side)
	filed, err := filedOrders(h.tx, g.Name)
	if err != nil {
		return "", err
	}

	view := map[string]any{
		"Game": g.Name, "Side": sideName(rs, side), "Address": player.Address,
		"Ignored": ignored, "Title": rs.Title(),
	}
	var lines []lineView
	for _, l := range cmd.deskLines {
		text := l.Text
		if l.Keyword() == "PASSWORD" {
			text = "PASSWORD ********"
		}
		lines = append(lines, lineView{No: l.No, Text: text, Verdict: "ok", Reason: "understood"})
	}
	outcome := Handled
	var sealed []sealView
	if len(cmd.orderLines) > 0 {
		switch {
		case st.Over():
			for _, l := range cmd.orderLines {
				lines = append(lines, lineView{No: l.No, Text: l.Text, Verdict: "REFUSED", Reason: "the game is over"})
			}
			view["Refused"] = true
		default:
			checked := rs.Check(st, side, cmd.orderLines, filed)
			refused := false
			for _, c := range checked {
				v := lineView{No: c.Line.No, Text: c.Line.Text, Verdict: "ok", Reason: c.Reason, Rule: c.Rule}
				if !c.OK {
					v.Verdict, refused = "REFUSED", true
				}
				lines = append(lines, v)
			}
			view["Refused"] = refused
			if refused {
				outcome = Refused + ": orders"
				break
			}
			for _, c := range checked {
				for _, o := range c.Orders {
					stored, err := h.file(o, filed)
					if err != nil {
						return "", err
					}
					if o.Sealed {
						sealed = append(sealed, sealView{Summary: o.Summary, Commitment: stored.Commitment})
					}
				}
			}
			view["Accepted"] = true
		}
	}
	sortLines(lines)
	view["Lines"] = lines
	view["Sealed"] = sealed

	// The opponents hear that a plot was sealed, with the same commitment, never its text.
	for _, s := range sealed {
		for _, p := range g.Players {
			if p.Side == player.Side {
				continue
			}
			body, err := render("notice.txt", map[string]any{"Game": g.Name, "Side": sideName(rs, side), "Summary": s.Summary, "Commitment": s.Commitment})
			if err != nil {
				return "", err
			}
			if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, "notice:"+s.Commitment, fmt.Sprintf("[%s] %s sealed: %s", g.Name, sideName(rs, side), s.Summary), body, false); err != nil {
				return "", err
			}
		}
	}

	// Advance first, so that STATUS and MAP describe the game as it now stands.
	adv, err := h.desk.advance(ctx, h.tx, &g, rs, st, h.now, h.msg.ID)
	if err != nil {
		return "", err
	}
	h.game = g
	st = adv.state

	var sections []section
	if cmd.help {
		sections = append(sections, section{"HELP", rulesetHelp(rs)})
	}
	if cmd.helpDice {
		text, err := h.desk.diceHelpFor(h.tx, g.Name)
		if err != nil {
			return "", err
		}
		sections = append(sections, section{"HELP DICE", text})
	}
	if cmd.status || len(cmd.orderLines) > 0 {
		now, err := filedOrders(h.tx, g.Name)
		if err != nil {
			return "", err
		}
		sections = append(sections, section{"STATUS", h.desk.statusText(g, rs, st, side, adv.waiting, now)})
	}
	if cmd.showMap {
		sections = append(sections, section{"MAP", rs.Map(st, side)})
	}
	if cmd.rolls {
		text, err := h.desk.rollsText(h.tx, g.Name)
		if err != nil {
			return "", err
		}
		sections = append(sections, section{"ROLLS", text})
	}
	view["Sections"] = sections
	body, err := render("order-check.txt", view)
	if err != nil {
		return "", err
	}
	subject := fmt.Sprintf("[%s] Order check", g.Name)
	if len(cmd.orderLines) == 0 {
		subject = fmt.Sprintf("[%s] Reply", g.Name)
	}
	// The order check goes out before the results it may have triggered.
	return outcome, h.enqueueFirst(player.Address, g.Name, player.Side, subject, body, adv)
}

// enqueueFirst queues the reply and then the results of the advance, in that order.
func (h *handling) enqueueFirst(to, game, side, subject, body string, adv advanced) error {
	if _, err := h.enqueue([]string{to}, game, side, "reply", subject, body, true); err != nil {
		return err
	}
	return h.desk.flushResults(h.tx, adv)
}

func sortLines(lines []lineView) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].No < lines[j].No })
}

// filedOrders returns the game's orders on file as the ruleset sees them.
func filedOrders(tx store.Tx, game string) ([]Order, error) {
	stored, err := tx.Orders(game)
	if err != nil {
		return nil, fmt.Errorf("read orders of %s: %w", game, err)
	}
	out := make([]Order, len(stored))
	for i, o := range stored {
		out[i] = fromStore(o)
	}
	return out, nil
}

func fromStore(o store.Order) Order {
	return Order{Phase: o.Phase, Side: Side(o.Side), Key: o.Key, Kind: o.Kind, Text: o.Text, Summary: o.Summary, Sealed: o.Sealed, Fixed: o.Fixed, Commitment: o.Commitment}
}

// file stores one accepted order, sealing it with a fresh salt when it is secret.
func (h *handling) file(o Order, filed []Order) (store.Order, error) {
	return h.desk.fileOrder(h.tx, h.game.Name, o, filed, h.msg.ID, h.now)
}

func (d *Desk) fileOrder(tx store.Tx, game string, o Order, filed []Order, cause string, now time.Time) (store.Order, error) {
	for _, f := range filed {
		if f.ID() == o.ID() && f.Fixed {
			return store.Order{}, fmt.Errorf("file order %s: it is fixed and may not be replaced", o.ID())
		}
	}
	so := store.Order{Phase: o.Phase, Side: string(o.Side), Key: o.Key, Kind: o.Kind, Text: o.Text, Summary: o.Summary, Sealed: o.Sealed, Fixed: o.Fixed, MessageID: cause, Filed: now}
	if o.Sealed {
		salt, err := d.randomHex(16)
		if err != nil {
			return so, fmt.Errorf("seal %s for %s: %w", o.Kind, o.Side, err)
		}
		so.Salt, so.Commitment = salt, Commitment(o.Text, salt)
	}
	if err := tx.PutOrder(game, so); err != nil {
		return so, fmt.Errorf("file order %s: %w", o.ID(), err)
	}
	return so, nil
}

// Commitment is the public commitment to a sealed order: hex SHA-256 of its canonical
// text, a "|" and its salt.
func Commitment(text, salt string) string {
	sum := sha256.Sum256([]byte(text + "|" + salt))
	return hex.EncodeToString(sum[:])
}

func rulesetHelp(rs Ruleset) string {
	body, err := templates.Render(rs.Name()+"-help.txt", nil)
	if err != nil {
		return "not written yet: help for " + rs.Title()
	}
	return strings.TrimRight(body, "\n")
}

func generalHelp(d *Desk) string {
	var names []string
	for name, rs := range d.Rulesets {
		names = append(names, name+" ("+rs.Title()+")")
	}
	body, err := render("help.txt", map[string]any{"Address": d.Address, "Rulesets": names})
	if err != nil {
		return "Adjutant: send GAME <name>, PASSWORD <password> and HELP."
	}
	return body
}
