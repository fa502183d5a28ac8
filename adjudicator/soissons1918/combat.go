package soissons1918

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Order kinds of rule 20.
const (
	kAssault = "assault" // ASSAULT: a combat of the assault segment (4.2 C.4, 20.2)
	kAttack  = "attack"  // ATTACK: a combat of the improvised attack segment (4.2 C.7)
	kLead    = "lead"    // LEAD, standing: the defender's lead unit (20.4.2)
	kXResult = "xresult" // XRESULT, standing: the attacker's choice for X (20.4.7)
)

// Declaration is one combat as the attacker declares it (20, 20.4.1, 20.4.2): the
// target hex(es), the attacking units (ids, or hexes for every unit there that may
// attack), the coordinating HQ, the lead unit and the value of X; empty fields take
// the defaults of HELP.
type Declaration struct {
	Kind    string // kAssault or kAttack
	Targets []hex.Hex
	With    []string // unit ids and hexes, as written
	HQ      string
	Lead    string
	X       int // 0: the standing XRESULT order, else the default
}

// String is the canonical order text.
func (d Declaration) String() string {
	w := []string{map[string]string{kAssault: "ASSAULT", kAttack: "ATTACK"}[d.Kind], hex.Join(d.Targets, ","), "WITH", strings.Join(d.With, ",")}
	if d.HQ != "" {
		w = append(w, "HQ", d.HQ)
	}
	if d.Lead != "" {
		w = append(w, "LEAD", d.Lead)
	}
	if d.X != 0 {
		w = append(w, "X", strconv.Itoa(d.X))
	}
	return strings.Join(w, " ")
}

// isHexWord reports whether w is written as a hex id (four digits) rather than a unit.
func isHexWord(w string) bool {
	if len(w) != 4 {
		return false
	}
	for _, r := range w {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// parseCombat reads ASSAULT|ATTACK <hex>[,<hex>] WITH <unit|hex>[,...] [HQ <hq>]
// [LEAD <unit>] [X 1|2]. FROM is read as WITH.
func (sc *Scenario) parseCombat(f []string) (Declaration, error) {
	d := Declaration{Kind: kAssault}
	if orders.EqualFold(f[0], "ATTACK") {
		d.Kind = kAttack
	}
	want := fmt.Errorf("want %s <hex>[,<hex>] WITH <unit or hex>[,...] [HQ <hq>] [LEAD <unit>] [X 1|2], e.g. %s 0904 WITH 1US HQ XX", orders.Upper(f[0]), orders.Upper(f[0]))
	if len(f) < 4 {
		return d, want
	}
	for _, w := range strings.Split(f[1], ",") {
		h, err := hex.Parse(w)
		if err != nil || !sc.Map.OnMap(h) {
			return d, fmt.Errorf("target %q: want hexes on the map, e.g. 0904 or 0904,0905 (20)", w)
		}
		if slices.Contains(d.Targets, h) {
			return d, fmt.Errorf("target %s named twice", h)
		}
		d.Targets = append(d.Targets, h)
	}
	for i := 2; i < len(f); i += 2 {
		if i+1 >= len(f) {
			return d, want
		}
		v := f[i+1]
		switch orders.Upper(f[i]) {
		case "WITH", "FROM":
			if d.With != nil {
				return d, want
			}
			for _, w := range strings.Split(v, ",") {
				if w == "" {
					continue
				}
				if isHexWord(w) {
					h, err := hex.Parse(w)
					if err != nil || !sc.Map.OnMap(h) {
						return d, fmt.Errorf("%s is not a hex on the map", w)
					}
					d.With = append(d.With, h.String())
					continue
				}
				c, ok := sc.Counter(w)
				if !ok || !c.Combat() {
					return d, fmt.Errorf("attacker %q: want a division or regiment id, or a hex (20)", w)
				}
				d.With = append(d.With, c.ID)
			}
		case "HQ":
			c, ok := sc.Counter(v)
			if !ok || c.Kind != KindHQ {
				return d, fmt.Errorf("HQ %q: want a corps HQ id (20.4.1)", v)
			}
			d.HQ = c.ID
		case "LEAD":
			c, ok := sc.Counter(v)
			if !ok || !c.Combat() {
				return d, fmt.Errorf("LEAD %q: want one of the attacking units (20.4.2)", v)
			}
			d.Lead = c.ID
		case "X":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 || n > 2 {
				return d, fmt.Errorf("X %q: want 1 or 2 (20.4.7)", v)
			}
			d.X = n
		default:
			return d, want
		}
	}
	if len(d.With) == 0 {
		return d, want
	}
	return d, nil
}

// parseStanding reads the standing orders of combat: LEAD <unit>,... | LEAD DEFAULT
// (20.4.2) and XRESULT 1|2|DEFAULT (20.4.7).
func (sc *Scenario) parseStanding(kw string, f []string) (kind, text string, err error) {
	if len(f) != 2 {
		if kw == "LEAD" {
			return "", "", fmt.Errorf("want LEAD <unit>,<unit>,... (your lead defender, first choice first) or LEAD DEFAULT")
		}
		return "", "", fmt.Errorf("want XRESULT 1, XRESULT 2 or XRESULT DEFAULT")
	}
	v := orders.Upper(f[1])
	if kw == "XRESULT" {
		if v != "1" && v != "2" && v != "DEFAULT" {
			return "", "", fmt.Errorf("want XRESULT 1, XRESULT 2 or XRESULT DEFAULT")
		}
		return kXResult, "XRESULT " + v, nil
	}
	if v == "DEFAULT" {
		return kLead, "LEAD DEFAULT", nil
	}
	var ids []string
	for _, w := range strings.Split(f[1], ",") {
		c, ok := sc.Counter(w)
		if !ok || !c.Combat() {
			return "", "", fmt.Errorf("LEAD: %q is not a division or regiment", w)
		}
		ids = append(ids, c.ID)
	}
	return kLead, "LEAD " + strings.Join(ids, ","), nil
}

// segmentState is what one combat segment remembers (20, 20.2): the defenders
// attacked and the units that attacked, each once a segment.
type segmentState struct {
	attacked  map[string]bool
	attackers map[string]bool
}

func (g *game) segState() *segmentState {
	if g.seg == nil {
		g.seg = &segmentState{attacked: map[string]bool{}, attackers: map[string]bool{}}
	}
	return g.seg
}

// combat is a declaration checked against the state: who attacks with what strength,
// who defends, who leads, and where each choice came from.
type combat struct {
	d         Declaration
	side      rules.Side
	attackers []*Unit
	strength  map[string]int
	why       map[string]string // each attacker's strength, explained (20.4.3)
	skipped   []string          // units of a named hex that may not attack, and why
	defenders []*Unit
	hq        string
	hqWhy     string
	lead      *Unit
	leadWhy   string
}

func (c *combat) attackHexes(g *game) []hex.Hex {
	var out []hex.Hex
	for _, u := range c.attackers {
		if h := g.hexOf(u); !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	return out
}

// spent reports whether u is a spent division (7: reduced to 5 SP).
func (g *game) spent(u *Unit) bool {
	return g.counter(u).Kind == KindDivision && g.strength(u) <= 5
}

// mayAttack says why u may not initiate combat in this segment, or "" (20.2, 20.3,
// 20.4.3, 7, 8).
func (g *game) mayAttack(u *Unit, d Declaration) string {
	switch {
	case u.Remnant:
		return "remnants cannot attack (8)"
	case g.spent(u):
		return "a spent division cannot attack (7)"
	case u.Dis == Shocked:
		return "Shocked units may never attack (20.4.3)"
	case d.Kind == kAssault && !u.Prepare:
		return "no Prepare marker (20.3)"
	case d.Kind == kAttack && (u.Improvised == "" || !slices.Contains(d.Targets, hex.MustParse(u.Improvised))):
		return "no Improvised Attack marker pointing at a target hex (20.3, 4.2 C.7)"
	case g.segState().attackers[u.ID]:
		return "has attacked already in this segment (20.2: once per segment)"
	}
	return ""
}

// attackStrength is u's attack strength in an attack coordinated by hq (20.4.3's
// table), with the reason; ok is false when u may not attack.
func (g *game) attackStrength(u *Unit, hq string) (sp int, why string, ok bool) {
	full := g.strength(u)
	sub := g.corps(u) == hq
	cmd := g.inCommand(u)
	good := u.Dis == GoodOrder
	subW := map[bool]string{true: "subordinated to " + hq, false: "not subordinated to " + hq}[sub]
	cmdW := map[bool]string{true: "in command", false: "out of command"}[cmd]
	disW := DisruptionNames[u.Dis]
	switch {
	case u.Dis == Shocked:
		return 0, "Shocked", false
	case sub && cmd && good:
		return full, fmt.Sprintf("%d (full: %s, %s, %s)", full, subW, cmdW, disW), true
	case sub && cmd:
		return full / 2, fmt.Sprintf("%d (half of %d: %s)", full/2, full, disW), true
	case good && (sub || cmd):
		return full / 2, fmt.Sprintf("%d (half of %d: %s, %s)", full/2, full, subW, cmdW), true
	}
	return 0, fmt.Sprintf("%s, %s, %s: no attack (20.4.3)", subW, cmdW, disW), false
}

// declare checks a declaration against the state as it is (20, 20.3, 20.4.1-20.4.3)
// and works out its attackers, defenders, HQ and lead unit.
func (g *game) declare(side rules.Side, d Declaration) (*combat, error) {
	c := &combat{d: d, side: side, strength: map[string]int{}, why: map[string]string{}}
	if phasing(g.st.P) != side {
		return nil, fmt.Errorf("only the phasing player attacks (20)")
	}
	enemy := sides.Other(side)
	seg := g.segState()
	for _, t := range d.Targets {
		ds := g.combatAt(t, enemy)
		if len(ds) == 0 {
			return nil, fmt.Errorf("%s holds no enemy combat unit (20)", t)
		}
		for _, u := range ds {
			if seg.attacked[u.ID] {
				return nil, fmt.Errorf("%s in %s has been attacked already in this segment (20: each defending unit only once per combat segment)", u.ID, t)
			}
		}
		c.defenders = append(c.defenders, ds...)
	}
	// The attackers: named units, and the units of named hexes that may attack.
	type cand struct {
		u     *Unit
		named bool
	}
	var cands []cand
	for _, w := range d.With {
		if isHexWord(w) {
			n := 0
			for _, u := range g.combatAt(hex.MustParse(w), side) {
				if why := g.mayAttack(u, d); why != "" {
					c.skipped = append(c.skipped, u.ID+": "+why)
					continue
				}
				cands = append(cands, cand{u, false})
				n++
			}
			if n == 0 {
				return nil, fmt.Errorf("none of your units in %s may attack (20.3)%s", w, listWhy(c.skipped))
			}
			continue
		}
		u, err := g.own(side, w)
		if err != nil {
			return nil, err
		}
		if u.Where != OnMap {
			return nil, fmt.Errorf("%s is not on the map", w)
		}
		if why := g.mayAttack(u, d); why != "" {
			return nil, fmt.Errorf("%s may not attack: %s", w, why)
		}
		cands = append(cands, cand{u, true})
	}
	for _, k := range cands {
		if slices.Contains(c.attackers, k.u) {
			return nil, fmt.Errorf("%s is named twice", k.u.ID)
		}
		c.attackers = append(c.attackers, k.u)
	}
	// 20: the two configurations, never many hexes into many.
	ah := c.attackHexes(g)
	if len(d.Targets) > 1 && len(ah) > 1 {
		return nil, fmt.Errorf("attackers in %d hexes against %d hexes: a combat is units in one or more hexes against one hex, or one hex against several, never many into many (20)", len(ah), len(d.Targets))
	}
	for _, u := range c.attackers {
		for _, t := range d.Targets {
			if !g.sc.Map.Grid.Adjacent(g.hexOf(u), t) {
				return nil, fmt.Errorf("%s in %s is not next to %s (20: adjacent enemy units)", u.ID, u.Hex, t)
			}
		}
	}
	// 20.4.1: the coordinating HQ; by default the one under which the attack is strongest.
	c.hq, c.hqWhy = d.HQ, "the attacker's order"
	if c.hq == "" {
		best := -1
		for _, u := range c.attackers {
			hq := g.corps(u)
			if hq == "" {
				continue
			}
			total := 0
			for _, v := range c.attackers {
				if sp, _, ok := g.attackStrength(v, hq); ok {
					total += sp
				}
			}
			if total > best {
				best, c.hq = total, hq
			}
		}
		c.hqWhy = "default: the HQ under which the attack is strongest"
	}
	if hq := g.st.unit(c.hq); hq == nil || g.sideOf(hq) != side || hq.Where != OnMap {
		return nil, fmt.Errorf("HQ %s is not one of your HQs on the map (20.4.1)", c.hq)
	}
	var kept []*Unit
	for _, u := range c.attackers {
		sp, why, ok := g.attackStrength(u, c.hq)
		if !ok {
			if slices.ContainsFunc(cands, func(k cand) bool { return k.u == u && k.named }) {
				return nil, fmt.Errorf("%s may not attack under HQ %s: %s", u.ID, c.hq, why)
			}
			c.skipped = append(c.skipped, u.ID+": "+why)
			continue
		}
		c.strength[u.ID], c.why[u.ID] = sp, why
		kept = append(kept, u)
	}
	c.attackers = kept
	if len(c.attackers) == 0 {
		return nil, fmt.Errorf("no unit may attack under HQ %s (20.4.3)%s", c.hq, listWhy(c.skipped))
	}
	// 20.4.2: the lead unit, subordinated to the HQ and, if possible, in command.
	var subs, inCmd []*Unit
	for _, u := range c.attackers {
		if g.corps(u) == c.hq {
			subs = append(subs, u)
			if g.inCommand(u) {
				inCmd = append(inCmd, u)
			}
		}
	}
	if len(subs) == 0 {
		return nil, fmt.Errorf("no attacking unit is subordinated to HQ %s to lead the attack (20.4.2)", c.hq)
	}
	pool := subs
	if len(inCmd) > 0 {
		pool = inCmd
	}
	if d.Lead != "" {
		l := g.st.unit(d.Lead)
		switch {
		case !slices.Contains(c.attackers, l):
			return nil, fmt.Errorf("LEAD %s is not one of the attackers (20.4.2)", d.Lead)
		case g.corps(l) != c.hq:
			return nil, fmt.Errorf("LEAD %s is not subordinated to HQ %s (20.4.2)", d.Lead, c.hq)
		case !slices.Contains(pool, l):
			return nil, fmt.Errorf("LEAD %s is out of command while another attacker of HQ %s is in command (20.4.2: \"if possible, in command\")", d.Lead, c.hq)
		}
		c.lead, c.leadWhy = l, "the attacker's order"
	} else {
		c.lead = slices.MaxFunc(pool, func(a, b *Unit) int {
			if d := g.counter(a).Stars - g.counter(b).Stars; d != 0 {
				return d
			}
			return c.strength[a.ID] - c.strength[b.ID]
		})
		c.leadWhy = "default: the most combative, then the strongest"
	}
	return c, nil
}

func listWhy(ws []string) string {
	if len(ws) == 0 {
		return ""
	}
	return ": " + strings.Join(ws, "; ")
}

// combatKey is the key of a combat order (20: combats are resolved "one combat at a
// time, at the attacker's discretion", in the order written): a number after every
// one side's combats of the step have taken, on file (withdrawn ones included: CANCEL
// keeps a number taken, cancel.go) or earlier in the mail, so that orders on file keep
// the order they were written in and never replace each other.
func combatKey(filed []rules.Order, earlier []rules.Checked, phase string, side rules.Side) string {
	n := 0
	for _, o := range filed {
		if o.Phase == phase && o.Side == side {
			n = max(n, combatNumber(o.Key))
		}
	}
	for _, c := range earlier {
		for _, o := range c.Orders {
			if o.Phase == phase && o.Side == side {
				n = max(n, combatNumber(o.Key))
			}
		}
	}
	return fmt.Sprintf("combat %03d", n+1)
}

// preloadFiled applies, before a mail with orders for the current step (or one
// that withdrew orders of it) is checked, side's orders on file for that step from
// earlier mails, in the order resolution will take them (rank, then as written): an
// ATTACK sent after its IMPROVISE finds the marker; a second MOVE of a unit, BOMBARD
// of a hex or REINFORCE of a unit is refused now rather than "not carried out" at
// resolution; a BOMBARD counts the points the earlier ones spent.
func (g *game) preloadFiled(side rules.Side, cur string, filed []rules.Order, items []item, now []int, withdrew bool) {
	needed := withdrew
	texts := map[string]bool{}
	for _, i := range now {
		texts[items[i].text] = true
		needed = needed || preloaded[items[i].kind] || items[i].kind == kAssault || items[i].kind == kAttack
	}
	if !needed {
		return
	}
	var earlier []item
	for _, o := range filed {
		if o.Phase != cur || o.Side != side || texts[o.Text] || !preloaded[o.Kind] {
			continue
		}
		if it := g.sc.parseLine(orders.Line{Text: o.Text, Fields: strings.Fields(o.Text)}); it.err == nil {
			earlier = append(earlier, it)
		}
	}
	slices.SortStableFunc(earlier, func(a, b item) int {
		return cmp.Compare(rank(cur, side, a.kind), rank(cur, side, b.kind))
	})
	for _, it := range earlier {
		_ = g.apply(side, it) // checked when it was filed
	}
}

// preloaded are the kinds of order preloadFiled applies: those the order check
// carries out on its copy of the state (combats are checked by checkCombats, set-up
// by its own 3.1 check).
var preloaded = map[string]bool{kReinforce: true, kTank: true, kBombard: true, kMove: true,
	kPrepare: true, kImprovise: true, kFallBack: true, kPursue: true}

// checkCombats checks a mail's combat orders for the current step together with
// side's combat orders on file for it, in the order they will be resolved (20), and
// refuses the mail's lines that fail, ZOC obligation (13.2) included. A combat on file
// that no longer stands once the mail's CANCEL lines (cancels) have withdrawn orders
// of the step (its marker, or another combat that covered a ZOC) refuses them.
func (g *game) checkCombats(side rules.Side, cur string, filed []rules.Order, items []item, fights, cancels []int, out []rules.Checked) {
	var ds []Declaration
	var line []int // index into out, -1 for an order on file
	var onFile []rules.Order
	for _, o := range filed {
		if o.Phase != cur || o.Side != side || (o.Kind != kAssault && o.Kind != kAttack) {
			continue
		}
		it := g.sc.parseLine(orders.Line{Text: o.Text, Fields: strings.Fields(o.Text)})
		if it.err == nil {
			ds = append(ds, it.combat)
			line = append(line, -1)
			onFile = append(onFile, o)
		}
	}
	for _, i := range fights {
		ds = append(ds, items[i].combat)
		line = append(line, i)
	}
	_, errs := g.planSegment(side, ds)
	for k, err := range errs {
		switch {
		case err == nil:
		case line[k] >= 0:
			out[line[k]].OK, out[line[k]].Reason = false, err.Error()
		default:
			why := fmt.Sprintf("once this mail's CANCEL lines are carried out, %s on file no longer stands: %v; withdraw it too, or give what it needs in this mail", onFile[k].Summary, err)
			for _, i := range cancels {
				if !out[i].OK {
					why = out[i].Reason + "; " + why
				}
				out[i].OK, out[i].Orders, out[i].Reason = false, nil, why
			}
		}
	}
}
