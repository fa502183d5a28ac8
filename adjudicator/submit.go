package adjudicator

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"sort"
	"strconv"
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
	Again   bool // another verdict on the line just shown: the line is not repeated
	// Quiet: the verdict is the same as the next line's and is said once, after the
	// last line of the run, with Run the number of lines it covers (0: this line only):
	// a mail of fourteen bombardments reads as fourteen lines and one verdict.
	Quiet bool
	Run   int
	// Quote and Said are the line and its verdict as order-check.txt shows them,
	// wrapped (sayLines): by the template's functions they cost more than the rest of
	// the order check.
	Quote, Said string
}

// sayLines wraps each line of an order check and its verdict as the mail shows them:
// "line 3: MOVE ..." at 76 columns, then the verdict, with how many lines it covers,
// its reason and its rule, at 72.
func sayLines(lines []lineView) {
	for i := range lines {
		l := &lines[i]
		l.Quote = templates.Wrap(76, 4, "line "+strconv.Itoa(l.No)+": "+l.Text)
		said := l.Verdict
		if l.Run != 0 {
			said += " (the " + strconv.Itoa(l.Run) + " lines above)"
		}
		if l.Reason != "" {
			said += ": " + l.Reason
		}
		if l.Rule != "" {
			said += " [rule " + l.Rule + "]"
		}
		l.Said = templates.Wrap(72, 6, said)
	}
}

// linesText is the lines of an order check as order-check.txt shows them, each
// quoted (unless Again) and its verdict said (unless Quiet): written here, not by
// ranging in the template, which cost more than the writing.
func linesText(lines []lineView) string {
	n := 0
	for _, l := range lines {
		n += len(l.Quote) + len(l.Said) + 10
	}
	var b strings.Builder
	b.Grow(n)
	for _, l := range lines {
		if !l.Again {
			b.WriteString("\n  ")
			b.WriteString(l.Quote)
		}
		if !l.Quiet {
			b.WriteString("\n      ")
			b.WriteString(l.Said)
		}
	}
	return b.String()
}

type section struct {
	Title string
	Body  string
}

// shownSection is a section as order-check.txt shows it: Text is its body as the mail
// holds it (sectionText).
type shownSection struct {
	Title, Text string
}

// sectionText is a section of an order check as the mail shows it: a map, a record
// or a history as it is, other text wrapped at 78 columns. Wrapped here, not by the
// template's functions, which cost more than the wrapping.
func sectionText(s section) string {
	switch s.Title {
	case "MAP", "ROLLS", "HELP DICE", "HISTORY", "SUMMARY":
		return s.Body
	}
	return templates.Wrap(78, 0, s.Body)
}

type sealView struct {
	Summary    string // for the player who sealed it
	Notice     string // for the other sides (Order.Notice; empty: not named to them)
	Commitment string
}

// submit handles an authenticated player's mail: desk commands, then order lines.
func (h *handling) submit(ctx context.Context, rs rules.Ruleset, player store.Player, cmd deskCommands, ignored []orders.Ignored) (string, error) {
	g := h.game
	st, err := rs.Decode(g.State)
	if err != nil {
		return "", fmt.Errorf("decode state of %s: %w", g.Name, err)
	}
	h.knowState(g.State, st, nil) // the notice to the other side starts from it (glance.go)
	side := rules.Side(player.Side)
	if player.Bouncing {
		// He wrote from the address: mail reaches him again, or at least he reads it.
		for i := range g.Players {
			if g.Players[i].Side == player.Side {
				g.Players[i].Bouncing, g.Players[i].BouncingSince = false, time.Time{}
			}
		}
		if err := h.tx.PutGame(g); err != nil {
			return "", err
		}
		h.game = g
	}
	filed, err := filedOrders(h.tx, g.Name)
	if err != nil {
		return "", err
	}

	ignored, moreIgnored := listIgnored(ignored)
	view := map[string]any{
		"Game": g.Name, "Side": sideName(rs, side), "Address": player.Address,
		"Ignored": ignored, "MoreIgnored": moreIgnored, "Title": rs.Title(),
	}
	var lines []lineView
	for _, l := range cmd.deskLines {
		if len(cmd.mapLayers) > 0 && l.Is("MAP") && badMapLayers(rs, cmd.mapLayers) != "" {
			continue // refused below
		}
		lines = append(lines, lineView{No: l.No, Text: orders.MaskSecret(l.Text), Verdict: "ok", Reason: "understood"})
	}
	outcome := Handled
	refused := false
	refuseAll := func(reason string) {
		for _, l := range cmd.orderLines {
			lines = append(lines, lineView{No: l.No, Text: orders.MaskSecret(l.Text), Verdict: "REFUSED", Reason: reason})
		}
		refused = true
	}
	if bad := badMapLayers(rs, cmd.mapLayers); bad != "" {
		cmd.badDesk = append(cmd.badDesk, rules.Checked{Line: mapLine(cmd.deskLines), Reason: bad, Rule: "HELP"})
		cmd.showMap = false
	}
	beaconFixed, err := h.desk.beaconFixedReason(h.tx, g)
	if err != nil {
		return "", err
	}
	var checked []rules.Checked
	for _, c := range cmd.badDesk {
		lines = append(lines, lineView{No: c.Line.No, Text: orders.MaskSecret(c.Line.Text), Verdict: "REFUSED", Reason: c.Reason, Rule: c.Rule})
		refused = true
	}
	requests := h.checkRequests(rs, side, cmd.requests)
	for _, r := range requests {
		refused = refused || r.reason != ""
	}
	switch n := len(cmd.orderLines) + len(cmd.deskLines) + len(cmd.badDesk) + len(cmd.requests); {
	case n > orders.TooMany:
		// Refused before the ruleset reads a line: a submission is read whole or not at all.
		lines = lines[:0]
		view["TooMany"] = orders.TooManyLines(n)
		refused = true
	case len(cmd.orderLines) == 0:
	case st.Over() || g.Over:
		refuseAll("the game is over")
	case beaconFixed != "":
		refuseAll(beaconFixed)
	default:
		checked = rs.Check(st, side, cmd.orderLines, filed)
		for _, c := range checked {
			refused = refused || !c.OK
		}
	}
	for _, c := range checked {
		v := lineView{No: c.Line.No, Text: orders.MaskSecret(c.Line.Text), Verdict: "ok", Reason: c.Reason, Rule: c.Rule}
		switch {
		case !c.OK:
			v.Verdict = "REFUSED"
		case refused:
			// Correct, but a refused submission files nothing: say so, and never
			// "sealed", which would be untrue.
			v.Verdict = "correct, not filed"
		case isSealed(c):
			v.Reason = "sealed: " + v.Reason
		}
		lines = append(lines, v)
	}
	view["Refused"] = refused
	var sealed []sealView
	var sealedNow []store.Order
	var filedNow []string
	if refused {
		outcome = Refused + ": orders"
	} else {
		for _, c := range checked {
			for _, o := range c.Orders {
				stored, err := h.file(o, filed)
				if err != nil {
					return "", err
				}
				filedNow = append(filedNow, o.ID())
				if o.Sealed {
					sealed = append(sealed, sealView{Summary: o.Summary, Notice: o.Notice, Commitment: stored.Commitment})
					sealedNow = append(sealedNow, stored)
				}
			}
		}
		if err := h.groupSealed(sealedNow); err != nil {
			return "", err
		}
		if len(sealedNow) > 0 {
			view["Group"] = sealedNow[0].Group
		}
		view["Accepted"] = len(checked) > 0
		if cmd.mapMode != "" {
			if err := h.setMapMode(side, cmd.mapMode); err != nil {
				return "", err
			}
			g = h.game
			view["MapMode"] = MapModes[cmd.mapMode]
		}
		if cmd.picture != "" {
			if err := h.setPlayer(side, func(p *store.Player) { p.Picture = cmd.picture }); err != nil {
				return "", err
			}
			g = h.game
			player.Picture = cmd.picture
			view["Picture"] = strings.ToUpper(cmd.picture)
		}
	}
	if view["TooMany"] == nil {
		if lines, err = h.applyRequests(requests, refused, lines); err != nil {
			return "", err
		}
		g = h.game
	}
	// Mask the mail's passwords in each line whole before listLines cuts it at 100
	// characters: a cut password would no longer be recognised (secrets.go).
	for i := range lines {
		lines[i].Text = h.scrubLine(lines[i].Text)
	}
	lines, unlisted := listLines(lines)
	sortLines(lines)
	sayLines(lines)
	view["Lines"], view["LinesText"], view["Unlisted"] = lines, linesText(lines), unlisted
	view["Sealed"] = sealed

	// The opponents hear that orders were sealed, with one commitment for them all
	// (groupSealed), never their text nor their Summary (which may name it), nor how
	// many they are unless the ruleset names each (Order.Notice): one notice a
	// submission.
	if len(sealed) > 0 {
		var names []string
		for _, s := range sealed {
			if s.Notice != "" {
				names = append(names, s.Notice)
			}
		}
		named := ""
		if len(names) > 0 {
			named = ": " + strings.Join(names, "; ")
		}
		body, err := render("notice.txt", map[string]any{"Game": g.Name, "Side": sideName(rs, side), "Names": named, "Group": sealedNow[0].Group})
		if err != nil {
			return "", err
		}
		subject := fmt.Sprintf("[%s] %s sealed orders", g.Name, sideName(rs, side))
		if len(names) == 1 && len(sealed) == 1 {
			subject = fmt.Sprintf("[%s] %s sealed: %s", g.Name, sideName(rs, side), names[0])
		}
		for _, p := range g.Players {
			if p.Side == player.Side {
				continue
			}
			if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, "notice", subject, body, false); err != nil {
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
	var digest *[32]byte
	if adv.batch != nil {
		digest = &adv.digest
	}
	h.knowState(g.State, st, digest) // the order check's first lines start from it (glance.go)
	now, err := filedOrders(h.tx, g.Name)
	if err != nil {
		return "", err
	}
	// "You may send orders for it again" holds only while an order of this mail is still on
	// file and open; once its phase is resolved the results mail follows instead.
	view["Replaceable"] = stillOpen(now, filedNow)
	if adv.beacon != nil && len(filedNow) > 0 {
		view["Beacon"] = beaconNote(adv.beacon)
	}

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
	if cmd.status || len(cmd.orderLines) > 0 || cmd.mapMode != "" {
		sections = append(sections, section{"STATUS", h.desk.statusText(g, rs, st, h.digestOf(g.State), side, adv.waiting, now, !cmd.status)})
	}
	var pictures []store.Picture
	if cmd.showMap {
		text := ""
		if ml, ok := rs.(rules.MapLayerer); ok && len(cmd.mapLayers) > 0 {
			text = ml.MapWith(st, side, cmd.mapLayers)
		} else {
			text = h.desk.maps.render(rs, st, h.digestOf(g.State), side)
		}
		sections = append(sections, section{"MAP", text})
		if pictures, err = mapPictures(g, rs, nil, st, player, "== MAP ==", nil); err != nil {
			return "", err
		}
	}
	if cmd.rolls {
		text, err := h.desk.rollsText(h.tx, g.Name)
		if err != nil {
			return "", err
		}
		sections = append(sections, section{"ROLLS", text})
	}
	more, err := h.clubSections(g, rs, side, cmd)
	if err != nil {
		return "", err
	}
	shown := make([]shownSection, 0, len(sections)+len(more))
	for _, s := range append(sections, more...) {
		shown = append(shown, shownSection{Title: s.Title, Text: sectionText(s)})
	}
	view["Sections"] = shown
	view["Intro"] = templates.Wrap(78, 0, fmt.Sprintf("Order check: you play %s (%s) in game %s.", view["Side"], view["Address"], view["Game"]))
	body, err := render("order-check.txt", view)
	if err != nil {
		return "", err
	}
	subject := fmt.Sprintf("[%s] Order check", g.Name)
	if len(cmd.orderLines) == 0 && len(cmd.badDesk) == 0 && view["TooMany"] == nil {
		subject = fmt.Sprintf("[%s] Reply", g.Name)
	}
	h.signReply = true
	// The order check goes out before the results it may have triggered.
	return outcome, h.enqueueFirst(player.Address, g.Name, player.Side, subject, body, pictures, adv)
}

// isSealed reports whether a checked line files a sealed order.
func isSealed(c rules.Checked) bool {
	for _, o := range c.Orders {
		if o.Sealed {
			return true
		}
	}
	return false
}

// stillOpen reports whether any of the orders with the given IDs is on file and may
// still be replaced.
func stillOpen(filed []rules.Order, ids []string) bool {
	for _, o := range filed {
		if o.Fixed {
			continue
		}
		for _, id := range ids {
			if o.ID() == id {
				return true
			}
		}
	}
	return false
}

// setMapMode records a player's SET MAP choice in the game record.
func (h *handling) setMapMode(side rules.Side, mode string) error {
	return h.setPlayer(side, func(p *store.Player) { p.MapMode = mode })
}

// setPlayer records a player's SET choice in the game record.
func (h *handling) setPlayer(side rules.Side, set func(*store.Player)) error {
	g := h.game
	for i := range g.Players {
		if g.Players[i].Side == string(side) {
			set(&g.Players[i])
		}
	}
	if err := h.tx.PutGame(g); err != nil {
		return fmt.Errorf("set a choice of %s in %s: %w", side, g.Name, err)
	}
	h.game = g
	return nil
}

// enqueueFirst queues the reply and then the results of the advance, in that order.
func (h *handling) enqueueFirst(to, game, side, subject, body string, pictures []store.Picture, adv advanced) error {
	if _, err := h.enqueuePictures([]string{to}, game, side, "reply", subject, body, true, pictures); err != nil {
		return err
	}
	return h.desk.flushResults(h.tx, adv)
}

func sortLines(lines []lineView) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].No < lines[j].No })
	for i := 1; i < len(lines); i++ {
		lines[i].Again = lines[i].No == lines[i-1].No
	}
	// Runs of lines with one verdict each, the same one: said once, after the run.
	single := func(i int) bool {
		return i >= 0 && i < len(lines) && !lines[i].Again && (i+1 == len(lines) || !lines[i+1].Again)
	}
	for i := 0; i < len(lines); {
		j := i
		for single(j) && single(j+1) && sameVerdict(lines[j], lines[j+1]) {
			j++
		}
		if j > i {
			for k := i; k < j; k++ {
				lines[k].Quiet = true
			}
			lines[j].Run = j - i + 1
		}
		i = j + 1
	}
}

func sameVerdict(a, b lineView) bool {
	return a.Verdict == b.Verdict && a.Reason == b.Reason && a.Rule == b.Rule
}

// filedOrders returns the game's orders on file as the ruleset sees them.
func filedOrders(tx store.Tx, game string) ([]rules.Order, error) {
	stored, err := tx.Orders(game)
	if err != nil {
		return nil, fmt.Errorf("read orders of %s: %w", game, err)
	}
	out := make([]rules.Order, len(stored))
	for i, o := range stored {
		out[i] = fromStore(o)
	}
	return out, nil
}

func fromStore(o store.Order) rules.Order {
	return rules.Order{Phase: o.Phase, Side: rules.Side(o.Side), Key: o.Key, Kind: o.Kind, Text: o.Text, Summary: o.Summary, Sealed: o.Sealed, Fixed: o.Fixed, Commitment: o.Commitment}
}

// groupSealed gives the sealed orders one mail filed a group: the commitment the other
// side is mailed, SHA-256 of their commitments one a line (GroupCommitment), named in
// each of them; the list is kept once (Tx.PutSealedGroup) for the results mail that
// reveals one of them.
// One commitment for all hides how many orders were sealed (invariant 5: in a mutual
// segment the count alone would tell the other side how many hexes are bombarded).
func (h *handling) groupSealed(sealed []store.Order) error {
	if len(sealed) == 0 {
		return nil
	}
	list := make([]string, len(sealed))
	for i, o := range sealed {
		list[i] = o.Commitment
	}
	group := GroupCommitment(list)
	if err := h.tx.PutSealedGroup(h.game.Name, group, list); err != nil {
		return fmt.Errorf("group the sealed orders of %s: %w", h.msg.ID, err)
	}
	for i := range sealed {
		sealed[i].Group = group
		if err := h.tx.PutOrder(h.game.Name, sealed[i]); err != nil {
			return fmt.Errorf("group the sealed orders of %s: %w", h.msg.ID, err)
		}
	}
	return nil
}

// GroupCommitment is the commitment of several sealed orders mailed as one: the SHA-256
// hex of their commitments joined by line feeds, in the order they were filed.
func GroupCommitment(commitments []string) string {
	sum := sha256.Sum256([]byte(strings.Join(commitments, "\n")))
	return hex.EncodeToString(sum[:])
}

// file stores one accepted order with a fresh salt and its commitment.
func (h *handling) file(o rules.Order, filed []rules.Order) (store.Order, error) {
	return h.desk.fileOrder(h.tx, h.game.Name, o, filed, h.msg.ID, h.now)
}

func (d *Desk) fileOrder(tx store.Tx, game string, o rules.Order, filed []rules.Order, cause string, now time.Time) (store.Order, error) {
	for _, f := range filed {
		if f.ID() == o.ID() && f.Fixed {
			return store.Order{}, fmt.Errorf("file order %s: it is fixed and may not be replaced", o.ID())
		}
	}
	so := store.Order{Phase: o.Phase, Side: string(o.Side), Key: o.Key, Kind: o.Kind, Text: o.Text, Summary: o.Summary, Sealed: o.Sealed, Fixed: o.Fixed, MessageID: cause, Filed: now}
	// Every order gets a salt, sealed or not: the orders digest takes an order by its
	// commitment, and a bare hash of an unsealed order's text (a standing order, the
	// opponent's secret until it is applied) would let the other side test guesses
	// against the digest in his results mail (invariant 5). Only a sealed order's
	// commitment is ever mailed.
	salt, err := d.randomHex(16)
	if err != nil {
		return so, fmt.Errorf("salt %s for %s: %w", o.Kind, o.Side, err)
	}
	so.Salt, so.Commitment = salt, rules.Commitment(o.Text, salt)
	if err := tx.PutOrder(game, so); err != nil {
		return so, fmt.Errorf("file order %s: %w", o.ID(), err)
	}
	return so, nil
}

func rulesetHelp(rs rules.Ruleset) string {
	body, err := templates.Render(rs.Name()+"-help.txt", nil)
	if err != nil {
		body = "not written yet: help for " + rs.Title()
	}
	// Every game's HELP ends with the desk's own commands, the same for all rulesets.
	if cmds, err := templates.Render("commands.txt", nil); err == nil {
		body = strings.TrimRight(body, "\n") + "\n\nCOMMANDS OF EVERY GAME\n\n" + cmds
	}
	return strings.TrimRight(body, "\n")
}

// helpDigest is what an invitation gives of a ruleset's HELP: its title line and first
// paragraph (how orders are written), then where the rest is. The whole HELP is a
// reply of its own: inline, it made an invitation over 250 lines (issue 20).
func helpDigest(rs rules.Ruleset) string {
	help := rulesetHelp(rs)
	paras := strings.SplitN(help, "\n\n", 3)
	head := paras[0]
	if len(paras) > 1 {
		head += "\n\n" + paras[1]
	}
	return head + "\n\n" + templates.Wrap(78, 0, fmt.Sprintf("Send HELP for the whole of it: every order of this game, "+
		"with examples, and the commands of every game (%d lines).", strings.Count(help, "\n")+1))
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

// badMapLayers says what is wrong with the words after MAP, or "" when the game's map
// offers every one of them.
func badMapLayers(rs rules.Ruleset, layers []string) string {
	if len(layers) == 0 {
		return ""
	}
	ml, ok := rs.(rules.MapLayerer)
	if !ok {
		return "MAP takes no word in this game: send MAP alone"
	}
	offered := ml.MapLayers()
	for _, l := range layers {
		if _, ok := offered[l]; !ok {
			var words []string
			for w := range offered {
				words = append(words, w)
			}
			sort.Strings(words)
			return fmt.Sprintf("the map of this game cannot show %q; it can show: %s", l, strings.Join(words, ", "))
		}
	}
	return ""
}

// mapLine is the MAP line among a mail's desk lines.
func mapLine(lines []orders.Line) orders.Line {
	for _, l := range lines {
		if l.Is("MAP") {
			return l
		}
	}
	return orders.Line{Text: "MAP"}
}
