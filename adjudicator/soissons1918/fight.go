package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// zocProblem checks 13.2 and 20.1 for list[i]: "all enemy units in the attacking
// unit's ZOC must have been attacked by other friendly units during this Assault or
// Improvised Attack phase OR be attacked by other friendly units in a subsequent
// combat during this ... phase OR be attacked simultaneously by the same attacking
// unit". list holds the segment's combats in the order declared; the others' targets
// are attacked before or after this one, by other units (each unit attacks once a
// segment, 20.2).
func (g *game) zocProblem(list []*combat, i int) string {
	c := list[i]
	enemy := sides.Other(c.side)
	for _, u := range c.attackers {
		for _, n := range g.sc.Map.Grid.Neighbours(g.hexOf(u)) {
			if !g.sc.Map.OnMap(n) || len(g.combatAt(n, enemy)) == 0 || slices.Contains(c.d.Targets, n) {
				continue
			}
			covered := false
			for j, o := range list {
				if j != i && o != nil && slices.Contains(o.d.Targets, n) {
					covered = true
				}
			}
			if !covered {
				return fmt.Sprintf("%s is in the ZOC of %s, which attacks; it must be attacked too, by this combat or another of this segment, declared in the same mail or before (13.2, 20.1)", n, u.ID)
			}
		}
	}
	return ""
}

// planSegment checks the segment's declarations in order against the state as it is,
// each unit attacking and each defender attacked once (20, 20.2), then the ZOC
// obligation of 13.2 over the whole set, until no declaration fails. It returns the
// combats that stand (nil for the others) and why each other one fails.
func (g *game) planSegment(side rules.Side, ds []Declaration) ([]*combat, []error) {
	saved := g.seg
	g.seg = nil
	defer func() { g.seg = saved }()
	list := make([]*combat, len(ds))
	errs := make([]error, len(ds))
	for i, d := range ds {
		c, err := g.declare(side, d)
		if err != nil {
			errs[i] = err
			continue
		}
		list[i] = c
		for _, u := range c.attackers {
			g.segState().attackers[u.ID] = true
		}
		for _, u := range c.defenders {
			g.segState().attacked[u.ID] = true
		}
	}
	for changed := true; changed; {
		changed = false
		for i, c := range list {
			if c == nil {
				continue
			}
			if p := g.zocProblem(list, i); p != "" {
				list[i], errs[i], changed = nil, fmt.Errorf("%s", p), true
			}
		}
	}
	return list, errs
}

// combatSegment resolves the phasing side's combats of one segment (4.2 C.4 or C.7),
// one at a time in the order declared (20: "One combat must be resolved before the
// next begins"), then places the Retreat markers (endRetreats).
func (g *game) combatSegment(side rules.Side, items []item) {
	ds := make([]Declaration, len(items))
	for i, it := range items {
		ds[i] = it.combat
	}
	list, errs := g.planSegment(side, ds)
	for i, it := range items {
		if g.stopped() {
			// 3.2: "the game is immediately terminated".
			g.EventTo("3.2", []rules.Side{side}, "%s: not carried out: the game ended at once by Sudden Death (3.2)", it.text)
			continue
		}
		// A combat not carried out is told to the attacker alone: at the table it is
		// never designated (20: "Combat is designated and resolved one combat at a
		// time"), and the defender sees only the combats fought (invariant 5).
		own := []rules.Side{side}
		if list[i] == nil {
			g.EventTo("20", own, "%s: not carried out: %v", it.text, errs[i])
			continue
		}
		// The state has changed since the plan (losses, retreats): declare again.
		c, err := g.declare(side, ds[i])
		if err != nil {
			g.EventTo("20", own, "%s: not carried out: %v", it.text, err)
			continue
		}
		g.fight(c)
	}
	g.endRetreats()
}

// surprise reports whether a combat of side is in the Entente assault of 18 July AM
// (22).
func (g *game) surprise(c *combat) bool {
	return g.st.T == 1 && c.side == EN && c.d.Kind == kAssault
}

// terrainDRM is 20.4.5's terrain modifiers for defending in h against attackers in
// from, each with its reason: woods -1; village, ravine or across a stream hexside -2
// (not cumulative); city -3. "Across a stream hexside" is read (HELP) as every
// attacking hex next to h attacking across one.
func (g *game) terrainDRM(h hex.Hex, from []hex.Hex) (ns []int, why []string) {
	m := g.sc.Map
	stream, near := true, 0
	for _, a := range from {
		if m.Grid.Adjacent(a, h) {
			near++
			if !m.SideHas(a, h, "stream") {
				stream = false
			}
		}
	}
	stream = stream && near > 0
	switch t := m.Terrain(h); t {
	case "woods":
		ns, why = append(ns, -1), append(why, "woods")
	case "city":
		ns, why = append(ns, -3), append(why, "city")
	case "village", "ravine":
		w := t
		if stream {
			w += " (a stream too: not cumulative)"
		}
		ns, why = append(ns, -2), append(why, w)
		stream = false
	}
	if stream {
		ns, why = append(ns, -2), append(why, "across a stream hexside")
	}
	return ns, why
}

// leadDefender is the defender's lead unit (20.4.2): the first unit of his standing
// LEAD order that defends in this combat and may lead, else the default of HELP: the
// unit that gives the lowest DRM (its combativeness, the terrain of its hex, its
// disruption), then the strongest. "A remnant may never be selected as a lead defender
// if non-remnant units are defending as well."
//
// note, when not empty, tells the defender that his LEAD order named a unit it could not
// choose: his alone, since the attacker sees the lead defender, not the order's other
// entries (invariant 5).
func (g *game) leadDefender(c *combat, surprise bool) (lead *Unit, why, note string) {
	var cands []*Unit
	for _, u := range c.defenders {
		if !u.Remnant {
			cands = append(cands, u)
		}
	}
	if len(cands) == 0 {
		cands = c.defenders
	}
	if o := g.standingText(sides.Other(c.side), kLead); o != "" && o != "LEAD DEFAULT" {
		for _, id := range strings.Split(strings.TrimPrefix(o, "LEAD "), ",") {
			for _, u := range c.defenders {
				if u.ID != id {
					continue
				}
				if slices.Contains(cands, u) {
					return u, "the defender's LEAD order", note
				}
				note = fmt.Sprintf("; the defender's LEAD order's %s is a remnant beside non-remnants (20.4.2)", id)
			}
		}
	}
	from := c.attackHexes(g)
	drm := func(u *Unit) int {
		n := -g.stars(u) + disDRM(u)
		if !surprise {
			ts, _ := g.terrainDRM(g.hexOf(u), from)
			for _, t := range ts {
				n += t
			}
		}
		return n
	}
	best := slices.MinFunc(cands, func(a, b *Unit) int {
		if d := drm(a) - drm(b); d != 0 {
			return d
		}
		return g.strength(b) - g.strength(a)
	})
	return best, "default: the lowest DRM, then the strongest", note
}

// stars is a unit's combativeness (6): remnants are always worn, one star.
func (g *game) stars(u *Unit) int {
	if u.Remnant {
		return 1
	}
	return g.counter(u).Stars
}

// disDRM is 20.4.5's modifier for the lead defender's disruption.
func disDRM(u *Unit) int {
	switch u.Dis {
	case Reforming, Disorganized:
		return 1
	case Shocked:
		return 2
	}
	return 0
}

// disruptD is a "d" result (20.4.7): disruption up one, "but to a minimum of
// Disorganized"; HQs and tank groups are never disrupted (9, 10).
func (g *game) disruptD(u *Unit) {
	if !g.counter(u).Combat() {
		return
	}
	g.disrupt(u, 1)
	u.Dis = max(u.Dis, Disorganized)
}

// fight resolves one combat (20.4): strengths, odds, DRMs, the roll, losses,
// disruption and the mandatory retreat, and reports the whole arithmetic.
func (g *game) fight(c *combat) {
	seg := g.segState()
	for _, u := range c.attackers {
		seg.attackers[u.ID] = true
	}
	for _, u := range c.defenders {
		seg.attacked[u.ID] = true
	}
	table, segName, tname := g.sc.CRT[TableAssault], SegAssault, "Assault Combat Table"
	if c.d.Kind == kAttack {
		table, segName, tname = g.sc.CRT[TableImprovised], SegImprovised, "Improvised Attack Table"
	}
	surprise := g.surprise(c)
	// The attacker's lines (att) and the defender's (def) differ only where a part of
	// one side's orders had no effect (invariant 5): the attacker's X when the result
	// asks for none, the units of a named hex that do not attack, the defender's LEAD
	// entries that could not lead.
	var att, def []string
	// The first line heads the event; each other one starts with "- " (the results
	// mail wraps each line to 78 columns).
	lines := func(a, d string) {
		prefix := "- "
		if len(att) == 0 {
			prefix = ""
		}
		if a != "" {
			att = append(att, prefix+a)
		}
		if d != "" {
			def = append(def, prefix+d)
		}
	}
	line := func(format string, args ...any) {
		t := fmt.Sprintf(format, args...)
		lines(t, t)
	}
	segRef := map[string]string{kAssault: "4.2 C.4", kAttack: "4.2 C.7"}[c.d.Kind]
	noX := c.d
	noX.X = 0 // the X asked for is told once the result asks for one (20.4.7)
	lines(fmt.Sprintf("%s (%s; %s)", c.d.String(), tname, segRef), fmt.Sprintf("%s (%s; %s)", noX.String(), tname, segRef))
	line("HQ %s (%s); lead %s (%s)", c.hq, c.hqWhy, c.lead.ID, c.leadWhy)
	// 20.4.3: strengths.
	attSP := 0
	var aw []string
	for _, u := range c.attackers {
		attSP += c.strength[u.ID]
		aw = append(aw, u.ID+" "+c.why[u.ID])
	}
	line("attack: %s = %d SP (20.4.3)", strings.Join(aw, "; "), attSP)
	if len(c.skipped) > 0 {
		lines(fmt.Sprintf("not attacking: %s", strings.Join(c.skipped, "; ")), "")
	}
	defSP := 0
	var dw []string
	onlyRemnants := true
	for _, u := range c.defenders {
		defSP += g.strength(u)
		w := fmt.Sprintf("%s %d", u.ID, g.strength(u))
		if u.Remnant {
			w += " (remnant)"
		} else {
			onlyRemnants = false
		}
		dw = append(dw, w)
	}
	line("defence: %s = %d SP (20.4.3: strength less losses)", strings.Join(dw, ", "), defSP)
	col := table.Column(attSP, defSP)
	line("odds %d to %d: column %s (20.4.4: rounded for the defender)", attSP, defSP, table.Cols[col].Label)
	// 20.4.5: DRMs.
	ld, ldWhy, ldNote := g.leadDefender(c, surprise)
	mod := 0
	var mods []string
	add := func(n int, why string) { mod += n; mods = append(mods, fmt.Sprintf("%+d %s", n, why)) }
	add(g.stars(c.lead), fmt.Sprintf("lead %s's combativeness", c.lead.ID))
	ldText := fmt.Sprintf("lead defender %s's combativeness (%s)", ld.ID, ldWhy)
	add(-g.stars(ld), ldText)
	tank, tankFull := "", false
	for _, u := range c.attackers {
		if u.Tank == "" {
			continue
		}
		t := g.st.unit(u.Tank)
		if tank == "" || (!t.Reduced && !tankFull) {
			tank, tankFull = t.ID, !t.Reduced
		}
	}
	if tank != "" {
		ravine := slices.ContainsFunc(c.d.Targets, func(h hex.Hex) bool { return g.sc.Map.Terrain(h) == "ravine" })
		switch {
		case ravine:
			mods = append(mods, fmt.Sprintf("tank group %s: none against a ravine hex (9.1)", tank))
		case tankFull:
			add(2, fmt.Sprintf("tank group %s, full strength", tank))
		default:
			add(1, fmt.Sprintf("tank group %s, reduced", tank))
		}
	}
	if surprise {
		mods = append(mods, "terrain and streams ignored (22: first turn surprise)")
	} else {
		ts, why := g.terrainDRM(g.hexOf(ld), c.attackHexes(g))
		for i, t := range ts {
			add(t, why[i]+" (the lead defender's hex)")
		}
	}
	if n := disDRM(ld); n != 0 {
		add(n, "lead defender "+DisruptionNames[ld.Dis])
	}
	drm := fmt.Sprintf("DRM: %s = %+d (20.4.5)", strings.Join(mods, "; "), mod)
	lines(drm, strings.Replace(drm, ldText, fmt.Sprintf("lead defender %s's combativeness (%s%s)", ld.ID, ldWhy, ldNote), 1))
	purpose := fmt.Sprintf("20.4.6 %s on %s at %s", map[string]string{kAssault: "assault", kAttack: "improvised attack"}[c.d.Kind], hex.Join(c.d.Targets, ","), table.Cols[col].Label)
	r := g.rollD6(purpose, "20.4.6", mod)
	res, row := table.Lookup(col, r.Result)
	rowNote := ""
	if row != r.Result {
		rowNote = fmt.Sprintf(", read as %d", row)
	}
	line("roll %d %+d = %d%s: %s (%s)", r.Values[0], mod, r.Result, rowNote, res.Text, table.Cols[col].Label)
	// 20.4.7: losses.
	xv, xWhy, xPub := g.xChoice(c, res)
	aLoss, dLoss := res.Att, res.Def
	// dw2 is the defender's copy of his loss's reasons, dw2A the attacker's.
	var aw2, dw2, dw2A []string
	if aLoss == X {
		aLoss = xv
	}
	if dLoss == X {
		dLoss = xv
	}
	if res.Att == X || res.Def == X {
		lines(fmt.Sprintf("X = %d (%s)", xv, xWhy), fmt.Sprintf("X = %d (%s)", xv, xPub))
	}
	// Both modifications of 20.4.7 are summed, then the loss is held at 0 or more, so
	// that their order does not matter.
	if onlyRemnants {
		aLoss--
		aw2 = append(aw2, "-1 against remnants only")
	}
	if attSP >= 12 && defSP >= 6 {
		aLoss++
		dLoss++
		aw2 = append(aw2, "+1 for 12 or more SP against 6 or more")
		dw2 = append(dw2, "+1 for 12 or more SP against 6 or more")
		dw2A = append(dw2A, "+1 for 12 or more SP against 6 or more")
	}
	aLoss = max(aLoss, 0)
	retreat, rWhy := res.Retreat, ""
	if surprise {
		retreat, rWhy = res.First, " (the parenthesized number: 22)"
	}
	if dLoss > 0 {
		// The attacker sees the conversion made, not the CONVERT order's words (its
		// other units, its ALL), nor an order that chose what the default does.
		if conv, why := g.convertLoss(c.defenders, dLoss); conv {
			dLoss--
			retreat++
			dw2 = append(dw2, "-1 converted into one more hex of retreat: "+why)
			dw2A = append(dw2A, "-1 converted into one more hex of retreat: the defender's CONVERT order (21.1)")
		} else {
			dw2 = append(dw2, why)
			dw2A = append(dw2A, "default: no conversion (21.1)")
		}
	}
	// "d": all the units of that side, before the losses (a regiment that becomes a
	// remnant is not disrupted twice); against the Entente attackers of 18 July AM it
	// is ignored (22).
	if res.AttD {
		if surprise {
			line("attacker d ignored (22: first turn surprise)")
		} else {
			for _, u := range c.attackers {
				g.disruptD(u)
			}
			line("attacker d: every attacking unit's disruption up one, at least Disorganized")
		}
	}
	if res.DefD {
		for _, u := range c.defenders {
			g.disruptD(u)
		}
		line("defender d: every defending unit's disruption up one, at least Disorganized")
	}
	taken, extra := g.combatLosses(c.defenders, ld, dLoss, "lead defender", "converted into retreat (20.4.7: only remnants left)")
	retreat += extra
	lines(fmt.Sprintf("defender loses %d%s: %s", dLoss, paren(dw2A), strings.Join(taken, "; ")),
		fmt.Sprintf("defender loses %d%s: %s", dLoss, paren(dw2), strings.Join(taken, "; ")))
	taken, _ = g.combatLosses(c.attackers, c.lead, aLoss, "lead attacker", "void (8: the last SP of a unit is never lost)")
	line("attacker loses %d%s: %s", aLoss, paren(aw2), strings.Join(taken, "; "))
	if retreat > 0 {
		line("retreat %d%s (20.4.7: ending at least %d hex(es) from every attacker)", retreat, rWhy, retreat)
	} else {
		line("no retreat")
	}
	// The roll goes with the event, so that the results mail gives its inputs and each
	// player can check it from his mail (HELP DICE).
	told := len(g.Events)
	g.ToEach("20.4", &r, c.side, strings.Join(att, "\n"), strings.Join(def, "\n"))
	rules.Aim(g.Events[told:], c.attackHexes(g), c.d.Targets...)
	if retreat == 0 {
		return
	}
	from := c.attackHexes(g)
	for _, t := range c.d.Targets {
		if len(g.combatAt(t, sides.Other(c.side))) == 0 {
			continue
		}
		g.retreat(RetreatCall{From: t, Attackers: from, N: retreat, Segment: segName})
	}
}

func paren(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return " (" + strings.Join(ws, "; ") + ")"
}

// xChoice is the attacker's value for X (20.4.7): the combat's X, else his standing
// XRESULT order, else the default of HELP: 2 when X stands only for the defender's
// losses, 1 otherwise. why says where it came from; pub is what the defender is told:
// the default's words when the order chose what the default does (invariant 5: the
// defender sees the X taken, not a standing choice that changed nothing).
func (g *game) xChoice(c *combat, res CombatResult) (v int, why, pub string) {
	dv, dwhy := 1, "default: 1 when X is the attacker's own loss"
	if res.Def == X && res.Att != X {
		dv, dwhy = 2, "default: 2 when X is the defender's loss only"
	}
	v, why = dv, dwhy
	if o := g.standingText(c.side, kXResult); o == "XRESULT 1" || o == "XRESULT 2" {
		v, why = int(o[len(o)-1]-'0'), "the attacker's XRESULT order"
	}
	if c.d.X != 0 {
		v, why = c.d.X, "the attacker's order"
	}
	if v == dv {
		return v, why, dwhy
	}
	return v, why, why
}

// combatLosses gives n losses to us (20.4.7): the first to the lead unit, the others
// by the owner's LOSSES order, else to the strongest. "Remnants are immune to combat
// losses ... Losses must first be taken on every other non-remnant unit before they
// are converted into retreats. For each Loss thus canceled, increase the retreat
// number by one." The last SP of a unit is never lost (8): an Entente division at 1
// SP is treated as a remnant here. It returns what happened and the losses no unit
// could take: the defender's become retreat, the attacker's are void.
func (g *game) combatLosses(us []*Unit, lead *Unit, n int, leadWord, convWord string) ([]string, int) {
	var out []string
	conv := 0
	for i := range n {
		var u *Unit
		why := ""
		if i == 0 && !lead.Remnant && g.strength(lead) > 1 {
			u, why = lead, " (the "+leadWord+" takes the first loss, 20.4.7)"
		} else if u = g.lossTaker(us); u != nil {
			why = g.lossWhy
		}
		if u == nil {
			conv++
			continue
		}
		out = append(out, g.takeLoss(u)+why)
	}
	if conv > 0 {
		out = append(out, fmt.Sprintf("%d %s", conv, convWord))
	}
	if len(out) == 0 {
		out = append(out, "none")
	}
	return out, conv
}
