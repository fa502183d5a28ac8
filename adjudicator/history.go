package adjudicator

import (
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/store"
)

// maxHistoryMails bounds the results mails one HISTORY resends: a turn of Soldiers 1918
// played phase by phase is a handful of them.
const maxHistoryMails = 8

// clubSections are the sections of a player's reply for HISTORY, SUMMARY and ALLOW,
// and, with STATUS, who observes the game.
func (h *handling) clubSections(g store.Game, rs rules.Ruleset, side rules.Side, cmd deskCommands) ([]section, error) {
	var out []section
	if cmd.history != "" {
		text, err := h.historyText(g, side, cmd.historyTurn)
		if err != nil {
			return nil, err
		}
		out = append(out, section{"HISTORY", text})
	}
	if cmd.summary {
		text, err := h.summaryText(g)
		if err != nil {
			return nil, err
		}
		out = append(out, section{"SUMMARY", text})
	}
	if len(cmd.allow) > 0 {
		lines, err := h.allowObservers(g, cmd.allow)
		if err != nil {
			return nil, err
		}
		out = append(out, section{"ALLOW", strings.Join(lines, "\n")})
	}
	if cmd.status {
		observers, err := h.tx.Observers(g.Name)
		if err != nil {
			return nil, err
		}
		var on, asking []string
		for _, o := range observers {
			if o.Pending {
				asking = append(asking, o.Address)
			} else {
				on = append(on, o.Address)
			}
		}
		policy, err := h.tx.ObserverPolicy(g.Name)
		if err != nil {
			return nil, err
		}
		if policy == "" {
			policy = "open"
		}
		text := "Observers (" + policy + ": " + observerPolicies[policy] + "): "
		if len(on) == 0 {
			text += "none."
		} else {
			text += strings.Join(on, ", ") + "."
		}
		if len(asking) > 0 {
			text += " Asking to observe (ALLOW <address> lets one): " + strings.Join(asking, ", ") + "."
		}
		out = append(out, section{"OBSERVERS", text})
	}
	return out, nil
}

// historyText is the answer to HISTORY [turn]: the results mails of that turn (the
// last one without a turn) as side received them.
func (h *handling) historyText(g store.Game, side rules.Side, turnText string) (string, error) {
	journal, err := h.tx.Journal(g.Name)
	if err != nil {
		return "", err
	}
	if len(journal) == 0 {
		return "No phase has been resolved yet: there are no results to send again.", nil
	}
	var entries []store.JournalEntry
	what := "the last results"
	if turnText == "" {
		entries = journal[len(journal)-1:]
	} else {
		turn, err := strconv.Atoi(strings.TrimPrefix(strings.ToUpper(turnText), "T"))
		if err != nil || turn < 0 {
			return fmt.Sprintf("Not done: HISTORY %q: expected HISTORY or HISTORY and a turn's number, e.g. HISTORY 1.", turnText), nil
		}
		what = fmt.Sprintf("the results of turn %d", turn)
		last := 0
		for _, j := range journal {
			for _, s := range j.Steps {
				last = max(last, s.Turn)
				if s.Turn == turn && (len(entries) == 0 || entries[len(entries)-1].Seq != j.Seq) {
					entries = append(entries, j)
				}
			}
		}
		if len(entries) == 0 {
			return fmt.Sprintf("Not done: no phase of turn %d has been resolved; the last turn with results is %d.", turn, last), nil
		}
	}
	more := 0
	if len(entries) > maxHistoryMails {
		more = len(entries) - maxHistoryMails
		entries = entries[:maxHistoryMails]
	}
	want := map[string]bool{}
	for _, j := range entries {
		for _, id := range j.MailIDs {
			want[id] = true
		}
	}
	// The side's results mails of those advances, newest first: LastOutMail reads the
	// outbox from its end, no further back than the oldest wanted.
	var mails []store.OutMail
	for range entries {
		m, found, err := h.tx.LastOutMail(func(m store.OutMail) bool {
			return m.Game == g.Name && m.Side == string(side) && m.Kind == "results" && want[m.MessageID]
		})
		if err != nil {
			return "", err
		}
		if !found {
			break
		}
		delete(want, m.MessageID)
		mails = append(mails, m)
	}
	if len(mails) == 0 {
		return "Not done: the results mails of " + what + " are no longer kept.", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Sent again: %s, as your side received them (%d mail(s)).", what, len(mails))
	for i := len(mails) - 1; i >= 0; i-- {
		m := mails[i]
		fmt.Fprintf(&b, "\n\n---- %s, first sent %s ----\n%s", m.Subject, m.Queued.UTC().Format(timeFormat), strings.TrimRight(m.Body, "\n"))
	}
	if more > 0 {
		fmt.Fprintf(&b, "\n\n(%d more results mails of that turn are not repeated here.)", more)
	}
	return b.String(), nil
}

// summaryText is the answer to SUMMARY: one line for each phase resolved so far.
func (h *handling) summaryText(g store.Game) (string, error) {
	journal, err := h.tx.Journal(g.Name)
	if err != nil {
		return "", err
	}
	var lines []string
	for _, j := range journal {
		for _, s := range j.Steps {
			lines = append(lines, fmt.Sprintf("%s  turn %d, phase %s: resolved with %d order(s) on file.",
				j.Now.UTC().Format("2006-01-02 15:04"), s.Turn, s.Phase, len(s.Orders)))
		}
	}
	if len(lines) == 0 {
		return "No phase has been resolved yet.", nil
	}
	return fmt.Sprintf("%d phase(s) resolved so far (HISTORY <turn> sends a turn's results again):\n%s", len(lines), strings.Join(lines, "\n")), nil
}
