package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Bot implements rules.Botter: the scripted players of the demo (adjutant demo
// --ruleset soissons1918) and of the tests that play all 17 turns, written as the game
// goes. Both sides set up by default; the German then holds: his front line stays,
// the stacks behind it close up to it, his losses, lead defenders and retreats are
// left to the defaults of HELP; the Entente attacks every turn he can. In each day
// step 1 he bombards the German hexes next to his Prepare markers and assaults every
// German hex next to them; in each day step 2 his divisions next to the Germans buy
// Improvised Attack markers (and Prepare markers for the next assault) and attack,
// advance into what they take, and the others march east; at night he prepares the
// next morning's assaults. Each of his mails is tried against the order check first
// and the lines it would refuse are left out (an attack whose ZOC obligation, 13.2,
// another refusal broke goes with them), so that every mail the bot sends is
// accepted.
func (r *Rules) Bot(game string) rules.Bot {
	return &bot{rs: r, game: game, sent: map[string]bool{}}
}

var _ rules.Botter = (*Rules)(nil)

// bot is the state of the scripted players between their mails.
type bot struct {
	rs   *Rules
	game string
	sent map[string]bool // turn.step.side already answered
	// withdraw is the number of the Entente's last assault of 18 July AM, which a second
	// mail of his withdraws before the German answers (CANCEL, HELP): 0 once done.
	withdraw int
}

func (g *bot) key(t int, step string, side rules.Side) string {
	return fmt.Sprintf("%d.%s.%s", t, step, side)
}

// passes answers, with PASS lines, side's steps of turn t from step from on that
// nothing answered yet: PASS alone for the step the game is at, PASS and the turn's
// name for each later one (HELP: "PASS 18 July PM fills your next open step of that
// turn").
func (g *bot) passes(t int, from string, side rules.Side) string {
	var b strings.Builder
	on := false
	for _, p := range botSteps(t) {
		if on && side == DE && (p == "de2" || p == "den") {
			break // the German's maneuver: his mail then
		}
		on = on || p == from
		if !on || !botWaits(p, side) || g.sent[g.key(t, p, side)] {
			continue
		}
		g.sent[g.key(t, p, side)] = true
		if p == from {
			b.WriteString("PASS\n")
		} else {
			b.WriteString("PASS " + TurnName(t) + "\n")
		}
	}
	return b.String()
}

// Next implements rules.Bot.
func (g *bot) Next(i int, s rules.State) (rules.BotMail, bool, error) {
	st := s.(*State)
	switch i {
	case 0:
		return rules.BotMail{Side: DE, Subject: "[" + g.game + "] set-up", Body: "SETUP DEFAULT\nLOSSES DEFAULT\nLEAD DEFAULT\n"}, true, nil
	case 1:
		return rules.BotMail{Side: EN, Subject: "[" + g.game + "] set-up", Body: "SETUP DEFAULT\nXRESULT DEFAULT\n"}, true, nil
	}
	if st.Over() {
		return rules.BotMail{}, false, nil
	}
	subject := fmt.Sprintf("[%s] %s", g.game, st.PhaseTitle())
	if botWaits(st.P, EN) && !g.sent[g.key(st.T, st.P, EN)] {
		if !strings.HasPrefix(st.P, string(EN)) {
			return rules.BotMail{Side: EN, Subject: subject, Body: g.passes(st.T, st.P, EN)}, true, nil
		}
		g.sent[g.key(st.T, st.P, EN)] = true
		lines := botEntente(g.rs, st)
		if st.T == 1 && st.P[2:] == StepOne {
			for _, l := range lines {
				if strings.HasPrefix(l, "ASSAULT ") {
					g.withdraw++
				}
			}
		}
		body := strings.Join(lines, "\n")
		if body == "" {
			body = "PASS"
		}
		body += "\n"
		if st.P[2:] != StepOne {
			// The German phase that follows: no bombardment, no fall back.
			body += "# and the German phase's steps that wait for us: nothing\n" + g.passes(st.T, st.P, EN)
		}
		return rules.BotMail{Side: EN, Subject: subject, Body: body}, true, nil
	}
	if g.withdraw > 0 {
		// Second thoughts before the German has answered: the last assault is off.
		n := g.withdraw
		g.withdraw = 0
		return rules.BotMail{Side: EN, Subject: subject, Body: fmt.Sprintf("CANCEL ASSAULT %d\n", n)}, true, nil
	}
	if botWaits(st.P, DE) && !g.sent[g.key(st.T, st.P, DE)] {
		body := "# nothing until our next maneuver\n"
		if st.P == "de2" || st.P == "den" {
			g.sent[g.key(st.T, st.P, DE)] = true
			body = strings.Join(botGerman(g.rs, st), "\n")
			if body == "" {
				body = "PASS"
			}
			body += "\n# nothing until our next maneuver\n"
		}
		return rules.BotMail{Side: DE, Subject: subject, Body: body + g.passes(st.T, st.P, DE)}, true, nil
	}
	return rules.BotMail{}, false, fmt.Errorf("soissons1918 bot: the game waits at turn %d step %s for nobody the script knows", st.T, st.P)
}

// botSteps lists the waiting steps of turn t (4.1, 4.2; no German phase on 18
// July AM, 22, nor on 23 July PM, 3.2).
func botSteps(t int) []string {
	if (t-1)%3 == 2 {
		return []string{"enn", "enfb", "den", "defb"}
	}
	s := []string{"en1", "en2", "enfb", "de1", "de2", "defb"}
	if t == 1 || t == 17 {
		s = s[:3]
	}
	return s
}

// botWaits reports whether step p waits for side: both sides in day steps 1 and
// 2 (the mutual bombardments, 4.2 C.3, C.6), the phasing side at night, the other
// side in the fall back.
func botWaits(p string, side rules.Side) bool {
	switch p[2:] {
	case StepOne, StepTwo:
		return true
	case StepNight:
		return strings.HasPrefix(p, string(side))
	}
	return !strings.HasPrefix(p, string(side))
}

// botBoard answers the demo's questions about the state: who stands where.
type botBoard struct {
	sc *Scenario
	st *State
}

// is reports whether u is side's.
func (b botBoard) is(u *Unit, side rules.Side) bool {
	c, _ := b.sc.Counter(u.ID)
	return c.Side == side
}

func (b botBoard) combat(u *Unit) bool {
	c, _ := b.sc.Counter(u.ID)
	return u.Where == OnMap && c.Combat()
}

// germanHexes are the hexes next to h holding German combat units, in map order.
func (b botBoard) germanHexes(h hex.Hex) []hex.Hex {
	var out []hex.Hex
	for _, n := range b.sc.Map.Grid.Neighbours(h) {
		for i := range b.st.Units {
			u := &b.st.Units[i]
			if b.combat(u) && b.is(u, DE) && u.Hex == n.String() && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	slices.SortFunc(out, func(a, b hex.Hex) int { return strings.Compare(a.String(), b.String()) })
	return out
}

// divisions are the Entente divisions on the map, in id order.
func (b botBoard) divisions() []*Unit {
	var out []*Unit
	for i := range b.st.Units {
		u := &b.st.Units[i]
		c, _ := b.sc.Counter(u.ID)
		if u.Where == OnMap && c.Kind == KindDivision {
			out = append(out, u)
		}
	}
	slices.SortFunc(out, func(a, b *Unit) int { return strings.Compare(a.ID, b.ID) })
	return out
}

// botEntente is the Entente's mail for the step the game is at (see Bot).
func botEntente(rs *Rules, st *State) []string {
	b := botBoard{rs.Scenario(), st}
	var lines []string
	step := st.P[2:]
	if !strings.HasPrefix(st.P, string(EN)) {
		return nil // the German's phase: the Entente bombards nothing, falls back by default
	}
	switch step {
	case StepOne:
		// 4.2 C.3 and C.4: bombard, then assault every German hex next to a Prepare marker.
		targets := map[hex.Hex][]string{}
		var order []hex.Hex
		used := map[string]bool{}
		for _, u := range b.divisions() {
			if !u.Prepare || u.Dis == Shocked {
				continue
			}
			ts := b.targets(hex.MustParse(u.Hex))
			for _, t := range ts {
				if _, ok := targets[t]; !ok {
					order = append(order, t)
					targets[t] = nil
				}
			}
			// Each unit joins the attack on its weakest neighbour (20.4.4: the odds).
			if len(ts) > 0 && !used[u.ID] {
				t := slices.MinFunc(ts, func(x, y hex.Hex) int {
					if tx, ty := b.germanTown(x), b.germanTown(y); tx != ty {
						return map[bool]int{true: -1, false: 1}[tx]
					}
					return b.germanSP(x) - b.germanSP(y)
				})
				targets[t] = append(targets[t], u.ID)
				used[u.ID] = true
			}
		}
		art := st.Art[EN]
		heavy, air := art.Heavy, art.Air
		for i, t := range order {
			left := len(order) - i
			h, a := (heavy+left-1)/left, (air+left-1)/left
			heavy, air = heavy-h, air-a
			if h+a > 0 {
				w := []string{"BOMBARD", t.String()}
				if h > 0 {
					w = append(w, fmt.Sprintf("H%d", h))
				}
				if a > 0 {
					w = append(w, fmt.Sprintf("A%d", a))
				}
				lines = append(lines, strings.Join(w, " "))
			}
		}
		for _, t := range order {
			if len(targets[t]) > 0 {
				lines = append(lines, fmt.Sprintf("ASSAULT %s WITH %s", t, strings.Join(targets[t], ",")))
			}
		}
	case StepTwo, StepNight:
		night := step == StepNight
		var attacks []string
		attacked := map[hex.Hex]bool{}
		for _, u := range b.divisions() {
			if u.Retreat || u.Dis == Shocked {
				continue
			}
			h := hex.MustParse(u.Hex)
			ts := b.targets(h)
			if len(ts) == 0 {
				// March one hex towards the nearest German-held town (3.3).
				if n, ok := b.towardsTown(h); ok {
					lines = append(lines, fmt.Sprintf("MOVE %s %s-%s", u.ID, h, n))
				}
				continue
			}
			if !u.Prepare {
				lines = append(lines, "PREPARE "+u.ID) // 19.4: for the next assault
			}
			var free []hex.Hex // 20: each defender is attacked once a segment
			for _, t := range ts {
				if !attacked[t] {
					free = append(free, t)
					attacked[t] = true
				}
			}
			if !night && len(free) > 0 {
				lines = append(lines, fmt.Sprintf("IMPROVISE %s %s", u.ID, free[0]))
				attacks = append(attacks, fmt.Sprintf("ATTACK %s WITH %s", hex.Join(free, ","), u.ID), fmt.Sprintf("ADVANCE %s %s", u.ID, free[0]))
			}
		}
		lines = append(lines, b.hqMoves(night)...)
		lines = append(lines, attacks...)
	}
	return botAccepted(rs, st, EN, lines)
}

// botGerman is the German's maneuver (19): every stack of his out of touch with
// the Entente moves one hex west into an empty hex behind the 18 July front line,
// to close up to the front; the front line itself holds.
func botGerman(rs *Rules, st *State) []string {
	b := botBoard{rs.Scenario(), st}
	stacks := map[string][]string{}
	var order []string
	for i := range st.Units {
		u := &st.Units[i]
		if !b.combat(u) || !b.is(u, DE) || u.Remnant || u.Retreat || u.Dis == Shocked {
			continue
		}
		if _, ok := stacks[u.Hex]; !ok {
			order = append(order, u.Hex)
		}
		stacks[u.Hex] = append(stacks[u.Hex], u.ID)
	}
	slices.Sort(order)
	var lines []string
	taken := map[hex.Hex]bool{}
	for _, at := range order {
		h := hex.MustParse(at)
		if b.ententeNear(h) {
			continue
		}
		for _, n := range b.sc.Map.Grid.Neighbours(h) {
			if n.Col == h.Col-1 && b.sc.Map.OnMap(n) && b.sc.German(n) && !taken[n] && !b.occupied(n) {
				lines = append(lines, fmt.Sprintf("MOVE %s %s-%s", strings.Join(stacks[at], ","), h, n))
				taken[n] = true
				break
			}
		}
	}
	return botAccepted(rs, st, DE, lines)
}

// ententeNear reports whether an Entente combat unit stands next to h.
func (b botBoard) ententeNear(h hex.Hex) bool {
	for _, n := range b.sc.Map.Grid.Neighbours(h) {
		for i := range b.st.Units {
			u := &b.st.Units[i]
			if b.combat(u) && b.is(u, EN) && u.Hex == n.String() {
				return true
			}
		}
	}
	return false
}

// red reports whether h is a hex of a Sudden Death location (3.2): the demo's Entente
// leaves them alone, so that the game goes the full 17 turns to the verdict of 3.3.
func (b botBoard) red(h hex.Hex) bool {
	t, ok := b.sc.TownAt(h)
	return ok && t.Circle == "red"
}

// targets are the German hexes next to h the Entente attacks: all but the red
// locations (and a unit next to one of those does not attack, 13.2).
func (b botBoard) targets(h hex.Hex) []hex.Hex {
	ts := b.germanHexes(h)
	if slices.ContainsFunc(ts, b.red) {
		return nil
	}
	return ts
}

// germanTown reports whether h is a hex of a town the German controls (3.3).
func (b botBoard) germanTown(h hex.Hex) bool {
	t, ok := b.sc.TownAt(h)
	return ok && b.st.Control[t.Name] == DE
}

// towardsTown is the neighbour of h nearest to the nearest German-held town hex, free
// of units, if it is nearer than h.
func (b botBoard) towardsTown(h hex.Hex) (hex.Hex, bool) {
	dist := func(x hex.Hex) int {
		best := -1
		for _, t := range b.sc.Towns {
			if b.st.Control[t.Name] != DE || t.Circle == "red" {
				continue
			}
			for _, th := range t.Hexes {
				if d := b.sc.Map.Grid.Distance(x, th); best < 0 || d < best {
					best = d
				}
			}
		}
		return best
	}
	best, ok := h, false
	for _, n := range b.sc.Map.Grid.Neighbours(h) {
		if b.sc.Map.OnMap(n) && !b.occupied(n) && !b.red(n) && dist(n) < dist(best) {
			best, ok = n, true
		}
	}
	return best, ok
}

// germanSP is the strength of the German units in h (5; a remnant counts 1, 8).
func (b botBoard) germanSP(h hex.Hex) int {
	n := 0
	for i := range b.st.Units {
		u := &b.st.Units[i]
		if b.combat(u) && b.is(u, DE) && u.Hex == h.String() {
			c, _ := b.sc.Counter(u.ID)
			if u.Remnant {
				n++
			} else {
				n += c.SP - u.Losses
			}
		}
	}
	return n
}

// occupied reports whether any unit stands in h.
func (b botBoard) occupied(h hex.Hex) bool {
	for i := range b.st.Units {
		if u := &b.st.Units[i]; u.Where == OnMap && u.Hex == h.String() {
			return true
		}
	}
	return false
}

// botAccepted leaves out the lines the order check would refuse, again and again,
// since leaving out one may make another fail (an attack whose ZOC obligation the
// other one met, 13.2).
func botAccepted(rs *Rules, st *State, side rules.Side, lines []string) []string {
	for range 20 {
		ls, _ := orders.Split(strings.Join(lines, "\n"))
		var keep []string
		for _, c := range rs.Check(st, side, ls, nil) {
			if c.OK {
				keep = append(keep, c.Line.Text)
			}
		}
		if len(keep) == len(lines) {
			return keep
		}
		lines = keep
	}
	return lines
}

// hqMoves keeps each Entente HQ near its divisions (12.1.2: command paths of at most
// three hexes): one hex by day, two by night (10), each step to the neighbour that
// brings its farthest division nearest, never next to a German unit.
func (b botBoard) hqMoves(night bool) []string {
	var out []string
	for i := range b.st.Units {
		hq := &b.st.Units[i]
		c, _ := b.sc.Counter(hq.ID)
		if hq.Where != OnMap || c.Kind != KindHQ || c.Side != EN {
			continue
		}
		var mine []hex.Hex
		for _, u := range b.divisions() {
			if uc, _ := b.sc.Counter(u.ID); uc.Corps == hq.ID {
				mine = append(mine, hex.MustParse(u.Hex))
			}
		}
		if len(mine) == 0 {
			continue
		}
		far := func(h hex.Hex) int {
			m := 0
			for _, d := range mine {
				m = max(m, b.sc.Map.Grid.Distance(h, d))
			}
			return m
		}
		cur := hex.MustParse(hq.Hex)
		path := []hex.Hex{cur}
		for range map[bool]int{false: 1, true: 2}[night] {
			best := cur
			for _, n := range b.sc.Map.Grid.Neighbours(cur) {
				if b.sc.Map.OnMap(n) && len(b.germanHexes(n)) == 0 && !b.german(n) && far(n) < far(best) {
					best = n
				}
			}
			if best == cur {
				break
			}
			cur = best
			path = append(path, cur)
		}
		if len(path) > 1 && far(path[0]) > 2 {
			out = append(out, fmt.Sprintf("MOVE %s %s", hq.ID, hex.Join(path, "-")))
		}
	}
	return out
}

// german reports whether a German combat unit stands in h.
func (b botBoard) german(h hex.Hex) bool {
	for i := range b.st.Units {
		u := &b.st.Units[i]
		if b.combat(u) && b.is(u, DE) && u.Hex == h.String() {
			return true
		}
	}
	return false
}

// StepOrders are the scripted players' orders for side at the step st is at: the
// Entente's for his steps, the German's maneuver for his (the lines Bot sends).
func StepOrders(rs *Rules, st *State, side rules.Side) []string {
	if side == EN {
		return botEntente(rs, st)
	}
	return botGerman(rs, st)
}
