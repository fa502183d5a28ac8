package adjudicator

import (
	"context"
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// Tick processes the reminders and deadlines due at now, for every game. The daemon calls
// it on its own clock; `adjutant tick` calls it by hand. It returns one line per action.
// It reads only the games the store's deadline index says are due (store.NextLook),
// one write transaction each: a tick's cost follows the deadlines, not the games.
func (d *Desk) Tick(ctx context.Context, now time.Time) ([]string, error) {
	now = now.UTC()
	var names []string
	if err := d.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		names, err = tx.DueGames(now)
		return err
	}); err != nil {
		return nil, fmt.Errorf("tick: list games: %w", err)
	}
	// Throttle records older than a day have served their window: forget them.
	if err := d.Store.Write(ctx, func(tx store.Tx) error {
		_, err := tx.PurgeThrottles(now.Add(-24 * time.Hour))
		return err
	}); err != nil {
		return nil, fmt.Errorf("tick: purge throttles: %w", err)
	}
	// Beacon rounds first: a phase they resolve may start a deadline.
	report, err := d.tickBeacons(ctx, names, now)
	if err != nil {
		return report, fmt.Errorf("tick: %w", err)
	}
	for _, name := range names {
		err := d.Store.Write(ctx, func(tx store.Tx) (err error) {
			defer func() {
				if r := recover(); r != nil {
					err = fmt.Errorf("%w: panic: %v", ErrAdjudication, r)
				}
			}()
			lines, err := d.tickGame(ctx, tx, name, now)
			if err == nil {
				report = append(report, lines...)
			}
			return err
		})
		if err != nil && !Temporary(err) {
			// One game's broken rules, or a bug its state sets off, must not stop the
			// others' deadlines; a ruleset's error text may quote sealed orders.
			detail := ""
			if !errors.Is(err, ErrAdjudication) {
				detail = scrubError(err, Message{})
			}
			d.log().Error("deadline of a game failed; game unchanged", "game", name, "cause", errorKind(err), "err", detail)
			report = append(report, fmt.Sprintf("%s: deadline processing failed (%s); game unchanged", name, errorKind(err)))
			continue
		}
		if err != nil {
			return report, fmt.Errorf("tick game %s: %w", name, err)
		}
	}
	return report, nil
}

func (d *Desk) tickGame(ctx context.Context, tx store.Tx, name string, now time.Time) ([]string, error) {
	g, err := tx.Game(name)
	if err != nil {
		return nil, err
	}
	if g.Over || g.Deadline.IsZero() || !g.PausedAt.IsZero() {
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
	filed, err := filedOrders(tx, name)
	if err != nil {
		return nil, err
	}
	waiting := rs.Waiting(st, filed)
	if len(waiting) == 0 {
		return nil, nil
	}
	cause := "tick:" + name + ":" + g.Deadline.Format(time.RFC3339)
	h := &handling{desk: d, tx: tx, msg: Message{ID: cause}, now: now, game: g}
	var report []string
	due := g.Deadline.Add(g.Grace)
	switch {
	case now.Before(g.RemindAt) || (g.Reminded && now.Before(due)):
		return nil, nil
	case now.Before(due):
		for _, side := range waiting {
			p, _ := playerOf(g, side)
			body, err := render("reminder.txt", map[string]any{"Game": g.Name, "Side": sideName(rs, side), "Phase": st.PhaseTitle(), "Deadline": g.Deadline, "NoOrders": g.NoOrders})
			if err != nil {
				return nil, err
			}
			if _, err := h.enqueue([]string{p.Address}, g.Name, string(side), "reminder", fmt.Sprintf("[%s] Reminder: orders due %s", g.Name, g.Deadline.Format("Mon 2 Jan 15:04 MST")), body, false); err != nil {
				return nil, err
			}
			report = append(report, fmt.Sprintf("%s: reminded %s", name, side))
		}
		g.Reminded = true
		return report, tx.PutGame(g)
	}
	// The deadline and its grace have passed.
	var notes []string
	if late := now.Sub(due); late > time.Hour {
		notes = append(notes, fmt.Sprintf("Adjutant was not running when the deadline passed (%s); it processed it %s late, at %s.",
			due.Format(time.RFC3339), late.Round(time.Minute), now.Format(time.RFC3339)))
	}
	bouncing := false
	allowed := g.AbsenceLimit
	if allowed == 0 {
		allowed = DefaultAbsenceLimit
	}
	for _, side := range waiting {
		p, ok := playerOf(g, side)
		if !ok || !p.Bouncing {
			continue
		}
		since := p.BouncingSince
		if since.IsZero() {
			since = due // marked before the time was kept: counted from this deadline
		}
		// A bounce stands for an absence the player did not announce: the game waits
		// for him no longer than it allows absence in all (a bounce he forged of his
		// own mail cannot stall it for good).
		if now.Sub(since) < max(allowed, 0) {
			bouncing = true
			notes = append(notes, fmt.Sprintf("Mail to the %s player bounces, so the deadline gives him no default orders: the game waits for him, or for the host to give the side another address, until %s (the absence this game allows).", sideName(rs, side), since.Add(allowed).Format(timeFormat)))
		} else {
			notes = append(notes, fmt.Sprintf("Mail to the %s player has bounced since %s, longer than the absence this game allows (%s): the deadline is applied to him as to any player.", sideName(rs, side), since.Format(timeFormat), days(max(allowed, 0))))
		}
	}
	// A player whose mail bounces never got what he is late for: no default orders
	// against him; the game waits, as under the "wait" policy, until he writes or the
	// host gives the side another address.
	if g.NoOrders != "default" || bouncing {
		if g.LateNotified {
			return nil, nil
		}
		for _, p := range g.Players {
			body, err := render("late.txt", map[string]any{"Game": g.Name, "Phase": st.PhaseTitle(), "Waiting": strings.Join(sortedSides(rs, waiting), ", "), "Notes": notes})
			if err != nil {
				return nil, err
			}
			if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, "late", fmt.Sprintf("[%s] Deadline passed: waiting", g.Name), body, false); err != nil {
				return nil, err
			}
		}
		g.LateNotified = true
		report = append(report, fmt.Sprintf("%s: deadline passed, waiting for %v", name, waiting))
		return report, tx.PutGame(g)
	}
	for _, side := range waiting {
		defaults := rs.Defaults(st, side, filed)
		var what []string
		for _, o := range defaults {
			// A default is what HELP states for a silent side, and no commitment of it
			// was mailed before it is used: filed open, never "revealed" as a sealed
			// order whose commitment a player could not have received.
			o.Sealed = false
			if _, err := d.fileOrder(tx, name, o, filed, cause, now); err != nil {
				return nil, err
			}
			what = append(what, o.Summary)
		}
		notes = append(notes, fmt.Sprintf("%s sent no orders by the deadline: the default orders were used (%s).", sideName(rs, side), strings.Join(what, "; ")))
		report = append(report, fmt.Sprintf("%s: default orders for %s", name, side))
	}
	adv, err := d.advance(ctx, tx, &g, rs, st, now, cause)
	if err != nil {
		return nil, err
	}
	if adv.batch != nil {
		adv.batch.notes = append(notes, adv.batch.notes...)
		adv.journal.Notes = adv.batch.notes
	}
	return report, d.flushResults(tx, adv)
}

func playerOf(g store.Game, side rules.Side) (store.Player, bool) {
	for _, p := range g.Players {
		if p.Side == string(side) {
			return p, true
		}
	}
	return store.Player{}, false
}
