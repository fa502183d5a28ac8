package soldiers1918

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Phases VII and X: movement (9.0), with Chaos of War checks (7.4), the exit off the
// north edge (4.1, 4.3), Marine esprit (11.1) and stacking (6.1, 6.2).

// pickUnits chooses among candidate units (indexes, lowest ids first) those of kind
// ("" for any; Army includes Sergeant York's platoon unless a count is given: "2 ARMY"
// means two plain platoons, York is named YORK), count of them (0 for all). It says
// what is missing, for the order check.
func (st *State) pickUnits(cands []int, count int, kind, at, verb string) ([]int, error) {
	var picked []int
	for _, i := range cands {
		k := st.Units[i].Kind
		if kind == "" || k == kind || (kind == KindUSArmy && k == KindYork && count == 0) {
			picked = append(picked, i)
		}
	}
	if len(picked) == 0 {
		return nil, fmt.Errorf("no unit of yours in %s that can %s (COWed units may not, 7.3; a unit %ss once a phase, 9.1, 10.2)", at, verb, verb)
	}
	if count > 0 {
		if count > len(picked) {
			return nil, fmt.Errorf("%d unit(s) asked for, %s has %d of yours that can %s", count, at, len(picked), verb)
		}
		picked = picked[:count]
	}
	return picked, nil
}

// moveUnits picks the units a MOVE line moves, from the state as it is when the line's
// turn comes: live units of side in the first hex of the path, not COWed (7.3), not moved
// by an earlier line this phase (9.1).
func (st *State) moveUnits(side rules.Side, m moveSpec, sc *Scenario, moved map[int]bool) ([]int, error) {
	var cands []int
	for _, i := range st.liveIn(m.Path[0], side) {
		if !st.isCOWed(st.Units[i]) && !moved[i] {
			cands = append(cands, i)
		}
	}
	return st.pickUnits(cands, m.Count, m.Kind, m.Path[0].String(), "move")
}

// moveResult is what one MOVE line did.
type moveResult struct {
	reached hex.Hex
	steps   int
	exited  bool
}

// move carries out one MOVE line (9.1-9.7). With d nil it only checks the move, as if
// every Chaos of War check passed: the order check runs it so, on a copy of the state.
// Units that end the move in a COWed hex are COWed there (7.4); when a 7.4 check stops
// the stack, the units that can never be COWed (York with 12.5, 7.6) go on.
func (g *game) move(side rules.Side, m moveSpec, d dice.Source) (res moveResult, err error) {
	st, sc := g.st, g.r.sc
	units, err := st.moveUnits(side, m, sc, g.moved)
	if err != nil {
		return moveResult{}, err
	}
	if g.moved == nil {
		g.moved, g.arrivals = map[int]bool{}, map[int]int{}
	}
	for _, i := range units {
		g.moved[i] = true
		g.arrivals[i] = len(g.arrivals) + 1
	}
	enemy := sides.Other(side)
	defer func() {
		// 7.4: "If a moving unit or stack stops its move in a COWed hex, it automatically
		// becomes COWed there for the rest of the game turn", wherever the move ended.
		if res.steps > 0 && !res.exited {
			g.stopIn(units, res.reached, d != nil)
		}
	}()
	slowest := func(units []int) int {
		ma := 1 << 30
		for _, i := range units {
			ma = min(ma, sc.Movement[st.Units[i].Kind].N)
		}
		return ma
	}
	ma := slowest(units)
	moving := map[int]bool{}
	for _, i := range units {
		moving[i] = true
	}
	spent := 0
	at := m.Path[0]
	res = moveResult{reached: at}
	for n, next := range m.Path[1:] {
		if !sc.Grid.Adjacent(at, next) {
			return res, fmt.Errorf("%s is not next to %s (9.1)", next, at)
		}
		if !sc.OnMap(next) {
			return res, fmt.Errorf("%s is not on the map (4.3: only US units leave, by the north edge)", next)
		}
		if len(st.liveIn(next, enemy)) > 0 {
			return res, fmt.Errorf("%s holds enemy units, which may never be entered (9.6)", next)
		}
		if st.Visibility > 0 && n+1 > st.Visibility {
			return res, fmt.Errorf("%d hexes is farther than this turn's visibility of %d (9.7)", n+1, st.Visibility)
		}
		cost, _ := sc.EnterCost(at, next)
		if g.crowded(next, side, moving) {
			cost++ // 6.1, 9.4: carnage or friendly units in the hex entered
		}
		if spent+cost > ma {
			return res, fmt.Errorf("entering %s costs %d MP, and only %d of %d are left (9.3)", next, cost, ma-spent, ma)
		}
		spent += cost
		for _, i := range units {
			st.Units[i].Hex = next.String()
		}
		at, res.reached, res.steps = next, next, n+1
		if d != nil && st.hasCOW(next.String()) && (n+2 < len(m.Path) || m.Exit) && g.cowCheck(units, next, d) {
			// 7.4 stops the units that can be COWed; 7.5, 7.6 and 12.5 supersede 7.4 for
			// the others, which go on along the ordered path.
			var goOn, stopped []int
			for _, i := range units {
				if st.cowImmune(st.Units[i], sc) {
					goOn = append(goOn, i)
				} else {
					st.cowUnit(i, sc)
					delete(moving, i)
					stopped = append(stopped, i)
				}
			}
			if len(goOn) == 0 {
				return res, nil
			}
			g.Event("12.5, 7.6", "%s COWed in %s; %s never becomes COWed (7.6 supersedes 7.4): it goes on along its path alone.", unitNames(st, stopped), next, unitNames(st, goOn))
			units, ma = goOn, slowest(goOn)
		}
	}
	if m.Exit {
		if side != US {
			return res, fmt.Errorf("only US units may leave the map (4.3)")
		}
		if !sc.Hex(at).Exit {
			return res, fmt.Errorf("%s is not a north-edge exit hex (4.1: 1020 through 4919)", at)
		}
		cost := 1
		if info := sc.Hex(at); info.Has(MainTrench) || info.Has(SupportTrench) || info.Has(CommTrench) {
			cost = 2 // 4.3: a trench line crossing the exit hexside (reconstructed: any trench in the hex)
		}
		if spent+cost > ma {
			return res, fmt.Errorf("leaving the map from %s costs %d MP, and only %d are left (4.3)", at, cost, ma-spent)
		}
		for _, i := range units {
			st.Units[i].Hex = "exit"
		}
		res.exited = true
	}
	return res, nil
}

// stopIn is the end of a move in h: in a hex holding COWed units, the moving units that
// can be COWed are, for the rest of the turn (7.4; 7.5, 7.6, 12.5 supersede it).
func (g *game) stopIn(units []int, h hex.Hex, report bool) {
	if !g.st.hasCOW(h.String()) {
		return
	}
	var cowed []int
	for _, i := range units {
		if !g.st.isCOWed(g.st.Units[i]) && g.st.cowUnit(i, g.r.sc) {
			cowed = append(cowed, i)
		}
	}
	if report && len(cowed) > 0 {
		g.Event("7.4", "%s stops in the COWed hex %s and is COWed for the rest of the turn.", unitNames(g.st, cowed), h)
	}
}

// unitNames names units for an event: "US Army platoon", "2 US Army platoons and
// Sergeant York's platoon".
func unitNames(st *State, units []int) string {
	counts := map[string]int{}
	for _, i := range units {
		counts[st.Units[i].Kind]++
	}
	var parts []string
	for _, k := range kindOrder {
		switch n := counts[k]; {
		case n == 1:
			parts = append(parts, kindName[k])
		case n > 1:
			parts = append(parts, fmt.Sprintf("%d %ss", n, kindName[k]))
		}
	}
	if len(parts) > 1 {
		return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
	}
	return strings.Join(parts, "")
}

// crowded reports carnage or friendly units, other than the moving ones, in h (9.4).
func (g *game) crowded(h hex.Hex, side rules.Side, moving map[int]bool) bool {
	id := h.String()
	for i, u := range g.st.Units {
		if u.Hex != id || moving[i] {
			continue
		}
		if u.Carnage || sideOf(u.Kind) == side {
			return true
		}
	}
	return false
}

// cowCheck is 7.4 for a stack entering a COWed hex on its way: a roll of 1-3 COWs it
// there and ends its move. A stack of immune units only (7.5, 7.6) does not roll.
func (g *game) cowCheck(units []int, h hex.Hex, d dice.Source) bool {
	exposed := false
	for _, i := range units {
		if !g.st.cowImmune(g.st.Units[i], g.r.sc) {
			exposed = true
		}
	}
	if !exposed {
		return false
	}
	roll := d.Roll(dice.Request{Purpose: fmt.Sprintf("7.4 Chaos of War check entering %s", h), Rule: "7.4", Count: 1, Sides: 6})
	if roll.Result <= 3 {
		g.RollEvent("7.4", roll, "Moving units enter the COWed hex %s: rolled %d (1-3): COWed there, their move ends.", h, roll.Result)
		return true
	}
	g.RollEvent("7.4", roll, "Moving units enter the COWed hex %s: rolled %d (4-6): they may go on.", h, roll.Result)
	return false
}

// movement resolves Phase VII (US) or X (German): each MOVE line in the order written.
func (g *game) movement(side rules.Side, inputs []rules.Order, next string) error {
	name := sides.Name(side)
	// Where each unit started and whether 11.1 exempts it, by its index.
	start := make([]string, len(g.st.Units))
	for i, u := range g.st.Units {
		start[i] = u.Hex
	}
	exempt := make([]bool, len(g.st.Units))
	if side == US {
		// The German-occupied hexes as the phase starts, gathered once rather than
		// each Marine's neighbours looked for among all the units.
		german := map[string]bool{}
		for _, u := range g.st.Units {
			if !u.Carnage && sideOf(u.Kind) == DE {
				german[u.Hex] = true
			}
		}
		for i, u := range g.st.Units {
			if u.Kind != KindUSMC || len(german) == 0 {
				continue
			}
			if h, err := hex.Parse(u.Hex); err == nil && nextTo(g.r.sc.Grid, h, german) {
				exempt[i] = true // 11.1: started next to a German-occupied hex
			}
		}
	}
	moved := 0
	if o, ok := orderByKey(inputs, side, keyMoves); ok {
		g.out.Consumed = append(g.out.Consumed, o.ID())
		for _, b := range parseCanonical(o.Text) {
			if b.none {
				continue
			}
			res, err := g.move(side, b.move, g.d)
			switch {
			case err != nil && res.steps == 0:
				g.ownerOnly(side, "9.0", "%s: not carried out: %v.", b.move, err)
			case err != nil:
				g.ownerOnly(side, "9.0", "%s: stopped in %s: %v.", b.move, res.reached, err)
				// The other side sees the move as far as it went, not where it was to go.
				g.otherOnly(side, "9.0", "%s: the units move %d hex(es) to %s.", b.move.upTo(res.steps), res.steps, res.reached)
				moved++
			case res.exited:
				g.Event("4.1", "%s: the units leave the map by the north edge.", b.move)
				moved++
			default:
				g.Event("9.0", "%s: the units move %d hex(es) to %s.", b.move, res.steps, res.reached)
				moved++
			}
			if res.exited {
				g.st.Winner = string(US)
				g.st.Result = "US sudden death victory: US units left the map by the north edge in the US Movement Phase of turn " + fmt.Sprint(g.st.T) + " (4.1)."
				g.Event("4.1", "%s", g.st.Result)
				g.st.P = PhaseOver
				return nil
			}
		}
	}
	if moved == 0 {
		g.Event("9.2", "The %s player moves no units.", name)
	}
	if side == US {
		g.esprit(start, exempt)
	}
	offended := sides.Other(side)
	var choice []overSpec
	if o, ok := orderByKey(inputs, offended, keyOverstack); ok {
		for _, b := range parseCanonical(o.Text) {
			if b.err == nil {
				choice = append(choice, b.over)
			}
		}
	}
	g.correctStacking(side, choice)
	g.st.P = next
	return nil
}

// esprit is 11.1 at the end of the US Movement Phase: every USMC unit must end at least
// one row farther north than it started, unless it started next to a German-occupied hex.
func (g *game) esprit(start []string, exempt []bool) {
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if i >= len(start) || u.Kind != KindUSMC || u.Carnage || exempt[i] {
			continue
		}
		from, err := hex.Parse(start[i])
		if err != nil {
			continue
		}
		if to, err := hex.Parse(u.Hex); err == nil && to.Row >= from.Row+1 {
			continue
		}
		u.Carnage = true
		g.Event("11.1", "USMC platoon in %s did not end the phase north of row %02d: it dies trying, now carnage.", u.Hex, from.Row)
	}
}

// nextTo reports whether a hex next to h is one of hexes (by id).
func nextTo(grid hex.Grid, h hex.Hex, hexes map[string]bool) bool {
	for _, n := range grid.Neighbours(h) {
		if hexes[n.String()] {
			return true
		}
	}
	return false
}
