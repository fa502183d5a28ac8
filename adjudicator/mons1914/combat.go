package mons1914

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Bombard is one bombardment: artillery units firing together at one hex (10.5), and
// the bombarding player's order for the losses (10.9).
type Bombard struct {
	Target hex.Hex
	Guns   []string
	Losses []string
}

// String is the order's canonical text.
func (b Bombard) String() string {
	s := "BOMBARD " + b.Target.String() + " WITH " + strings.Join(b.Guns, " ")
	if len(b.Losses) > 0 {
		s += " LOSSES " + strings.Join(b.Losses, " ")
	}
	return s
}

// Melee is one melee attack on one hex (12.3), and the attacker's advance (12.13).
type Melee struct {
	Target    hex.Hex
	Attackers []string
	Advance   []string // nil: the default, every surviving attacker the stacking limit allows
	// Beyond is 12.13's optional second-hex advance: each leg names a hex next to the
	// target and the advanced units that go on into it, so that units may each go to a
	// different empty hex.
	Beyond []Leg
}

// Leg is one hex of a second-hex advance and the units going into it (12.13).
type Leg struct {
	Hex   hex.Hex
	Units []string
}

// String is the order's canonical text.
func (m Melee) String() string {
	s := "MELEE " + m.Target.String() + " WITH " + strings.Join(m.Attackers, " ")
	if m.Advance != nil {
		s += " ADVANCE " + strings.Join(m.Advance, " ")
	}
	for _, l := range m.Beyond {
		s += " BEYOND " + l.Hex.String() + " " + strings.Join(l.Units, " ")
	}
	return s
}

// orgProblem applies 10.6 and 12.14 to German units acting together: before turn 11 one
// division (with its corps' separate units), from turn 11 one corps, never two corps.
func (g *game) orgProblem(cs []*Counter, rule string) error {
	corps, div := "", 0
	for _, c := range cs {
		if c.Side != "de" {
			continue
		}
		if corps != "" && c.Corps != corps {
			return refuse(rule, "German units of different corps (%s, %s) may never act together", corps, c.Corps)
		}
		corps = c.Corps
		if c.Division == 0 {
			continue
		}
		if div != 0 && c.Division != div && g.st.T < 11 {
			return refuse(rule, "before Game Turn 11 units of different divisions (%d, %d) may not act together", div, c.Division)
		}
		div = c.Division
	}
	return nil
}

func (g *game) roll(purpose, rule string, mod int) dice.Roll {
	return g.d.Roll(dice.Request{Purpose: purpose, Rule: rule, Count: 1, Sides: 6, Modifier: mod})
}

// combatant finds a unit named for a bombardment or a melee: side's, on the map, not yet
// used this phase (usedKey, 10.5, 12.1) and not named twice.
func (g *game) combatant(side rules.Side, id string, named []*Counter, rule, usedKey, usedRule, usedMsg string) (*Counter, *Unit, error) {
	c, ok := g.sc.Counter(id)
	if !ok {
		return nil, nil, refuse("2.6", "no unit %s", id)
	}
	u := g.st.unit(c.ID)
	switch {
	case c.Side != side:
		return nil, nil, refuse(rule, "%s is not yours", c.ID)
	case u.Status != OnMap:
		return nil, nil, refuse(rule, "%s is not on the map", c.ID)
	case g.st.used(usedKey + c.ID):
		return nil, nil, refuse(usedRule, usedMsg, c.ID)
	case slices.Contains(named, c):
		return nil, nil, refuse(usedRule, "%s is named twice", c.ID)
	}
	return c, u, nil
}

// bombard checks and resolves one bombardment (10.0). check-only when g.d is nil.
func (g *game) bombard(side rules.Side, b Bombard) error {
	st := g.st
	targets := g.at(b.Target, sides.Other(side))
	if len(targets) == 0 {
		return refuse("10.1", "%s holds no enemy unit", b.Target)
	}
	if st.used("bombarded " + b.Target.String()) {
		return refuse("10.5", "%s has already been bombarded this phase", b.Target)
	}
	var cs []*Counter
	factors, allSee := 0, true
	for _, id := range b.Guns {
		c, u, err := g.combatant(side, id, cs, "10.1", "fired ", "10.5", "%s has already bombarded this phase")
		if err != nil {
			return err
		}
		switch {
		case !c.Artillery():
			return refuse("10.1", "%s is not artillery", c.ID)
		case st.used("marched " + c.ID):
			return refuse("9.20", "%s used march mode this player turn and may not bombard", c.ID)
		}
		at := hex.MustParse(u.Hex)
		if d := g.sc.Map.Grid.Distance(at, b.Target); d > c.Range {
			return refuse("10.2", "%s in %s is %d hexes from %s, its range is %d", c.ID, at, d, b.Target, c.Range)
		}
		if ok, _ := g.sc.LineOfSight(at, b.Target); !ok {
			allSee = false
		}
		cs = append(cs, c)
		factors += c.Bombard
	}
	if len(cs) == 0 {
		return refuse("10.1", "name the artillery units")
	}
	if err := g.orgProblem(cs, "10.6"); err != nil {
		return err
	}
	// 10.11: a friendly unit next to the target spots; no German unit spots for another
	// corps' artillery.
	spotted := false
	for _, n := range g.sc.Map.Grid.Neighbours(b.Target) {
		for _, u := range g.at(n, side) {
			if side == BEF || g.counter(u).Corps == cs[0].Corps {
				spotted = true
			}
		}
	}
	var blind []string
	for _, c := range cs {
		if ok, by := g.sc.LineOfSight(hex.MustParse(st.unit(c.ID).Hex), b.Target); !ok {
			blind = append(blind, fmt.Sprintf("%s (blocked by %s)", c.ID, by))
		}
	}
	if len(blind) > 0 && !spotted {
		return refuse("10.3", "no line of sight to %s for %s, and no spotter next to it (10.11)", b.Target, strings.Join(blind, ", "))
	}
	for _, c := range cs {
		st.use("fired " + c.ID)
	}
	st.use("bombarded " + b.Target.String())
	if g.d == nil {
		return nil // the order check: legal as the state stands
	}
	mod, why := 0, []string{}
	if g.sc.Protective(b.Target) {
		mod -= 2
		why = append(why, g.sc.Map.Terrain(b.Target)+" -2 (10.8)")
	}
	if !spotted || !allSee {
		mod--
		if !spotted {
			why = append(why, "unspotted -1 (10.11)")
		} else {
			why = append(why, "spotted but not every gun sees -1 (10.11)")
		}
	}
	r := g.roll(fmt.Sprintf("10.7 bombardment of %s, %d factors", b.Target, factors), "10.7", mod)
	roll := board.Clamp(r.Result, 1, 6)
	res, col, _ := g.sc.Tables["bombardment"].Lookup(factors, roll)
	text := fmt.Sprintf("Bombardment of %s by %s: %d factors (column %s), roll %d%s = %d: %s", b.Target, ids(cs), factors, col, r.Values[0], modText(mod, why), roll, resultText(res))
	g.Tell("10.7", nil, &r, "%s", text)
	rules.Aim(g.Events[len(g.Events)-1:], hexesOf(st, cs), b.Target)
	if n, err := strconv.Atoi(res); err == nil && n > 0 {
		// 10.9: the bombarding player apportions the losses "among the units within
		// the targeted hex": the procedure calls for the stack, and 6.6 lets him look
		// beneath the top unit now, not before (no loss, nothing to apportion, nothing
		// shown). Both sides read what he chose from.
		if len(targets) > 1 && st.revised(1) {
			g.Event("6.6", "The losses in %s are apportioned among the stack (10.9), revealed for it (6.6): %s", b.Target, unitList(g, targets))
		}
		applied, ordered := g.loseSteps(targets, n, b.Losses, "10.9", true)
		g.Event("10.9", "Losses in %s (apportioned by the bombarding player%s, 10.9): %s", b.Target, defaultNote(ordered), strings.Join(applied, "; "))
	}
	g.updateControl()
	return nil
}

// defaultNote says how losses were apportioned: "as ordered" only when the order chose
// a unit. An order that names no unit involved played no part, and saying otherwise
// would tell the other side of a standing order never applied (6.6, invariant 5).
func defaultNote(ordered bool) string {
	if !ordered {
		return ": default, the units with the most steps first"
	}
	return ": as ordered"
}

func ids(cs []*Counter) string {
	var s []string
	for _, c := range cs {
		s = append(s, c.ID)
	}
	return strings.Join(s, " ")
}

func modText(mod int, why []string) string {
	if len(why) == 0 {
		return ""
	}
	return fmt.Sprintf(" %+d [%s]", mod, strings.Join(why, ", "))
}

func resultText(r string) string {
	if r == "-" {
		return "no effect"
	}
	if n, err := strconv.Atoi(r); err == nil {
		return fmt.Sprintf("%d step loss(es)", n)
	}
	return r
}

// melee checks and resolves one melee (11.0, 12.0): defensive fire, odds, the table,
// losses, advance. check-only when g.d is nil.
func (g *game) melee(side rules.Side, m Melee, sto *standing) error {
	st := g.st
	defenders := g.at(m.Target, sides.Other(side))
	if len(defenders) == 0 {
		return refuse("12.1", "%s holds no enemy unit", m.Target)
	}
	if st.used("attacked " + m.Target.String()) {
		return refuse("12.1", "no enemy unit may be meleed more than once per combat phase (%s)", m.Target)
	}
	var attackers []*Unit
	var cs []*Counter
	for _, id := range m.Attackers {
		c, u, err := g.combatant(side, id, cs, "12.1", "meleed ", "12.1", "%s has already taken part in a melee this phase")
		if err != nil {
			return err
		}
		if c.Artillery() {
			return refuse("12.1", "artillery units never launch melee attacks (%s)", c.ID)
		}
		at := hex.MustParse(u.Hex)
		if !g.sc.Map.Grid.Adjacent(at, m.Target) {
			return refuse("12.1", "%s in %s is not next to %s", c.ID, at, m.Target)
		}
		if g.sc.CanalUnbridged(at, m.Target) {
			return refuse("9.13", "%s may not melee attack across the unbridged canal hexside %s/%s", c.ID, at, m.Target)
		}
		attackers = append(attackers, u)
		cs = append(cs, c)
	}
	if len(attackers) == 0 {
		return refuse("12.1", "name the attacking units")
	}
	if err := g.orgProblem(cs, "12.14"); err != nil {
		return err
	}
	st.use("attacked " + m.Target.String())
	for _, u := range attackers {
		st.use("meleed " + u.ID)
	}
	if g.d == nil {
		return nil // the order check: legal as the state stands
	}
	// 6.6: the combat reveals both stacks.
	g.Event("6.6", "Melee declared on %s (%s) by %s", m.Target, unitList(g, defenders), unitList(g, attackers))
	rules.Aim(g.Events[len(g.Events)-1:], unitHexes(attackers), m.Target)
	if sto == nil {
		sto = newStanding()
	}
	g.defensiveFire(m.Target, defenders, attackers, sto.policies[sides.Other(side)], sto.allot[sides.Other(side)], sto.hits[sides.Other(side)])
	attackers = slices.DeleteFunc(attackers, func(u *Unit) bool { return u.Status != OnMap })
	if len(attackers) == 0 {
		g.Event("12.10", "Every attacker on %s fell to defensive fire: the melee is over", m.Target)
		g.updateControl()
		return nil
	}
	att, def := 0, 0
	for _, u := range attackers {
		att += g.counter(u).MeleeAt(u.Steps)
	}
	for _, u := range defenders {
		def += g.counter(u).MeleeAt(u.Steps)
	}
	var res, how string
	var roll *dice.Roll
	odds, _ := board.Odds(att, def)
	switch {
	case def > att:
		res, how = "4/0", fmt.Sprintf("%d against %d: the defender is stronger, automatic 4/0 (12.8)", att, def)
	case odds > 6:
		res, how = "1/4", fmt.Sprintf("%d against %d is %d:1, above 6:1: automatic 1/4 (12.9)", att, def, odds)
	default:
		mod, why := 0, []string{}
		switch {
		case g.sc.BuiltUp(m.Target):
			mod -= 2
			why = append(why, "built-up -2 (12.6)")
		case g.sc.Map.Terrain(m.Target) == "forest":
			mod--
			why = append(why, "forest -1 (12.6)")
		}
		across := true
		for _, u := range attackers {
			if !g.sc.WaterSide(hex.MustParse(u.Hex), m.Target) {
				across = false
			}
		}
		if across {
			mod--
			why = append(why, "all across canal or river -1 (12.6)")
		}
		r := g.roll(fmt.Sprintf("12.11 melee on %s at %d:1", m.Target, odds), "12.11", mod)
		roll = &r
		final := board.Clamp(r.Result, 1, 6)
		res, _, _ = g.sc.Tables["melee"].Lookup(odds, final)
		how = fmt.Sprintf("%d against %d is %d:1 (12.7), roll %d%s = %d: %s", att, def, odds, r.Values[0], modText(mod, why), final, res)
	}
	g.Tell("12.11", nil, roll, "Melee on %s: %s", m.Target, how)
	a, d := 0, 0
	fmt.Sscanf(res, "%d/%d", &a, &d)
	// 12.12: the defender absorbs his losses first; no carry-over.
	if d > 0 {
		dl := sto.losses[sides.Other(side)]
		lost, ordered := g.loseSteps(defenders, d, dl, "12.12", false)
		g.Event("12.12", "Defender's losses (apportioned by the defender%s): %s", defaultNote(ordered), strings.Join(lost, "; "))
	}
	if a > 0 {
		al := sto.losses[side]
		lost, ordered := g.loseSteps(attackers, a, al, "12.12", false)
		g.Event("12.12", "Attacker's losses (apportioned by the attacker%s): %s", defaultNote(ordered), strings.Join(lost, "; "))
	}
	g.updateControl()
	if len(g.at(m.Target, sides.Other(side))) == 0 {
		g.advance(side, m, attackers)
	}
	g.updateControl()
	return nil
}

// defensiveFire is 11.0: every defending unit fires, combined per attacking hex (11.2).
// The allocation is the defender's standing choice: STRONGEST (the default) puts every
// unit on the attacking hex with the most melee factors; SPREAD deals the units, the
// strongest first, over the attacking hexes from the strongest down, one each in turn.
// Losses (11.5), apportioned by the defender, fall only on the participating attackers
// of the hex fired at: first the units of his standing HIT list, in its order, then the
// units with the most steps left; none eliminated while another is above one step.
//
// Unit by unit (11.2: "he may apportion the defensive fire of his units among the various
// attacker hexes any way he sees fit"), a standing DEFFIRE <unit> AT <hex> sends that
// unit's fire into that hex when attackers come from it, and DEFFIRE <unit> HOLD keeps
// it from firing (11.1 gives "the opportunity to make defensive fire"; 11.2: "It isn't
// necessary to bring defensive fire against every attacking hex"). An allotment that
// changes nothing is not named to the attacker (invariant 5).
func (g *game) defensiveFire(target hex.Hex, defenders, attackers []*Unit, policy string, allot map[string]string, hit []string) {
	byHex := map[string][]*Unit{}
	var hexes []string
	for _, u := range attackers {
		if _, ok := byHex[u.Hex]; !ok {
			hexes = append(hexes, u.Hex)
		}
		byHex[u.Hex] = append(byHex[u.Hex], u)
	}
	strength := func(us []*Unit) int {
		f := 0
		for _, u := range us {
			f += g.counter(u).MeleeAt(u.Steps)
		}
		return f
	}
	slices.SortStableFunc(hexes, func(a, b string) int { return strength(byHex[b]) - strength(byHex[a]) })
	fire := map[string][]*Unit{}
	alloc := "every defender at the strongest attacking hex (default, 11.2)"
	ownAlloc := "" // the defender's words for it, when they differ
	switch {
	case len(hexes) == 1:
		// 11.2: against attackers from one hex the defenders "must combine their
		// defensive fire values"; there is nothing to designate, so the standing
		// DEFFIRE choice plays no part and is not named (invariant 5: the attacker
		// would learn a choice that never arose).
		alloc = "every defender at the one attacking hex (11.2)"
		fire[hexes[0]] = defenders
	case policy == "SPREAD":
		ds := slices.Clone(defenders)
		slices.SortStableFunc(ds, func(a, b *Unit) int { return g.counter(b).MeleeAt(b.Steps) - g.counter(a).MeleeAt(a.Steps) })
		for i, u := range ds {
			h := hexes[i%len(hexes)]
			fire[h] = append(fire[h], u)
		}
		// A lone defender spread fires where the default puts him: the attacker is
		// told the default's words, not a standing choice that changed nothing
		// (invariant 5); the defender reads his order.
		ownAlloc = "the defenders spread over the attacking hexes (as ordered, 11.2)"
		if len(defenders) > 1 {
			alloc = ownAlloc
		}
	default:
		fire[hexes[0]] = defenders
	}
	// The defender's unit-by-unit allotment, over the policy's.
	where := map[*Unit]string{}
	for h, us := range fire {
		for _, u := range us {
			where[u] = h
		}
	}
	var held []string
	changed := false
	for _, u := range defenders {
		switch a := allot[u.ID]; {
		case a == "HOLD":
			held = append(held, u.ID)
			changed = changed || where[u] != ""
			delete(where, u)
		case byHex[a] != nil && where[u] != a:
			where[u], changed = a, true
		}
	}
	if changed {
		fire = map[string][]*Unit{}
		for _, u := range defenders {
			if h, ok := where[u]; ok {
				fire[h] = append(fire[h], u)
			}
		}
		alloc = "allotted unit by unit by the defender (as ordered, 11.2)"
		ownAlloc = ""
	}
	if len(held) > 0 {
		g.Event("11.1", "Defensive fire declined in %s (as ordered, 11.1): %s", target, strings.Join(held, " "))
	}
	for _, h := range hexes {
		if len(fire[h]) == 0 {
			continue
		}
		factors := strength(fire[h])
		from := hex.MustParse(h)
		mod, why := 0, []string{}
		if g.sc.BuiltUp(from) {
			mod--
			why = append(why, "attackers in built-up -1 (11.3)")
		}
		if g.sc.WaterSide(from, target) {
			mod++
			why = append(why, "attackers across canal or river +1 (11.3)")
		}
		r := g.roll(fmt.Sprintf("11.4 defensive fire from %s into %s, %d factors", target, from, factors), "11.4", mod)
		final := board.Clamp(r.Result, 1, 6)
		res, col, _ := g.sc.Tables["defensive-fire"].Lookup(factors, final)
		text := func(alloc string) string {
			return fmt.Sprintf("Defensive fire from %s into %s, %s: %d factors (column %s), roll %d%s = %d: %s", target, from, alloc, factors, col, r.Values[0], modText(mod, why), final, resultText(res))
		}
		own := text(alloc)
		if ownAlloc != "" {
			own = text(ownAlloc)
		}
		g.ToEach("11.4", &r, g.counter(defenders[0]).Side, own, text(alloc))
		if n, err := strconv.Atoi(res); err == nil && n > 0 {
			lost, ordered := g.loseSteps(byHex[h], n, hit, "11.5", true)
			how := "default, most steps first"
			if ordered {
				how = "by his HIT order, then most steps first"
			}
			g.Event("11.5", "Losses in %s (participating attackers only, apportioned by the defender: %s): %s", from, how, strings.Join(lost, "; "))
		}
	}
}

// advance is 12.13: at least one surviving attacker must enter the vacated hex, up to
// the stacking limit; zones of control are ignored, terrain prohibitions are not.
func (g *game) advance(side rules.Side, m Melee, attackers []*Unit) {
	var alive []*Unit
	for _, u := range attackers {
		if u.Status == OnMap {
			alive = append(alive, u)
		}
	}
	if len(alive) == 0 {
		return
	}
	want := alive
	note := "default: every surviving attacker the stacking limit allows"
	if m.Advance != nil {
		note = "as ordered"
		want = nil
		for _, id := range m.Advance {
			for _, u := range alive {
				if orders.EqualFold(u.ID, id) {
					want = append(want, u)
				}
			}
		}
	}
	var moved []string
	try := func(u *Unit) {
		from := hex.MustParse(u.Hex)
		if _, ok, _ := g.sc.TEC.Step(g.sc.Map, g.counter(u).Class(), from, m.Target); !ok {
			return
		}
		if g.stackProblem(append(g.at(m.Target, side), u)) != "" {
			return
		}
		g.place(u, m.Target)
		moved = append(moved, u.ID)
	}
	for _, u := range want {
		try(u)
	}
	// 12.13: "he must advance at least one". An ADVANCE naming none that could is
	// told to the attacker alone: the defender sees which units advance, never the
	// list that chose none of them (invariant 5).
	fallback := len(moved) == 0
	if fallback {
		for _, u := range alive {
			if len(moved) == 0 {
				try(u)
			}
		}
	}
	if len(moved) == 0 {
		g.Event("12.13", "No attacker can advance into %s: terrain prohibits it (12.13)", m.Target)
		return
	}
	if fallback { // only with an ADVANCE list: the default names every survivor
		g.EventTo("12.13", []rules.Side{side}, "Advance after combat into %s (your ADVANCE named none that could, so the first that could advanced; 12.13: at least one must): %s", m.Target, strings.Join(moved, " "))
		g.EventTo("12.13", []rules.Side{sides.Other(side)}, "Advance after combat into %s (12.13: at least one must advance): %s", m.Target, strings.Join(moved, " "))
	} else {
		g.Event("12.13", "Advance after combat into %s (%s): %s", m.Target, note, strings.Join(moved, " "))
	}
	if len(m.Beyond) > 0 {
		g.advanceBeyond(side, m, moved)
	}
}

// advanceBeyond is 12.13's optional second hex: "the victorious attacker may then advance
// any, some or all of his just-advanced units one more hex, from their new location into
// any immediately adjacent empty hexes", zones of control ignored, terrain prohibitions
// not. Each leg goes to its own hex; a hex is empty if it was when the second-hex
// advance began (the attacker's own legs may share one, within the stacking limit).
func (g *game) advanceBeyond(side rules.Side, m Melee, advanced []string) {
	// A second-hex advance not made is told to its owner alone: the other side sees
	// where units are (6.6), not where they were meant to go.
	own := []rules.Side{side}
	empty := map[hex.Hex]bool{}
	for _, l := range m.Beyond {
		empty[l.Hex] = len(g.at(l.Hex, "")) == 0
	}
	gone := map[string]bool{}
	for _, l := range m.Beyond {
		to := l.Hex
		why := ""
		switch {
		case !g.sc.Map.OnMap(to) || !g.sc.Map.Grid.Adjacent(m.Target, to):
			why = fmt.Sprintf("%s is not a hex next to %s", to, m.Target)
		case !empty[to]:
			why = fmt.Sprintf("%s is not empty", to)
		}
		if why != "" {
			if !g.st.revised(1) {
				g.EventTo("12.13", own, "No second-hex advance: %s (12.13)", why)
				return
			}
			g.EventTo("12.13", own, "No second-hex advance into %s: %s (12.13)", to, why)
			continue
		}
		var went []string
		for _, id := range l.Units {
			u := g.st.unit(id)
			switch {
			case !slices.Contains(advanced, id) || u == nil:
				g.EventTo("12.13", own, "%s did not advance into %s, so it may not go on to %s (12.13)", id, m.Target, to)
				continue
			case gone[id]:
				g.EventTo("12.13", own, "%s has already gone on one more hex; the second-hex advance is one hex (12.13)", id)
				continue
			}
			if _, ok, w := g.sc.TEC.Step(g.sc.Map, g.counter(u).Class(), m.Target, to); !ok {
				g.EventTo("12.13", own, "%s may not go on to %s: %s (12.13: terrain prohibitions hold)", id, to, w)
				continue
			}
			if p := g.stackProblem(append(g.at(to, side), u)); p != "" {
				g.EventTo("12.13", own, "%s may not go on to %s: %s", id, to, p)
				continue
			}
			g.place(u, to)
			gone[id] = true
			went = append(went, id)
		}
		if len(went) > 0 {
			g.Event("12.13", "Second-hex advance into %s, as ordered: %s", to, strings.Join(went, " "))
		}
	}
}

func unitList(g *game, us []*Unit) string {
	var s []string
	for _, u := range us {
		s = append(s, fmt.Sprintf("%s %d step(s)", u.ID, u.Steps))
	}
	return strings.Join(s, ", ")
}
