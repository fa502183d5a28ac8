package adjudicator

import (
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

type eventView struct {
	Rule string
	Text string
	Roll string
	// Line is "[rule] text" wrapped as results.txt shows it (wrapEvent): wrapped here,
	// not by the template's functions, which cost more than the wrapping itself.
	Line string
}

// wrapEvent is an event's line in a results mail: its rule and text, wrapped at 78
// columns, continuation lines indented by four.
func wrapEvent(rule, text string) string { return templates.Wrap(78, 4, "["+rule+"] "+text) }

type stepView struct {
	Title  string
	Events []eventView
}

// resultsMail renders the results of one advance for one side. It is a pure function of
// its arguments, so that replay re-renders exactly the mail that was sent (invariant 4),
// and it shows only the events that side may see (invariant 5).
//
// maps renders the map of the state the advance started from (after false) or of st
// (after true), and mode is the player's SET MAP choice: with "changes" the map shows
// only the strips that differ from the earlier one's. signature is
// the signed chain head of the advance (signatureText), the same for every side, or
// empty.
//
// layout is the journal's [store.JournalEntry.Layout]: the mail is rendered as it was
// when that advance was resolved, so that replay compares like with like.
func resultsMail(g store.Game, rs rules.Ruleset, maps mapRenderer, status statusRenderer, st rules.State, side rules.Side, mode string, b *batch, waiting []rules.Side, now time.Time, signature string, layout int) (string, string, error) {
	var steps []stepView
	for i, s := range b.steps {
		sv := stepView{Title: s.Title}
		for j, e := range s.Events {
			if !e.VisibleTo(side) {
				continue
			}
			sv.Events = append(sv.Events, b.shared.event(i, j, e, layout))
		}
		if layout >= LayoutGlance && len(sv.Events) == 0 {
			continue // a phase in which nothing this side may see happened
		}
		steps = append(steps, sv)
	}
	var revealed, seeds, commits []string
	for _, o := range b.revealed {
		summary := o.Summary
		if summary == "" {
			summary = sideName(rs, rules.Side(o.Side)) + " " + o.Kind
		}
		revealed = append(revealed, strings.Join(revealLine(summary, o.Text, o.Salt, o.Commitment, layout), "\n"))
	}
	own := "" // LayoutCompact: the commitments of his own mails are in his order checks
	if layout >= LayoutCompact {
		own = string(side)
	}
	revealed = append(revealed, groupLines(b.revealed, b.groups, own)...)
	for _, s := range b.seedsRevealed {
		seeds = append(seeds, strings.Join(seedLines(s.Turn, s.Secret, s.Commitment), "\n"))
	}
	for _, s := range b.commitments {
		commits = append(commits, strings.Join(commitLines(s.Turn, s.Commitment), "\n"))
	}
	deckSeed := ""
	if s := b.deckRevealed; s != nil {
		deckSeed = strings.Join(deckSeedLines(s.Secret, s.Commitment), "\n")
	}
	diceSection := b.shared.dice(g.Name, visibleRolls(b.steps, side), layout >= LayoutCompact)
	view := map[string]any{
		"Game":          g.Name,
		"Title":         rs.Title(),
		"Side":          sideName(rs, side),
		"Steps":         steps,
		"Revealed":      revealed,
		"SeedsRevealed": seeds,
		"Commitments":   commits,
		"Dice":          diceSection,
		"Cards":         cardsText(g.Name, visibleDeals(b.steps, side)),
		"DeckSeed":      deckSeed,
		"Signature":     signature,
		"Notes":         b.notes,
		"Map":           b.shared.mapSection(maps, side, mode, layout),
		"Over":          st.Over(),
		"Next":          nextText(g, rs, st, waiting, now),
		"Status":        statusSection(status(side), layout),
	}
	if layout >= LayoutGlance {
		deadline := time.Time{}
		if g.PhaseLength > 0 {
			deadline = now.Add(g.PhaseLength)
		}
		view["Headline"], view["Answer"] = headline(rs, st, side, waiting, deadline)
		// Wrapped here, as stepsText writes the phases: by the template's functions
		// (reflection) a wrap cost more than the wrapping.
		view["HeadlineText"] = templates.Wrap(78, 0, view["Headline"].(string))
		view["AnswerText"] = templates.Wrap(78, 0, view["Answer"].(string))
		view["StatusText"] = templates.Wrap(78, 0, view["Status"].(string))
	}
	if layout >= LayoutGlance {
		view["StepsText"] = stepsText(steps) // results-v0.txt ranges over Steps
	}
	body, err := render(resultsTemplate(layout), view)
	if err != nil {
		return "", "", err
	}
	if layout >= LayoutCompact && mode != "none" && mode != "full" && strings.Count(body, "\n") > resultsBudget {
		// The news and the records must stay whole; the map is what MAP, SET MAP FULL
		// (which keeps it in every mail, however long) and the picture give as well.
		view["Map"] = fmt.Sprintf("Left out: this mail would be over %d lines with it. Send MAP for the\nwhole map; the picture, if you have SET PICTURE ON, shows what changed.", resultsBudget)
		if body, err = render(resultsTemplate(layout), view); err != nil {
			return "", "", err
		}
	}
	if layout >= LayoutGlance {
		return PlayerSubject(g.Name, rs, side), body, nil
	}
	subject := fmt.Sprintf("[%s] Results: %s", g.Name, lastTitle(b))
	if st.Over() {
		subject = fmt.Sprintf("[%s] Game over", g.Name)
	}
	return subject, body, nil
}

// stepsText is the phases of a results mail (results.txt), each its title and its
// events' lines: written here, not by ranging in the template, which cost more than
// the writing (every results mail tells several phases of many events).
func stepsText(steps []stepView) string {
	n := 0
	for _, s := range steps {
		n += len(s.Title) + 8
		for _, e := range s.Events {
			n += len(e.Line) + 1
			if e.Roll != "" {
				n += len(e.Roll) + 11
			}
		}
	}
	var b strings.Builder
	b.Grow(n)
	for _, s := range steps {
		b.WriteString("\n== ")
		b.WriteString(s.Title)
		b.WriteString(" ==")
		for _, e := range s.Events {
			b.WriteByte('\n')
			b.WriteString(e.Line)
			if e.Roll != "" {
				b.WriteString("\n    roll: ")
				b.WriteString(e.Roll)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// eventLine is an event as a results mail of layout shows it.
func eventLine(e rules.Event, layout int) eventView {
	ev := eventView{Rule: e.Rule, Text: e.Text}
	switch {
	case e.Roll != nil && layout >= LayoutCompact:
		ev.Text = withRoll(e.Rule, e.Text, *e.Roll)
	case e.Roll != nil:
		ev.Roll = FormatRoll(*e.Roll)
	}
	ev.Line = wrapEvent(ev.Rule, ev.Text)
	return ev
}

// resultsShared is what the results mails of one advance to its sides have alike,
// made once for them all: each event's lines (most events are told to every side),
// the dice section of the rolls a side may see, and the map section of a map every
// side is shown. Each is a pure function of its key, so a side's mail is what it was
// made alone (replay renders the same with or without it). The sides' mails are
// rendered at once (flushResults): the memo is locked. A nil memo remembers nothing.
type resultsShared struct {
	mu     sync.Mutex
	events map[[3]int]eventView // by step, event and layout
	dices  map[string]string    // by game, compactness and the rolls shown
	maps   map[mapSectionKey]string
}

// mapSectionKey is a map section's key: the player's SET MAP, the layout, and the two
// maps it compares, by their text. (Not by the strings' addresses: the key would not
// keep a map alive, and a map freed and another drawn at its address would be given
// the first one's section, perhaps another side's.)
type mapSectionKey struct {
	mode     string
	layout   int
	now, was string
}

// event is eventLine of the j-th event of step i.
func (m *resultsShared) event(i, j int, e rules.Event, layout int) eventView {
	if m == nil {
		return eventLine(e, layout)
	}
	key := [3]int{i, j, layout}
	m.mu.Lock()
	ev, ok := m.events[key]
	m.mu.Unlock()
	if ok {
		return ev
	}
	ev = eventLine(e, layout)
	m.mu.Lock()
	if m.events == nil {
		m.events = map[[3]int]eventView{}
	}
	m.events[key] = ev
	m.mu.Unlock()
	return ev
}

// dice is diceText of groups.
func (m *resultsShared) dice(game string, groups []diceGroup, compact bool) string {
	if m == nil {
		return diceText(game, groups, compact)
	}
	key := diceKey(game, groups, compact)
	m.mu.Lock()
	text, ok := m.dices[key]
	m.mu.Unlock()
	if ok {
		return text
	}
	text = diceText(game, groups, compact)
	m.mu.Lock()
	if m.dices == nil {
		m.dices = map[string]string{}
	}
	m.dices[key] = text
	m.mu.Unlock()
	return text
}

// diceKey names what diceText makes of groups: the game, the form, and each group's
// context and rolls (the rolls of one advance differ by their context and index).
func diceKey(game string, groups []diceGroup, compact bool) string {
	b := make([]byte, 0, 64+16*len(groups))
	b = append(b, game...)
	b = append(b, 0)
	if compact {
		b = append(b, 'c')
	}
	for _, g := range groups {
		b = strconv.AppendInt(append(b, 0), int64(g.Turn), 10)
		b = append(append(append(b, 0), g.Phase...), 0)
		b = append(append(b, g.Digest...), 0)
		if g.Beacon != nil {
			b = fmt.Appendf(b, "%p", g.Beacon)
		}
		for _, r := range g.Rolls {
			b = strconv.AppendInt(append(b, ','), int64(r.Index), 10)
		}
	}
	return string(b)
}

// mapSection is the package's mapSection, remembered for the sides shown the same maps.
func (m *resultsShared) mapSection(maps mapRenderer, side rules.Side, mode string, layout int) string {
	if m == nil || mode == "none" {
		return mapSection(maps, side, mode, layout)
	}
	now, was := maps(true, side), ""
	if mode != "full" {
		was = maps(false, side)
	}
	key := mapSectionKey{mode: mode, layout: layout, now: now, was: was}
	m.mu.Lock()
	text, ok := m.maps[key]
	m.mu.Unlock()
	if ok {
		return text
	}
	// The maps just drawn, not drawn again.
	text = mapSection(func(after bool, _ rules.Side) string {
		if after {
			return now
		}
		return was
	}, side, mode, layout)
	m.mu.Lock()
	if m.maps == nil {
		m.maps = map[mapSectionKey]string{}
	}
	m.maps[key] = text
	m.mu.Unlock()
	return text
}

// resultsBudget is the most lines a results mail of LayoutCompact has with its text
// map; a longer one leaves the map out (issue 20: a mail read in half a minute).
const resultsBudget = 250

// mapRenderer renders a side's map of the state an advance started from (after false)
// or ended in (after true).
type mapRenderer func(after bool, side rules.Side) string

// statusRenderer gives a side's status (Ruleset.Status) of the state an advance
// ended in.
type statusRenderer func(side rules.Side) string

// statusOf gives the statuses of st directly, as replay does.
func statusOf(rs rules.Ruleset, st rules.State) statusRenderer {
	return func(side rules.Side) string { return rs.Status(st, side) }
}

// mapsOf renders the maps of before and after directly, as replay does.
func mapsOf(rs rules.Ruleset, before, after rules.State) mapRenderer {
	return func(a bool, side rules.Side) string {
		if a {
			return rs.Map(after, side)
		}
		return rs.Map(before, side)
	}
}

// mapSection renders the map of a results mail as the player chose with SET MAP.
func mapSection(maps mapRenderer, side rules.Side, mode string, layout int) string {
	switch mode {
	case "full":
		return maps(true, side)
	case "none":
		return "Not included (SET MAP NONE): send MAP for the whole map, or SET MAP\nCHANGES or SET MAP FULL to have it in results mails again."
	}
	now := splitMap(maps(true, side))
	if len(now.strips) == 0 {
		return now.head + now.tail // a map without strips is shown whole
	}
	was := splitMap(maps(false, side))
	// The strips shown, cropped, are chosen first, so that the text is built in one
	// piece of its own size (most mails show one strip of five, cropped).
	shownStrips := make([]string, 0, len(now.strips))
	size := len(now.head) + 256 // 256: the note on the strips shown
	for i, s := range now.strips {
		if i < len(was.strips) && was.strips[i] == s {
			continue
		}
		if layout >= LayoutGlance && i < len(was.strips) {
			s = cropStrip(was.strips[i], s, stripMargin(layout))
		}
		shownStrips = append(shownStrips, s)
		size += len(s)
	}
	tail := now.tail
	if layout >= LayoutGlance && len(shownStrips) > 0 {
		tail = compactTail(was.tail, now.tail)
	}
	var b strings.Builder
	b.Grow(size + len(tail))
	b.WriteString(now.head)
	shown := len(shownStrips)
	for _, s := range shownStrips {
		b.WriteString(s)
	}
	if shown == 0 {
		b.WriteString("No change on the map since the last results. Send MAP for the\nwhole map (SET MAP FULL to have it in every results mail).\n")
		return strings.TrimRight(b.String(), "\n")
	}
	if shown < len(now.strips) {
		fmt.Fprintf(&b, "Only the %d strip(s) of %d where something changed are shown (SET MAP\nCHANGES); send MAP for the whole map, SET MAP FULL to have it always.\n\n", shown, len(now.strips))
	}
	b.WriteString(tail)
	return strings.TrimRight(b.String(), "\n")
}

// mapParts is a text map cut where the renderers cut it: a head, strips that each start
// with a line "Strip N of M...", and a tail from the line "Legend" on.
type mapParts struct {
	head   string
	strips []string
	tail   string
}

func splitMap(text string) mapParts {
	var p mapParts
	// Cut by offsets: the parts are slices of text, never built up line by line.
	part, from := 0, 0 // 0 head, 1 strips, 2 tail
	flush := func(to int) {
		switch part {
		case 0:
			p.head = text[from:to]
		case 1:
			p.strips = append(p.strips, text[from:to])
		}
		from = to
	}
	for at := 0; at < len(text); {
		next := strings.IndexByte(text[at:], '\n') + 1
		if next == 0 {
			next = len(text) - at
		}
		line := text[at : at+next]
		switch {
		case part != 2 && strings.HasPrefix(line, "Strip ") && len(line) > 6 && line[6] >= '0' && line[6] <= '9':
			flush(at)
			part = 1
		case strings.HasPrefix(line, "Legend") && part != 2:
			flush(at)
			part = 2
		}
		at += next
	}
	if part == 2 {
		p.tail = text[from:]
	} else {
		flush(len(text))
	}
	return p
}

func lastTitle(b *batch) string {
	if len(b.steps) == 0 {
		return ""
	}
	return "up to " + b.steps[len(b.steps)-1].Title
}

// nextText says what the game waits for, and until when.
func nextText(g store.Game, rs rules.Ruleset, st rules.State, waiting []rules.Side, now time.Time) string {
	if st.Over() {
		return "The game is over."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Now: %s.", st.PhaseTitle())
	if len(waiting) > 0 {
		fmt.Fprintf(&b, "\nWaiting for orders from: %s.", strings.Join(sortedSides(rs, waiting), ", "))
	}
	if g.PhaseLength > 0 {
		fmt.Fprintf(&b, "\nDeadline: %s.", now.Add(g.PhaseLength).UTC().Format("Mon 2 Jan 2006 15:04 MST"))
	}
	return b.String()
}

// withRoll is an event's text in LayoutCompact, which gives a roll no line of its own:
// the text, then "(roll 3: 1d6 [5] +3 = 8)" where that takes no more lines than the text
// alone, else "(roll 3)" where that does, else the text alone; 3 is the roll's index,
// its record in the dice section, whose purpose names the event. The event's own
// words most often say what was rolled.
func withRoll(rule, text string, r dice.Roll) string {
	full, _, _ := strings.Cut(FormatRoll(r), " (index ")
	if r.Kind == dice.KindShuffle {
		full = FormatRoll(r)
	}
	lines := func(s string) int { return strings.Count(templates.Wrap(78, 4, "["+rule+"] "+s), "\n") }
	for _, with := range []string{fmt.Sprintf("%s (roll %d: %s)", text, r.Index, full), fmt.Sprintf("%s (roll %d)", text, r.Index)} {
		if lines(with) <= lines(text) {
			return with
		}
	}
	return text
}

// FormatRoll shows a roll as players read it: "1d6 [4] = 4" or "3d6 [2 5 6] +1 = 14".
func FormatRoll(r dice.Roll) string {
	if r.Kind == "shuffle" {
		return fmt.Sprintf("shuffle of %d: %v", r.Count, r.Values)
	}
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		vals[i] = fmt.Sprint(v)
	}
	mod := ""
	if r.Modifier != 0 {
		mod = fmt.Sprintf(" %+d", r.Modifier)
	}
	return fmt.Sprintf("%dd%d [%s]%s = %d (index %d of the phase)", r.Count, r.Sides, strings.Join(vals, " "), mod, r.Result, r.Index)
}

// statusText is the STATUS part of an order check: where the game stands for side, his
// choices and his orders on file. brief, when the player did not ask for STATUS, cuts a
// long ruleset status as a results mail at a glance does (statusSection); STATUS gives
// it whole.
//
// digest is digestOf(g.State), by which the statuses are remembered.
func (d *Desk) statusText(g store.Game, rs rules.Ruleset, st rules.State, digest *[32]byte, side rules.Side, waiting []rules.Side, filed []rules.Order, brief bool) string {
	var b strings.Builder
	glance := d.layout() >= LayoutGlance // the mail's first lines say what is due
	if !glance {
		fmt.Fprintf(&b, "Game %s (%s), you play %s.\n", g.Name, rs.Title(), sideName(rs, side))
	}
	if st.Over() || g.Over {
		b.WriteString("The game is over.\n")
		if g.Ended != "" {
			fmt.Fprintf(&b, "It was not played to its end: %s.\n", g.Ended)
		}
	} else {
		if !glance {
			fmt.Fprintf(&b, "Now: %s.\n", st.PhaseTitle())
		}
		if len(waiting) > 0 && !glance {
			fmt.Fprintf(&b, "Waiting for orders from: %s.\n", strings.Join(sortedSides(rs, waiting), ", "))
		}
		if !g.Deadline.IsZero() && !(brief && glance) { // the mail's first line gives it
			fmt.Fprintf(&b, "Deadline: %s.\n", g.Deadline.UTC().Format("Mon 2 Jan 2006 15:04 MST"))
		}
		if note := pauseNote(rs, g, d.now()); note != "" {
			b.WriteString(note + "\n")
		}
	}
	status := d.statuses.status(rs, st, digest, side)
	if brief {
		status = briefStatus(status, d.layout())
	}
	b.WriteString(status)
	if p, ok := playerOf(g, side); ok && !(brief && glance) { // his settings: STATUS gives them
		b.WriteString("\n")
		mode := mapMode(p)
		fmt.Fprintf(&b, "Map in results mails (SET MAP %s): %s.", strings.ToUpper(mode), MapModes[mode])
		if _, draws := rs.(rules.Viewer); draws {
			if p.Pictures() {
				b.WriteString("\nA picture of the map in results mails and MAP replies: on (SET PICTURE OFF for text only).")
			} else {
				b.WriteString("\nA picture of the map in results mails and MAP replies: off (SET PICTURE ON for one).")
			}
		}
	}
	var mine []string
	for _, o := range filed {
		if o.Side == side {
			mine = append(mine, o.Summary)
		}
	}
	if len(mine) > 0 {
		// "- " items: the section is wrapped, which would lose an indent.
		b.WriteString("\nYour orders on file:\n- " + strings.Join(mine, "\n- "))
	}
	return strings.TrimRight(b.String(), "\n")
}

// rollsText lists the audit trail for a ROLLS reply: every seed commitment, every roll
// with every input of its HMAC message (as the results mails give them), every revealed
// seed, each entry with its number in the chain, and the chain's head.
func (d *Desk) rollsText(tx store.Tx, game string) (string, error) {
	entries, err := tx.Audit(game)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "No rolls yet.", nil
	}
	return RollsText(game, entries), nil
}

// RollsText renders an audit chain as the ROLLS reply gives it.
func RollsText(game string, entries []store.AuditEntry) string {
	lines := wrapRecord(fmt.Sprintf("Game \"%s\": the audit chain, %d entries. Each roll is HMAC-SHA256 keyed with "+
		"its turn's seed over these fields (send HELP DICE for how).", MailField(game), len(entries)), "", "")
	commits := map[int]string{}
	deckCommit := ""
	var ctx *dice.Context
	rounds := chainBeacons(entries) // a phase's rolls follow its round's entry
	for _, e := range entries {
		if l := beaconEntryLines(e); l != nil {
			lines, ctx = append(lines, l...), nil
			continue
		}
		switch e.Kind {
		case "commit":
			commits[e.Turn] = e.Value
			l := commitLines(e.Turn, e.Value)
			lines = append(append(lines, fmt.Sprintf("#%d %s", e.Seq, l[0])), l[1:]...)
			ctx = nil
		case "reveal":
			l := seedLines(e.Turn, e.Value, commits[e.Turn])
			lines = append(append(lines, fmt.Sprintf("#%d %s", e.Seq, l[0])), l[1:]...)
			ctx = nil
		case "deck-commit":
			deckCommit = e.Value
			l := deckCommitLines(e.Value)
			lines = append(append(lines, fmt.Sprintf("#%d %s", e.Seq, l[0])), l[1:]...)
		case "deck-reveal":
			l := deckSeedLines(e.Value, deckCommit)
			lines = append(append(lines, fmt.Sprintf("#%d %s", e.Seq, l[0])), l[1:]...)
		case dice.KindDeckShuffle, dice.KindCard:
			lines = append(lines, wrapRecord(fmt.Sprintf("#%d %s", e.Seq, dealRecord(dealOf(e))), "  ", "    ")...)
		default:
			c := dice.Context{Turn: e.Turn, Phase: e.Phase, OrdersDigest: e.OrdersDigest}
			if ctx == nil || *ctx != c {
				ctx = &c
				lines = append(lines, phaseHeader(e.Turn, e.Phase, e.OrdersDigest)...)
				lines = append(lines, beaconLines(rounds[beaconKey(e.Turn, e.Phase)])...)
			}
			r := dice.Roll{Kind: e.Kind, Index: e.Index, Purpose: e.Purpose, Rule: e.Rule, Count: e.Count, Sides: e.Sides,
				Values: e.Values, Modifier: e.Modifier, Result: e.Result}
			lines = append(lines, wrapRecord(fmt.Sprintf("#%d %s", e.Seq, rollRecord(r)), "  ", "    ")...)
		}
	}
	last := entries[len(entries)-1]
	lines = append(lines, fmt.Sprintf("The chain's head (the hash of entry #%d):", last.Seq), "  "+last.Hash)
	return strings.Join(lines, "\n")
}

// mapPictures is the picture of the map a mail to player carries: none when he sent SET
// PICTURE OFF or the ruleset draws no picture. It holds the view to draw, not the
// PNG: the sender draws it just before it sends the mail (mail.Sender.Render), so that
// the 0.15-0.2 s a picture costs is not spent inside the mail's transaction.
// With before, the state the results mail's advance started from, the picture shows
// what changed since (PictureNews), and aimed, the fire and combat of the events the
// mail tells (eventArrows); a MAP reply has neither.
//
// heading is the heading of the mail's text map: a reader of the mail's HTML sees the
// picture there, the text map after it.
func mapPictures(g store.Game, rs rules.Ruleset, before, st rules.State, p store.Player, heading string, aimed []mapview.Arrow) ([]store.Picture, error) {
	v, ok := rs.(rules.Viewer)
	if !ok || !p.Pictures() {
		return nil, nil
	}
	return pictures(g, v, before, st, p, heading, aimed)
}

// MapFor renders a game's map as side may see it.
func (d *Desk) MapFor(ctx context.Context, game string, side rules.Side) (string, error) {
	var text string
	err := d.withMap(ctx, game, side, func(rs rules.Ruleset, st rules.State, side rules.Side) error {
		text = rs.Map(st, side)
		return nil
	})
	return text, err
}

// MapPicture draws a game's map as side may see it, as a PNG picture
// (adjudicator/mapimage): the same view as MapFor's text, for a ruleset that is a
// [Viewer].
func (d *Desk) MapPicture(ctx context.Context, game string, side rules.Side) ([]byte, error) {
	var png []byte
	err := d.withMap(ctx, game, side, func(rs rules.Ruleset, st rules.State, side rules.Side) error {
		v, ok := rs.(rules.Viewer)
		if !ok {
			return fmt.Errorf("ruleset %s draws no picture of its map", rs.Name())
		}
		var err error
		png, err = mapimage.Render(v.MapView(st, side))
		return err
	})
	return png, err
}

// withMap calls f with a game's ruleset, its state and side, checked.
func (d *Desk) withMap(ctx context.Context, game string, side rules.Side, f func(rules.Ruleset, rules.State, rules.Side) error) error {
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		g, err := tx.Game(game)
		if err != nil {
			return err
		}
		rs, err := d.ruleset(g.Ruleset)
		if err != nil {
			return err
		}
		if side, err = findSide(rs, string(side)); err != nil {
			return err
		}
		st, err := rs.Decode(g.State)
		if err != nil {
			return err
		}
		return f(rs, st, side)
	})
	if err != nil {
		return fmt.Errorf("map of %s: %w", game, err)
	}
	return nil
}
