package adjudicator

import (
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/store"
)

// Observers follow a game in a neutral view: each results mail as nobody's side, with
// only what every side may see at that moment (DESIGN.md invariant 5 holds for them as
// for a player of the other side). The view is built from what the rulesets already
// give each side, without a ruleset knowing of observers: the events every side may
// see, the lines of status every side is shown alike, and the map as every side's view
// shows it alike.

// observeCode is the code that confirms that the sender asked to observe game: a
// mail forged in someone's name cannot have a game's results mailed to him, since the
// code goes to the address alone.
func (h *handling) observeCode(game string, at time.Time) (string, error) {
	return h.keyedCode("adjutant observe code v1", at, game, strings.ToLower(h.msg.From))
}

// observe makes the sender an observer: OBSERVE <game> answers with a code, and
// OBSERVE <game> <code> (within ResignCodeDays days) makes him one.
func (h *handling) observe(args []string) (string, bool, error) {
	if len(args) != 1 && len(args) != 2 {
		return "OBSERVE: not done: write OBSERVE <game> (LIST shows the open games; a game's players can tell you its name).", false, nil
	}
	name := args[0]
	var players []store.Player
	policy := ""
	g, err := h.tx.Game(name)
	switch {
	case err == nil:
		players = g.Players
		if policy, err = h.tx.ObserverPolicy(name); err != nil {
			return "", false, err
		}
	case errors.Is(err, store.ErrNotFound):
		og, err := h.tx.OpenGame(name)
		if errors.Is(err, store.ErrNotFound) {
			return fmt.Sprintf("OBSERVE: not done: there is no game %s.", name), false, nil
		} else if err != nil {
			return "", false, err
		}
		policy = og.Observers
		players = []store.Player{{Side: og.Side, Address: og.Address}}
	default:
		return "", false, err
	}
	if _, ok := findPlayer(store.Game{Players: players}, h.msg.From); ok {
		return fmt.Sprintf("OBSERVE: not done: you play in game %s, and get its results as your side sees them.", name), false, nil
	}
	if policy == "no" {
		return fmt.Sprintf("OBSERVE: not done: game %s allows no observers.", name), false, nil
	}
	if g.Over {
		return fmt.Sprintf("OBSERVE: not done: game %s is over.", name), false, nil
	}
	observers, err := h.tx.Observers(name)
	if err != nil {
		return "", false, err
	}
	for _, o := range observers {
		if strings.EqualFold(o.Address, h.msg.From) {
			if o.Pending {
				return fmt.Sprintf("OBSERVE: not done: you asked to observe game %s already; a player of it has not let you yet.", name), false, nil
			}
			return fmt.Sprintf("OBSERVE: not done: you observe game %s already.", name), false, nil
		}
	}
	if len(observers) >= maxObservers {
		return fmt.Sprintf("OBSERVE: not done: game %s has %d observers, as many as a game may have.", name, maxObservers), false, nil
	}
	mine, err := h.tx.Observing(h.msg.From)
	if err != nil {
		return "", false, err
	}
	if len(mine) >= maxObserving {
		return fmt.Sprintf("OBSERVE: not done: you observe %d games, as many as one address may; UNOBSERVE one first.", len(mine)), false, nil
	}
	if len(args) == 1 {
		code, err := h.observeCode(name, h.now)
		if err != nil {
			return "", false, err
		}
		return fmt.Sprintf("OBSERVE: not done yet. To observe game %s, send a mail with the line OBSERVE %s %s within %d days: the code shows that you, not someone writing in your name, asked for its results mails.",
			name, name, code, ResignCodeDays), true, nil
	}
	if ok, err := h.codeOK(args[1], func(at time.Time) (string, error) { return h.observeCode(name, at) }); err != nil {
		return "", false, err
	} else if !ok {
		return fmt.Sprintf("OBSERVE: not done: %s is not the code for observing game %s from your address, or it is more than %d days old. OBSERVE %s alone gives one.", args[1], name, ResignCodeDays, name), false, nil
	}
	pending := policy == "ask"
	if err := h.tx.PutObserver(name, store.Observer{Address: h.msg.From, Since: h.now, Pending: pending}); err != nil {
		return "", false, err
	}
	if g.Name != "" {
		text := fmt.Sprintf("Game %s: %s now observes this game. An observer receives each results mail in a neutral view, which shows only what both sides may see (no sealed order before the rules reveal it, no hidden unit).", name, h.msg.From)
		if pending {
			text = fmt.Sprintf("Game %s: %s asks to observe this game. Nothing is sent to him unless a player lets him, with a line ALLOW %s in a mail with your GAME and PASSWORD; he would then receive each results mail in a neutral view, which shows only what both sides may see.", name, h.msg.From, h.msg.From)
		}
		if err := h.tellPlayers(g, "observer:"+h.msg.From, fmt.Sprintf("[%s] An observer", name), text); err != nil {
			return "", false, err
		}
	}
	if pending {
		return fmt.Sprintf("OBSERVE: asked. Game %s lets only the observers its players allow; they are told you asked, and you get its results once one of them does.", name), true, nil
	}
	return fmt.Sprintf("OBSERVE: done. You observe game %s: you receive each of its results mails in a neutral view, which shows only what both sides may see. Its players are told. UNOBSERVE %s stops it.", name, name), true, nil
}

// tellPlayers tells every player of g something, in a mail of its own.
func (h *handling) tellPlayers(g store.Game, kind, subject, text string) error {
	return h.tell(g, "", kind, subject, text)
}

// unobserve stops the sender's observing: UNOBSERVE <game>.
func (h *handling) unobserve(args []string) (string, bool, error) {
	if len(args) != 1 {
		return "UNOBSERVE: not done: write UNOBSERVE <game>.", false, nil
	}
	name := args[0]
	observers, err := h.tx.Observers(name)
	if err != nil {
		return "", false, err
	}
	if !slices.ContainsFunc(observers, func(o store.Observer) bool { return strings.EqualFold(o.Address, h.msg.From) }) {
		return fmt.Sprintf("UNOBSERVE: not done: you do not observe game %s.", name), false, nil
	}
	if err := h.tx.DeleteObserver(name, h.msg.From); err != nil {
		return "", false, err
	}
	if g, err := h.tx.Game(name); err == nil && !g.Over {
		if err := h.tellPlayers(g, "unobserve:"+h.msg.From, fmt.Sprintf("[%s] An observer left", name),
			fmt.Sprintf("Game %s: %s no longer observes this game.", name, h.msg.From)); err != nil {
			return "", false, err
		}
	}
	return fmt.Sprintf("UNOBSERVE: done. You no longer observe game %s.", name), true, nil
}

// allowObservers carries out a player's ALLOW <address> lines: each lets an address
// that asked to observe the game do so. It returns what each line did.
func (h *handling) allowObservers(g store.Game, lines [][]string) ([]string, error) {
	var out []string
	for _, args := range lines {
		if len(args) != 1 {
			out = append(out, "ALLOW: not done: write ALLOW <address> of someone who asked to observe the game.")
			continue
		}
		addr := strings.ToLower(args[0])
		observers, err := h.tx.Observers(g.Name)
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(observers, func(o store.Observer) bool { return o.Address == addr })
		switch {
		case i < 0:
			out = append(out, fmt.Sprintf("ALLOW %s: not done: that address has not asked to observe game %s.", addr, g.Name))
		case !observers[i].Pending:
			out = append(out, fmt.Sprintf("ALLOW %s: not done: that address observes game %s already.", addr, g.Name))
		default:
			o := observers[i]
			o.Pending, o.Since = false, h.now
			if err := h.tx.PutObserver(g.Name, o); err != nil {
				return nil, err
			}
			body, err := render("refusal.txt", map[string]any{"Address": h.desk.Address,
				"Text": fmt.Sprintf("A player of game %s has let you observe it: you receive each of its results mails in a neutral view, which shows only what both sides may see. UNOBSERVE %s stops it.", g.Name, g.Name)})
			if err != nil {
				return nil, err
			}
			if _, err := h.enqueue([]string{addr}, "", "", "observe-allowed:"+addr, fmt.Sprintf("[%s] You observe this game", g.Name), body, false); err != nil {
				return nil, err
			}
			if err := h.tellPlayers(g, "observer-allowed:"+addr, fmt.Sprintf("[%s] An observer", g.Name),
				fmt.Sprintf("Game %s: %s now observes this game, let by a player.", g.Name, addr)); err != nil {
				return nil, err
			}
			out = append(out, fmt.Sprintf("ALLOW %s: done: that address now observes game %s.", addr, g.Name))
		}
	}
	return out, nil
}

// tellObservers queues the neutral results mail of an advance to each observer of its
// game (those a player let, when the game asks). It is no part of the journal: replay
// compares the players' mails.
func (d *Desk) tellObservers(tx store.Tx, adv advanced, signature string) error {
	observers, err := tx.Observers(adv.game.Name)
	if err != nil || len(observers) == 0 {
		return err
	}
	var body string
	var pictures []store.Picture
	for _, o := range observers {
		if o.Pending {
			continue
		}
		if body == "" {
			if body, err = observerMail(adv, signature); err != nil {
				return err
			}
			if pictures, err = observerPictures(adv.game, adv.rs, adv.state); err != nil {
				return err
			}
		}
		_, err := tx.Enqueue(store.OutMail{
			Pictures:  pictures,
			MessageID: d.messageID(adv.cause, "observe", "", []string{o.Address}),
			To:        []string{o.Address}, Subject: fmt.Sprintf("[%s] Observing %s", adv.game.Name, adv.rs.Title()), Body: body,
			Game: adv.game.Name, Kind: "observe", Queued: adv.now,
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// neutralSide is what the dice text and the event filters take for the observers'
// view: no side; only the events shown to every side are kept for it (neutralSteps).
const neutralSide rules.Side = ""

// visibleToAll reports whether every side of rs may see e.
func visibleToAll(rs rules.Ruleset, e rules.Event) bool {
	if e.To == nil {
		return true
	}
	for _, s := range rs.Sides() {
		if !e.VisibleTo(s.ID) {
			return false
		}
	}
	return true
}

// neutralSteps are steps with only the events every side may see, each addressed to
// every side (To nil), so that the dice text keeps the rolls of those alone.
func neutralSteps(rs rules.Ruleset, steps []stepRecord) []stepRecord {
	out := make([]stepRecord, 0, len(steps))
	for _, s := range steps {
		n := s
		n.Events = nil
		for _, e := range s.Events {
			if visibleToAll(rs, e) {
				e.To = nil
				n.Events = append(n.Events, e)
			}
		}
		out = append(out, n)
	}
	return out
}

// NeutralMap is the map of st as every side sees it alike: the text map of a ruleset
// whose map hides nothing (OpenMap); for a ruleset of the kit's maps (Viewer), the
// hexes, stacks, markers and key lines that every side's view shows the same; none
// ("") for any other ruleset, whose maps the desk cannot compare.
func NeutralMap(rs rules.Ruleset, st rules.State) string {
	sides := rs.Sides()
	if len(sides) == 0 {
		return ""
	}
	if o, ok := rs.(rules.OpenMap); ok && o.OpenMap() {
		return rs.Map(st, sides[0].ID)
	}
	v, ok := neutralView(rs, st)
	if !ok {
		return ""
	}
	return mapview.Render(v)
}

// neutralView is the kit's view of st that every side's view shows alike (any side's,
// for an OpenMap ruleset), with a title naming no side; false for a ruleset that is no
// Viewer.
func neutralView(rs rules.Ruleset, st rules.State) (mapview.View, bool) {
	v, ok := rs.(rules.Viewer)
	sides := rs.Sides()
	if !ok || len(sides) == 0 {
		return mapview.View{}, false
	}
	views := make([]mapview.View, len(sides))
	for i, s := range sides {
		views[i] = v.MapView(st, s.ID)
		if o, open := rs.(rules.OpenMap); open && o.OpenMap() {
			views = views[:1] // every side sees the same
			break
		}
	}
	common := commonView(views)
	// Each view's title names its side: the observer's names none.
	common.Title = mapview.Wrap(rs.Title()+" -- what every side sees, "+st.PhaseTitle(), "  ")
	return common, true
}

// observerPictures is the picture of the neutral view of st an observer's results
// mail carries (none for a ruleset that draws no picture): what changed is not drawn,
// since the moves a ruleset tells are told to a side.
func observerPictures(g store.Game, rs rules.Ruleset, st rules.State) ([]store.Picture, error) {
	v, ok := neutralView(rs, st)
	if !ok {
		return nil, nil
	}
	enc, err := mapimage.Encode(v, mapimage.News{})
	if err != nil {
		return nil, fmt.Errorf("observer picture of %s: %w", g.Name, err)
	}
	return []store.Picture{{Name: fmt.Sprintf("%s-observer-turn%d.png", g.Name, st.Turn()),
		Alt:    fmt.Sprintf("The map of %s, turn %d, as every side sees it.", g.Name, st.Turn()),
		Before: observerMapHeading, View: enc}}, nil
}

// observerMapHeading is the heading of the map in an observer's results mail
// (templates/observer.txt): the picture stands before it.
const observerMapHeading = "== Map: what every side sees =="

// commonView is what every one of views shows alike.
func commonView(views []mapview.View) mapview.View {
	out := views[0]
	out.Cells = map[hex.Hex]string{}
	out.Forces = map[hex.Hex][]string{}
	if views[0].Counters != nil {
		out.Counters = map[hex.Hex]string{}
	}
	// A counter's label where every side sees the same one (Mons: an enemy stack's
	// top unit, 6.6, is what its owner sees on top too).
	out.Labels = nil
	label := func(h hex.Hex) {
		l := views[0].Labels[h]
		if l != "" && all(views[1:], func(v mapview.View) bool { return v.Labels[h] == l }) {
			if out.Labels == nil {
				out.Labels = map[hex.Hex]string{}
			}
			out.Labels[h] = l
		}
	}
	for h, c := range views[0].Cells {
		same := true
		for _, v := range views[1:] {
			same = same && v.Cells[h] == c && slices.Equal(v.Forces[h], views[0].Forces[h]) && v.Counters[h] == views[0].Counters[h]
		}
		if same {
			out.Cells[h] = c
			if f, ok := views[0].Forces[h]; ok {
				out.Forces[h] = f
			}
			if views[0].Counters != nil {
				out.Counters[h] = views[0].Counters[h]
			}
			label(h)
			continue
		}
		// The cell differs (a side sees its own stack in full, the other its top),
		// but every side knows whose units stand there: the forces' letters alone.
		forces := views[0].Forces[h]
		if len(forces) == 0 || !all(views[1:], func(v mapview.View) bool { return slices.Equal(v.Forces[h], forces) }) {
			continue
		}
		letters := forceLetters(views[0].Legend, forces)
		if letters == "" {
			continue
		}
		out.Cells[h], out.Forces[h] = letters, forces
		if out.Counters != nil {
			out.Counters[h] = letters
		}
		label(h)
	}
	out.Key = nil
	for _, k := range views[0].Key {
		if all(views[1:], func(v mapview.View) bool { return slices.Contains(v.Key, k) }) {
			out.Key = append(out.Key, k)
		}
	}
	out.Arrows = nil
	for _, a := range views[0].Arrows {
		if all(views[1:], func(v mapview.View) bool { return slices.Contains(v.Arrows, a) }) {
			out.Arrows = append(out.Arrows, a)
		}
	}
	return out
}

// forceLetters spells forces by their letters in the legend ("GB"); "" when one has
// none.
func forceLetters(l mapview.Legend, forces []string) string {
	var b strings.Builder
	for _, f := range forces {
		i := slices.IndexFunc(l.Forces, func(s mapview.Symbol) bool { return s.Name == f })
		if i < 0 || l.Forces[i].Char == 0 {
			return ""
		}
		b.WriteByte(l.Forces[i].Char)
	}
	return b.String()
}

func all[T any](xs []T, f func(T) bool) bool {
	for _, x := range xs {
		if !f(x) {
			return false
		}
	}
	return true
}

// neutralStatus is the lines of status every side is shown alike.
func neutralStatus(rs rules.Ruleset, st rules.State) string {
	sides := rs.Sides()
	if len(sides) == 0 {
		return ""
	}
	var kept []string
	for _, l := range strings.Split(rs.Status(st, sides[0].ID), "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		ok := true
		for _, s := range sides[1:] {
			ok = ok && slices.Contains(strings.Split(rs.Status(st, s.ID), "\n"), l)
		}
		if ok {
			kept = append(kept, l)
		}
	}
	return strings.Join(kept, "\n")
}

// observerMail renders the neutral results mail of an advance.
func observerMail(adv advanced, signature string) (string, error) {
	rs, b, st := adv.rs, adv.batch, adv.state
	steps := neutralSteps(rs, b.steps)
	var views []stepView
	for _, s := range steps {
		if len(s.Events) == 0 {
			continue
		}
		sv := stepView{Title: s.Title}
		for _, e := range s.Events {
			ev := eventView{Rule: e.Rule, Text: e.Text}
			if e.Roll != nil {
				ev.Roll = FormatRoll(*e.Roll)
			}
			sv.Events = append(sv.Events, ev)
		}
		views = append(views, sv)
	}
	var revealed, seeds []string
	for _, o := range b.revealed {
		summary := o.Summary
		if summary == "" {
			summary = sideName(rs, rules.Side(o.Side)) + " " + o.Kind
		}
		revealed = append(revealed, strings.Join(revealLine(summary, o.Text, o.Salt, o.Commitment, LayoutGlance), "\n"))
	}
	for _, s := range b.seedsRevealed {
		seeds = append(seeds, strings.Join(seedLines(s.Turn, s.Secret, s.Commitment), "\n"))
	}
	headline := "Observing: " + st.PhaseTitle() + ", waiting for " + strings.Join(sortedSides(rs, adv.waiting), " and ") + "."
	if st.Over() {
		headline = "Game over."
		if v, ok := rs.(rules.Verdicter); ok && v.Verdict(st) != "" {
			headline = "Game over: " + v.Verdict(st)
		}
	} else if len(adv.waiting) == 0 {
		headline = "Observing: " + st.PhaseTitle() + "."
	}
	mapText := NeutralMap(rs, st)
	if mapText == "" {
		mapText = "This game's maps differ by side in ways Adjutant cannot compare, so observers get none."
	}
	return render("observer.txt", map[string]any{
		"Game": adv.game.Name, "Title": rs.Title(), "Headline": headline, "Steps": views,
		"Revealed": revealed, "SeedsRevealed": seeds, "Notes": b.notes,
		"Dice":   diceText(adv.game.Name, visibleRolls(steps, neutralSide), true), // observers came after the compact layout
		"Map":    mapText,
		"Status": neutralStatus(rs, st), "Signature": signature,
	})
}

// setObserverPolicy is the host's OBSERVERS <game> OPEN|ASK|NO: who may observe a
// game from now on (observers already on are kept; the players are told).
func (h *handling) setObserverPolicy(name, policy string) (string, error) {
	policy = strings.ToLower(policy)
	if _, ok := observerPolicies[policy]; !ok {
		return "", fmt.Errorf("%q: expected OPEN, ASK or NO", policy)
	}
	g, _, err := h.hostGame(name, false)
	if err != nil {
		return "", err
	}
	if err := h.tx.PutObserverPolicy(g.Name, policy); err != nil {
		return "", err
	}
	if err := h.tellPlayers(g, "observers:"+policy, fmt.Sprintf("[%s] Observers: %s", g.Name, policy),
		fmt.Sprintf("Game %s: the host has set who may observe it: %s.", g.Name, observerPolicies[policy])); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s: observers %s (%s)", g.Name, policy, observerPolicies[policy]), nil
}

// tellObserversOf tells a game's observers (those let in) what its players are told
// of its end by the host or a resignation, which no results mail carries.
func (h *handling) tellObserversOf(g store.Game, kind, subject, text string) error {
	observers, err := h.tx.Observers(g.Name)
	if err != nil {
		return err
	}
	for _, o := range observers {
		if o.Pending {
			continue
		}
		body, err := render("refusal.txt", map[string]any{"Text": text, "Address": h.desk.Address})
		if err != nil {
			return err
		}
		if _, err := h.enqueue([]string{o.Address}, "", "", kind+":observer", subject, body, false); err != nil {
			return err
		}
	}
	return nil
}
