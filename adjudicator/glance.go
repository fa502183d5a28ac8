package adjudicator

import (
	"bytes"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"regexp"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

// The layouts of a results mail, recorded with each advance in the journal
// ([store.JournalEntry.Layout]) so that replay renders an old game's mails as they were
// sent (invariant 4). A journal entry without one was written in LayoutOriginal.
const (
	// LayoutOriginal is the first layout: the results, the map, then what is due.
	LayoutOriginal = 1
	// LayoutGlance puts what is due from the player on the first line, leaves out
	// phases in which he saw nothing happen, shows only the rows of the map and the
	// lines of its key that changed, and gives every mail of a game to one player the
	// same subject.
	LayoutGlance = 2
	// LayoutCompact is LayoutGlance with the records at the end in their compact
	// forms: a roll's dice on its event's line, the dice inputs one line a roll
	// (diceText), a short revealed order on one line with its salt
	// (revealOneLine), the commitments of a mail's sealed orders only to the side
	// that was told them as one; and a mail over resultsBudget lines leaves out its
	// text map (the picture and MAP still give it).
	LayoutCompact = 3
	// CurrentLayout is the layout of the mails of new advances.
	CurrentLayout = LayoutCompact
)

// layout is the layout of the results mails of new advances: [Desk.ResultsLayout],
// else CurrentLayout.
func (d *Desk) layout() int {
	if d.ResultsLayout != 0 {
		return d.ResultsLayout
	}
	return CurrentLayout
}

// resultsTemplate is the template of a results mail in the given layout.
func resultsTemplate(layout int) string {
	if layout < LayoutGlance {
		return "results-v0.txt"
	}
	return "results.txt"
}

// Prompter is a ruleset that can say, in its own words, what a side is to send for the
// current phase, with one example order: the second line of every mail that asks for
// his move. Without it the desk names the phase and points to HELP.
type Prompter interface {
	// Prompt is one or two short sentences, e.g. "Send MOVE orders for your units
	// (9.0), e.g. MOVE 4/DC 4209-4210; PASS if none move."
	Prompt(st rules.State, side rules.Side) string
}

// PlayerSubject is the subject of every mail of a game to one player, so that every mail
// client (Gmail threads by subject) shows the game as one conversation. The news is on
// the body's first line, which clients show under the subject.
func PlayerSubject(game string, rs rules.Ruleset, side rules.Side) string {
	return fmt.Sprintf("[%s] %s: %s", game, rs.Title(), sideName(rs, side))
}

// deadlineFormat is how a deadline is written in a mail's first line.
const deadlineFormat = "Mon 2 Jan 15:04 MST"

// headline gives the first line of a mail to side, what is due from him, and the line
// after it, how to answer. deadline is zero when the phase has none. A finished game's
// verdict is its ruleset's (Verdicter).
func headline(rs rules.Ruleset, st rules.State, side rules.Side, waiting []rules.Side, deadline time.Time) (first, answer string) {
	if st.Over() {
		verdict := ""
		if v, ok := rs.(rules.Verdicter); ok {
			verdict = strings.TrimSuffix(strings.Join(strings.Fields(v.Verdict(st)), " "), ".")
		}
		if verdict == "" {
			verdict = "the game has ended"
		}
		return "Game over: " + verdict, "Send ROLLS for the whole audit trail, HELP DICE for how to check every roll."
	}
	by := ""
	if !deadline.IsZero() {
		by = " by " + deadline.UTC().Format(deadlineFormat)
	}
	for _, w := range waiting {
		if w != side {
			continue
		}
		answer = "Reply with your orders; HELP lists them, with examples."
		if p, ok := rs.(Prompter); ok {
			if text := strings.TrimSpace(p.Prompt(st, side)); text != "" {
				answer = text + " HELP lists every order."
			}
		}
		return "Your move: " + st.PhaseTitle() + by, answer
	}
	if len(waiting) == 0 {
		// Every order is in: the phase resolves in this same transaction, and its
		// results are the next mail.
		return "Waiting for the results of " + st.PhaseTitle() + ": they follow in the next mail", ""
	}
	if by != "" {
		by = ", deadline " + deadline.UTC().Format(deadlineFormat)
	}
	return fmt.Sprintf("Waiting for %s (%s%s)", strings.Join(sortedSides(rs, waiting), " and "), st.PhaseTitle(), by),
		"Nothing is due from you now; orders for later phases may be sent early."
}

// stripMargin is how many lines of a changed map strip are shown around its changes:
// two hex rows in LayoutGlance, one (a hex row is two lines) in LayoutCompact.
func stripMargin(layout int) int {
	if layout >= LayoutCompact {
		return 2
	}
	return 4
}

// cropStrip shows of a map strip the lines that differ from the same strip before,
// with a margin, between the strip's first two lines (its title and column numbers) and
// its last line (column numbers again), so that a change of three hexes shows as a
// dozen lines, not the strip's sixty. The rows keep their numbers at the left margin. A
// strip whose shape changed is shown whole.
func cropStrip(was, now string, margin int) string {
	a, b := lines(was), lines(now)
	if len(a) != len(b) || len(b) < 12 {
		return now
	}
	first, last := -1, -1
	for i := range b {
		if a[i] != b[i] {
			if first < 0 {
				first = i
			}
			last = i
		}
	}
	// The head is the title, the column numbers and the top edge; the tail the bottom
	// edge, the column numbers and any blank lines after them.
	head, tail := 3, 2
	for i := len(b) - 1; i > 0 && strings.TrimSpace(b[i]) == ""; i-- {
		tail++
	}
	from, to := max(head, first-margin), min(len(b)-tail, last+margin+1)
	if first < 0 || (from == head && to == len(b)-tail) {
		return now
	}
	var out strings.Builder
	for _, l := range b[:head] {
		out.WriteString(l)
	}
	if from > head {
		out.WriteString("   ...\n")
	}
	for _, l := range b[from:to] {
		out.WriteString(l)
	}
	if to < len(b)-tail {
		out.WriteString("   ...\n")
	}
	for _, l := range b[len(b)-tail:] {
		out.WriteString(l)
	}
	return out.String()
}

// lines cuts text into lines, each with its "\n" (the last perhaps without).
func lines(text string) []string {
	out := strings.SplitAfter(text, "\n")
	if len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// toPlayer reports whether a mail to to is to g's player of side, alone.
func toPlayer(g store.Game, side string, to []string) bool {
	if side == "" || len(to) != 1 {
		return false
	}
	p, ok := playerOf(g, rules.Side(side))
	return ok && strings.EqualFold(p.Address, to[0])
}

// keyEntry is a line of a map's key that starts with a hex id: "1709 B: 1/DC".
var keyEntry = regexp.MustCompile(`^[0-9]{4}[ :]`)

// compactTail shows of a map's legend and key what a results mail needs: the legend
// whole, and of the key's entries (a line that starts with a hex id, with the indented
// lines that continue it) those that changed since the map before, with a count of the
// rest. The whole key comes with MAP and SET MAP FULL. A tail with no such entries is
// shown whole.
func compactTail(was, now string) string {
	entries := func(text string) (legend []string, entries []string) {
		ls := lines(text)
		i := 0
		for i < len(ls) && !keyEntry.MatchString(ls[i]) {
			i++
		}
		legend = ls[:i]
		for ; i < len(ls); i++ {
			switch {
			case strings.HasPrefix(ls[i], " ") && len(entries) > 0:
				entries[len(entries)-1] += ls[i]
			default:
				entries = append(entries, ls[i])
			}
		}
		return legend, entries
	}
	_, before := entries(was)
	legend, after := entries(now)
	if len(after) == 0 {
		return now
	}
	seen := make(map[string]bool, len(before))
	for _, e := range before {
		seen[e] = true
	}
	var b strings.Builder
	for _, l := range legend {
		b.WriteString(l)
	}
	same := 0
	for _, e := range after {
		if seen[e] {
			same++
			continue
		}
		b.WriteString(e)
	}
	if same > 0 {
		fmt.Fprintf(&b, "(%d more lines of the key as in the last results: send MAP for them all)\n", same)
	}
	return b.String()
}

// knownState is a game state a handling decoded or resolved: its stored form, and
// its digestOf once asked for.
type knownState struct {
	raw    []byte
	st     rules.State
	digest *[32]byte
}

// knowState remembers that raw, a game's stored state, decodes to st (digest: its
// digestOf, nil when not yet made), so that the first lines of the mails this message
// causes do not decode it again.
func (h *handling) knowState(raw []byte, st rules.State, digest *[32]byte) {
	if k := h.knownAs(raw); k != nil {
		k.st = st
		if digest != nil {
			k.digest = digest
		}
		return
	}
	h.known = append(h.known, knownState{raw: raw, st: st, digest: digest})
}

// knownAs is the known state stored as raw, nil when none is. A handling knows a
// state or two: compared byte for byte, which costs less than hashing them.
func (h *handling) knownAs(raw []byte) *knownState {
	for i := range h.known {
		if bytes.Equal(h.known[i].raw, raw) {
			return &h.known[i]
		}
	}
	return nil
}

// digestOf is digestOf(raw), made once a handling for a state it knows.
func (h *handling) digestOf(raw []byte) *[32]byte {
	k := h.knownAs(raw)
	if k == nil {
		return digestOf(raw)
	}
	if k.digest == nil {
		k.digest = digestOf(raw)
	}
	return k.digest
}

// playerHead is the first lines of a mail to g's player of side that is not a results
// mail: what is due from him now, as the transaction sees the game, and how to answer.
func (h *handling) playerHead(rs rules.Ruleset, g store.Game, side rules.Side) (string, error) {
	// The handling has most often just decoded or resolved this state (knowState).
	var st rules.State
	if k := h.knownAs(g.State); k != nil {
		st = k.st
	} else {
		var err error
		if st, err = rs.Decode(g.State); err != nil {
			return "", fmt.Errorf("decode the state of %s: %w", g.Name, err)
		}
		h.knowState(g.State, st, nil)
	}
	if g.Over && !st.Over() {
		ended := g.Ended
		if ended == "" {
			ended = "the game has ended"
		}
		return "Game over: " + ended, nil
	}
	filed, err := filedOrders(h.tx, g.Name)
	if err != nil {
		return "", err
	}
	first, answer := headline(rs, st, side, rs.Waiting(st, filed), g.Deadline)
	switch {
	case st.Over():
	case !g.PausedAt.IsZero():
		first += " (the host has paused the game: no deadline runs)"
	case !g.Deadline.IsZero() && !h.now.Before(g.Deadline):
		first += " (passed)"
	}
	if answer != "" {
		first += "\n" + answer
	}
	return templates.Wrap(78, 0, first), nil
}

// statusLines is how many lines of the ruleset's status a results mail shows at a
// glance; a longer status (Soissons lists every unit) is cut there, with a pointer to
// STATUS, which gives it whole.
const statusLines = 10

// statusSection is the status a results mail of the given layout shows.
func statusSection(status string, layout int) string {
	return cutStatus(status, layout, statusLines)
}

// orderCheckStatusLines is how many lines of the ruleset's status an order check shows
// when its mail did not ask for STATUS (LayoutGlance on): the order check of a reply
// that quotes a whole results mail stays within 40 lines (issue 20).
const orderCheckStatusLines = 4

// briefStatus is the ruleset's status as an order check shows it unasked.
func briefStatus(status string, layout int) string {
	return cutStatus(status, layout, orderCheckStatusLines)
}

// cutStatus cuts a status longer than n lines (and one more, which the pointer would
// take) to n, with a pointer to STATUS; layouts before LayoutGlance show it whole.
func cutStatus(status string, layout, n int) string {
	if layout < LayoutGlance {
		return status
	}
	ls := lines(strings.TrimRight(status, "\n"))
	if len(ls) <= n+1 {
		return status
	}
	return strings.Join(ls[:n], "") + fmt.Sprintf("(%d more lines: send STATUS for them all)", len(ls)-n)
}
