package teaching

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Name is the ruleset's name in games and on the command line.
const Name = "teaching"

// Options (none is printed in the rulebook; each is marked so in HELP).
const (
	// OptNoReshuffle: a used-up deck is not reshuffled from its discards.
	OptNoReshuffle = "noreshuffle"
	// OptSmokeClears: smoke is removed when the American's next turn begins.
	OptSmokeClears = "smoke-clears"
	// OptTurns12 ends the game after turn 12.
	OptTurns12 = "turns-12"
	// OptTurns24 ends the game after turn 24.
	OptTurns24 = "turns-24"
	// OptMixPrefix + a mix name of data/mix.txt picks another counter mix.
	OptMixPrefix = "mix-"
)

// Rules is the teaching game's ruleset.
type Rules struct {
	sc *Scenario
}

var _ rules.Ruleset = (*Rules)(nil)

// New returns the ruleset with the data shipped in data/.
func New() (*Rules, error) {
	sc, err := LoadScenario()
	if err != nil {
		return nil, fmt.Errorf("load teaching scenario: %w", err)
	}
	return &Rules{sc: sc}, nil
}

// Scenario returns the loaded data.
func (r *Rules) Scenario() *Scenario { return r.sc }

// Name implements rules.Ruleset.
func (r *Rules) Name() string { return Name }

// Title implements rules.Ruleset.
func (r *Rules) Title() string { return "Soldiers, the teaching game" }

// Sides implements rules.Ruleset.
func (r *Rules) Sides() []rules.SideInfo { return slices.Clone(sides) }

// sides are the game's sides, as Sides gives them: the other side and a side's name.
var sides = rules.Sides{{ID: American, Name: "American"}, {ID: German, Name: "German"}}

// Keywords implements rules.Ruleset: the first words of the game's orders.
func (r *Rules) Keywords() []string { return grammar.Keywords() }

// OptionNames implements rules.Ruleset.
func (r *Rules) OptionNames() map[string]string {
	m := map[string]string{
		OptNoReshuffle: "not printed: a used-up deck is not reshuffled (default: its discards are reshuffled)",
		OptSmokeClears: "not printed: smoke is removed when the next American turn begins (default: it stays, rule 1)",
		OptTurns12:     "not printed: the game ends after turn 12",
		OptTurns24:     "not printed: the game ends after turn 24",
	}
	for name, mx := range r.sc.Mixes {
		if name != "default" {
			m[OptMixPrefix+name] = "reconstructed counter mix: " + mx.Fact.Source
		}
	}
	return m
}

// New implements rules.Ruleset: the game before the German set-up.
func (r *Rules) New(opts rules.Options) (rules.State, error) {
	st := &State{T: 0, P: PhaseGermanSetup, Mix: "default", Decks: map[Side]*Deck{}, Revision: Revision}
	for name, on := range opts {
		if !on {
			continue
		}
		if _, ok := r.OptionNames()[name]; !ok {
			return nil, fmt.Errorf("option %q: the teaching game has %s", name, strings.Join(optionList(r.OptionNames()), ", "))
		}
		if m, ok := strings.CutPrefix(name, OptMixPrefix); ok {
			if st.Mix != "default" {
				return nil, fmt.Errorf("option %q: one counter mix a game", name)
			}
			st.Mix = m
			continue
		}
		st.Options = append(st.Options, name)
	}
	if st.opt(OptTurns12) && st.opt(OptTurns24) {
		return nil, fmt.Errorf("options %s and %s: one turn limit a game", OptTurns12, OptTurns24)
	}
	sort.Strings(st.Options)
	for _, s := range []Side{American, German} {
		st.Decks[s] = &Deck{} // shuffled by Deal, from the game's deck seed
	}
	return st, nil
}

func optionList(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Decode implements rules.Ruleset.
func (r *Rules) Decode(raw []byte) (rules.State, error) {
	st := &State{}
	if err := json.Unmarshal(raw, st); err != nil {
		return nil, fmt.Errorf("decode teaching state: %w", err)
	}
	return st, nil
}

// Encode implements rules.Ruleset.
func (r *Rules) Encode(s rules.State) ([]byte, error) {
	return json.Marshal(s.(*State))
}

const orderKey = "turn"

// kindDefault is the Kind of the orders Defaults gives, so that the results say which
// steps were played from a player's mail and which from the default.
const kindDefault = "default"

// actor is the side the current phase waits for, "" for none.
func actor(st *State) Side {
	switch st.P {
	case PhaseGermanSetup:
		return German
	case PhaseAmericanSetup, PhaseAmerican, PhaseAmericanMove, PhaseAmericanWire:
		return American
	case PhaseGermanFire:
		return German
	case PhaseGerman:
		if st.T == 1 {
			return "" // rules 1, 2: no German artillery, rifle or MG fire on the first turn
		}
		return German
	}
	return ""
}

// Waiting implements rules.Ruleset.
func (r *Rules) Waiting(s rules.State, filed []rules.Order) []rules.Side {
	st := s.(*State)
	a := actor(st)
	if a == "" {
		return nil
	}
	for _, o := range filed {
		if o.Phase == orders.PhaseKey(st.T, st.P) && o.Side == a {
			return nil
		}
	}
	return []rules.Side{a}
}

// Inputs implements rules.Ruleset.
func (r *Rules) Inputs(s rules.State, filed []rules.Order) []rules.Order {
	st := s.(*State)
	var out []rules.Order
	for _, o := range filed {
		if o.Phase == orders.PhaseKey(st.T, st.P) {
			out = append(out, o)
		}
	}
	return out
}

// Defaults implements rules.Ruleset: SETUP DEFAULT at set-up, PASS in a turn.
func (r *Rules) Defaults(s rules.State, side rules.Side, filed []rules.Order) []rules.Order {
	st := s.(*State)
	if actor(st) != side {
		return nil
	}
	text := "PASS"
	if st.T == 0 {
		text = "SETUP DEFAULT"
	}
	return []rules.Order{{Phase: orders.PhaseKey(st.T, st.P), Side: side, Key: orderKey, Kind: kindDefault, Text: text,
		Summary: fmt.Sprintf("default orders (none by the deadline) for %s: %s", st.PhaseTitle(), text)}}
}

// Check implements rules.Ruleset. A mail holds all of a side's orders for its
// turn; a new mail replaces the orders on file for that turn.
func (r *Rules) Check(s rules.State, side rules.Side, lines []orders.Line, filed []rules.Order) []rules.Checked {
	st := s.(*State)
	out := make([]rules.Checked, len(lines))
	items := make([]item, len(lines))
	for i, l := range lines {
		out[i].Line = l
		it, err := parse(l)
		if err != nil {
			out[i].Reason = err.Error()
			continue
		}
		items[i] = it
		out[i].OK = true
	}
	if a := actor(st); a != side {
		why := "the game is over"
		switch {
		case a == "" && !st.Over():
			why = "no orders are due now"
		case a != "":
			why = fmt.Sprintf("it is the %s's move now (%s); send your orders when your turn opens", sides.Name(a), st.PhaseTitle())
		}
		for i := range out {
			if out[i].OK {
				out[i].OK, out[i].Reason = false, why
			}
		}
		return out
	}
	switch st.P {
	case PhaseGermanSetup, PhaseAmericanSetup:
		r.checkSetup(st, side, items, out)
	case PhaseAmerican, PhaseAmericanMove, PhaseAmericanWire:
		r.checkAmerican(st, items, out)
	case PhaseGerman, PhaseGermanFire:
		r.checkGerman(st, items, out)
	}
	for _, c := range out {
		if !c.OK {
			return out
		}
	}
	var text []string
	for _, it := range items {
		text = append(text, it.canonical())
	}
	last := &out[len(out)-1]
	last.Orders = []rules.Order{{Phase: orders.PhaseKey(st.T, st.P), Side: side, Key: orderKey, Kind: "orders",
		Text: strings.Join(text, "\n"), Summary: fmt.Sprintf("%s orders for %s", sides.Name(side), st.PhaseTitle())}}
	return out
}

// stepVerbs are the orders of the steps that follow each STOP AFTER.
var stepVerbs = map[string][]string{StopArtillery: {"MOVE", "CUT", "CHIP", "FIRE"}, StopHandToHand: {"CUT", "CHIP"}}

// checkStops checks a mail's STOP AFTER line (the game waits after that step for the
// player's next mail) and refuses the orders of the steps after it: they go in that
// next mail, written after the results are seen.
func checkStops(st *State, items []item, out []rules.Checked) {
	stop := -1
	for i, it := range items {
		if !out[i].OK || it.Verb != "STOP" {
			continue
		}
		c := &out[i]
		c.Rule = "sequence"
		switch {
		case st.Revision < 1:
			c.OK, c.Reason = false, "this game was created before STOP AFTER existed, and keeps the rules it began with: a turn goes in one mail (HELP)"
			continue
		case stop >= 0:
			c.OK, c.Reason = false, "one STOP AFTER a mail: the next mail may stop again"
			continue
		case st.P == PhaseAmericanMove && it.Stop == StopArtillery:
			c.OK, c.Reason = false, "your artillery has fired already: STOP AFTER HAND TO HAND, or send the rest of the turn"
			continue
		case actor(st) == German && it.Stop == StopHandToHand:
			c.OK, c.Reason = false, "hand to hand is the American's (rule 3): the German may STOP AFTER ARTILLERY"
			continue
		}
		stop = i
		next := "movement, wire and chips (steps 3-5)"
		switch {
		case actor(st) == German:
			next = "rifle and MG fire (step 2)"
		case it.Stop == StopHandToHand:
			next = "wire and chips (steps 4-5)"
		}
		c.Reason = fmt.Sprintf("the turn stops after %s: its results are mailed to you, and the game waits for your next mail with your %s; by the deadline without one: PASS for them", strings.ReplaceAll(it.Stop, "-", " "), next)
	}
	if stop < 0 {
		return
	}
	for i, it := range items {
		if out[i].OK && slices.Contains(stepVerbs[items[stop].Stop], it.Verb) {
			out[i].OK, out[i].Reason = false, fmt.Sprintf("you stop after %s (line %d): send %s in your next mail, when you have seen the results", strings.ReplaceAll(items[stop].Stop, "-", " "), out[stop].Line.No, it.Verb)
		}
	}
}

// refuseVerbs refuses the items whose verb the phase does not take.
func refuseVerbs(items []item, out []rules.Checked, allowed []string, what string) {
	for i, it := range items {
		if out[i].OK && !slices.Contains(allowed, it.Verb) {
			out[i].OK, out[i].Reason = false, fmt.Sprintf("%s is not an order of %s: expected %s", it.Verb, what, strings.Join(allowed, ", "))
		}
	}
}

func (r *Rules) checkSetup(st *State, side Side, items []item, out []rules.Checked) {
	refuseVerbs(items, out, []string{"SETUP", "PLACE"}, "the set-up")
	mix := r.sc.Mixes[st.Mix]
	def := -1
	for i, it := range items {
		if !out[i].OK {
			continue
		}
		out[i].Rule = "set-up"
		if it.Verb == "SETUP" {
			def = i
			out[i].Reason = fmt.Sprintf("the default %s set-up of mix %s (reconstructed, data/mix.txt)", sides.Name(side), st.Mix)
			continue
		}
		if kindSide[it.Kind] != side {
			out[i].OK, out[i].Reason = false, fmt.Sprintf("%s is not a %s unit", orders.Upper(it.Kind), sides.Name(side))
			continue
		}
		out[i].Reason = fmt.Sprintf("%d %s in each of %s", it.N, it.Kind, hex.Join(it.From, " "))
	}
	places := len(byVerb(items, "PLACE"))
	if def >= 0 && places > 0 {
		out[def].OK, out[def].Reason = false, "SETUP DEFAULT and PLACE lines exclude each other"
		return
	}
	if def >= 0 || places == 0 {
		return
	}
	var ps []Placement
	// Each placement must be legal; the lines must place the whole mix of the side.
	last := -1
	for i, it := range items {
		if !out[i].OK || it.Verb != "PLACE" {
			continue
		}
		last = i
		from := len(ps)
		ps = append(ps, it.placements(side)...)
		for _, err := range r.sc.setupErrors(ps)[from:] {
			if err != nil {
				out[i].OK, out[i].Reason = false, err.Error()
				break
			}
		}
	}
	var short []string
	for _, k := range []string{"inf", "mg", "army", "marine"} {
		if kindSide[k] != side {
			continue
		}
		want, got := mix.Count(k), 0
		for _, p := range ps {
			if p.Kind == k {
				got += p.N
			}
		}
		if want != got {
			short = append(short, fmt.Sprintf("%d %s placed, the mix has %d", got, k, want))
		}
	}
	if len(short) > 0 && last >= 0 && out[last].OK {
		out[last].OK, out[last].Reason = false, "the set-up is not complete: "+strings.Join(short, "; ")+" (or send SETUP DEFAULT)"
	}
}

// checkAmerican checks an American turn on a copy of the state, in the order the turn
// is played: artillery (whose cards are not turned yet: each shell's possible landing
// hexes are listed), movement, wire, chips.
func (r *Rules) checkAmerican(st *State, items []item, out []rules.Checked) {
	switch st.P {
	case PhaseAmerican:
		refuseVerbs(items, out, []string{"PASS", "SHELL", "MOVE", "CUT", "CHIP", "STOP"}, "the American turn")
	case PhaseAmericanMove:
		refuseVerbs(items, out, []string{"PASS", "MOVE", "CUT", "CHIP", "STOP"}, "steps 3-5 of the American turn (your artillery has fired)")
	case PhaseAmericanWire:
		refuseVerbs(items, out, []string{"PASS", "CUT", "CHIP"}, "steps 4-5 of the American turn (movement and hand to hand are over)")
	}
	checkStops(st, items, out)
	plan := st.clone()
	moved, may := map[int]bool{}, r.mayMove(plan)
	var shells shellCheck
	lastMove := -1
	shellReach := r.heReach(items, out)
	var mustDie []hex.Hex // Germans a provisional move needs dead by step 3
	for i, it := range items {
		if !out[i].OK {
			continue
		}
		c := &out[i]
		switch it.Verb {
		case "PASS":
			c.Reason, c.Rule = map[string]string{
				PhaseAmerican:     "no artillery, no movement, no wire cutting, chips as they are",
				PhaseAmericanMove: "no movement, no wire cutting, chips as they are",
				PhaseAmericanWire: "no wire cutting, chips as they are",
			}[st.P], "sequence"
		case "SHELL":
			shells.check(r, plan, American, it, c)
		case "MOVE":
			c.Rule = "3"
			n, err := r.move(plan, it, moved, may)
			if err != nil && n == 0 {
				// Step 3 meets the position after step 1's shells: a move that only
				// a German the shells may kill forbids is accepted for now, and
				// resolution judges it then (sequence, rules 1 and 3).
				// A game created before revision 1 judges every move by the position
				// before the artillery, as it always did.
				if why, gone, ok := r.provisionalMove(plan, it, moved, may, shellReach); ok && st.Revision >= 1 {
					mustDie = append(mustDie, gone...)
					c.Reason = fmt.Sprintf("%d unit(s) %s: accepted for now, checked again when step 3 comes: as things stand, %v; %s. If it is still illegal then, it is not carried out and the units stay in %s with their chips", it.N, pathWords(it), err, why, it.Path[0])
					lastMove = i
					continue
				}
			}
			if err != nil {
				c.OK, c.Reason = false, err.Error()
				continue
			}
			c.Reason = fmt.Sprintf("%d unit(s) %s; if a shell of this turn kills them first, they do not move; if it kills the Germans next to the path, they still stop where ordered", it.N, pathWords(it))
			if it.Kind != "marine" {
				c.Reason += "; Army units whose only American neighbours a shell kills may not move"
			}
			lastMove = i
		}
	}
	if lastMove >= 0 && out[lastMove].OK {
		// A provisional move is carried out only if its Germans are dead by then.
		fc := plan.clone()
		fc.Units = slices.DeleteFunc(fc.Units, func(u *Unit) bool { return u.side() == German && slices.Contains(mustDie, u.Hex) })
		if f := r.forecast(fc); len(f) > 0 {
			out[lastMove].Reason += ". Then, if no shell changes it"
			if len(mustDie) > 0 {
				out[lastMove].Reason += " but for the German(s) the moves above need dead"
			}
			out[lastMove].Reason += ": " + strings.Join(f, "; ")
		}
	}
	for _, h := range plan.overstacked() {
		for i := len(items) - 1; i >= 0; i-- {
			if out[i].OK && items[i].Verb == "MOVE" && items[i].Path[len(items[i].Path)-1] == h {
				out[i].OK, out[i].Reason = false, fmt.Sprintf("%s would hold more than %d live American units at the end of movement (rule 3)", h, MaxStack)
				break
			}
		}
	}
	chipped := map[int]bool{}
	for i, it := range items {
		if !out[i].OK {
			continue
		}
		c := &out[i]
		switch it.Verb {
		case "CUT":
			c.Rule = "4"
			if err := r.canCut(plan, it.Side); err != nil {
				c.OK, c.Reason = false, err.Error()
				continue
			}
			plan.Cuts = append(plan.Cuts, Cut{Side: it.Side.String(), Turn: plan.T, Marker: true})
			c.Reason = fmt.Sprintf("a marker on %s, clear terrain from turn %d; not placed if no live American is in %s or %s after movement and hand to hand", it.Side, plan.T+1, it.Side.A, it.Side.B)
		case "CHIP":
			c.Rule = "5"
			n, err := chip(plan, it, chipped)
			if err != nil && n == 0 {
				c.OK, c.Reason = false, err.Error()
				continue
			}
			chipName := it.Chip
			if chipName == "" {
				chipName = "no"
			}
			c.Reason = fmt.Sprintf("%s chip on %d unit(s) in %s after movement (next turn: move up to %d); if fewer are alive there then, on those", chipName, n, it.Hex, map[string]int{ChipNone: 1, ChipBlue: 2, ChipBlack: 3}[it.Chip])
			if it.Chip == ChipNone {
				c.Reason += "; the Germans may not fire at them (rule 2)"
			}
		}
	}
}

// heReach lists the hexes where an HE shell of the mail may land, whatever its card
// (rule 1): the Germans there may be dead when step 3 comes.
func (r *Rules) heReach(items []item, out []rules.Checked) []hex.Hex {
	var reach []hex.Hex
	for i, it := range items {
		if !out[i].OK || it.Verb != "SHELL" || it.Shell != "he" {
			continue
		}
		for _, rank := range ranks {
			if h := r.sc.Land(it.Hex, rank); r.sc.Map.OnMap(h) && !slices.Contains(reach, h) {
				reach = append(reach, h)
			}
		}
	}
	return reach
}

// provisionalMove judges a move the position before the artillery forbids against the
// position where every German the mail's HE shells may kill is dead. When it is legal
// there, it moves the units in plan (so that the later lines are checked after it) and
// says which Germans must die first.
func (r *Rules) provisionalMove(plan *State, it item, moved, may map[int]bool, reach []hex.Hex) (string, []hex.Hex, bool) {
	alt := plan.clone()
	var gone []hex.Hex
	for _, g := range plan.Units {
		if g.side() == German && !g.Dead && slices.Contains(reach, g.Hex) && r.touches(it.Path, g.Hex) {
			gone = append(gone, g.Hex)
			alt.Units = slices.DeleteFunc(alt.Units, func(u *Unit) bool { return u.ID == g.ID })
		}
	}
	if len(gone) == 0 {
		return "", nil, false
	}
	altMoved := maps.Clone(moved)
	if _, err := r.move(alt, it, altMoved, may); err != nil {
		return "", nil, false
	}
	byID := map[int]*Unit{}
	for _, u := range alt.Units {
		byID[u.ID] = u
	}
	for _, u := range plan.Units {
		if altMoved[u.ID] && !moved[u.ID] {
			u.Hex, u.Chip = byID[u.ID].Hex, byID[u.ID].Chip
			moved[u.ID] = true
		}
	}
	return fmt.Sprintf("it is legal if your shells of step 1 kill the German(s) in %s first", hex.Join(gone, " ")), gone, true
}

// touches reports whether h is on the path or next to a hex of it.
func (r *Rules) touches(path []hex.Hex, h hex.Hex) bool {
	for _, p := range path {
		if p == h || r.sc.Map.Grid.Adjacent(p, h) {
			return true
		}
	}
	return false
}

func pathWords(it item) string {
	ps := make([]string, len(it.Path))
	for i, h := range it.Path {
		ps[i] = h.String()
	}
	return "move " + strings.Join(ps, "-")
}

// shellCheck checks a turn's explosion markers one at a time (rule 1).
type shellCheck struct {
	aimed []string
}

func (sh *shellCheck) check(r *Rules, st *State, side Side, it item, c *rules.Checked) {
	c.Rule = "1"
	sh.aimed = append(sh.aimed, it.Hex.String())
	switch {
	case side == German && it.Shell == "smoke":
		c.OK, c.Reason = false, "Germans may only fire HE shells (rule 1)"
	case len(sh.aimed) > MaxShells:
		c.OK, c.Reason = false, fmt.Sprintf("only %d explosion markers a turn (rule 1)", MaxShells)
	case !r.sc.Map.OnMap(it.Hex):
		c.OK, c.Reason = false, fmt.Sprintf("%s is not on the map", it.Hex)
	case slices.Contains(sh.aimed[:len(sh.aimed)-1], it.Hex.String()):
		c.OK, c.Reason = false, fmt.Sprintf("%s is aimed at already: the 3 markers go on 3 hexes (rule 1)", it.Hex)
	default:
		c.Reason = r.shellCases(st, side, it)
	}
}

// shellCases says where a shell may land and what it would do there now (the card that
// decides is not turned yet): every card whose hex holds units, then the others.
func (r *Rules) shellCases(st *State, side Side, it item) string {
	var hits, empty, off []string
	for _, rank := range ranks {
		h := r.sc.Land(it.Hex, rank)
		switch {
		case !r.sc.Map.OnMap(h):
			off = append(off, rank)
		case len(st.live("", h)) > 0:
			hits = append(hits, fmt.Sprintf("%s: %s (%s)", rank, h, st.describe(h)))
		default:
			empty = append(empty, rank)
		}
	}
	kind := "HE kills every unit where it lands"
	if it.Shell == "smoke" {
		kind = "smoke kills nothing and stays where it lands"
	}
	cases := hits
	if len(empty) > 0 {
		cases = append(cases, strings.Join(empty, " ")+": a hex with nobody in it now")
	}
	if len(off) > 0 {
		cases = append(cases, strings.Join(off, " ")+": off the map, no effect")
	}
	return fmt.Sprintf("%s shell aimed at %s; %s card decides (%s). By the card, as things stand now: %s", orders.Upper(it.Shell), it.Hex, map[Side]string{American: "an American", German: "a German"}[side], kind, strings.Join(cases, "; "))
}

// checkGerman checks a German turn: artillery (cards not turned yet) and fire.
func (r *Rules) checkGerman(st *State, items []item, out []rules.Checked) {
	if st.P == PhaseGermanFire {
		refuseVerbs(items, out, []string{"PASS", "FIRE"}, "step 2 of the German turn (your artillery has fired)")
	} else {
		refuseVerbs(items, out, []string{"PASS", "SHELL", "FIRE", "STOP"}, "the German turn")
	}
	checkStops(st, items, out)
	var shells shellCheck
	fired := map[string]bool{}
	for i, it := range items {
		if !out[i].OK {
			continue
		}
		c := &out[i]
		switch it.Verb {
		case "PASS":
			c.Reason, c.Rule = "no artillery, no fire", "sequence"
			if st.P == PhaseGermanFire {
				c.Reason = "no fire"
			}
		case "SHELL":
			shells.check(r, st, German, it, c)
		case "FIRE":
			c.Rule = "2"
			points, err := r.firePlan(st, it, fired)
			if err != nil {
				c.OK, c.Reason = false, err.Error()
				continue
			}
			need := killCost[it.Chip]
			c.Reason = fmt.Sprintf("%d point(s) at the %s-chip units in %s: %d point(s) kill one, so up to %d killed; a unit your shells kill first does not fire, and units they kill are not fired at", points, it.Chip, it.Hex, need, points/need)
		}
	}
}

// firePlan checks one FIRE order against the state and returns its points.
func (r *Rules) firePlan(st *State, it item, fired map[string]bool) (int, error) {
	if len(st.targets(it.Hex, it.Chip, it.Kind)) == 0 {
		what := "unit"
		if it.Kind != "" {
			what = it.Kind + " unit"
		}
		return 0, fmt.Errorf("no live American %s with a %s chip is in %s: the Germans may fire only at units with a blue or black chip (rule 2)", what, it.Chip, it.Hex)
	}
	points := 0
	for _, from := range it.From {
		if fired[from.String()] {
			return 0, fmt.Errorf("the unit in %s fires already this turn", from)
		}
		p, err := r.canFire(st, from, it.Hex)
		if err != nil {
			return 0, err
		}
		fired[from.String()] = true
		points += p
	}
	return points, nil
}
