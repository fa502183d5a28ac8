// Package soldiers1918 adjudicates Soldiers: Decision in the Trenches, 1918 (Strategy &
// Tactics 280, rulebook 001): a US division against a German regiment, six turns of phases
// I-XI (5.2): set-up (3.2-3.6), bombardment (I-III, 12.0), Chaos of War (IV, V, XI; 7.0),
// visibility (VI, 8.0), movement (VII, X; 9.0, 11.1), fire (VIII, IX; 10.0, 11.2) and
// the end of the game (4.1, 4.2).
//
// The ruleset is pure: state, orders and dice in; state and events out.
package soldiers1918

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Name is the ruleset's name in games and on the command line.
const Name = "soldiers1918"

// MaxMarkers is the number of bombardment markers each side has per turn (3.2, 3.3, 12.1).
const MaxMarkers = 12

// Rules is the Soldiers 1918 ruleset.
type Rules struct {
	sc *Scenario
}

var (
	_ rules.Ruleset = (*Rules)(nil)
	_ rules.Matcher = (*Rules)(nil)
)

// New returns the ruleset with the scenario shipped in data/.
func New() (*Rules, error) {
	sc, err := LoadScenario()
	if err != nil {
		return nil, fmt.Errorf("load soldiers1918 scenario: %w", err)
	}
	return &Rules{sc: sc}, nil
}

// Scenario returns the loaded scenario.
func (r *Rules) Scenario() *Scenario { return r.sc }

// Name implements rules.Ruleset.
func (r *Rules) Name() string { return Name }

// Title implements rules.Ruleset.
func (r *Rules) Title() string { return "Soldiers: Decision in the Trenches, 1918" }

// Sides implements rules.Ruleset.
func (r *Rules) Sides() []rules.SideInfo { return slices.Clone(sides) }

// OptionNames implements rules.Ruleset.
func (r *Rules) OptionNames() map[string]string {
	return map[string]string{"york": "12.5 Sergeant York (optional)"}
}

// New implements rules.Ruleset: the game before set-up (3.1).
func (r *Rules) New(opts rules.Options) (rules.State, error) {
	st := &State{T: 0, P: PhasePlots, Revision: Revision}
	for k, v := range opts {
		if v {
			if st.Options == nil {
				st.Options = map[string]bool{}
			}
			st.Options[k] = true
		}
	}
	return st, nil
}

// Decode implements rules.Ruleset.
func (r *Rules) Decode(raw []byte) (rules.State, error) {
	var st State
	if !decodeState(raw, &st) { // codec.go: the form Encode writes, read without reflection
		st = State{}
		if err := json.Unmarshal(raw, &st); err != nil {
			return nil, fmt.Errorf("decode soldiers1918 state: %w", err)
		}
	}
	st.migrateCOW(r.sc)
	return &st, nil
}

// Encode implements rules.Ruleset.
func (r *Rules) Encode(st rules.State) ([]byte, error) {
	return encodeState(st.(*State)) // codec.go: json.Marshal's bytes, without reflection
}

// Order keys.
func plotKey(turn int) string { return fmt.Sprintf("plot-%d", turn) }

const (
	keyComplete  = "plot-complete"
	keyCancel    = "cancel"
	keyPlacement = "placement"
	phaseSetup   = "setup"
)

// germanPlotPhase is the phase a German plot for turn n is filed under: set-up for turn 1,
// else Phase II of the turn before (5.2 II).
func germanPlotPhase(turn int) string {
	if turn == 1 {
		return phaseSetup
	}
	return fmt.Sprintf("%d.II", turn-1)
}

// nextGermanPlot is the first turn a German plot may still be written for: the next
// Phase II to come plots the turn after it (5.2 II).
func nextGermanPlot(st *State) int {
	switch {
	case st.T == 0:
		if st.P == PhasePlots {
			return 1
		}
		return 2
	case st.P == PhaseI || st.P == PhaseII:
		return st.T + 1
	default:
		return st.T + 2
	}
}

// Check implements rules.Ruleset.
func (r *Rules) Check(s rules.State, side rules.Side, lines []orders.Line, filed []rules.Order) []rules.Checked {
	st := s.(*State)
	var out []rules.Checked
	var placements, phased, overstack []block
	unreadPlace := 0           // PLACE lines that could not be read: the totals miss their units
	plotsNow := map[int]bool{} // US plots in this submission
	completeLine := -1
	for _, b := range parseBlocks(lines) {
		c := rules.Checked{Line: b.line, Rule: b.rule}
		if b.err != nil {
			if b.kind == "place" {
				unreadPlace++
			}
			c.Reason = b.err.Error()
			out = append(out, c)
			out = appendContinuations(out, b, false, "")
			continue
		}
		switch b.kind {
		case "plot":
			c = r.checkPlot(st, side, b, filed)
			if c.OK && side == US {
				plotsNow[b.turn] = true
			}
		case "complete":
			if side != US {
				c.Reason = "PLOT COMPLETE is the US player's (3.2); the German plots one turn at a time"
			} else if st.P != PhasePlots {
				c.Reason = "the US plot was fixed when the plot step of set-up ended (3.2)"
			} else {
				completeLine = len(out)
				c.OK, c.Reason = true, "the US six-turn plot will be complete and fixed (3.2)"
				c.Orders = []rules.Order{{Phase: phaseSetup, Side: US, Key: keyComplete, Kind: "complete", Text: "PLOT COMPLETE", Summary: "US plot declared complete (3.2)"}}
			}
		case "cancel":
			c = r.checkCancel(st, side, filed)
			c.Line = b.line
		case "setup-default", "place":
			placements = append(placements, b)
			continue
		case "cow":
			c = r.checkCOW(st, side, b)
		case "overstack":
			overstack = append(overstack, b)
			continue
		case "move", "fire":
			if b.kind == "fire" && b.fire.Advance != "" && side == DE {
				c.Reason = "ADVANCE chooses between US Army and USMC platoons (6.4); every adjacent German infantry platoon that fired advances, up to the limit (10.10)"
				break
			}
			phased = append(phased, b)
			continue
		}
		out = append(out, c)
		out = appendContinuations(out, b, c.OK, "plot items, read with the line above")
	}
	if completeLine >= 0 {
		// 3.2: complete means all six turns are plotted, now or earlier.
		var missing []string
		for n := 1; n <= LastTurn; n++ {
			if _, ok := rules.FindOrder(filed, phaseSetup, US, plotKey(n)); !ok && !plotsNow[n] {
				missing = append(missing, fmt.Sprint(n))
			}
		}
		if len(missing) > 0 {
			out[completeLine].OK = false
			out[completeLine].Orders = nil
			out[completeLine].Reason = "the plot is not complete: no plot yet for turn(s) " + strings.Join(missing, ", ") + " (write PLOT TURN n NONE for a turn without bombardment)"
		}
	}
	if len(placements) > 0 {
		out = append(out, r.checkPlacement(st, side, placements, unreadPlace)...)
	}
	if len(phased) > 0 {
		out = append(out, r.checkPhased(st, side, phased)...)
	}
	if len(overstack) > 0 {
		out = append(out, r.checkOverstack(side, overstack)...)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Line.No < out[j].Line.No })
	return out
}

func appendContinuations(out []rules.Checked, b block, ok bool, reason string) []rules.Checked {
	for _, l := range b.lines {
		c := rules.Checked{Line: l, OK: ok, Reason: reason, Rule: b.rule}
		if !ok {
			c.Reason = "part of the refused order above"
		}
		out = append(out, c)
	}
	return out
}

func (r *Rules) checkPlot(st *State, side rules.Side, b block, filed []rules.Order) rules.Checked {
	c := rules.Checked{Line: b.line, Rule: "3.2"}
	total := 0
	for _, it := range b.items {
		if !r.sc.OnMap(it.Hex) {
			c.Reason = fmt.Sprintf("hex %s is not on the map (4.1: columns 10-49, rows 00-20)", it.Hex)
			return c
		}
		total += it.Count
	}
	if total > MaxMarkers {
		c.Reason = fmt.Sprintf("%d markers plotted; at most %d a turn (3.2, 12.1)", total, MaxMarkers)
		return c
	}
	var o rules.Order
	switch side {
	case US:
		if b.turn == 0 {
			c.Reason = "the US plots every turn before play: write PLOT TURN n (n from 1 to 6) followed by its list (3.2)"
			return c
		}
		if st.P != PhasePlots {
			c.Reason = "the US plot is complete before the rest of set-up and may not be altered, only cancelled (3.2, 5.2 I)"
			return c
		}
		if _, done := rules.FindOrder(filed, phaseSetup, US, keyComplete); done {
			c.Reason = "the US plot is declared complete and may not be altered, only cancelled (3.2, 5.2 I)"
			return c
		}
		o = rules.Order{Phase: phaseSetup, Side: US, Key: plotKey(b.turn), Summary: fmt.Sprintf("US bombardment plot for turn %d", b.turn)}
	case DE:
		c.Rule = "3.3, 5.2 II"
		next := nextGermanPlot(st)
		if st.P == PhaseOver {
			c.Reason = "the game is over"
			return c
		}
		if b.turn == 0 {
			b.turn = next
		}
		if b.turn < next {
			c.Reason = fmt.Sprintf("the German plot for turn %d is already fixed; the next one you may write is for turn %d (5.2 II)", b.turn, next)
			return c
		}
		if b.turn > LastTurn {
			c.Reason = fmt.Sprintf("there is no turn %d: the game ends with turn %d (4.2)", b.turn, LastTurn)
			return c
		}
		o = rules.Order{Phase: germanPlotPhase(b.turn), Side: DE, Key: plotKey(b.turn), Summary: fmt.Sprintf("German bombardment plot for turn %d", b.turn)}
	}
	if old, ok := rules.FindOrder(filed, o.Phase, o.Side, o.Key); ok && old.Fixed {
		c.Reason = fmt.Sprintf("the %s is fixed and may not be altered (3.2)", o.Summary)
		return c
	}
	// The other side knows plots are written turn by turn (3.2, 5.2 II): which turn's
	// plot this is tells him nothing sealed.
	o.Kind, o.Sealed, o.Text, o.Notice = "plot", true, plotText(b.turn, b.none, b.items), o.Summary
	c.OK, c.Orders = true, []rules.Order{o}
	if b.none {
		c.Reason = fmt.Sprintf("no bombardment in turn %d", b.turn)
	} else {
		c.Reason = fmt.Sprintf("%d marker(s) for turn %d: %s", total, b.turn, orders.FormatPlot(b.items))
	}
	return c
}

func (r *Rules) checkCancel(st *State, side rules.Side, filed []rules.Order) rules.Checked {
	c := rules.Checked{Rule: "5.2 I"}
	switch {
	case side != US:
		c.Reason = "only the US player may cancel bombardments; the German may simply plot none (5.2 III)"
	case st.USCancelled:
		c.Reason = "US bombardments are already cancelled for the rest of the game (5.2 I)"
	case st.P == PhaseOver || (st.T == LastTurn && st.P != PhaseI && st.T != 0):
		c.Reason = "no US Bombardment Execution Phase is left in this game"
	default:
		turn := st.T + 1
		if st.T == 0 {
			turn = 1
		}
		c.OK = true
		c.Reason = fmt.Sprintf("standing order: at the start of Phase I of turn %d, attempt to cancel ALL US bombardments for the rest of the game (succeeds on 1-3, 5.2 I)", turn)
		// Not sealed: the German learns of the attempt at Phase I (5.2 I), not before,
		// and a sealed order's notice, however bare, would tell him (once the plots
		// are complete, CANCEL is the only US order that could be sealed). Like
		// every order the German is not shown, it stays out of his mails.
		c.Reason += "; the German is told of it only then"
		c.Orders = []rules.Order{{Phase: fmt.Sprintf("%d.I", turn), Side: US, Key: keyCancel, Kind: "cancel", Text: "CANCEL BOMBARDMENT",
			Summary: fmt.Sprintf("US standing order for turn %d, Phase I", turn)}}
	}
	return c
}

// Waiting implements rules.Ruleset.
func (r *Rules) Waiting(s rules.State, filed []rules.Order) []rules.Side {
	st := s.(*State)
	has := func(phase string, side rules.Side, key string) bool {
		_, ok := rules.FindOrder(filed, phase, side, key)
		return ok
	}
	var w []rules.Side
	switch st.P {
	case PhasePlots:
		for n := 1; n <= LastTurn; n++ {
			if !has(phaseSetup, US, plotKey(n)) {
				w = append(w, US)
				break
			}
		}
		if !has(phaseSetup, DE, plotKey(1)) {
			w = append(w, DE)
		}
	case PhaseGermanSetup:
		if !has(phaseSetup, DE, keyPlacement) {
			w = append(w, DE)
		}
	case PhaseUSSetup:
		if !has(phaseSetup, US, keyPlacement) {
			w = append(w, US)
		}
	case PhaseII:
		if st.T < LastTurn && !has(germanPlotPhase(st.T+1), DE, plotKey(st.T+1)) {
			w = append(w, DE)
		}
	case PhaseIVPlace:
		if !has(phaseStanding, US, keyCOW) {
			w = append(w, US)
		}
	case PhaseVPlace:
		if !has(phaseStanding, DE, keyCOW) {
			w = append(w, DE)
		}
	case PhaseVII, PhaseVIII, PhaseIX, PhaseX:
		side, key := phaseActor(st.P)
		if !has(fmt.Sprintf("%d.%s", st.T, st.P), side, key) {
			w = append(w, side)
		}
	}
	return w
}

// phaseActor is the side that decides a movement or fire phase, and its order's key.
func phaseActor(p string) (rules.Side, string) {
	switch p {
	case PhaseVII:
		return US, keyMoves
	case PhaseVIII:
		return DE, keyFire
	case PhaseIX:
		return US, keyFire
	}
	return DE, keyMoves
}

// phaseOf is the movement or fire phase an order of side and kind ("move", "fire") is for.
func phaseOf(side rules.Side, kind string) string {
	switch {
	case side == US && kind == "move":
		return PhaseVII
	case side == DE && kind == "fire":
		return PhaseVIII
	case side == US:
		return PhaseIX
	}
	return PhaseX
}

// Inputs implements rules.Ruleset.
func (r *Rules) Inputs(s rules.State, filed []rules.Order) []rules.Order {
	st := s.(*State)
	var in []rules.Order
	add := func(phase string, side rules.Side, key string) {
		if o, ok := rules.FindOrder(filed, phase, side, key); ok {
			in = append(in, o)
		}
	}
	switch st.P {
	case PhasePlots:
		for n := 1; n <= LastTurn; n++ {
			add(phaseSetup, US, plotKey(n))
		}
		add(phaseSetup, US, keyComplete)
		add(phaseSetup, DE, plotKey(1))
	case PhaseGermanSetup:
		add(phaseSetup, DE, keyPlacement)
	case PhaseUSSetup:
		add(phaseSetup, US, keyPlacement)
	case PhaseI:
		add(phaseSetup, US, plotKey(st.T))
		add(fmt.Sprintf("%d.I", st.T), US, keyCancel)
	case PhaseII:
		if st.T < LastTurn {
			add(germanPlotPhase(st.T+1), DE, plotKey(st.T+1))
		}
	case PhaseIII:
		add(germanPlotPhase(st.T), DE, plotKey(st.T))
	case PhaseIV, PhaseIVPlace:
		add(phaseStanding, US, keyCOW)
	case PhaseV, PhaseVPlace:
		add(phaseStanding, DE, keyCOW)
	case PhaseVII, PhaseVIII, PhaseIX, PhaseX:
		side, key := phaseActor(st.P)
		add(fmt.Sprintf("%d.%s", st.T, st.P), side, key)
		if key == keyMoves { // the offended player's standing choice (6.2)
			add(phaseStanding, sides.Other(side), keyOverstack)
		}
	}
	return in
}

// Defaults implements rules.Ruleset: no plot, the scenario's deployment (DESIGN.md:
// no move, no fire, no plot).
func (r *Rules) Defaults(s rules.State, side rules.Side, filed []rules.Order) []rules.Order {
	st := s.(*State)
	var lines []string
	switch {
	case st.P == PhasePlots && side == US:
		for n := 1; n <= LastTurn; n++ {
			if _, ok := rules.FindOrder(filed, phaseSetup, US, plotKey(n)); !ok {
				lines = append(lines, plotText(n, true, nil))
			}
		}
	case st.P == PhasePlots && side == DE:
		lines = append(lines, plotText(1, true, nil))
	case st.P == PhaseGermanSetup && side == DE, st.P == PhaseUSSetup && side == US:
		lines = append(lines, "SETUP DEFAULT")
	case st.P == PhaseII && side == DE && st.T < LastTurn:
		lines = append(lines, plotText(st.T+1, true, nil))
	case st.P == PhaseIVPlace && side == US, st.P == PhaseVPlace && side == DE:
		lines = append(lines, "COW NONE")
	case st.P == PhaseVII || st.P == PhaseX:
		lines = append(lines, "MOVE NONE")
	case st.P == PhaseVIII || st.P == PhaseIX:
		lines = append(lines, "FIRE NONE")
	}
	var out []rules.Order
	for i, text := range lines {
		for _, c := range r.Check(st, side, []orders.Line{{No: i + 1, Text: text, Fields: strings.Fields(text)}}, filed) {
			out = append(out, c.Orders...)
		}
	}
	return out
}

// Resolve implements rules.Ruleset.
func (r *Rules) Resolve(s rules.State, inputs []rules.Order, d dice.Source) (rules.Outcome, error) {
	st := s.(*State).clone()
	g := newGame(r, st, d)
	var err error
	switch st.P {
	case PhasePlots:
		err = g.plots(inputs)
	case PhaseGermanSetup:
		err = g.setup(DE, inputs, PhaseUSSetup)
	case PhaseUSSetup:
		err = g.setup(US, inputs, PhaseI)
	case PhaseI:
		err = g.usExecution(inputs)
	case PhaseII:
		err = g.germanPlot(inputs)
	case PhaseIII:
		err = g.germanExecution(inputs)
	case PhaseIV:
		err = g.chaosOfWar(US, inputs)
	case PhaseIVPlace:
		err = g.placeStep(US, inputs, PhaseV)
	case PhaseV:
		err = g.chaosOfWar(DE, inputs)
	case PhaseVPlace:
		err = g.placeStep(DE, inputs, PhaseVI)
	case PhaseVI:
		g.visibility()
	case PhaseVII:
		err = g.movement(US, inputs, PhaseVIII)
	case PhaseVIII:
		err = g.firePhase(DE, inputs, PhaseIX)
	case PhaseIX:
		err = g.firePhase(US, inputs, PhaseX)
	case PhaseX:
		err = g.movement(DE, inputs, PhaseXI)
	case PhaseXI:
		g.removeCOW()
	default:
		err = fmt.Errorf("nothing to resolve in phase %q", st.P)
	}
	if err != nil {
		return rules.Outcome{}, err
	}
	g.out.State, g.out.Events = st, g.Events
	return g.out, nil
}

// Status implements rules.Ruleset.
func (r *Rules) Status(s rules.State, side rules.Side) string {
	st := s.(*State)
	var b strings.Builder
	if st.Quality > 0 {
		fmt.Fprintf(&b, "German division quality: rolled %d, German infantry fire strength %d (3.4)", st.Quality, st.GermanFS)
		if st.Quality == 6 {
			b.WriteString(", shock troops: 4 per hex (6.3)")
		}
		b.WriteString(".\n")
	} else {
		b.WriteString("German division quality: not yet rolled (3.4).\n")
	}
	if st.USCancelled {
		b.WriteString("US bombardments: cancelled for the rest of the game (5.2 I).\n")
	}
	live, dead := map[rules.Side]int{}, map[rules.Side]int{}
	for _, u := range st.Units {
		if u.Carnage {
			dead[sideOf(u.Kind)]++
		} else {
			live[sideOf(u.Kind)]++
		}
	}
	if len(st.Units) > 0 {
		fmt.Fprintf(&b, "Units on the map: US %d (%d eliminated), German %d (%d eliminated).\n", live[US], dead[US], live[DE], dead[DE])
	}
	if st.Options["york"] {
		b.WriteString("Optional rule 12.5 Sergeant York is in play.\n")
	}
	if st.Result != "" {
		b.WriteString(st.Result + "\n")
	}
	return strings.TrimRight(b.String(), "\n")
}

// Map implements rules.Ruleset: the text of [Rules.MapView].
func (r *Rules) Map(s rules.State, side rules.Side) string {
	return mapview.Render(r.MapView(s, side))
}

// OpenMap implements rules.OpenMap: MapView shows both sides the same map (6.5),
// so the desk draws it once for both.
func (r *Rules) OpenMap() bool { return true }

// MapView implements rules.Viewer. Nothing on the map is hidden in this game
// (6.5): both sides see every unit, carnage and marker.
func (r *Rules) MapView(s rules.State, side rules.Side) mapview.View {
	st := s.(*State)
	// The header gives the turn and says "phase": the title need not say them again.
	phase := strings.TrimPrefix(st.PhaseTitle(), fmt.Sprintf("Turn %d, Phase ", st.T))
	dead := 0
	for _, u := range st.Units {
		if u.Carnage {
			dead++
		}
	}
	// Sized for the units, at most one hex each, so that filling them grows no map.
	v := MapView{Turn: st.T, Phase: phase, Visibility: st.Visibility, Stacks: make(map[hex.Hex]Stack, len(st.Units)-dead), Carnage: make(map[hex.Hex]int, dead),
		COWed: map[hex.Hex]bool{}, Bombardment: map[hex.Hex]int{}, Revision: st.Revision}
	for _, id := range st.COWedHexes() {
		if h, err := hex.Parse(id); err == nil {
			v.COWed[h] = true
		}
	}
	for _, u := range st.Units {
		h, err := hex.Parse(u.Hex)
		if err != nil {
			continue
		}
		if u.Carnage {
			v.Carnage[h]++
			continue
		}
		sk := v.Stacks[h]
		switch u.Kind {
		case KindDeInf:
			sk.DeInf++
		case KindDeHMG:
			sk.DeHMG++
		case KindUSArmy:
			sk.USArmy++
		case KindYork:
			sk.USArmy++
			sk.York = true
		case KindUSMC:
			sk.USMC++
		}
		v.Stacks[h] = sk
	}
	return r.sc.View(v)
}

// checkCOW reads a standing COW priority list (7.1, 7.2, 7.4).
func (r *Rules) checkCOW(st *State, side rules.Side, b block) rules.Checked {
	c := rules.Checked{Line: b.line, Rule: "7.4"}
	for _, h := range b.hexes {
		if !r.sc.OnMap(h) {
			c.Reason = fmt.Sprintf("hex %s is not on the map", h)
			return c
		}
	}
	text := "COW NONE"
	c.Reason = "standing order: place no COWed markers (7.1, 7.2)"
	if !b.none {
		parts := make([]string, len(b.hexes))
		for i, h := range b.hexes {
			parts[i] = h.String()
		}
		text = "COW " + strings.Join(parts, " ")
		c.Reason = "standing order: each turn your COWed markers go on these hexes in this order, skipping any without an enemy unit that can be COWed (7.4-7.6)"
	}
	c.OK = true
	c.Orders = []rules.Order{{Phase: phaseStanding, Side: side, Key: keyCOW, Kind: "standing", Text: text, Summary: "standing Chaos of War list (7.4)"}}
	return c
}

// checkOverstack reads the OVERSTACK lines of a submission: together they are one
// standing order, the offended player's choice for the opponent's over-stacks (6.2),
// which replaces the one on file.
func (r *Rules) checkOverstack(side rules.Side, blocks []block) []rules.Checked {
	out := make([]rules.Checked, len(blocks))
	general := -1
	ok := true
	var lines []string
	for i, b := range blocks {
		o := b.over
		c := rules.Checked{Line: b.line, Rule: "6.2"}
		switch {
		case o.general() && general >= 0:
			c.Reason = "one OVERSTACK CARNAGE or OVERSTACK MOVE a submission: it is your choice for every hex"
		case o.general():
			general = i
			c.OK = true
			c.Reason = "standing choice: when your opponent over-stacks, the excess units move to the nearest legal hex (6.2)"
			if o.Carnage {
				c.Reason = "standing choice: when your opponent over-stacks, the excess units become carnage (6.2)"
			}
		case !r.sc.OnMap(o.Hex):
			c.Reason = fmt.Sprintf("hex %s is not on the map", o.Hex)
		case o.To != (hex.Hex{}) && !r.sc.OnMap(o.To):
			c.Reason = fmt.Sprintf("hex %s is not on the map", o.To)
		case o.Kind != "" && sideOf(o.Kind) == side:
			c.Reason = fmt.Sprintf("%s units are yours: you choose among your opponent's units, when he over-stacks (6.2: the offended player's choice)", kindWord[o.Kind])
		default:
			c.OK = true
			what := "his units"
			if o.Kind != "" {
				what = "his " + kindName[o.Kind] + "s"
			}
			switch {
			case o.Count == 1 && o.Kind != "":
				what = "1 " + kindName[o.Kind] + " at most"
			case o.Count == 1:
				what = "1 unit at most"
			case o.Count > 1:
				what = fmt.Sprintf("up to %d of %s", o.Count, what)
			}
			how := "move to the nearest legal hex"
			switch {
			case o.Carnage:
				how = "become carnage"
			case o.To != (hex.Hex{}):
				how = fmt.Sprintf("go to %s if it is one of the nearest legal hexes (else to the lowest-numbered of them)", o.To)
			}
			c.Reason = fmt.Sprintf("standing choice: when your opponent over-stacks in %s, the excess is taken from %s (the last to arrive first, no more than the limit needs) and they %s (6.2)", o.Hex, what, how)
		}
		ok = ok && c.OK
		lines = append(lines, o.String())
		out[i] = c
	}
	if ok {
		if len(blocks) > 1 {
			out[0].Reason += "; with the other OVERSTACK lines of this mail it replaces every OVERSTACK line you sent before"
		} else {
			out[0].Reason += "; it replaces every OVERSTACK line you sent before"
		}
		out[0].Orders = []rules.Order{{Phase: phaseStanding, Side: side, Key: keyOverstack, Kind: "standing", Text: strings.Join(lines, "\n"), Summary: "standing over-stacking choice (6.2)"}}
	}
	return out
}

// checkPhased reads MOVE and FIRE lines: each kind together is one order for the next
// movement or fire phase of the side (held until then, 5.2). For the phase now being
// played the lines are tried on a copy of the state, so that an illegal move or fire is
// refused at once with its reason.
func (r *Rules) checkPhased(st *State, side rules.Side, blocks []block) []rules.Checked {
	var out []rules.Checked
	for _, kind := range []string{"move", "fire"} {
		var these []block
		for _, b := range blocks {
			if b.kind == kind {
				these = append(these, b)
			}
		}
		if len(these) == 0 {
			continue
		}
		phase := phaseOf(side, kind)
		turn := st.nextTurnOf(phase)
		verdicts := make([]rules.Checked, len(these))
		for i, b := range these {
			verdicts[i] = rules.Checked{Line: b.line, OK: true, Rule: b.rule}
		}
		switch {
		case st.P == PhaseOver:
			for i := range verdicts {
				verdicts[i].OK, verdicts[i].Reason = false, "the game is over"
			}
		case turn > LastTurn:
			for i := range verdicts {
				verdicts[i].OK, verdicts[i].Reason = false, fmt.Sprintf("no %s phase is left in this game", strings.ToLower(kind))
			}
		case len(these) > 1 && anyNone(these):
			for i := range verdicts {
				verdicts[i].OK, verdicts[i].Reason = false, strings.ToUpper(kind)+" NONE goes alone: it means no "+kind+" at all this phase"
			}
		default:
			r.tryPhased(st, side, phase, turn, these, verdicts)
		}
		ok := true
		var lines []string
		for i, v := range verdicts {
			ok = ok && v.OK
			if these[i].none {
				lines = append(lines, strings.ToUpper(kind)+" NONE")
			} else if kind == "move" {
				lines = append(lines, these[i].move.String())
			} else {
				lines = append(lines, these[i].fire.String())
			}
		}
		if ok {
			key, summary := keyMoves, "movement"
			if kind == "fire" {
				key, summary = keyFire, "fire"
			}
			verdicts[0].Orders = []rules.Order{{Phase: fmt.Sprintf("%d.%s", turn, phase), Side: side, Key: key, Kind: kind,
				Text: strings.Join(lines, "\n"), Summary: fmt.Sprintf("%s %s orders for turn %d, Phase %s", sides.Name(side), summary, turn, phase)}}
		}
		out = append(out, verdicts...)
	}
	return out
}

func anyNone(bs []block) bool {
	for _, b := range bs {
		if b.none {
			return true
		}
	}
	return false
}

// tryPhased fills the verdicts of MOVE or FIRE lines: tried in order on a copy of the
// state when their phase is the one being played, else only held.
func (r *Rules) tryPhased(st *State, side rules.Side, phase string, turn int, these []block, verdicts []rules.Checked) {
	if st.P != phase || st.T != turn {
		for i, b := range these {
			verdicts[i].Reason = fmt.Sprintf("held for turn %d, Phase %s; checked against the map as it then stands", turn, phase)
			if b.none {
				verdicts[i].Reason = fmt.Sprintf("nothing in turn %d, Phase %s", turn, phase)
			}
		}
		return
	}
	g := newGame(r, st.clone(), nil)
	for i, b := range these {
		if b.none {
			verdicts[i].Reason = "nothing this phase"
			continue
		}
		var err error
		if b.kind == "move" {
			var mr moveResult
			mr, err = g.move(side, b.move, nil)
			if err == nil {
				verdicts[i].Reason = fmt.Sprintf("to %s, %d hex(es)", mr.reached, mr.steps)
				if mr.exited {
					verdicts[i].Reason = "off the map by the north edge (4.1)"
				}
			}
		} else {
			err = g.fire(side, b.fire, nil)
			if err == nil {
				verdicts[i].Reason = "in range; resolved in the order written (10.2)"
				g.st.Targets = append(g.st.Targets, b.fire.Target.String())
				if units, e := g.shooters(side, b.fire); e == nil {
					for _, u := range units {
						g.st.Fired = append(g.st.Fired, g.st.Units[u].ID)
					}
				}
			}
		}
		if err != nil {
			verdicts[i].OK, verdicts[i].Reason = false, err.Error()
		}
	}
}

// NewMatchGame implements rules.Matcher: the second game of the match uses the
// first game's division quality (4.2).
func (r *Rules) NewMatchGame(first rules.State, opts rules.Options) (rules.State, error) {
	f := first.(*State)
	if !f.Over() || f.Quality == 0 {
		return nil, fmt.Errorf("the first game of the match is not finished")
	}
	st, err := r.New(opts)
	if err != nil {
		return nil, err
	}
	st.(*State).FixedQuality = f.Quality
	return st, nil
}

// AtRevisionOf implements rules.Reviser: st at the revision initial was created
// under.
func (r *Rules) AtRevisionOf(st, initial rules.State) rules.State {
	s := *st.(*State)
	s.Revision = initial.(*State).Revision
	return &s
}

// MatchVerdict implements rules.Matcher (4.2): a sudden death victory trumps all
// penetration; else the higher penetration wins, and equal ones draw.
func (r *Rules) MatchVerdict(first, second rules.State, p1, p2 map[rules.Side]string) string {
	a, b := first.(*State), second.(*State)
	score := func(st *State) string {
		if st.Winner == string(US) {
			return "a sudden death victory (4.1)"
		}
		return fmt.Sprintf("penetration %02d", st.Penetration)
	}
	ua, ub := p1[US], p2[US]
	text := fmt.Sprintf("Match verdict (4.2): as the US, %s reached %s in the first game and %s %s in the second: ", ua, score(a), ub, score(b))
	sa, sb := a.Winner == string(US), b.Winner == string(US)
	switch {
	case sa && !sb:
		return text + ua + " wins the match."
	case sb && !sa:
		return text + ub + " wins the match."
	case sa && sb, a.Penetration == b.Penetration:
		return text + "the match is drawn."
	case a.Penetration > b.Penetration:
		return text + ua + " wins the match."
	}
	return text + ub + " wins the match."
}

// sides are the game's sides, as Sides gives them: the other side and a side's name.
var sides = rules.Sides{{ID: US, Name: "US"}, {ID: DE, Name: "German"}}
