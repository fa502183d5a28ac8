package adjudicator

import (
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	netmail "net/mail"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/store"
)

// bounce handles a bounce matched, by its VERP address, to the mail it reports: the
// player it was for is marked as bouncing, and the other players are told, so that
// nobody waits on a player who never got the mail and no deadline gives him default
// orders silently. The bounce itself is never answered (invariant 7).
//
// Marking a player stops the deadlines from giving him default orders, so a bounce is
// believed only when it proves itself (issue 19): its VERP address carries the store's
// tag of that mail, which only the store and the mail's own envelope know (an address
// of the old, untagged form, or a guessed number, marks nobody), and its delivery status
// report (RFC 3464) says delivery to the address the mail went to failed. An auto-reply
// (a vacation notice) also comes back to the VERP address, with the right tag, but it
// carries no such report and marks nobody: it shows the mail was delivered, and an
// absence is what ABSENT UNTIL, with its limit, is for. A delay warning (Action:
// delayed) marks nobody either: the mail may still arrive.
func (h *handling) bounce() (string, error) {
	m := h.msg
	out, err := h.tx.OutMailAt(m.BounceOf)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (out.Game == "" || out.Side == "")) {
		h.desk.log().Info("bounce of a mail of no game; not answered", "id", m.ID, "outbox", m.BounceOf)
		return Ignored + ": bounce of a mail of no game", nil
	} else if err != nil {
		return "", err
	}
	if !h.desk.Store.Identity().ValidBounceTag(m.BounceOf, out.MessageID, m.BounceTag) {
		h.desk.log().Warn("bounce not believed: its return address does not carry the store's tag of the mail", "id", m.ID, "outbox", m.BounceOf, "tagged", m.BounceTag != "")
		return Ignored + ": bounce without the tag of the mail it names", nil
	}
	if len(out.To) != 1 || !slices.ContainsFunc(m.BounceFailed, func(a string) bool { return strings.EqualFold(a, bareAddress(out.To[0])) }) {
		h.desk.log().Info("bounce not believed: its delivery report does not say that delivery to the mail's recipient failed", "id", m.ID, "outbox", m.BounceOf, "failed", len(m.BounceFailed))
		return Ignored + ": bounce that reports no failed delivery to the mail's recipient", nil
	}
	g, err := h.tx.Game(out.Game)
	if errors.Is(err, store.ErrNotFound) {
		return Ignored + ": bounce of a mail of a game that is gone", nil
	} else if err != nil {
		return "", err
	}
	h.game = g
	rs, err := h.desk.ruleset(g.Ruleset)
	if err != nil {
		return "", err
	}
	changed := false
	for i, p := range g.Players {
		// Only while the address that bounced is still the player's.
		if p.Side == out.Side && len(out.To) == 1 && strings.EqualFold(p.Address, out.To[0]) && !p.Bouncing {
			g.Players[i].Bouncing, g.Players[i].BouncingSince, changed = true, h.now, true
		}
	}
	if !changed {
		return Ignored + ": bounce already known", nil
	}
	if err := h.tx.PutGame(g); err != nil {
		return "", fmt.Errorf("mark %s of %s bouncing: %w", out.Side, g.Name, err)
	}
	h.game = g
	h.desk.log().Warn("mail to a player bounces", "game", g.Name, "side", out.Side, "outbox", m.BounceOf)
	who := sideName(rs, rules.Side(out.Side))
	text := fmt.Sprintf("Game %s: mail to the %s player bounces: it came back undelivered (%q, %s). Until the %s player sends a mail again, or the host gives the side another address, deadlines do not give him default orders; the game waits, for no longer than the absence this game allows.",
		g.Name, who, out.Subject, out.Queued.Format("Mon 2 Jan 15:04 MST"), who)
	body, err := render("refusal.txt", map[string]any{"Text": text, "Address": h.desk.Address})
	if err != nil {
		return "", err
	}
	subject := fmt.Sprintf("[%s] Mail to the %s player bounces", g.Name, who)
	// The other players, and the host, who can give the side another address.
	for _, p := range g.Players {
		if p.Side == out.Side {
			continue
		}
		if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, "bounce:"+out.Side, subject, body, false); err != nil {
			return "", err
		}
	}
	if host := h.desk.HostAddress; host != "" && !strings.EqualFold(host, out.To[0]) {
		if _, err := h.enqueue([]string{host}, g.Name, "", "bounce:"+out.Side, subject, body, false); err != nil {
			return "", err
		}
	}
	return Ignored + ": bounce; " + out.Side + " marked bouncing", nil
}

// bareAddress is the address of a recipient as the outbox keeps it (an address, or a
// name and an address).
func bareAddress(to string) string {
	if a, err := netmail.ParseAddress(to); err == nil {
		return a.Address
	}
	return strings.TrimSpace(to)
}
