package adjudicator

import (
	"errors"
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/store"
)

// bounce handles a bounce matched, by its VERP address, to the mail it reports: the
// player it was for is marked as bouncing, and the other players are told, so that
// nobody waits on a player who never got the mail and no deadline gives him default
// orders silently. The bounce itself is never answered (invariant 7).
func (h *handling) bounce() (string, error) {
	m := h.msg
	out, err := h.tx.OutMailAt(m.BounceOf)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (out.Game == "" || out.Side == "")) {
		h.desk.log().Info("bounce of a mail of no game; not answered", "id", m.ID, "outbox", m.BounceOf)
		return Ignored + ": bounce of a mail of no game", nil
	} else if err != nil {
		return "", err
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
			g.Players[i].Bouncing, changed = true, true
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
	who := sideName(rs, Side(out.Side))
	for _, p := range g.Players {
		if p.Side == out.Side {
			continue
		}
		text := fmt.Sprintf("Game %s: mail to the %s player bounces: it came back undelivered (%q, %s). Until the %s player sends a mail again, or the host gives the side another address, deadlines do not give him default orders; the game waits.",
			g.Name, who, out.Subject, out.Queued.Format("Mon 2 Jan 15:04 MST"), who)
		body, err := render("refusal.txt", map[string]any{"Text": text, "Address": h.desk.Address})
		if err != nil {
			return "", err
		}
		if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, "bounce:"+out.Side, fmt.Sprintf("[%s] Mail to the %s player bounces", g.Name, who), body, false); err != nil {
			return "", err
		}
	}
	return Ignored + ": bounce; " + out.Side + " marked bouncing", nil
}
