package adjudicator

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
)

// The host's operations on running games (njudge's master commands): list the games,
// move a deadline, pause and resume, give a side another address, end a game, resend a
// player's last results. The same code serves the command line (directly on the store,
// or through the daemon's control socket) and the host's mail (HOST PASSWORD ...): each
// operation is a method of handling, run inside one write transaction, and the mails it
// causes enter the outbox in that transaction (invariant 2). The players' own requests
// (ABSENT UNTIL, RESIGN) are requests.go's.

// DefaultAbsenceLimit is how long in all a player may be absent in one game when the
// host set no other limit (njudge's default allows absences of a similar length).
const DefaultAbsenceLimit = 14 * 24 * time.Hour

// MaxAhead is how far ahead of now a deadline, the end of an absence, a phase's length
// or a grace period may be set. Beyond the sense of it, a bound keeps every date the
// desk computes from them (a deadline moved on by a pause, an absence added to those
// before) far inside what the store can write (years 0 to 9999).
const MaxAhead = 365 * 24 * time.Hour

// latestTime is the latest instant the store can write (JSON times end at year 9999).
var latestTime = time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC)

// addTime is t+d, saturating at the years the store can write instead of leaving them.
func addTime(t time.Time, d time.Duration) time.Time {
	sum := t.Add(d)
	switch {
	case d > 0 && (sum.Before(t) || sum.After(latestTime)):
		return latestTime
	case d < 0 && (sum.After(t) || sum.Year() < 1):
		return time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return sum
}

// addSpan is a+b for spans that are not negative, saturating instead of overflowing
// into a negative span (which would pass any "at most" check).
func addSpan(a, b time.Duration) time.Duration {
	if a > 0 && b > math.MaxInt64-a {
		return math.MaxInt64
	}
	return a + b
}

// aheadLimit is the latest time that may be set at now (MaxAhead from now).
func aheadLimit(now time.Time) time.Time { return addTime(now, MaxAhead) }

// CheckSpan refuses a phase length or grace period longer than MaxAhead, or negative;
// what names the setting in the error.
func CheckSpan(what string, d time.Duration) error {
	if d < 0 || d > MaxAhead {
		return fmt.Errorf("%s %s: expected a length of time from 0 to %d days", what, d, MaxAhead/(24*time.Hour))
	}
	return nil
}

// GameInfo is one line of the host's list of games.
type GameInfo struct {
	Name    string
	Ruleset string
	// Phase is where the game stands ("Turn 2, phase VIII ..."), or why it is over.
	Phase    string
	Deadline time.Time // zero: none
	Waiting  []string  // the sides' names the game waits for
	Paused   bool
	Over     bool
	Players  []store.Player
}

// Games lists every game with its phase, its deadline and whom it waits for.
func (d *Desk) Games(ctx context.Context) ([]GameInfo, error) {
	var out []GameInfo
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		names, err := tx.GameNames()
		if err != nil {
			return err
		}
		for _, name := range names {
			info, err := d.gameInfo(tx, name)
			if err != nil {
				return err
			}
			out = append(out, info)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list games: %w", err)
	}
	return out, nil
}

func (d *Desk) gameInfo(tx store.Tx, name string) (GameInfo, error) {
	g, err := tx.Game(name)
	if err != nil {
		return GameInfo{}, err
	}
	rs, err := d.ruleset(g.Ruleset)
	if err != nil {
		return GameInfo{}, err
	}
	st, err := rs.Decode(g.State)
	if err != nil {
		return GameInfo{}, fmt.Errorf("decode state of %s: %w", name, err)
	}
	info := GameInfo{Name: g.Name, Ruleset: g.Ruleset, Deadline: g.Deadline, Paused: !g.PausedAt.IsZero(), Over: g.Over || st.Over(), Players: g.Players}
	switch {
	case g.Ended != "":
		info.Phase = "over: " + g.Ended
	case info.Over:
		info.Phase = "over"
	default:
		info.Phase = st.PhaseTitle()
		filed, err := filedOrders(tx, name)
		if err != nil {
			return GameInfo{}, err
		}
		info.Waiting = sortedSides(rs, rs.Waiting(st, filed))
	}
	return info, nil
}

// FormatGames is the host's list of games as text of at most 78 columns.
func FormatGames(games []GameInfo) string {
	if len(games) == 0 {
		return "No games."
	}
	var b strings.Builder
	for i, g := range games {
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s (%s): %s\n", g.Name, g.Ruleset, g.Phase)
		if !g.Over {
			dl := "none"
			if !g.Deadline.IsZero() {
				dl = g.Deadline.UTC().Format("Mon 2 Jan 2006 15:04 MST")
			}
			if g.Paused {
				dl += " (paused: no deadline runs)"
			}
			fmt.Fprintf(&b, "  deadline: %s\n", dl)
			waiting := "nobody"
			if len(g.Waiting) > 0 {
				waiting = strings.Join(g.Waiting, ", ")
			}
			fmt.Fprintf(&b, "  awaiting: %s\n", waiting)
		}
		for _, p := range g.Players {
			var notes []string
			if p.Bouncing {
				notes = append(notes, "mail bounces")
			}
			if !p.AbsentUntil.IsZero() {
				notes = append(notes, "absent until "+p.AbsentUntil.UTC().Format("2 Jan 2006 15:04 MST"))
			}
			note := ""
			if len(notes) > 0 {
				note = " (" + strings.Join(notes, "; ") + ")"
			}
			fmt.Fprintf(&b, "  %s: %s%s\n", p.Side, p.Address, note)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// hostWrite runs one host operation from the command line in its own transaction. The
// cause of its mails (and so their Message-IDs) is new each time: two extensions of the
// same game are two operations.
func (d *Desk) hostWrite(ctx context.Context, what, game string, op func(h *handling) (string, error)) (string, error) {
	nonce, err := d.randomHex(8)
	if err != nil {
		return "", err
	}
	now := d.now()
	var report string
	err = d.Store.Write(ctx, func(tx store.Tx) error {
		h := &handling{desk: d, tx: tx, msg: Message{ID: "host:" + what + ":" + game + ":" + nonce}, now: now}
		var err error
		report, err = op(h)
		return err
	})
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", what, game, err)
	}
	d.log().Info("host operation", "op", what, "game", game)
	return report, nil
}

// ExtendDeadline moves a game's deadline by extend (from the current deadline, or from
// now when it has none), or sets it to at when at is not zero. Every player is told.
func (d *Desk) ExtendDeadline(ctx context.Context, game string, extend time.Duration, at time.Time) (string, error) {
	return d.hostWrite(ctx, "deadline", game, func(h *handling) (string, error) { return h.extend(game, extend, at) })
}

// Pause stops a game's deadlines until Resume; orders are still checked and filed.
func (d *Desk) Pause(ctx context.Context, game string) (string, error) {
	return d.hostWrite(ctx, "pause", game, func(h *handling) (string, error) { return h.pause(game) })
}

// Resume restarts a paused game's deadlines, moved on by the time it was paused.
func (d *Desk) Resume(ctx context.Context, game string) (string, error) {
	return d.hostWrite(ctx, "resume", game, func(h *handling) (string, error) { return h.resume(game) })
}

// ReplaceAddress gives a side a new player address. The new address gets a mail; with a
// password, the side's password changes to it and the mail carries it (redacted from
// the store once sent).
func (d *Desk) ReplaceAddress(ctx context.Context, game, side, address, password string) (string, error) {
	return d.hostWrite(ctx, "player", game, func(h *handling) (string, error) { return h.replaceAddress(game, side, address, password) })
}

// EndGame ends a game on the host's word; every player is told.
func (d *Desk) EndGame(ctx context.Context, game string) (string, error) {
	return d.hostWrite(ctx, "end", game, func(h *handling) (string, error) { return h.end(game, "") })
}

// Resend mails a side's player his last results mail again, to his current address.
func (d *Desk) Resend(ctx context.Context, game, side string) (string, error) {
	return d.hostWrite(ctx, "resend", game, func(h *handling) (string, error) { return h.resend(game, side) })
}

// hostGame reads a game a host operation is about, with its ruleset; a finished game
// refuses every operation but RESEND.
func (h *handling) hostGame(name string, over bool) (store.Game, rules.Ruleset, error) {
	g, err := h.tx.Game(name)
	if errors.Is(err, store.ErrNotFound) {
		return g, nil, fmt.Errorf("no game %q", name)
	} else if err != nil {
		return g, nil, err
	}
	rs, err := h.desk.ruleset(g.Ruleset)
	if err != nil {
		return g, nil, err
	}
	if !over && g.Over {
		return g, nil, fmt.Errorf("game %s is over", name)
	}
	h.game = g
	return g, rs, nil
}

// hostSide is hostGame for an operation on one side of the game, as the host wrote it.
func (h *handling) hostSide(name, sideText string, over bool) (store.Game, rules.Ruleset, rules.Side, error) {
	g, rs, err := h.hostGame(name, over)
	if err != nil {
		return g, nil, "", err
	}
	side, err := findSide(rs, sideText)
	return g, rs, side, err
}

// tell mails text to every player of g but the one playing except ("" for none).
func (h *handling) tell(g store.Game, except, kind, subject, text string) error {
	body, err := render("refusal.txt", map[string]any{"Text": text, "Address": h.desk.Address})
	if err != nil {
		return err
	}
	for _, p := range g.Players {
		if p.Side == except {
			continue
		}
		if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, kind, subject, body, false); err != nil {
			return err
		}
	}
	return nil
}

const timeFormat = "Mon 2 Jan 2006 15:04 MST"

func (h *handling) extend(name string, extend time.Duration, at time.Time) (string, error) {
	g, _, err := h.hostGame(name, false)
	if err != nil {
		return "", err
	}
	if !g.PausedAt.IsZero() {
		return "", fmt.Errorf("game %s is paused: resume it first", name)
	}
	deadline := at.UTC()
	if at.IsZero() {
		if extend <= 0 {
			return "", fmt.Errorf("extend by %s: expected a positive duration such as 24h", extend)
		}
		from := g.Deadline
		if from.IsZero() || from.Before(h.now) {
			from = h.now
		}
		deadline = addTime(from, extend)
	}
	if !deadline.After(h.now) {
		return "", fmt.Errorf("deadline %s: it has passed", deadline.Format(time.RFC3339))
	}
	if limit := aheadLimit(h.now); deadline.After(limit) {
		return "", fmt.Errorf("deadline %s: a deadline may be at most a year ahead (until %s)", deadline.Format(time.RFC3339), limit.Format(timeFormat))
	}
	moveDeadline(&g, deadline, h.now)
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	h.game = g
	text := fmt.Sprintf("Game %s: the host has set the deadline to %s.", g.Name, deadline.Format(timeFormat))
	if err := h.tell(g, "", "deadline", fmt.Sprintf("[%s] Deadline: %s", g.Name, deadline.Format(timeFormat)), text); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: deadline %s", g.Name, deadline.Format(time.RFC3339)), nil
}

// moveDeadline sets a game's deadline, keeping the reminder as far before it as it was
// (a quarter of the span from now when there was none), and re-arms the reminder and
// the late notice.
func moveDeadline(g *store.Game, deadline, now time.Time) {
	before := g.Deadline.Sub(g.RemindAt)
	if g.Deadline.IsZero() || g.RemindAt.IsZero() || before <= 0 || before > deadline.Sub(now) {
		before = deadline.Sub(now) / 4
	}
	g.Deadline, g.RemindAt = deadline, addTime(deadline, -before)
	g.Reminded, g.LateNotified = false, false
}

func (h *handling) pause(name string) (string, error) {
	g, _, err := h.hostGame(name, false)
	if err != nil {
		return "", err
	}
	if !g.PausedAt.IsZero() {
		return fmt.Sprintf("%s: already paused", name), nil
	}
	g.PausedAt = h.now
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	h.game = g
	text := fmt.Sprintf("Game %s: the host has paused the game. No deadline runs until he resumes it; orders are still checked and filed, and a phase whose orders are all in is still resolved.", g.Name)
	if err := h.tell(g, "", "pause", fmt.Sprintf("[%s] Game paused", g.Name), text); err != nil {
		return "", err
	}
	return name + ": paused", nil
}

func (h *handling) resume(name string) (string, error) {
	g, _, err := h.hostGame(name, false)
	if err != nil {
		return "", err
	}
	if g.PausedAt.IsZero() {
		return fmt.Sprintf("%s: not paused", name), nil
	}
	// The time the game stood still is given back: the deadline moves on by it. A
	// deadline set by a phase resolved during the pause counted from the pause's start
	// (see setDeadline), so it too runs its full length from now.
	// The shift saturates, and the deadline is kept within a year of now: a deadline
	// set far ahead before the bound existed must not keep the game from resuming.
	if !g.Deadline.IsZero() {
		shift := h.now.Sub(g.PausedAt)
		g.Deadline, g.RemindAt = addTime(g.Deadline, shift), addTime(g.RemindAt, shift)
		if limit := aheadLimit(h.now); g.Deadline.After(limit) {
			moveDeadline(&g, limit, h.now)
		}
	}
	g.PausedAt = time.Time{}
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	h.game = g
	text := fmt.Sprintf("Game %s: the host has resumed the game.", g.Name)
	if !g.Deadline.IsZero() {
		text += " The deadline is " + g.Deadline.Format(timeFormat) + "."
	}
	if err := h.tell(g, "", "resume", fmt.Sprintf("[%s] Game resumed", g.Name), text); err != nil {
		return "", err
	}
	return name + ": resumed", nil
}

func (h *handling) replaceAddress(name, sideText, address, password string) (string, error) {
	g, rs, side, err := h.hostSide(name, sideText, false)
	if err != nil {
		return "", err
	}
	address = strings.ToLower(strings.TrimSpace(address))
	if !strings.Contains(address, "@") || strings.ContainsAny(address, " ,<>") {
		return "", fmt.Errorf("address %q: expected one address such as player@example.org", address)
	}
	if strings.EqualFold(address, h.desk.Address) {
		return "", fmt.Errorf("address %s is the game mailbox itself", address)
	}
	i := -1
	for j, p := range g.Players {
		switch {
		case p.Side == string(side):
			i = j
		case strings.EqualFold(p.Address, address):
			return "", fmt.Errorf("%s already plays %s in %s", address, sideName(rs, rules.Side(p.Side)), name)
		}
	}
	if i < 0 {
		return "", fmt.Errorf("game %s has no player of side %s", name, side)
	}
	var secret []string
	pwText := "Your password is the side's password, unchanged; the host can tell you it."
	if password != "" {
		hash, err := h.desk.hashPassword(password)
		if err != nil {
			return "", err
		}
		g.Players[i].PassHash = hash
		secret = []string{password}
		pwText = "Your password: " + password
	}
	g.Players[i].Address, g.Players[i].Bouncing, g.Players[i].BouncingSince = address, false, time.Time{}
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	if password != "" {
		// The new password opens at once however many forged mails come first
		// (verifier.go), as a password given at game new does.
		h.keepVerifier(verifierName(name, string(side)), g.Players[i].PassHash, password)
	}
	h.game = g
	who := sideName(rs, side)
	text := fmt.Sprintf("You now play %s in game %s (%s): the host has given the side this address.\n\n%s\n\nSend your orders to %s, starting with the lines GAME %s and PASSWORD <password>. Send STATUS for where the game stands, HELP for how to write orders.",
		who, g.Name, rs.Title(), pwText, h.desk.Address, g.Name)
	body, err := render("refusal.txt", map[string]any{"Text": text, "Address": h.desk.Address})
	if err != nil {
		return "", err
	}
	if _, err := h.enqueue([]string{address}, g.Name, string(side), "address", fmt.Sprintf("[%s] You play %s", g.Name, who), body, false, secret...); err != nil {
		return "", err
	}
	if err := h.tell(g, string(side), "address:"+string(side), fmt.Sprintf("[%s] New address for %s", g.Name, who),
		fmt.Sprintf("Game %s: the host has given the %s side a new player address.", g.Name, who)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: %s now played from %s", name, side, address), nil
}

// end finishes a game before its rules do: on the host's word (resigned == "") or
// because the player of that side resigned. The dice seeds not yet revealed are
// revealed, so that every roll can be verified; every player is told.
func (h *handling) end(name string, resigned rules.Side) (string, error) {
	g, rs, err := h.hostGame(name, false)
	if err != nil {
		return "", err
	}
	reason, text := "ended by the host", fmt.Sprintf("Game %s: the host has ended the game.", g.Name)
	if resigned != "" {
		var others []string
		for _, s := range rs.Sides() {
			if s.ID != resigned {
				others = append(others, s.Name)
			}
		}
		reason = fmt.Sprintf("the %s player resigned", sideName(rs, resigned))
		text = fmt.Sprintf("Game %s: the %s player has resigned; %s wins.", g.Name, sideName(rs, resigned), strings.Join(others, " and "))
	}
	g.Over, g.Ended = true, reason
	g.Deadline, g.RemindAt, g.PausedAt = time.Time{}, time.Time{}, time.Time{}
	if resigned != "" {
		// The ladder counts a resignation (not the host's end), once turn 1 was played.
		st, err := rs.Decode(g.State)
		if err != nil {
			return "", err
		}
		if err := rateGame(h.tx, g, rs, st, resigned); err != nil {
			return "", err
		}
	}
	seeds, err := h.tx.Seeds(g.Name)
	if err != nil {
		return "", err
	}
	b := &batch{}
	for _, s := range seeds {
		if err := h.desk.revealSeed(h.tx, g.Name, s.Turn, h.now, b); err != nil {
			return "", err
		}
	}
	if len(b.seedsRevealed) > 0 {
		text += " The dice seeds not yet revealed are revealed now; send ROLLS for the audit trail, which anybody can verify with them."
	}
	if err := h.tx.PutGame(g); err != nil {
		return "", err
	}
	h.game = g
	if err := h.tell(g, string(resigned), "end", fmt.Sprintf("[%s] Game over: %s", g.Name, reason), text); err != nil {
		return "", err
	}
	if err := h.tellObserversOf(g, "end", fmt.Sprintf("[%s] Game over: %s", g.Name, reason), text); err != nil {
		return "", err
	}
	if err := h.queueRecords(g); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: over (%s)", name, reason), nil
}

func (h *handling) resend(name, sideText string) (string, error) {
	g, rs, side, err := h.hostSide(name, sideText, true)
	if err != nil {
		return "", err
	}
	p, ok := playerOf(g, side)
	if !ok {
		return "", fmt.Errorf("game %s has no player of side %s", name, side)
	}
	// From the newest back: a host's years of mail are not read for the latest.
	last, found, err := h.tx.LastOutMail(func(m store.OutMail) bool {
		return m.Game == g.Name && m.Side == string(side) && m.Kind == "results"
	})
	if err != nil {
		return "", err
	}
	if !found {
		return "", fmt.Errorf("no results mail to %s in %s yet", sideName(rs, side), name)
	}
	body := fmt.Sprintf("Sent again at the host's request; first sent %s.\n\n%s", last.Queued.UTC().Format(timeFormat), last.Body)
	if _, err := h.enqueue([]string{p.Address}, g.Name, string(side), "resend", last.Subject, body, false); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: results of %s resent to %s", name, side, p.Address), nil
}

// --- The host by mail -----------------------------------------------------------------

// isHostMail reports whether a mail is the host's: from the host address, with a line
// HOST PASSWORD. Any other mail from the host address is read as a player's.
func (d *Desk) isHostMail(from string, lines []orders.Line) (string, bool) {
	if d.HostAddress == "" || !strings.EqualFold(from, d.HostAddress) {
		return "", false
	}
	for _, l := range lines {
		if l.Is("HOST", "PASSWORD") {
			return l.Rest(2), true
		}
	}
	return "", false
}

// hostPasswordOK checks the host password against HostPassHash, through its verifier
// as a player's is (verifier.go); the verdict made before the transaction is used when
// there is one.
func (h *handling) hostPasswordOK(password string) bool {
	return h.verifiedOK(hostVerifierName, h.desk.HostPassHash, password)
}

// hostMail carries out the host's commands, each line on its own: a line refused
// changes nothing, the others are done. A wrong password gets the refusal any stranger
// gets, word for word.
func (h *handling) hostMail(password string, lines []orders.Line, ignored []orders.Ignored) (string, error) {
	if h.desk.HostPassHash == "" || !h.hostPasswordOK(password) {
		return h.refuse("refused", authRefusal)
	}
	why, key, err := h.hostReplay(lines)
	if err != nil {
		return "", err
	}
	if why != "" {
		body, err := render("refusal.txt", map[string]any{"Text": "Adjutant did not carry out your host commands: " + why + ". Nothing was changed.", "Address": h.desk.Address})
		if err != nil {
			return "", err
		}
		if _, err := h.enqueue([]string{h.msg.From}, "", "", "host", replySubject(h.msg.Subject), body, true); err != nil {
			return "", err
		}
		h.desk.log().Info("host mail not carried out", "id", h.msg.ID, "date", h.msg.Date, "arrived", h.msg.Arrived)
		return Refused + ": host mail not carried out", nil
	}
	if err := h.markHostMail(key); err != nil {
		return "", err
	}
	var views []lineView
	var sections []section
	done, refused := 0, 0
	for _, l := range lines {
		text := l.Text
		if l.Is("HOST", "PASSWORD") {
			views = append(views, lineView{No: l.No, Text: "HOST PASSWORD ********", Verdict: "ok", Reason: "host password accepted"})
			continue
		}
		report, sec, err := h.hostLine(l)
		if err != nil {
			refused++
			views = append(views, lineView{No: l.No, Text: orders.MaskSecret(text), Verdict: "REFUSED", Reason: err.Error()})
			continue
		}
		done++
		views = append(views, lineView{No: l.No, Text: text, Verdict: "done", Reason: report})
		if sec != nil {
			sections = append(sections, *sec)
		}
	}
	body, err := render("host.txt", map[string]any{"Lines": views, "Sections": sections, "Ignored": ignored, "Address": h.desk.Address})
	if err != nil {
		return "", err
	}
	if _, err := h.enqueue([]string{h.msg.From}, "", "", "host", replySubject(h.msg.Subject), body, true); err != nil {
		return "", err
	}
	h.desk.log().Info("host mail", "id", h.msg.ID, "done", done, "refused", refused)
	return fmt.Sprintf("%s: host, %d done, %d refused", Handled, done, refused), nil
}

// hostLine carries out one command line of the host's mail.
func (h *handling) hostLine(l orders.Line) (string, *section, error) {
	f := l.Fields
	arg := func(i int) string {
		if i < len(f) {
			return f[i]
		}
		return ""
	}
	want := func(n int, form string) error {
		if len(f) != n {
			return fmt.Errorf("expected %s", form)
		}
		return nil
	}
	switch l.Keyword() {
	case "GAMES":
		if err := want(1, "GAMES"); err != nil {
			return "", nil, err
		}
		var list []GameInfo
		names, err := h.tx.GameNames()
		if err != nil {
			return "", nil, err
		}
		for _, n := range names {
			info, err := h.desk.gameInfo(h.tx, n)
			if err != nil {
				return "", nil, err
			}
			list = append(list, info)
		}
		return fmt.Sprintf("%d games, listed below", len(list)), &section{"GAMES", FormatGames(list)}, nil
	case "EXTEND":
		if err := want(3, "EXTEND <game> <time>, e.g. EXTEND verdun 24h or 2d"); err != nil {
			return "", nil, err
		}
		by, err := ParseSpan(arg(2))
		if err != nil {
			return "", nil, err
		}
		r, err := h.extend(arg(1), by, time.Time{})
		return r, nil, err
	case "DEADLINE":
		if err := want(3, "DEADLINE <game> <time>, e.g. DEADLINE verdun 2026-12-01T18:00:00Z"); err != nil {
			return "", nil, err
		}
		at, err := time.Parse(time.RFC3339, arg(2))
		if err != nil {
			return "", nil, fmt.Errorf("%q: expected a time such as 2026-12-01T18:00:00Z", arg(2))
		}
		r, err := h.extend(arg(1), 0, at)
		return r, nil, err
	case "PAUSE", "RESUME", "END":
		if err := want(2, l.Keyword()+" <game>"); err != nil {
			return "", nil, err
		}
		var r string
		var err error
		switch l.Keyword() {
		case "PAUSE":
			r, err = h.pause(arg(1))
		case "RESUME":
			r, err = h.resume(arg(1))
		default:
			r, err = h.end(arg(1), "")
		}
		return r, nil, err
	case "ADDRESS":
		if err := want(4, "ADDRESS <game> <side> <new address>"); err != nil {
			return "", nil, err
		}
		r, err := h.replaceAddress(arg(1), arg(2), arg(3), "")
		return r, nil, err
	case "RESEND":
		if err := want(3, "RESEND <game> <side>"); err != nil {
			return "", nil, err
		}
		r, err := h.resend(arg(1), arg(2))
		return r, nil, err
	case "OBSERVERS":
		if err := want(3, "OBSERVERS <game> OPEN, ASK or NO"); err != nil {
			return "", nil, err
		}
		r, err := h.setObserverPolicy(arg(1), arg(2)) // observe.go
		return r, nil, err
	}
	return "", nil, errors.New("not a host command: expected GAMES, EXTEND, DEADLINE, PAUSE, RESUME, END, ADDRESS, RESEND or OBSERVERS")
}

// ParseSpan reads a length of time as a host writes it: a Go duration ("24h", "90m")
// or a number of days ("2d").
func ParseSpan(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(strings.ToLower(s), "d"); ok {
		if days, err := strconv.Atoi(n); err == nil && days > 0 && days <= int(MaxAhead/(24*time.Hour)) {
			return time.Duration(days) * 24 * time.Hour, nil
		}
	} else if d, err := time.ParseDuration(s); err == nil && d > 0 && d <= MaxAhead {
		return d, nil
	}
	return 0, fmt.Errorf("%q: expected a length of time such as 24h, 90m or 2d, at most %d days", s, MaxAhead/(24*time.Hour))
}
