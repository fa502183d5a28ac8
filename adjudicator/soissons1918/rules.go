// Package soissons1918 adjudicates Soissons 1918, the second battle of the Marne
// (rulebook 002): the French Xth Army and its allies against the German 9th Army in 17
// turns of AM, PM and night from 18 to 23 July 1918. It is built on the shared kit: the
// map, the terrain effects table and the Bombardment Table are data files read by
// package board, and the map is drawn by package mapview.
//
// Each operational phase (4.2 C) is a few waiting steps, not one per segment: step 1
// (reinforcements, tanks, first mutual bombardment, assault), step 2 (maneuver, second
// mutual bombardment, improvised attack, advance after combat) and the other side's
// fall back (with the phasing side's pursuit given in advance); a night phase (4.2 I)
// is one step of bombardment and maneuver, then the fall back. Combat (20) is declared
// by the attacker with ASSAULT (step 1) and ATTACK (step 2) orders, resolved in the
// order written on the two combat tables of data/combat.txt (crt.go, combat.go,
// fight.go); retreats and the advance after combat (21, 19.5) are in retreat.go and
// advance.go. The defender's choices are standing orders (LEAD, LOSSES, CONVERT,
// RETREAT) with the defaults of HELP. A later mail adds to the orders on file; CANCEL
// withdraws any of them until its step is resolved (cancel.go).
//
// The ruleset is pure: state, orders and dice in; state and events out.
package soissons1918

import (
	"cmp"
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
const Name = "soissons1918"

// Rules is the Soissons 1918 ruleset.
type Rules struct{ sc *Scenario }

var _ rules.Ruleset = (*Rules)(nil)

// New returns the ruleset with the scenario shipped in data/.
func New() (*Rules, error) {
	sc, err := LoadScenario()
	if err != nil {
		return nil, fmt.Errorf("load soissons1918 scenario: %w", err)
	}
	return &Rules{sc: sc}, nil
}

// Scenario returns the loaded scenario.
func (r *Rules) Scenario() *Scenario { return r.sc }

// Name implements rules.Ruleset.
func (r *Rules) Name() string { return Name }

// Title implements rules.Ruleset.
func (r *Rules) Title() string { return "Soissons 1918, the second Marne" }

// Sides implements rules.Ruleset.
func (r *Rules) Sides() []rules.SideInfo { return slices.Clone(sides) }

// sides are the game's sides, as Sides gives them: the other side and a side's name.
var sides = rules.Sides{{ID: EN, Name: "Entente"}, {ID: DE, Name: "German"}}

// Keywords lists the first words of Soissons orders.
func (r *Rules) Keywords() []string { return Keywords }

// OptionNames implements rules.Ruleset: the game has no optional rules.
func (r *Rules) OptionNames() map[string]string { return map[string]string{} }

// New implements rules.Ruleset: every unit waiting to be set up or to arrive, the
// five tank groups in the Tank Assets box (3.1), towns east of the front line German
// and the others Entente (3.3); the German sets up first (3.1).
func (r *Rules) New(opts rules.Options) (rules.State, error) {
	for k, v := range opts {
		if v {
			return nil, fmt.Errorf("soissons1918 has no option %q", k)
		}
	}
	st := &State{P: StepSetupDE, Art: map[rules.Side]Artillery{EN: {}, DE: {}}, Control: map[string]rules.Side{}, Revision: Revision}
	for _, c := range r.sc.Counters {
		u := Unit{ID: c.ID, Where: Waiting}
		if c.Kind == KindTank && c.Arrive == 0 {
			u.Where = Box
		}
		st.Units = append(st.Units, u)
	}
	for _, t := range r.sc.Towns {
		st.Control[t.Name] = EN
		if r.sc.German(t.Hexes[0]) {
			st.Control[t.Name] = DE
		}
	}
	return st, nil
}

// Decode implements rules.Ruleset.
func (r *Rules) Decode(raw []byte) (rules.State, error) {
	var st State
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("decode soissons1918 state: %w", err)
	}
	return &st, nil
}

// Encode implements rules.Ruleset.
func (r *Rules) Encode(s rules.State) ([]byte, error) { return json.Marshal(s.(*State)) }

const phaseStanding = "standing"

// steps lists the waiting steps of turn t in order (4.1, 4.2): no German phase on 18
// July AM (22) nor on 23 July PM (3.2).
func steps(t int) []string {
	if Night(t) {
		return []string{"en" + StepNight, "en" + StepFall, "de" + StepNight, "de" + StepFall}
	}
	s := []string{"en" + StepOne, "en" + StepTwo, "en" + StepFall, "de" + StepOne, "de" + StepTwo, "de" + StepFall}
	if t == 1 || t == LastTurn {
		s = s[:3]
	}
	return s
}

// LastTurn is the 23 July PM turn (3.2).
const LastTurn = 17

// upcoming lists the keys of the current step and the following ones, through the
// next turn, for routing orders sent early.
func upcoming(st *State) []string {
	var out []string
	t, from := st.T, 0
	if st.T == 0 {
		out = append(out, orders.PhaseKey(0, st.P))
		if st.P == StepSetupDE {
			out = append(out, orders.PhaseKey(0, StepSetupEN))
		}
		t = 1
	} else {
		for i, s := range steps(t) {
			if s == st.P {
				from = i
			}
		}
	}
	for ; t <= min(st.T+1, LastTurn); t++ {
		for _, s := range steps(t)[from:] {
			out = append(out, orders.PhaseKey(t, s))
		}
		from = 0
	}
	return out
}

// route is the step an order of kind from side is for.
func route(st *State, side rules.Side, kind string) (string, error) {
	cur := orders.PhaseKey(st.T, st.P)
	if st.P == StepOver {
		return "", fmt.Errorf("the game is over")
	}
	switch kind {
	case kPass:
		if waits(st.P, side) {
			return cur, nil
		}
		return "", fmt.Errorf("PASS answers the step the game waits for, and it does not wait for you now")
	case kBombard:
		if st.T > 0 && mayBombard(st.P, side) {
			return cur, nil
		}
		return "", fmt.Errorf("you have no bombardment segment in the step the game is at (4.2 C.3, C.6, I.1; 17.2.3: at night only the phasing player); send it when that step comes")
	}
	fits, what, err := stepFor(side, kind)
	if err != nil {
		return "", err
	}
	for _, k := range upcoming(st) {
		t, s, _ := strings.Cut(k, ".")
		turn, _ := strconv.Atoi(t)
		if fits(turn, s) {
			return k, nil
		}
	}
	return "", fmt.Errorf("no %s is coming for you", what)
}

// stepFor tells which steps of the sequence (4.2) an order of kind from side is for,
// and names them for a refusal. PASS and BOMBARD answer the step the game is at
// (route).
func stepFor(side rules.Side, kind string) (fits func(turn int, s string) bool, what string, err error) {
	own := func(s string, steps ...string) bool {
		return len(s) > 2 && phasing(s) == side && !strings.HasPrefix(s, "setup") && slices.Contains(steps, s[2:])
	}
	switch kind {
	case kSetup, kPlace:
		return func(_ int, s string) bool { return s == "setup-"+string(side) }, "set-up step (3.1)", nil
	case kPass:
		return func(_ int, s string) bool { return waits(s, side) }, "step that waits for you", nil
	case kBombard:
		return func(t int, s string) bool { return t > 0 && mayBombard(s, side) }, "bombardment segment (4.2 C.3, C.6, I.1)", nil
	case kReinforce:
		return func(_ int, s string) bool { return own(s, StepOne, StepNight) }, "reinforcement segment (18.1)", nil
	case kTank:
		if side != EN {
			return nil, "", fmt.Errorf("tank groups are the Entente player's (2.3.1)")
		}
		return func(_ int, s string) bool { return own(s, StepOne) }, "tank assignment segment (4.2 C.2)", nil
	case kMove, kPrepare:
		return func(_ int, s string) bool { return own(s, StepTwo, StepNight) }, "maneuver segment (19.1)", nil
	case kAdvance:
		return func(_ int, s string) bool { return own(s, StepTwo) }, "advance after combat segment (4.2 C.8)", nil
	case kImprovise:
		return func(_ int, s string) bool { return own(s, StepTwo) }, "daytime maneuver segment (19.4.1)", nil
	case kAssault:
		return func(_ int, s string) bool { return own(s, StepOne) }, "assault segment of yours (4.2 C.4, 20.2)", nil
	case kAttack:
		return func(_ int, s string) bool { return own(s, StepTwo) }, "improvised attack segment of yours (4.2 C.7, 20.2)", nil
	case kPursue:
		return func(t int, s string) bool { return own(s, StepFall) && !Night(t) }, "daytime pursuit segment (19.7)", nil
	case kFallBack:
		return func(_ int, s string) bool {
			return len(s) > 2 && phasing(s) != side && s[2:] == StepFall && !strings.HasPrefix(s, "setup")
		}, "fall back segment (19.6)", nil
	}
	return nil, "", fmt.Errorf("no step for %s", kind)
}

// stepTitle names the step of an order key ("2.en2") for players.
func stepTitle(key string) string {
	t, p, _ := strings.Cut(key, ".")
	n, _ := strconv.Atoi(t)
	return (&State{T: n, P: p}).PhaseTitle()
}

// passKey is the step a PASS is for. PASS alone answers the step the game is at, and
// never a later one: sent with orders held for later steps, it means "nothing (more)
// for now", not "pass my next step". PASS <turn> (turn > 0) answers the first step of
// that turn, from now on, that waits for side and has nothing from it yet (filed, or
// taken by this mail's other lines), so that several such lines pass several steps.
func passKey(st *State, side rules.Side, turn int, filed []rules.Order, taken []string) (string, error) {
	if turn == 0 {
		if waits(st.P, side) {
			return orders.PhaseKey(st.T, st.P), nil
		}
		next := ""
		for _, k := range upcoming(st) {
			if _, s, _ := strings.Cut(k, "."); waits(s, side) {
				t, _ := strconv.Atoi(strings.Split(k, ".")[0])
				next = fmt.Sprintf("; to pass your next step, %s, name its turn: PASS %s", shortStep(k), turnName(t))
				break
			}
		}
		return "", fmt.Errorf("PASS alone answers the step the game is at, %s, which does not wait for you%s", shortStep(orders.PhaseKey(st.T, st.P)), next)
	}
	for _, k := range upcoming(st) {
		t, s, _ := strings.Cut(k, ".")
		if n, _ := strconv.Atoi(t); n == turn && waits(s, side) && !hasOrder(filed, k, side) && !slices.Contains(taken, k) {
			return k, nil
		}
	}
	return "", fmt.Errorf("no step of %s from now on waits for you with nothing from you yet (orders are taken for this turn and the next; STATUS lists yours)", turnName(turn))
}

// nextStep is the step the game is at, if it waits for side, else the next one that
// does.
func nextStep(st *State, side rules.Side) string {
	for _, k := range upcoming(st) {
		if _, s, _ := strings.Cut(k, "."); waits(s, side) {
			return k
		}
	}
	return orders.PhaseKey(st.T, st.P)
}

// forStep says, for the order check, which step an order is for, in words a player
// checks at a glance: NOW, LATER THIS TURN or NEXT TURN, then the step.
func forStep(st *State, key string, pass bool) string {
	t, _ := strconv.Atoi(strings.Split(key, ".")[0])
	when, held := "NOW, the step the game is at", ""
	switch {
	case key == orders.PhaseKey(st.T, st.P):
	case t == st.T:
		when, held = "LATER THIS TURN", "; checked in full then"
	default:
		when, held = "NEXT TURN", "; checked in full then"
	}
	switch {
	case pass:
		return "passes " + when + ": " + stepTitle(key)
	case held == "":
		return "for " + when + ": " + stepTitle(key)
	}
	return "held for " + when + ": " + stepTitle(key) + held
}

// waits reports whether step p waits for side.
func waits(p string, side rules.Side) bool {
	switch {
	case p == StepSetupDE:
		return side == DE
	case p == StepSetupEN:
		return side == EN
	case p == StepOver || len(p) < 3:
		return false
	}
	switch p[2:] {
	case StepOne, StepTwo:
		return true // 4.2 C.3, C.6: both sides place bombardment markers
	case StepNight:
		return phasing(p) == side
	case StepFall:
		return phasing(p) != side
	}
	return false
}

// mayBombard reports whether side has a bombardment segment in step p (4.2, 17.2.3).
func mayBombard(p string, side rules.Side) bool {
	if len(p) < 3 || strings.HasPrefix(p, "setup") {
		return false
	}
	switch p[2:] {
	case StepOne, StepTwo:
		return true
	case StepNight:
		return phasing(p) == side
	}
	return false
}

// hasOrder reports whether side has an order on file for the step phase, under any
// key; a withdrawn one is none (cancel.go).
func hasOrder(filed []rules.Order, phase string, side rules.Side) bool {
	return slices.ContainsFunc(filed, func(o rules.Order) bool {
		return o.Phase == phase && o.Side == side && o.Kind != kWithdrawn
	})
}

// Check implements rules.Ruleset. Orders for the step the game is at are tried
// in order against the state, as they will be resolved; orders sent early are checked
// for form and resolved, or reported as not carried out, when their step comes.
func (r *Rules) Check(s rules.State, side rules.Side, lines []orders.Line, filed []rules.Order) []rules.Checked {
	st := s.(*State)
	g := r.trial(st)
	cur := orders.PhaseKey(st.T, st.P)
	out := make([]rules.Checked, len(lines))
	items := make([]item, len(lines))
	keys := make([]string, len(lines))
	var now []int
	for i, l := range lines {
		items[i] = r.sc.parseLine(l)
		out[i] = rules.Checked{Line: l, Rule: items[i].rule}
	}
	// The mail's CANCEL lines first, in the order written: they withdraw orders filed
	// by earlier mails, and the mail's other orders are then added (HELP).
	live, gone := liveOrders(filed), slices.DeleteFunc(slices.Clone(filed), func(o rules.Order) bool { return o.Kind != kWithdrawn })
	var cancels []int // CANCEL lines that withdrew an order of the step the game is at
	for i, it := range items {
		if it.kind != kCancel || it.err != nil {
			continue
		}
		recs, reason, err := r.withdraw(st, side, it.cancel, live, gone)
		if err != nil {
			out[i].Reason = err.Error()
			continue
		}
		out[i].OK, out[i].Reason, out[i].Orders = true, reason, recs
		for _, rec := range recs {
			live = slices.DeleteFunc(live, func(o rules.Order) bool { return o.ID() == rec.ID() })
			gone = append(gone, rec)
			if rec.Phase == cur && !slices.Contains(cancels, i) {
				cancels = append(cancels, i)
			}
		}
	}
	for i, it := range items {
		c := &out[i]
		if it.err != nil {
			c.Reason = it.err.Error()
			continue
		}
		if it.kind == kCancel {
			continue
		}
		if it.kind == kLosses || it.kind == kLead || it.kind == kXResult {
			what := map[string]string{kLosses: "your losses (17.8, 20.4.7)", kLead: "your lead defender (20.4.2)", kXResult: "the X of your attacks (20.4.7)"}[it.kind]
			c.OK, c.Reason = true, "standing order for "+what+", until replaced"
			c.Orders = []rules.Order{{Phase: phaseStanding, Side: side, Key: it.kind, Kind: "standing", Text: it.text, Summary: "standing order: " + it.text}}
			continue
		}
		if it.kind == kSpent && side != EN {
			c.Reason = "tank groups are the Entente player's (2.3.1)"
			continue
		}
		if it.kind == kRetreat || it.kind == kConvert || it.kind == kSpent {
			c.OK, c.Reason = true, "standing order (21, 21.1, 4.2 C.8), until replaced"
			c.Orders = standingOrders(side, it)
			continue
		}
		if why := st.laterForm(it); why != "" {
			c.Reason = why
			continue
		}
		key, err := route(st, side, it.kind)
		switch {
		case it.kind == kPass && !st.revised(1):
			key, err = passKeyRev0(st, side, live, keys)
		case it.kind == kPass:
			key, err = passKey(st, side, it.turn, live, keys)
		}
		if it.kind == kTank && it.target == "REMOVE" && side == EN && st.revised(1) {
			// 9.4: "Tank groups may be voluntarily removed from play by the Entente
			// player at any time"; 19.3: "at any time during the Maneuver phase in order
			// to allow the infantry division it is stacked with to enter a ravine hex":
			// in the step the game is at, before its moves (rank), when it waits for him.
			key, err = nextStep(st, side), nil
		}
		if err != nil {
			c.Reason = err.Error()
			continue
		}
		keys[i] = key
		c.OK = true
		c.Reason = forStep(st, key, it.kind == kPass)
		if key == cur {
			now = append(now, i)
		}
	}
	// Orders for the current step are tried in the order they will be resolved (4.2).
	slices.SortStableFunc(now, func(a, b int) int {
		return cmp.Compare(rank(st.P, side, items[a].kind), rank(st.P, side, items[b].kind))
	})
	var fights []int
	g.preloadFiled(side, cur, live, items, now, len(cancels) > 0)
	for _, i := range now {
		if items[i].kind == kAssault || items[i].kind == kAttack {
			fights = append(fights, i)
			continue
		}
		if err := g.apply(side, items[i]); err != nil {
			out[i].OK, out[i].Reason = false, err.Error()
		}
	}
	if len(fights) > 0 || len(cancels) > 0 {
		g.checkCombats(side, cur, live, items, fights, cancels, out)
	}
	g.warnStacking(side, items, now, out)
	// 3.1's rules that bind the whole set-up (a division next to every German regiment,
	// German HQs near their regiments) are checked once every line is placed.
	if strings.HasPrefix(st.P, "setup-"+string(side)) {
		for _, i := range now {
			if items[i].kind == kPlace && out[i].OK {
				var why []string
				for _, p := range r.sc.SetupProblems(side, g.positions()) {
					why = append(why, p.Unit+": "+p.Text)
				}
				if len(why) > 0 {
					out[i].OK, out[i].Reason = false, "the set-up breaks 3.1: "+strings.Join(why, "; ")
				}
				break
			}
		}
	}
	notFiled(side, items, out, liveOrders(filed))
	for i := range out {
		if out[i].OK && out[i].Orders == nil {
			key, summary := items[i].text, items[i].text
			if items[i].kind == kAssault || items[i].kind == kAttack {
				// The number the player gives CANCEL to withdraw it (cancel.go).
				key = combatKey(filed, out[:i], keys[i], side)
				summary = combatLabel(items[i].kind, key) + ": " + items[i].text
				out[i].Reason += ", as " + combatLabel(items[i].kind, key)
			}
			out[i].Orders = []rules.Order{{Phase: keys[i], Side: side, Key: key, Kind: items[i].kind,
				Text: items[i].text, Sealed: true, Summary: summary}}
		}
	}
	return out
}

// notFiled rewords the verdicts of a mail with a refused line, which the desk files
// nothing of: its correct lines say what they would have done, a CANCEL that the
// withdrawal did not happen, and the first refused line what stands of the side's
// orders on file (live), so that no earlier order stays on file unsaid.
func notFiled(side rules.Side, items []item, out []rules.Checked, live []rules.Order) {
	first := slices.IndexFunc(out, func(c rules.Checked) bool { return !c.OK })
	if first < 0 {
		return
	}
	no := out[first].Line.No
	for i := range out {
		switch {
		case !out[i].OK:
		case items[i].kind == kCancel:
			what := strings.TrimPrefix(out[i].Reason, "withdrawn: ")
			out[i].Reason = fmt.Sprintf("NOT withdrawn, as line %d is refused and a mail with a refused line changes nothing: %s stays on file", no, what)
		default:
			out[i].Reason = "would be " + out[i].Reason
		}
	}
	var stands []string
	for _, o := range live {
		if o.Side == side && o.Phase != phaseStanding && o.Kind != kWithdrawn {
			stands = append(stands, fmt.Sprintf("%s (%s)", o.Summary, shortStep(o.Phase)))
		}
	}
	const most = 8
	switch n := len(stands); {
	case n == 0:
		out[first].Reason += "; nothing of this mail is filed, and you have no orders on file for the steps to come"
		return
	case n > most:
		stands = append(stands[:most], fmt.Sprintf("and %d more (STATUS lists them)", n-most))
	}
	out[first].Reason += "; nothing of this mail is filed, so your orders on file stand as they were: " + strings.Join(stands, "; ")
}

// trial is a game on a copy of st, for trying orders in the check.
func (r *Rules) trial(st *State) *game {
	raw, _ := json.Marshal(st)
	var cp State
	_ = json.Unmarshal(raw, &cp)
	g := newGame(r.sc, &cp)
	g.moved, g.used = map[string]bool{}, map[string]int{}
	return g
}

// Waiting implements rules.Ruleset.
func (r *Rules) Waiting(s rules.State, filed []rules.Order) []rules.Side {
	st := s.(*State)
	var out []rules.Side
	for _, side := range sides.IDs() {
		if waits(st.P, side) && !hasOrder(filed, orders.PhaseKey(st.T, st.P), side) {
			out = append(out, side)
		}
	}
	return out
}

// Inputs implements rules.Ruleset: the current step's orders and the standing
// orders.
func (r *Rules) Inputs(s rules.State, filed []rules.Order) []rules.Order {
	st := s.(*State)
	var out []rules.Order
	for _, o := range filed {
		if o.Phase == orders.PhaseKey(st.T, st.P) || o.Phase == phaseStanding {
			out = append(out, o)
		}
	}
	return out
}

// Defaults implements rules.Ruleset: the default set-up (3.1), or nothing done
// in the step (no bombardment, no move, no fall back but the forced ones of 15.3).
func (r *Rules) Defaults(s rules.State, side rules.Side, filed []rules.Order) []rules.Order {
	st := s.(*State)
	text := "PASS"
	if strings.HasPrefix(st.P, "setup") {
		text = "SETUP DEFAULT"
	}
	return []rules.Order{{Phase: orders.PhaseKey(st.T, st.P), Side: side, Key: "000 " + text, Kind: "default", Text: text, Summary: text + " (default)"}}
}

// Resolve implements rules.Ruleset.
func (r *Rules) Resolve(s rules.State, inputs []rules.Order, d dice.Source) (rules.Outcome, error) {
	st := s.(*State)
	g := r.trial(st)
	g.d = d
	cur := orders.PhaseKey(st.T, st.P)
	var now []rules.Order
	standing := map[standingID]string{}
	var out rules.Outcome
	for _, o := range inputs {
		if o.Phase == phaseStanding {
			standing[standingID{o.Side, o.Key}] = o.Text
			continue
		}
		if o.Phase != cur {
			continue
		}
		out.Consumed = append(out.Consumed, o.ID())
		if o.Kind == kWithdrawn {
			g.withdrawn(o)
			continue
		}
		now = append(now, o)
		if o.Sealed {
			out.Revealed = append(out.Revealed, o.ID())
		}
	}
	if err := g.resolve(now, standing); err != nil {
		return rules.Outcome{}, err
	}
	out.State, out.Events = g.st, g.Events
	return out, nil
}
