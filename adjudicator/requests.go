package adjudicator

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
)

// The players' own requests about the game's course, read from their mails beside
// their orders (submit.go): ABSENT UNTIL <date> and RESIGN (resign.go for its code).
// The host's operations on a game are host.go's.

// request is a player's ABSENT or RESIGN line, checked; apply carries it out.
type request struct {
	line    orders.Line
	reason  string // why refused; "" when accepted
	verdict string // the verdict when done, "" for "ok"
	apply   func() (string, error)
}

// checkRequests checks a player's ABSENT UNTIL and RESIGN lines against the game.
func (h *handling) checkRequests(rs rules.Ruleset, side rules.Side, lines []orders.Line) []request {
	var out []request
	for _, l := range lines {
		r := request{line: l}
		switch {
		case h.game.Over:
			r.reason = "the game is over"
		case l.Is("RESIGN") && len(l.Fields) == 1:
			// Resigning cannot be undone: it asks for the code first (resign.go).
			r.verdict = "NOT DONE YET"
			r.apply = func() (string, error) {
				p, _ := playerOf(h.game, side)
				code, err := h.resignCode(h.game.Name, p, h.now)
				if err != nil {
					return "", err
				}
				return fmt.Sprintf("resigning cannot be undone, so Adjutant asks you to confirm it. To resign (the game ends at once and the other side wins), send within %d days a mail with your password and this line: RESIGN %s", ResignCodeDays, code), nil
			}
		case l.Is("RESIGN") && (len(l.Fields) == 2 || (len(l.Fields) == 3 && l.Is("RESIGN", "CONFIRM"))):
			p, _ := playerOf(h.game, side)
			ok, err := h.resignCodeOK(h.game.Name, p, l.Fields[len(l.Fields)-1])
			switch {
			case err != nil:
				r.apply = func() (string, error) { return "", err }
			case !ok:
				r.reason = fmt.Sprintf("this is not the code Adjutant sent you for this game, or it is older than %d days: send RESIGN alone for a new one", ResignCodeDays)
			default:
				r.apply = func() (string, error) {
					if _, err := h.end(h.game.Name, side); err != nil {
						return "", err
					}
					return "you have resigned; the game is over and every player is told", nil
				}
			}
		case l.Is("ABSENT", "UNTIL") && len(l.Fields) == 3:
			until, err := h.absence(side, l.Fields[2])
			if err != nil {
				r.reason = err.Error()
				break
			}
			r.apply = func() (string, error) { return h.absent(rs, side, until) }
		case l.Is("DICE", "SEED", "ALONE") && len(l.Fields) == 3:
			r = h.seedAlone(side) // beacondice.go
			r.line = l
		default:
			r.reason = "expected ABSENT UNTIL <date>, e.g. ABSENT UNTIL 2026-12-01, RESIGN alone on its line, RESIGN <code> with the code it answers, or DICE SEED ALONE"
		}
		out = append(out, r)
	}
	return out
}

// absence checks an ABSENT UNTIL date against the game's allowance and returns the end
// of the absence: the end of that day, UTC.
func (h *handling) absence(side rules.Side, date string) (time.Time, error) {
	day, err := time.Parse("2006-01-02", date)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q: expected a date such as 2026-12-01", date)
	}
	until := day.Add(24 * time.Hour)
	if !until.After(h.now) {
		return time.Time{}, fmt.Errorf("%s has passed", date)
	}
	if limit := aheadLimit(h.now); day.After(limit) {
		return time.Time{}, fmt.Errorf("%s: an absence may end at most a year ahead (until %s)", date, limit.Format("Mon 2 Jan 2006"))
	}
	limit := h.game.AbsenceLimit
	if limit == 0 {
		limit = DefaultAbsenceLimit
	}
	if limit < 0 {
		return time.Time{}, errors.New("the host allows no absence in this game")
	}
	p, _ := playerOf(h.game, side)
	from := h.now
	if p.AbsentUntil.After(from) {
		from = p.AbsentUntil
	}
	if more := until.Sub(from); more > 0 && addSpan(p.AbsenceUsed, more) > limit {
		left := limit - p.AbsenceUsed
		return time.Time{}, fmt.Errorf("this game allows %s of absence in all and you have %s left; ask the host for more", days(limit), days(max(left, 0)))
	}
	return until, nil
}

// days writes a span in days and hours as players read it.
func days(d time.Duration) string {
	n, hours := int(d/(24*time.Hour)), int((d%(24*time.Hour)).Round(time.Hour)/time.Hour)
	switch {
	case hours == 0:
		return fmt.Sprintf("%d days", n)
	case n == 0:
		return fmt.Sprintf("%d hours", hours)
	}
	return fmt.Sprintf("%d days %d hours", n, hours)
}

// absent records a player's absence until the given time and moves the deadline past
// it; the other players are told.
func (h *handling) absent(rs rules.Ruleset, side rules.Side, until time.Time) (string, error) {
	g := h.game
	for i := range g.Players {
		if g.Players[i].Side != string(side) {
			continue
		}
		from := h.now
		if g.Players[i].AbsentUntil.After(from) {
			from = g.Players[i].AbsentUntil
		}
		if more := until.Sub(from); more > 0 {
			g.Players[i].AbsenceUsed = addSpan(g.Players[i].AbsenceUsed, more)
		}
		g.Players[i].AbsentUntil = until
	}
	moved := !g.Deadline.IsZero() && g.Deadline.Before(until)
	if moved {
		moveDeadline(&g, until, h.now)
	}
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	h.game = g
	who := sideName(rs, side)
	text := fmt.Sprintf("Game %s: the %s player is absent until %s.", g.Name, who, until.Format(timeFormat))
	if moved {
		text += " No deadline falls before then: the deadline is now " + g.Deadline.Format(timeFormat) + "."
	}
	if err := h.tell(g, string(side), "absent:"+string(side), fmt.Sprintf("[%s] The %s player is absent", g.Name, who), text); err != nil {
		return "", err
	}
	p, _ := playerOf(g, side)
	limit := g.AbsenceLimit
	if limit == 0 {
		limit = DefaultAbsenceLimit
	}
	report := fmt.Sprintf("absent until %s; %s of absence left in this game", until.Format(timeFormat), days(max(limit-p.AbsenceUsed, 0)))
	if moved {
		report += "; the deadline is now " + g.Deadline.Format(timeFormat)
	}
	return report, nil
}

// latestAbsence is the end of the latest absence of g's players after now (zero: none).
func latestAbsence(g store.Game, now time.Time) time.Time {
	var out time.Time
	for _, p := range g.Players {
		if p.AbsentUntil.After(now) && p.AbsentUntil.After(out) {
			out = p.AbsentUntil
		}
	}
	return out
}

// deadlineNote says why a deadline set at now is not the phase's length from now: the
// game is paused, or a player is absent. Results mails carry it among their notes.
func deadlineNote(g store.Game, now time.Time) string {
	switch {
	case g.PhaseLength <= 0:
		return ""
	case !g.PausedAt.IsZero():
		return "The host has paused the game: this phase's deadline runs from when he resumes it."
	case !g.Deadline.Equal(now.Add(g.PhaseLength)):
		return fmt.Sprintf("A player is absent (ABSENT UNTIL): no deadline falls before his return, so the deadline is %s instead.", g.Deadline.Format(timeFormat))
	}
	return ""
}

// pauseNote is what STATUS says of a paused game or of absent players.
func pauseNote(rs rules.Ruleset, g store.Game, now time.Time) string {
	var notes []string
	if !g.PausedAt.IsZero() {
		notes = append(notes, "The host has paused this game since "+g.PausedAt.Format(timeFormat)+": no deadline runs until he resumes it; orders are still checked and filed.")
	}
	var absent []string
	for _, p := range g.Players {
		if p.AbsentUntil.After(now) {
			absent = append(absent, fmt.Sprintf("%s until %s", sideName(rs, rules.Side(p.Side)), p.AbsentUntil.Format(timeFormat)))
		}
	}
	sort.Strings(absent)
	if len(absent) > 0 {
		notes = append(notes, "Absent: "+strings.Join(absent, "; ")+".")
	}
	return strings.Join(notes, "\n")
}

// applyRequests carries out a player's checked requests, unless his mail was refused,
// and adds their verdicts to the order check's lines.
func (h *handling) applyRequests(reqs []request, refused bool, lines []lineView) ([]lineView, error) {
	for _, r := range reqs {
		v := lineView{No: r.line.No, Text: r.line.Text, Verdict: "ok"}
		switch {
		case r.reason != "":
			v.Verdict, v.Reason = "REFUSED", r.reason
		case refused:
			v.Verdict, v.Reason = "correct, not done", "the mail has refused lines"
		default:
			report, err := r.apply()
			if err != nil {
				return nil, err
			}
			v.Reason = report
			if r.verdict != "" {
				v.Verdict = r.verdict
			}
		}
		lines = append(lines, v)
	}
	return lines, nil
}
