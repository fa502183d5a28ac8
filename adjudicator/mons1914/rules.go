// Package mons1914 adjudicates The Old Contemptibles: The Battle of Mons, 1914 (rulebook
// 004): the German 1st Army against the BEF, 14 game turns of a German player turn
// (movement, then bombardment and melee) and a British player turn in the sequence the
// British player declares (5.3). It is built on the shared kit: the map, the terrain
// effects table and the results tables are data files read by package board
// (data/README is the map's own header), and the map is drawn by package mapview.
//
// The ruleset is pure: state, orders and dice in; state and events out.
package mons1914

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Name is the ruleset's name in games and on the command line.
const Name = "mons1914"

// Rules is the Mons 1914 ruleset.
type Rules struct{ sc *Scenario }

var _ rules.Ruleset = (*Rules)(nil)

// New returns the ruleset with the scenario shipped in data/.
func New() (*Rules, error) {
	sc, err := LoadScenario()
	if err != nil {
		return nil, fmt.Errorf("load mons1914 scenario: %w", err)
	}
	return &Rules{sc: sc}, nil
}

// Scenario returns the loaded scenario.
func (r *Rules) Scenario() *Scenario { return r.sc }

// Name implements rules.Ruleset.
func (r *Rules) Name() string { return Name }

// Title implements rules.Ruleset.
func (r *Rules) Title() string { return "The Old Contemptibles: Mons, 1914" }

// Sides implements rules.Ruleset.
func (r *Rules) Sides() []rules.SideInfo { return slices.Clone(sides) }

// sides are the game's sides, as Sides gives them: the other side and a side's name.
var sides = rules.Sides{{ID: DE, Name: "German"}, {ID: BEF, Name: "British"}}

// OptionNames implements rules.Ruleset: the game has no optional rules.
func (r *Rules) OptionNames() map[string]string { return map[string]string{} }

// New implements rules.Ruleset: British units on their printed hexes (3.1), German
// units off the map (3.1, 8.0), the British in control of every hex (3.2), turn 1.
func (r *Rules) New(opts rules.Options) (rules.State, error) {
	for k, v := range opts {
		if v {
			return nil, fmt.Errorf("mons1914 has no option %q", k)
		}
	}
	st := &State{T: 1, P: PhaseGermanMove, Revision: Revision}
	g := newGame(r.sc, st)
	for _, c := range r.sc.Counters {
		st.Units = append(st.Units, Unit{ID: c.ID, Status: Waiting, Steps: c.Steps})
	}
	for _, c := range r.sc.Counters {
		if c.Side == BEF {
			g.place(st.unit(c.ID), c.Start)
		}
	}
	return st, nil
}

// Decode implements rules.Ruleset.
func (r *Rules) Decode(raw []byte) (rules.State, error) {
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("decode mons1914 state: %w", err)
	}
	return &st, nil
}

// Encode implements rules.Ruleset.
func (r *Rules) Encode(s rules.State) ([]byte, error) { return json.Marshal(s.(*State)) }

const (
	keyOrders   = "orders"
	keySequence = "sequence"
	keyLosses   = "losses"
	keyDefFire  = "deffire"
	keyHit      = "hit"
	phaseStand  = "standing"
)

// phaseOrder is the order of the phases in a turn.
var phaseOrder = []string{PhaseGermanMove, PhaseGermanCombat, PhaseBritish1, PhaseBritish2}

// route is the phase of the current turn an order line of side is for.
func route(st *State, side rules.Side, kind, seq string, afterThen bool) (string, error) {
	if side == DE {
		switch kind {
		case "move", "none-move":
			return PhaseGermanMove, nil
		case "combat", "none-combat":
			return PhaseGermanCombat, nil
		case "pass":
			if st.P == PhaseGermanMove || st.P == PhaseGermanCombat {
				return st.P, nil
			}
		case "sequence", "then":
			return "", fmt.Errorf("%s is the British player's (5.3)", orders.Upper(kind))
		}
		return "", fmt.Errorf("it is not your player turn")
	}
	first, second, _ := strings.Cut(seq, "/")
	want := map[string]string{"move": "move", "none-move": "move", "combat": "fight", "none-combat": "fight"}[kind]
	switch {
	case kind == "pass":
		if st.P == PhaseBritish1 || st.P == PhaseBritish2 {
			return st.P, nil
		}
		return "", fmt.Errorf("PASS is for the phase the game waits for; it is not your player turn")
	case first == second:
		if want != first {
			return "", fmt.Errorf("your sequence %s has no %s phase (5.3)", seq, map[string]string{"move": "movement", "fight": "combat"}[want])
		}
		// Sent during the second phase, the lines are for it: THEN is not needed.
		if afterThen || st.P == PhaseBritish2 {
			return PhaseBritish2, nil
		}
		return PhaseBritish1, nil
	case want == first:
		return PhaseBritish1, nil
	default:
		return PhaseBritish2, nil
	}
}

// Check implements rules.Ruleset.
func (r *Rules) Check(s rules.State, side rules.Side, lines []orders.Line, filed []rules.Order) []rules.Checked {
	st := s.(*State)
	var out []rules.Checked
	seq := st.Sequence
	if o, ok := rules.FindOrder(filed, orders.PhaseKey(st.T, PhaseBritish1), BEF, keySequence); ok && seq == "" {
		seq = strings.ToLower(strings.TrimPrefix(o.Text, "SEQUENCE "))
	}
	items := make([]item, len(lines))
	for i, l := range lines {
		items[i] = r.sc.parseLine(l)
		if items[i].kind == "sequence" && items[i].err == nil && side == BEF {
			seq = items[i].seq
		}
	}
	if seq == "" {
		seq = "move/fight"
	}
	byPhase := map[string][]int{}
	afterThen := false
	for i := range items {
		it := &items[i]
		c := rules.Checked{Line: it.line, Rule: it.rule}
		if it.err != nil {
			c.Reason = it.err.Error()
			out = append(out, c)
			continue
		}
		if why := st.laterForm(*it); why != "" {
			c.Reason = why
			out = append(out, c)
			continue
		}
		switch it.kind {
		case "top", "losses", "deffire", "hit":
			if it.kind == "hit" {
				if id := r.ownUnit(side, it.text); id != "" {
					c.Reason = fmt.Sprintf("%s is your own unit: HIT names the enemy attackers your defensive fire hits first (11.5)", id)
					out = append(out, c)
					continue
				}
			}
			if it.kind == "top" {
				// 6.6: the owner arranges his stack; a TOP naming an enemy unit
				// would show whether it is beneath the top of the enemy's stack.
				if id := r.ownUnit(sides.Other(side), it.text); id != "" {
					c.Reason = fmt.Sprintf("%s is not yours: TOP names the unit of your own stack shown on top (6.6)", id)
					out = append(out, c)
					continue
				}
			}
			key := map[string]string{"losses": keyLosses, "deffire": keyDefFire, "hit": keyHit, "top": "top " + it.line.Fields[1]}[it.kind]
			c.OK, c.Reason = true, "standing order, until replaced"
			c.Orders = []rules.Order{{Phase: phaseStand, Side: side, Key: key, Kind: "standing", Text: it.text, Summary: "standing order: " + it.text}}
			out = append(out, c)
			continue
		case "deffire-unit":
			// 11.2: the defender apportions his own units' fire; one standing order
			// per unit, so that a later line for a unit replaces only its own.
			f := strings.Fields(it.text)
			what := f[len(f)-1]
			if f[len(f)-2] == "AT" {
				f, what = f[:len(f)-1], "AT "+what
			}
			if id := r.ownUnit(sides.Other(side), strings.Join(f[:len(f)-1], " ")); id != "" {
				c.Reason = fmt.Sprintf("%s is not yours: DEFFIRE allots the defensive fire of your own units (11.2)", id)
				out = append(out, c)
				continue
			}
			c.OK, c.Reason = true, "standing order, until replaced"
			for _, id := range f[1 : len(f)-1] {
				text := "DEFFIRE " + id + " " + what
				c.Orders = append(c.Orders, rules.Order{Phase: phaseStand, Side: side, Key: keyDefFire + " " + id, Kind: "standing", Text: text, Summary: "standing order: " + text})
			}
			out = append(out, c)
			continue
		case "then":
			afterThen = true
			c.OK, c.Reason = true, "the lines below are for your second phase (5.3)"
			out = append(out, c)
			continue
		case "sequence":
			switch {
			case side != BEF:
				c.Reason = "the British player declares the sequence (5.3)"
			case st.P != PhaseGermanMove && st.P != PhaseGermanCombat && st.P != PhaseBritish1:
				c.Reason = "the sequence is declared at the start of the British player turn and fixed until the next (5.3)"
			default:
				c.OK, c.Reason = true, "declared for this turn's British player turn"
				c.Orders = []rules.Order{{Phase: orders.PhaseKey(st.T, PhaseBritish1), Side: BEF, Key: keySequence, Kind: "sequence", Text: it.text, Summary: "British sequence, turn " + strconv.Itoa(st.T)}}
			}
			out = append(out, c)
			continue
		}
		p, err := route(st, side, it.kind, seq, afterThen)
		if err == nil && slices.Index(phaseOrder, p) < slices.Index(phaseOrder, st.P) {
			err = fmt.Errorf("that phase of turn %d is over", st.T)
		}
		if st.Over() {
			err = fmt.Errorf("the game is over")
		}
		if err != nil {
			c.Reason = err.Error()
			out = append(out, c)
			continue
		}
		byPhase[p] = append(byPhase[p], len(out))
		out = append(out, c)
	}
	// Try the orders for the current phase on a copy of the state; hold the others.
	for _, p := range phaseOrder {
		idx := byPhase[p]
		if len(idx) == 0 {
			continue
		}
		var texts []string
		now := p == st.P
		g := newGame(r.sc, st.clone())
		allOK := true
		for _, k := range idx {
			it := &items[slices.IndexFunc(items, func(x item) bool { return x.line.No == out[k].Line.No })]
			out[k].OK = true
			if now {
				if err := g.execute(side, *it, nil); err != nil {
					out[k].OK, out[k].Reason = false, err.Error()
					if re, ok := err.(*ruleErr); ok {
						out[k].Rule = re.rule
					}
					allOK = false
					continue
				}
				out[k].Reason = "legal as the state stands"
			} else {
				out[k].Reason = "held for " + (&State{P: p, Sequence: seq}).PhaseTitle()
			}
			texts = append(texts, it.text)
		}
		if !allOK {
			continue
		}
		last := idx[len(idx)-1]
		out[last].Orders = []rules.Order{{Phase: orders.PhaseKey(st.T, p), Side: side, Key: keyOrders, Kind: "orders",
			Text: strings.Join(texts, "\n"), Summary: fmt.Sprintf("orders for turn %d, %s", st.T, (&State{P: p, Sequence: seq}).PhaseTitle())}}
	}
	return out
}

// standing holds both sides' standing orders for combat: loss orders (12.12), the
// defensive fire policy (11.2) and unit-by-unit allotment (11.1, 11.2: a hex, HOLD or
// DEFAULT by unit id), and HIT orders (11.5).
type standing struct {
	losses, hits map[rules.Side][]string
	policies     map[rules.Side]string
	allot        map[rules.Side]map[string]string
}

func newStanding() *standing {
	return &standing{losses: map[rules.Side][]string{}, hits: map[rules.Side][]string{},
		policies: map[rules.Side]string{}, allot: map[rules.Side]map[string]string{}}
}

// execute carries out one order line on g (check-only when d is nil).
func (g *game) execute(side rules.Side, it item, sto *standing) error {
	switch it.kind {
	case "move":
		return g.move(side, it.move)
	case "combat":
		if it.melee.Attackers != nil {
			return g.melee(side, it.melee, sto)
		}
		return g.bombard(side, it.bombard)
	}
	return nil
}

// Waiting implements rules.Ruleset.
func (r *Rules) Waiting(s rules.State, filed []rules.Order) []rules.Side {
	st := s.(*State)
	if st.Over() {
		return nil
	}
	side := DE
	if st.P == PhaseBritish1 || st.P == PhaseBritish2 {
		side = BEF
	}
	if _, ok := rules.FindOrder(filed, orders.PhaseKey(st.T, st.P), side, keyOrders); ok {
		return nil
	}
	return []rules.Side{side}
}

// Inputs implements rules.Ruleset.
func (r *Rules) Inputs(s rules.State, filed []rules.Order) []rules.Order {
	st := s.(*State)
	var in []rules.Order
	for _, o := range filed {
		if o.Phase == phaseStand || o.Phase == orders.PhaseKey(st.T, st.P) ||
			(st.P == PhaseBritish1 && o.Phase == orders.PhaseKey(st.T, PhaseBritish1)) {
			in = append(in, o)
		}
	}
	return in
}

// Defaults implements rules.Ruleset: nothing done in the phase (PASS); the German
// units due to enter still enter (8.3).
func (r *Rules) Defaults(s rules.State, side rules.Side, filed []rules.Order) []rules.Order {
	var out []rules.Order
	for _, c := range r.Check(s, side, []orders.Line{{No: 1, Text: "PASS", Fields: []string{"PASS"}}}, filed) {
		out = append(out, c.Orders...)
	}
	return out
}

// Resolve implements rules.Ruleset.
func (r *Rules) Resolve(s rules.State, inputs []rules.Order, d dice.Source) (rules.Outcome, error) {
	st := s.(*State).clone()
	g := newGame(r.sc, st)
	g.d = d
	var out rules.Outcome
	var own, seqOrder *rules.Order
	sto := newStanding()
	var tops []rules.Order
	for i := range inputs {
		o := &inputs[i]
		switch {
		case o.Phase == phaseStand && strings.HasPrefix(o.Key, "top "):
			tops = append(tops, *o)
		case o.Phase == phaseStand && o.Key == keyLosses:
			sto.losses[o.Side] = strings.Fields(o.Text)[1:]
		case o.Phase == phaseStand && o.Key == keyDefFire:
			sto.policies[o.Side] = strings.Fields(o.Text)[1]
		case o.Phase == phaseStand && strings.HasPrefix(o.Key, keyDefFire+" "):
			// "DEFFIRE <unit> AT <hex>", "... HOLD" or "... DEFAULT" (11.1, 11.2)
			f := strings.Fields(o.Text)
			if sto.allot[o.Side] == nil {
				sto.allot[o.Side] = map[string]string{}
			}
			sto.allot[o.Side][f[1]] = f[len(f)-1]
		case o.Phase == phaseStand && o.Key == keyHit:
			sto.hits[o.Side] = strings.Fields(o.Text)[1:]
		case o.Key == keySequence && o.Phase == orders.PhaseKey(st.T, PhaseBritish1):
			seqOrder = o
		case o.Key == keyOrders && o.Phase == orders.PhaseKey(st.T, st.P):
			own = o
			out.Consumed = append(out.Consumed, o.ID())
		}
	}
	if seqOrder != nil {
		out.Consumed = append(out.Consumed, seqOrder.ID())
	}
	r.applyTops(st, tops)
	side := DE
	switch st.P {
	case PhaseGermanMove:
		st.newPhase(nil)
	case PhaseGermanCombat:
		st.newPhase(func(w string) bool { return strings.HasPrefix(w, "marched ") })
	case PhaseBritish1:
		side = BEF
		st.newPhase(nil)
		st.Sequence = "move/fight"
		how := "default: none declared (5.3)"
		if seqOrder != nil {
			st.Sequence, how = strings.ToLower(strings.TrimPrefix(seqOrder.Text, "SEQUENCE ")), "as declared"
		}
		g.Event("5.3", "The British player turn of Game Turn %d goes %s (%s)", st.T, st.Sequence, how)
	case PhaseBritish2:
		side = BEF
		st.newPhase(nil)
	case PhaseOver:
		return out, fmt.Errorf("the game is over")
	}
	if own != nil {
		var lines []orders.Line
		for i, t := range strings.Split(own.Text, "\n") {
			lines = append(lines, orders.Line{No: i + 1, Text: t, Fields: strings.Fields(t)})
		}
		// 5.2: bombardment before melee in every combat phase.
		var bombards, melees []item
		for _, l := range lines {
			it := r.sc.parseLine(l)
			switch {
			case it.err != nil || it.kind == "pass" || strings.HasPrefix(it.kind, "none"):
			case it.kind == "combat" && it.melee.Attackers != nil:
				melees = append(melees, it)
			case it.kind == "combat":
				bombards = append(bombards, it)
			default:
				if err := g.execute(side, it, nil); err != nil {
					g.EventTo(ruleOf(err), []rules.Side{side}, "Not carried out: %s: %v", it.text, err)
				} else {
					g.EventTo(it.rule, []rules.Side{side}, "%s", it.text)
				}
			}
		}
		for _, it := range append(bombards, melees...) {
			if err := g.execute(side, it, sto); err != nil {
				// Told to the side that gave it only: the reason may name its units (6.6).
				g.EventTo(ruleOf(err), []rules.Side{side}, "Not carried out: %s: %v", it.text, err)
			}
		}
	}
	if st.P == PhaseGermanMove {
		g.autoEnter()
	}
	if moved := st.P == PhaseGermanMove || (st.P == PhaseBritish1 || st.P == PhaseBritish2) && strings.Contains(st.Sequence, "move"); moved && st.revised(1) {
		g.seenMoves(s.(*State), side)
	}
	switch st.P {
	case PhaseGermanMove:
		st.P = PhaseGermanCombat
	case PhaseGermanCombat:
		st.P = PhaseBritish1
	case PhaseBritish1:
		st.P = PhaseBritish2
	case PhaseBritish2:
		g.endOfTurn()
	}
	// The next phase starts afresh, so that orders sent for it are checked against
	// what has acted in it (nothing yet), not in the phase just resolved (9.2, 9.6).
	if st.revised(1) {
		st.newPhase(func(w string) bool { return st.P == PhaseGermanCombat && strings.HasPrefix(w, "marched ") })
	}
	out.State = st
	out.Events = g.Events
	return out, nil
}

func ruleOf(err error) string {
	if re, ok := err.(*ruleErr); ok {
		return re.rule
	}
	return "5.1"
}

// ownUnit returns the first unit of text's ids ("HIT a b") that is side's own, or "".
// applyTops sets the owners' choices of the top unit of their stacks (6.6). TOP
// orders stay on file when a stack moves on, and both sides' orders for a hex write the
// same entry: one whose unit stands in its hex now is applied after those whose unit
// does not, so that a stale order of the side that left never undoes the choice of the
// side there (his opponent would see the unit he keeps beneath). An order naming an
// enemy unit, filed before the check refused it, is ignored.
func (r *Rules) applyTops(st *State, tops []rules.Order) {
	there := func(o rules.Order) bool {
		f := strings.Fields(o.Text)
		u := st.unit(f[2])
		return u != nil && u.Status == OnMap && u.Hex == f[1]
	}
	slices.SortStableFunc(tops, func(a, b rules.Order) int {
		switch ta, tb := there(a), there(b); {
		case ta == tb:
			return 0
		case ta:
			return 1
		}
		return -1
	})
	for _, o := range tops {
		if r.ownUnit(sides.Other(o.Side), o.Text) != "" {
			continue
		}
		if st.Top == nil {
			st.Top = map[string]string{}
		}
		f := strings.Fields(o.Text)
		st.Top[f[1]] = f[2]
	}
}

func (r *Rules) ownUnit(side rules.Side, text string) string {
	for _, e := range strings.Fields(text)[1:] {
		id, _ := lossEntry(e)
		if c, ok := r.sc.Counter(id); ok && c.Side == side {
			return id
		}
	}
	return ""
}
