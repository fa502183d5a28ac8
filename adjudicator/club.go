package adjudicator

import (
	"context"
	"errors"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
)

// Club is what the host lets players do by mail besides playing their games (issue
// 24): open a game (NEW), join one (JOIN), list them (LIST), observe one (OBSERVE),
// read the ladder (RATINGS). The zero value lets anyone open DefaultMaxOpen games.
type Club struct {
	// Closed: players may not open games by mail; NEW is refused with a reason.
	// The host's commands still create games, and LIST, JOIN, OBSERVE work.
	Closed bool
	// Allow lists who may open games: addresses ("ann@example.org") or domains
	// ("example.org", "@example.org"); empty: anyone.
	Allow []string
	// MaxOpen is how many open games (nobody joined yet) one address may hold;
	// 0 is DefaultMaxOpen.
	MaxOpen int
	// PhaseLength is the deadline of each phase of a game opened by mail; 0 is
	// DefaultClubPhase. At a deadline such a game goes on with the ruleset's default
	// orders, so that no game of strangers stalls for good.
	PhaseLength time.Duration
}

const (
	// DefaultMaxOpen is how many open games one address may hold by default.
	DefaultMaxOpen = 3
	// DefaultClubPhase is the deadline of a phase of a game opened by mail by default.
	DefaultClubPhase = 72 * time.Hour
	// maxObservers bounds the observers of one game, and maxObserving the games one
	// address observes, so that nobody can make the desk mail one address a results
	// mail for every game, nor each results mail go to thousands.
	maxObservers = 20
	maxObserving = 10
	// clubAnswers is how many answers a day an address that plays nowhere gets to its
	// club mails, and clubPlayerAnswers one that plays or observes (a refusal of a club
	// command counts in the same budget, apart from the refusals of game mails).
	clubAnswers = 10
	// maxListed is how many open games LIST shows.
	maxListed         = 30
	clubPlayerAnswers = 30
)

// clubBudget is the budget of answers to the sender's club mails.
func (h *handling) clubBudget() budget {
	return budget{key: "club\x00" + h.msg.From, limit: clubPlayerAnswers, window: 24 * time.Hour, stranger: clubAnswers}
}

func (c Club) maxOpen() int {
	if c.MaxOpen <= 0 {
		return DefaultMaxOpen
	}
	return c.MaxOpen
}

func (c Club) phaseLength() time.Duration {
	if c.PhaseLength <= 0 {
		return DefaultClubPhase
	}
	return c.PhaseLength
}

// mayOpen reports whether address may open games, and why not.
func (c Club) mayOpen(address string) (bool, string) {
	if c.Closed {
		return false, "the host of this mailbox does not let players open games by mail"
	}
	if len(c.Allow) == 0 {
		return true, ""
	}
	address = strings.ToLower(address)
	_, domain, _ := strings.Cut(address, "@")
	for _, a := range c.Allow {
		a = strings.ToLower(strings.TrimSpace(a))
		if a == address || strings.TrimPrefix(a, "@") == domain {
			return true, ""
		}
	}
	return false, "the host of this mailbox lets only some addresses open games by mail, and yours is not one of them"
}

// observerPolicies are the choices of who may observe a game.
var observerPolicies = map[string]string{
	"open": "anyone may observe it (OBSERVE)",
	"ask":  "an observer needs a player's leave (ALLOW <address>)",
	"no":   "nobody may observe it",
}

// clubKeywords are the first words of club commands. A mail whose first command line
// (PASSWORD aside) starts with one is a club mail, and carries club commands only.
var clubKeywords = []string{"NEW", "LIST", "JOIN", "WITHDRAW", "OBSERVE", "UNOBSERVE", "RATINGS"}

// isClubMail reports whether lines are a club mail: no GAME line, and the first line
// that is not a PASSWORD line starts with a club command, so that a sign-off "New
// address soon" after a player's orders is never read as one. In a player's reply to
// a mail of his game (its subject names the game) that line must also be a club
// command as HELP writes it, so that "List of my moves:" on top of his orders leaves
// them his game's.
func (d *Desk) isClubMail(lines []orders.Line, subject string) bool {
	var first orders.Line
	found := false
	for _, l := range lines {
		switch kw := strings.TrimSuffix(l.Keyword(), ":"); {
		case kw == "GAME":
			return false
		case kw == "PASSWORD" || found:
		default:
			first, found = l, true
		}
	}
	if !found || !slices.Contains(clubKeywords, strings.TrimSuffix(first.Keyword(), ":")) {
		return false
	}
	return gameFromSubject(subject) == "" || d.clubForm(first)
}

// clubForm reports whether l is a club command as HELP writes it.
func (d *Desk) clubForm(l orders.Line) bool {
	n := len(l.Fields)
	arg := func(i int) string {
		if i < n {
			return l.Fields[i]
		}
		return ""
	}
	switch strings.TrimSuffix(l.Keyword(), ":") {
	case "NEW":
		_, ok := d.Rulesets[strings.ToLower(arg(1))]
		return ok
	case "LIST":
		return n == 1
	case "RATINGS":
		_, ok := d.Rulesets[strings.ToLower(arg(1))]
		return n == 1 || n == 2 && ok
	case "JOIN":
		return (n == 2 || n == 4 && strings.EqualFold(arg(2), "SIDE")) && validGame.MatchString(arg(1))
	}
	if strings.EqualFold(arg(0), "OBSERVE") && n == 3 {
		return validGame.MatchString(arg(1)) // with its code
	}
	return n == 2 && validGame.MatchString(arg(1)) // WITHDRAW, OBSERVE, UNOBSERVE
}

// clubMember reports whether the sender holds an open game or observes one: he then
// has the refusal budget of a player.
func (h *handling) clubMember() (bool, error) {
	observing, err := h.tx.Observing(h.msg.From)
	if err != nil || len(observing) > 0 {
		return len(observing) > 0, err
	}
	open, err := h.tx.OpenGames()
	if err != nil {
		return false, err
	}
	for _, g := range open {
		if strings.EqualFold(g.Address, h.msg.From) {
			return true, nil
		}
	}
	return false, nil
}

// clubPrecheck does a club mail's bcrypt work before its write transaction: the hash
// of the password a NEW or JOIN chooses, and the check of a WITHDRAW's. A mail beyond
// its sender's daily answers is not read (clubMail), so it costs no bcrypt either.
func (d *Desk) clubPrecheck(ctx context.Context, m Message, lines []orders.Line) (passwordVerdict, error) {
	var v passwordVerdict
	password, withdraw, choose := "", "", false
	for _, l := range lines {
		switch kw := strings.TrimSuffix(l.Keyword(), ":"); kw {
		case "PASSWORD":
			password = l.Rest(1)
		case "NEW", "JOIN":
			choose = true
		case "WITHDRAW":
			withdraw = l.Rest(1)
		}
	}
	if password == "" || !validPassword(password) || (!choose && withdraw == "") {
		return v, nil
	}
	over, hash := false, ""
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		h := &handling{desk: d, tx: tx, msg: m, now: d.now()}
		var err error
		if over, err = h.clubOverBudget(); err != nil || over || withdraw == "" {
			return err
		}
		og, err := tx.OpenGame(withdraw)
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		if err == nil && strings.EqualFold(og.Address, m.From) {
			hash = og.Hash
		}
		return err
	})
	if err != nil || over {
		return v, err
	}
	if hash != "" {
		v.hash, v.ok, v.game = hash, d.checkVerified(hash, "", password), withdraw
	}
	if choose {
		if v.chosen, err = d.hashPassword(password); err != nil {
			return v, err
		}
	}
	return v, nil
}

// clubOverBudget reports whether the sender has had all his club answers of the day:
// his club mails are then not read at all, so that a flood of them (forged, perhaps)
// opens no game and costs no bcrypt.
func (h *handling) clubOverBudget() (bool, error) {
	b := h.clubBudget()
	registered, err := h.registered()
	if err != nil {
		return false, err
	}
	limit := b.limit
	if !registered {
		limit = b.stranger
	}
	th, err := h.tx.Throttle(b.key)
	if err != nil {
		return false, err
	}
	return h.now.Sub(th.WindowStart) < b.window && th.Count >= limit, nil
}

// chosenHash is the bcrypt hash of the password a NEW or JOIN chose: made before the
// transaction (clubPrecheck), or here when it was not.
func (h *handling) chosenHash(password string) (string, error) {
	if h.pre.chosen != "" {
		return h.pre.chosen, nil
	}
	return h.desk.hashPassword(password)
}

// clubMail handles a club mail: each command in turn, then one answer with what each
// did, within the limits of answers to strangers.
func (h *handling) clubMail(ctx context.Context, lines []orders.Line) (string, error) {
	if over, err := h.clubOverBudget(); err != nil {
		return "", err
	} else if over {
		h.desk.log().Warn("club mail not read: the sender's answers of the day are spent", "from", h.msg.From)
		return Throttled, nil
	}
	var password string
	var cmds []orders.Line
	var sections []string
	seen := map[string]bool{}
	for _, l := range lines {
		kw := strings.TrimSuffix(l.Keyword(), ":")
		switch {
		case kw == "PASSWORD":
			password = l.Rest(1)
		case slices.Contains(clubKeywords, kw):
			if seen[kw] {
				sections = append(sections, fmt.Sprintf("%s: not done: one %s a mail.", kw, kw))
				continue
			}
			seen[kw] = true
			cmds = append(cmds, l)
		default:
			sections = append(sections, fmt.Sprintf("Line %d not read: a mail that starts with a club command (%s) carries club commands and PASSWORD only; orders go in a mail that starts with GAME.", l.No, strings.Join(clubKeywords, ", ")))
		}
	}
	if password != "" && !validPassword(password) {
		return h.answer("club", badPassword, h.clubBudget(), Refused+": bad-password")
	}
	did := false
	var answers []string
	for _, l := range cmds {
		text, ok, err := h.clubCommand(ctx, l, password)
		if err != nil {
			return "", err
		}
		did = did || ok
		answers = append(answers, text)
	}
	outcome := Refused + ": club"
	if did {
		outcome = Handled + ": club"
	}
	return h.answer("club", strings.Join(append(answers, sections...), "\n\n"), h.clubBudget(), outcome)
}

// clubCommand runs one club command and says what it did; ok is false when it was
// refused (and then nothing was changed).
func (h *handling) clubCommand(ctx context.Context, l orders.Line, password string) (string, bool, error) {
	args := l.Fields[1:]
	switch strings.TrimSuffix(l.Keyword(), ":") {
	case "NEW":
		return h.clubNew(args, password)
	case "LIST":
		text, err := h.clubList()
		return text, err == nil, err
	case "JOIN":
		return h.clubJoin(ctx, args, password)
	case "WITHDRAW":
		return h.clubWithdraw(args, password)
	case "OBSERVE":
		return h.observe(args)
	case "UNOBSERVE":
		return h.unobserve(args)
	case "RATINGS":
		return h.ratings(args)
	}
	return "", false, fmt.Errorf("club command %q: not known", l.Keyword())
}

// clubNew opens a game: NEW <ruleset> [SIDE <side>] [OBSERVERS open|ask|no] [DICE seed|beacon] [options].
func (h *handling) clubNew(args []string, password string) (string, bool, error) {
	d := h.desk
	usage := "Write NEW <ruleset> [SIDE <side>] [OBSERVERS OPEN|ASK|NO] [DICE SEED|BEACON] [optional rules], e.g. NEW mons1914 SIDE bef, and a line PASSWORD <a password of your choosing>."
	if ok, why := d.Club.mayOpen(h.msg.From); !ok {
		text := "NEW: not done: " + why + "."
		if d.HostAddress != "" {
			text += " Ask the host (" + d.HostAddress + ") to create a game for you."
		} else {
			text += " Ask the host of this mailbox to create a game for you."
		}
		return text + " LIST shows the open games you can JOIN.", false, nil
	}
	if len(args) == 0 {
		return "NEW: not done: which game? " + usage + " The games are " + strings.Join(d.rulesetNames(), ", ") + ".", false, nil
	}
	rs, err := d.ruleset(strings.ToLower(args[0]))
	if err != nil {
		return "NEW: not done: " + err.Error() + ". " + usage, false, nil
	}
	if password == "" {
		return "NEW: not done: a line PASSWORD <password> is needed, with a password of your choosing: you will write it in every mail of the game.", false, nil
	}
	ng := NewGame{Ruleset: rs.Name(), Options: rules.Options{}, PhaseLength: d.Club.phaseLength(), NoOrders: "default"}
	side := rs.Sides()[0].ID
	for i := 1; i < len(args); i++ {
		word := strings.ToUpper(args[i])
		switch {
		case word == "DICE" && i+1 < len(args):
			// Issue 25: a game whose rolls no host can know before every order is in.
			i++
			ng.Dice = strings.ToLower(args[i])
			if err := d.checkDice(&ng, nil); err != nil {
				return "NEW: not done: " + err.Error() + ".", false, nil
			}
		case (word == "SIDE" || word == "OBSERVERS") && i+1 < len(args):
			i++
			if word == "SIDE" {
				s, err := findSide(rs, args[i])
				if err != nil {
					return "NEW: not done: " + err.Error() + ".", false, nil
				}
				side = s
				continue
			}
			p := strings.ToLower(args[i])
			if _, ok := observerPolicies[p]; !ok {
				return fmt.Sprintf("NEW: not done: OBSERVERS %s: expected OPEN, ASK or NO.", args[i]), false, nil
			}
			ng.Observers = p
		default:
			name := strings.ToLower(args[i])
			if _, ok := rs.OptionNames()[name]; !ok {
				return fmt.Sprintf("NEW: not done: %q is no optional rule of %s (%s). %s", args[i], rs.Title(), optionList(rs), usage), false, nil
			}
			ng.Options[name] = true
		}
	}
	open, err := h.tx.OpenGames()
	if err != nil {
		return "", false, err
	}
	mine := 0
	for _, g := range open {
		if strings.EqualFold(g.Address, h.msg.From) {
			mine++
		}
	}
	if mine >= d.Club.maxOpen() {
		return fmt.Sprintf("NEW: not done: you hold %d open games already, as many as this mailbox allows one address; WITHDRAW one, or wait until someone joins.", mine), false, nil
	}
	n, err := h.tx.NextClubNumber()
	if err != nil {
		return "", false, err
	}
	name := fmt.Sprintf("%s-%d", rs.Name(), n)
	for {
		// A name the host gave a game of his own is skipped.
		if _, err := h.tx.Game(name); errors.Is(err, store.ErrNotFound) {
			break
		} else if err != nil {
			return "", false, err
		}
		if n, err = h.tx.NextClubNumber(); err != nil {
			return "", false, err
		}
		name = fmt.Sprintf("%s-%d", rs.Name(), n)
	}
	hash, err := h.chosenHash(password)
	if err != nil {
		return "", false, err
	}
	if ng.Observers == "" {
		ng.Observers = "open"
	}
	og := store.OpenGame{Name: name, Ruleset: rs.Name(), Side: string(side), Address: h.msg.From, Hash: hash,
		Options: ng.Options, Observers: ng.Observers, Dice: ng.Dice, PhaseLength: ng.PhaseLength, Opened: h.now}
	if err := h.tx.PutOpenGame(og); err != nil {
		return "", false, err
	}
	return fmt.Sprintf("NEW: done. You opened game %s (%s) and play %s; the %s seat is open. "+
		"Another player takes it with JOIN %s and a PASSWORD of his own; the game starts then and you both get your invitations. "+
		"Optional rules: %s. Observers: %s.%s Each phase has a deadline of %s; then the game goes on with the default orders. "+
		"WITHDRAW %s (with your PASSWORD) takes it back while nobody has joined.",
		name, rs.Title(), sideName(rs, side), sideName(rs, otherSide(rs, side)), name, optionsText(og.Options), observerPolicies[og.Observers], clubDiceNote(og.Dice),
		spanText(og.PhaseLength), name), true, nil
}

// otherSide is the side of a two-sided ruleset that is not side.
func otherSide(rs rules.Ruleset, side rules.Side) rules.Side {
	for _, s := range rs.Sides() {
		if s.ID != side {
			return s.ID
		}
	}
	return side
}

func optionsText(opts map[string]bool) string {
	var names []string
	for n, on := range opts {
		if on {
			names = append(names, n)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}

func optionList(rs rules.Ruleset) string {
	var names []string
	for n := range rs.OptionNames() {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "it has none"
	}
	sort.Strings(names)
	return "its optional rules are " + strings.Join(names, ", ")
}

// spanText says a duration in words: "3 days", "5 hours", "20 minutes".
func spanText(d time.Duration) string {
	switch {
	case d >= 48*time.Hour:
		return fmt.Sprintf("%d days", int(d/(24*time.Hour)))
	case d >= 2*time.Hour:
		return fmt.Sprintf("%d hours", int(d/time.Hour))
	case d >= 2*time.Minute:
		return fmt.Sprintf("%d minutes", int(d/time.Minute))
	}
	return "a minute"
}

func (d *Desk) rulesetNames() []string {
	names := make([]string, 0, len(d.Rulesets))
	for n := range d.Rulesets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// clubList is the answer to LIST: the open games, then the sender's own.
func (h *handling) clubList() (string, error) {
	d := h.desk
	var b strings.Builder
	open, err := h.tx.OpenGames()
	if err != nil {
		return "", err
	}
	if len(open) == 0 {
		b.WriteString("LIST: no game is open. NEW <ruleset> opens one (HELP says how).")
	} else {
		b.WriteString("LIST: the open games; JOIN <game> with a PASSWORD of your choosing takes the free seat:")
		// The newest first, maxListed of them: one answer stays a mail a phone shows.
		sort.SliceStable(open, func(i, j int) bool { return open[i].Opened.After(open[j].Opened) })
		older := max(0, len(open)-maxListed)
		open = open[:len(open)-older]
		for _, g := range open {
			rs, err := d.ruleset(g.Ruleset)
			if err != nil {
				continue // a ruleset the host has since removed
			}
			who := ""
			if strings.EqualFold(g.Address, h.msg.From) {
				who = " (yours: waiting for a second player)"
			}
			fmt.Fprintf(&b, "\n- %s: %s, free side %s, optional rules %s, observers %s, deadline %s, opened %s ago%s.",
				g.Name, rs.Title(), sideName(rs, otherSide(rs, rules.Side(g.Side))), optionsText(g.Options), g.Observers,
				spanText(g.PhaseLength), spanText(h.now.Sub(g.Opened)), who)
		}
		if older > 0 {
			fmt.Fprintf(&b, "\n(%d older open games are not listed.)", older)
		}
	}
	names, err := h.tx.GamesOf(h.msg.From)
	if err != nil {
		return "", err
	}
	if len(names) > 0 {
		b.WriteString("\n\nYour games:")
	}
	for _, name := range names {
		g, err := h.tx.Game(name)
		if err != nil {
			return "", err
		}
		rs, err := d.ruleset(g.Ruleset)
		if err != nil {
			continue
		}
		p, _ := findPlayer(g, h.msg.From)
		fmt.Fprintf(&b, "\n- %s: %s, you play %s: %s.", g.Name, rs.Title(), sideName(rs, rules.Side(p.Side)), h.waitsFor(g, rs, rules.Side(p.Side)))
	}
	observing, err := h.tx.Observing(h.msg.From)
	if err != nil {
		return "", err
	}
	if len(observing) > 0 {
		b.WriteString("\n\nYou observe: " + strings.Join(observing, ", ") + ".")
	}
	return b.String(), nil
}

// waitsFor says what game g waits for, to the player of side.
func (h *handling) waitsFor(g store.Game, rs rules.Ruleset, side rules.Side) string {
	if g.Over {
		if g.Ended != "" {
			return "over (" + g.Ended + ")"
		}
		return "over"
	}
	st, err := rs.Decode(g.State)
	if err != nil {
		return "its state cannot be read (the host is told by the log)"
	}
	if st.Over() {
		return "over"
	}
	stored, err := h.tx.Orders(g.Name)
	if err != nil {
		return "its orders cannot be read"
	}
	filed := make([]rules.Order, len(stored))
	for i, o := range stored {
		filed[i] = fromStore(o)
	}
	waiting := rs.Waiting(st, filed)
	deadline := ""
	if !g.Deadline.IsZero() {
		deadline = ", deadline " + g.Deadline.UTC().Format(timeFormat)
	}
	if slices.Contains(waiting, side) {
		return "your move (" + st.PhaseTitle() + deadline + ")"
	}
	return "waiting for " + strings.Join(sortedSides(rs, waiting), " and ") + " (" + st.PhaseTitle() + deadline + ")"
}

// clubJoin takes the free seat of an open game: JOIN <game> [SIDE <side>].
func (h *handling) clubJoin(ctx context.Context, args []string, password string) (string, bool, error) {
	d := h.desk
	if len(args) == 0 {
		return "JOIN: not done: which game? Write JOIN <game> (LIST shows the open games) and a line PASSWORD <a password of your choosing>.", false, nil
	}
	name := args[0]
	og, err := h.tx.OpenGame(name)
	if errors.Is(err, store.ErrNotFound) {
		if _, err := h.tx.Game(name); err == nil {
			return fmt.Sprintf("JOIN: not done: game %s is full: both its seats are taken. OBSERVE %s follows it, if its players allow observers; LIST shows the open games.", name, name), false, nil
		}
		return fmt.Sprintf("JOIN: not done: no game %s is open. LIST shows the open games.", name), false, nil
	} else if err != nil {
		return "", false, err
	}
	rs, err := d.ruleset(og.Ruleset)
	if err != nil {
		return "", false, err
	}
	free := otherSide(rs, rules.Side(og.Side))
	if strings.EqualFold(og.Address, h.msg.From) {
		return fmt.Sprintf("JOIN: not done: you opened game %s yourself; it starts when another player joins it.", name), false, nil
	}
	if len(args) >= 3 && strings.EqualFold(args[1], "SIDE") {
		s, err := findSide(rs, args[2])
		if err != nil {
			return "JOIN: not done: " + err.Error() + ".", false, nil
		}
		if s != free {
			return fmt.Sprintf("JOIN: not done: the %s seat of game %s is taken; the free seat is %s (JOIN %s SIDE %s).", sideName(rs, s), name, sideName(rs, free), name, free), false, nil
		}
	} else if len(args) > 1 {
		return fmt.Sprintf("JOIN: not done: expected JOIN %s or JOIN %s SIDE %s.", name, name, free), false, nil
	}
	if password == "" {
		return "JOIN: not done: a line PASSWORD <password> is needed, with a password of your choosing: you will write it in every mail of the game.", false, nil
	}
	if strings.EqualFold(h.msg.From, d.Address) {
		return "JOIN: not done: the game mailbox cannot play.", false, nil
	}
	hash, err := h.chosenHash(password)
	if err != nil {
		return "", false, err
	}
	p, err := d.prepareGame(NewGame{Name: og.Name, Ruleset: og.Ruleset, Options: og.Options, PhaseLength: og.PhaseLength, NoOrders: "default",
		Players:    map[rules.Side]string{rules.Side(og.Side): og.Address, free: h.msg.From},
		PassHashes: map[rules.Side]string{rules.Side(og.Side): og.Hash, free: hash},
		Observers:  og.Observers, Dice: og.Dice}, nil)
	if err != nil {
		return "", false, err
	}
	if err := h.tx.DeleteOpenGame(og.Name); err != nil {
		return "", false, err
	}
	if err := d.createIn(ctx, h.tx, p); err != nil {
		return "", false, err
	}
	// Those who began to observe the game while it was open: its players are told.
	observers, err := h.tx.Observers(og.Name)
	if err != nil {
		return "", false, err
	}
	var watching []string
	for _, o := range observers {
		if !o.Pending {
			watching = append(watching, o.Address)
		}
	}
	if len(watching) > 0 {
		g, err := h.tx.Game(og.Name)
		if err != nil {
			return "", false, err
		}
		if err := h.tellPlayers(g, "observers-at-start", fmt.Sprintf("[%s] Observers", og.Name),
			fmt.Sprintf("Game %s is observed by %s: an observer receives each results mail in a neutral view, which shows only what both sides may see.", og.Name, strings.Join(watching, ", "))); err != nil {
			return "", false, err
		}
	}
	return fmt.Sprintf("JOIN: done. You play %s in game %s (%s) against %s; the game has started and your invitation is in a mail of its own.",
		sideName(rs, free), og.Name, rs.Title(), sideName(rs, rules.Side(og.Side))), true, nil
}

// clubWithdraw takes back an open game nobody joined: WITHDRAW <game>, with the
// password its creator chose.
func (h *handling) clubWithdraw(args []string, password string) (string, bool, error) {
	if len(args) != 1 {
		return "WITHDRAW: not done: write WITHDRAW <game> and the PASSWORD you opened it with.", false, nil
	}
	og, err := h.tx.OpenGame(args[0])
	if errors.Is(err, store.ErrNotFound) {
		if _, err := h.tx.Game(args[0]); err == nil {
			return fmt.Sprintf("WITHDRAW: not done: game %s has started; a player may RESIGN it instead (HELP says how).", args[0]), false, nil
		}
		return fmt.Sprintf("WITHDRAW: not done: no game %s is open.", args[0]), false, nil
	} else if err != nil {
		return "", false, err
	}
	// One answer for a wrong password and another's game, as for a game's password.
	right := h.pre.ok && h.pre.game == og.Name && h.pre.hash == og.Hash
	if !right && h.pre.hash != og.Hash {
		right = h.desk.checkVerified(og.Hash, "", password) // not checked before the transaction
	}
	if !strings.EqualFold(og.Address, h.msg.From) || !right {
		return fmt.Sprintf("WITHDRAW: not done: game %s is withdrawn only by the address that opened it, with the password it was opened with.", og.Name), false, nil
	}
	if err := h.tx.DeleteOpenGame(og.Name); err != nil {
		return "", false, err
	}
	observers, err := h.tx.Observers(og.Name)
	if err != nil {
		return "", false, err
	}
	for _, o := range observers {
		if err := h.tx.DeleteObserver(og.Name, o.Address); err != nil {
			return "", false, err
		}
	}
	return fmt.Sprintf("WITHDRAW: done. Game %s is withdrawn.", og.Name), true, nil
}

// clubDiceNote says, in NEW's answer and LIST, how a game's dice are drawn when it plays
// with the beacon (HELP DICE).
func clubDiceNote(dice string) string {
	if dice == DiceBeacon {
		return " Dice: every roll mixes in a public drand round drawn after the last order of its phase (HELP DICE)."
	}
	return ""
}
