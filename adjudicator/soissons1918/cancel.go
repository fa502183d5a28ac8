package soissons1918

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// CANCEL withdraws orders on file that are not resolved yet: those of the step the
// game is at and those sent early for a later step. The rulebook has no such rule; by
// mail it is how a player keeps what is his until the step is resolved (20: combats
// are "designated ... at the attacker's discretion"). A second mail adds to the
// orders on file, and combats never replace each other (combatKey), so a mistaken
// order is withdrawn, not overwritten.
//
// A withdrawn order stays on file, with its key and kind kWithdrawn, until its step
// is resolved: the desk replaces an order by filing another with the same key, and
// the key keeps its combat number taken, so that the next declaration gets a new
// one. A withdrawn order is not resolved (Resolve), does not count as an answer to its
// step (hasOrder), and is reported to its side.

// cancelTarget is how a CANCEL names the orders of one keyword.
type cancelTarget struct {
	kind string
	what string // "number", "hex", "unit", or "" (the keyword alone: PASS, SETUP)
	rule string
}

// cancelWords are the keywords whose orders CANCEL withdraws.
var cancelWords = map[string]cancelTarget{
	"ASSAULT":   {kAssault, "number", "20"},
	"ATTACK":    {kAttack, "number", "20"},
	"BOMBARD":   {kBombard, "hex", "17.4"},
	"MOVE":      {kMove, "unit", "19"},
	"FALLBACK":  {kFallBack, "unit", "19.6"},
	"PREPARE":   {kPrepare, "unit", "19.4"},
	"IMPROVISE": {kImprovise, "unit", "19.4.1"},
	"PURSUE":    {kPursue, "unit", "19.7"},
	"ADVANCE":   {kAdvance, "unit", "19.5"},
	"REINFORCE": {kReinforce, "unit", "18.1"},
	"TANK":      {kTank, "unit", "9.2"},
	"PLACE":     {kPlace, "unit", "3.1"},
	"PASS":      {kPass, "", "4.2"},
	"SETUP":     {kSetup, "", "3.1"},
}

// cancelSpec is one CANCEL line: CANCEL ALL, CANCEL <keyword> ALL, CANCEL PASS,
// CANCEL SETUP, CANCEL ASSAULT|ATTACK <n>[,<n>...], CANCEL BOMBARD <hex>[,<hex>...],
// or CANCEL <keyword> <unit>[,<unit>...].
type cancelSpec struct {
	word   string // the keyword of the orders withdrawn; "" for CANCEL ALL
	target cancelTarget
	all    bool
	nums   []int
	hexes  []hex.Hex
	units  []string
	rule   string
}

// String is the canonical text of the line.
func (c cancelSpec) String() string {
	w := []string{"CANCEL"}
	if c.word != "" {
		w = append(w, c.word)
	}
	switch {
	case c.target.what == "" && c.word != "":
	case c.all:
		w = append(w, "ALL")
	case len(c.nums) > 0:
		s := make([]string, len(c.nums))
		for i, n := range c.nums {
			s[i] = strconv.Itoa(n)
		}
		w = append(w, strings.Join(s, ","))
	case len(c.hexes) > 0:
		w = append(w, hex.Join(c.hexes, ","))
	default:
		w = append(w, strings.Join(c.units, ","))
	}
	return strings.Join(w, " ")
}

// standingDefaults says how each standing order is put back to its default: standing
// orders are replaced, never withdrawn (HELP).
var standingDefaults = map[string]string{
	"LEAD": "LEAD DEFAULT", "XRESULT": "XRESULT DEFAULT", "LOSSES": "LOSSES DEFAULT",
	"RETREAT": "RETREAT <unit> DEFAULT or RETREAT ALL LINE", "CONVERT": "CONVERT NONE",
	"SPENT": "a new SPENT order",
}

// parseCancel reads a CANCEL line.
func (sc *Scenario) parseCancel(f []string) (cancelSpec, error) {
	c := cancelSpec{rule: "4.2"}
	want := fmt.Errorf("want CANCEL ALL, CANCEL ASSAULT 2, CANCEL ATTACK 1,3, CANCEL BOMBARD 0904, CANCEL MOVE 1US, CANCEL PASS or CANCEL <order> ALL (see HELP)")
	if len(f) < 2 || len(f) > 3 {
		return c, want
	}
	w := orders.Upper(f[1])
	if w == "ALL" && len(f) == 2 {
		c.all = true
		return c, nil
	}
	if d, ok := standingDefaults[w]; ok {
		return c, fmt.Errorf("%s is a standing order: it is not withdrawn but replaced; send %s for the default", w, d)
	}
	t, ok := cancelWords[w]
	if !ok {
		return c, want
	}
	c.word, c.target, c.rule = w, t, t.rule
	if t.what == "" {
		if len(f) != 2 {
			return c, fmt.Errorf("want CANCEL %s alone", w)
		}
		c.all = true
		return c, nil
	}
	if len(f) != 3 {
		return c, fmt.Errorf("want CANCEL %s <%s>[,<%s>...] or CANCEL %s ALL", w, t.what, t.what, w)
	}
	if orders.EqualFold(f[2], "ALL") {
		c.all = true
		return c, nil
	}
	for _, v := range strings.Split(f[2], ",") {
		if v == "" {
			continue
		}
		switch t.what {
		case "number":
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return c, fmt.Errorf("%q: want the number of the %s as the order check and STATUS list it, e.g. CANCEL %s 2", v, strings.ToLower(w), w)
			}
			c.nums = append(c.nums, n)
		case "hex":
			h, err := hex.Parse(v)
			if err != nil || !sc.Map.OnMap(h) {
				return c, fmt.Errorf("%q: want the hex the BOMBARD targets, e.g. CANCEL BOMBARD 0904", v)
			}
			c.hexes = append(c.hexes, h)
		case "unit":
			u, ok := sc.Counter(v)
			if !ok {
				return c, fmt.Errorf("no unit %q: write ids as in STATUS, e.g. CANCEL %s 1US", v, w)
			}
			c.units = append(c.units, u.ID)
		}
	}
	if len(c.nums)+len(c.hexes)+len(c.units) == 0 {
		return c, want
	}
	return c, nil
}

// combatNumber is the number of a combat order's key ("combat 002" is 2), or 0.
func combatNumber(key string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(key, "combat "))
	if err != nil || !strings.HasPrefix(key, "combat ") {
		return 0
	}
	return n
}

// combatLabel names a combat for its side: "assault 2", "attack 1".
func combatLabel(kind, key string) string {
	return fmt.Sprintf("%s %d", kind, combatNumber(key))
}

// withdrawable reports whether o is an order CANCEL may withdraw: one of a step, of a
// kind CANCEL names, not already withdrawn.
func withdrawable(o rules.Order) bool {
	if o.Phase == phaseStanding || o.Kind == kWithdrawn {
		return false
	}
	for _, t := range cancelWords {
		if t.kind == o.Kind {
			return true
		}
	}
	return false
}

// liveOrders is filed without the orders withdrawn.
func liveOrders(filed []rules.Order) []rules.Order {
	return slices.DeleteFunc(slices.Clone(filed), func(o rules.Order) bool { return o.Kind == kWithdrawn })
}

// withdrawnPrefix starts the text of a withdrawn record; the order's own text follows.
const withdrawnPrefix = "WITHDRAWN: "

// matches reports whether the order of kind kind with text text and key key is one
// that c names by target i (its i-th number, hex or unit), or by ALL when i < 0.
func (sc *Scenario) matches(c cancelSpec, kind, key, text string, i int) bool {
	if c.word != "" && kind != c.target.kind {
		return false
	}
	if i < 0 {
		return true
	}
	switch c.target.what {
	case "number":
		return combatNumber(key) == c.nums[i]
	case "hex":
		it := sc.parseLine(orders.Line{Text: text, Fields: strings.Fields(text)})
		return it.err == nil && it.bombard.Target == c.hexes[i]
	case "unit":
		it := sc.parseLine(orders.Line{Text: text, Fields: strings.Fields(text)})
		return it.err == nil && (slices.Contains(it.units, c.units[i]) || it.tank == c.units[i])
	}
	return false
}

// targetName names target i of c for a refusal: "ASSAULT 2", "MOVE of 1US".
func (c cancelSpec) targetName(i int) string {
	switch {
	case c.word == "":
		return "order"
	case i < 0 && c.target.what == "":
		return c.word
	case i < 0:
		return c.word + " order"
	case c.target.what == "number":
		return fmt.Sprintf("%s %d", c.word, c.nums[i])
	case c.target.what == "hex":
		return fmt.Sprintf("%s of %s", c.word, c.hexes[i])
	}
	return fmt.Sprintf("%s of %s", c.word, c.units[i])
}

// withdraw answers a CANCEL line: the records that withdraw the orders of live it
// names, each replacing its order (same phase, side and key), and what was
// withdrawn; or why nothing is. gone holds the orders withdrawn already.
func (r *Rules) withdraw(st *State, side rules.Side, c cancelSpec, live, gone []rules.Order) ([]rules.Order, string, error) {
	mine := func(list []rules.Order) []rules.Order {
		return slices.DeleteFunc(slices.Clone(list), func(o rules.Order) bool { return o.Side != side || !withdrawable(o) && o.Kind != kWithdrawn })
	}
	live, gone = mine(live), mine(gone)
	targets := []int{-1}
	if n := len(c.nums) + len(c.hexes) + len(c.units); n > 0 {
		targets = make([]int, n)
		for i := range targets {
			targets[i] = i
		}
	}
	var picked []rules.Order
	var missing []string
	for _, i := range targets {
		found := false
		for _, o := range live {
			if r.sc.matches(c, o.Kind, o.Key, o.Text, i) {
				found = true
				if !slices.ContainsFunc(picked, func(p rules.Order) bool { return p.ID() == o.ID() }) {
					picked = append(picked, o)
				}
			}
		}
		if !found {
			missing = append(missing, r.notOnFile(st, side, c, i, gone))
		}
	}
	if len(missing) > 0 {
		return nil, "", fmt.Errorf("%s", strings.Join(missing, "; "))
	}
	var out []rules.Order
	var what []string
	for _, o := range picked {
		summary := o.Summary
		if o.Kind == kAssault || o.Kind == kAttack {
			summary = combatLabel(o.Kind, o.Key) + ": " + o.Text // filed before combats showed their number
		}
		out = append(out, rules.Order{Phase: o.Phase, Side: o.Side, Key: o.Key, Kind: kWithdrawn,
			Text: withdrawnPrefix + o.Text, Summary: "withdrawn: " + summary})
		what = append(what, fmt.Sprintf("%s (%s)", summary, shortStep(o.Phase)))
	}
	return out, "withdrawn: " + strings.Join(what, "; "), nil
}

// notOnFile says why target i of c names no order on file: withdrawn already, never
// sent, or resolved with its step.
func (r *Rules) notOnFile(st *State, side rules.Side, c cancelSpec, i int, gone []rules.Order) string {
	name := c.targetName(i)
	why := fmt.Sprintf("you have no %s on file that is not resolved yet (STATUS lists your orders on file)", name)
	for _, o := range gone {
		text := strings.TrimPrefix(o.Text, withdrawnPrefix)
		it := r.sc.parseLine(orders.Line{Text: text, Fields: strings.Fields(text)})
		switch {
		case it.err != nil || !r.sc.matches(c, it.kind, o.Key, text, i):
		case i >= 0:
			return fmt.Sprintf("your %s is withdrawn already (%s)", name, strings.TrimPrefix(o.Summary, "withdrawn: "))
		default:
			return why + "; those you sent are withdrawn already"
		}
	}
	if c.word == "" {
		return why
	}
	if past := lastStep(st, side, c.target.kind); past != "" {
		why += fmt.Sprintf("; orders for %s were resolved with it and can no longer be withdrawn", past)
	}
	return why
}

// lastStep names the latest step before the current one, in this turn or the one
// before, that an order of kind from side is for, or "".
func lastStep(st *State, side rules.Side, kind string) string {
	fits, _, err := stepFor(side, kind)
	if err != nil || st.T == 0 {
		return ""
	}
	for t := st.T; t >= max(1, st.T-1); t-- {
		ss := steps(t)
		if t == st.T {
			ss = ss[:max(0, slices.Index(ss, st.P))]
		}
		for j := len(ss) - 1; j >= 0; j-- {
			if fits(t, ss[j]) {
				return shortStep(orders.PhaseKey(t, ss[j]))
			}
		}
	}
	return ""
}

// shortStep names a step key for a line of the order check: "18 July PM, Entente
// step 1".
func shortStep(key string) string {
	s := stepTitle(key)
	s, _, _ = strings.Cut(s, ":")
	s, _, _ = strings.Cut(s, " (")
	return s
}

// withdrawn tells side, when its step is resolved, that an order it withdrew was not
// carried out.
func (g *game) withdrawn(o rules.Order) {
	text := strings.TrimPrefix(o.Text, withdrawnPrefix)
	it := g.sc.parseLine(orders.Line{Text: text, Fields: strings.Fields(text)})
	g.EventTo(it.rule, []rules.Side{o.Side}, "%s: withdrawn by your CANCEL, not carried out", strings.TrimPrefix(o.Summary, "withdrawn: "))
}
