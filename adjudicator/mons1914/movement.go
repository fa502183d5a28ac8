package mons1914

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Move is one MOVE or MARCH order: units that move together along a path (9.5).
type Move struct {
	March bool
	Units []string
	Path  []hex.Hex // the first hex is where the units are, or their entry hex (8.4)
	Exit  bool      // leave the map from the last hex (4.4)
}

// String is the order's canonical text.
func (m Move) String() string {
	verb := "MOVE"
	if m.March {
		verb = "MARCH"
	}
	var p []string
	for _, h := range m.Path {
		p = append(p, h.String())
	}
	if m.Exit {
		p = append(p, "OFF")
	}
	return verb + " " + strings.Join(m.Units, " ") + " " + strings.Join(p, "-")
}

// ruleErr is a refusal with the rule that decides it.
type ruleErr struct{ rule, msg string }

func (e *ruleErr) Error() string { return e.msg }

func refuse(rule, format string, args ...any) error {
	return &ruleErr{rule, fmt.Sprintf(format, args...)}
}

// adjacentTo reports whether h is next to a unit of side.
func (g *game) adjacentTo(h hex.Hex, side rules.Side) bool {
	for _, n := range g.sc.Map.Grid.Neighbours(h) {
		if len(g.at(n, side)) > 0 {
			return true
		}
	}
	return false
}

// move checks one move against the state and carries it out (9.0, 7.3, 6.0, 8.4, 9.20,
// 4.4). On error nothing has changed.
func (g *game) move(side rules.Side, m Move) error {
	st := g.st
	if len(m.Units) == 0 || len(m.Path) == 0 {
		return refuse("9.1", "name the units and their path")
	}
	var units []*Unit
	var entering bool
	corps := ""
	minMF := 1 << 30
	for i, id := range m.Units {
		c, ok := g.sc.Counter(id)
		if !ok {
			return refuse("2.6", "no unit %s", id)
		}
		u := st.unit(c.ID)
		if c.Side != side {
			return refuse("9.1", "%s is not yours", c.ID)
		}
		if slices.ContainsFunc(units, func(x *Unit) bool { return x.ID == c.ID }) {
			return refuse("9.2", "%s is named twice", c.ID)
		}
		if st.used("moved "+c.ID) && !st.revised(1) {
			return refuse("9.2", "%s has already moved this phase", c.ID)
		}
		if st.used("moved " + c.ID) {
			// 9.6, 9.7: a unit of the stack moving now may go on from where it
			// halted; once another parent stack has moved, it may not.
			if st.Origin[c.ID] != st.Parent {
				return refuse("9.6", "%s has already moved this phase, and its stack may not resume: another stack has moved since (9.6: \"once you begin moving an entirely different parent stack ... you may no longer resume the movement of the earlier stack\")", c.ID)
			}
			if st.used("marched "+c.ID) != m.March {
				return refuse("9.20", "%s goes on in the mode it began its move in (%s)", c.ID, map[bool]string{true: "MARCH", false: "MOVE"}[st.used("marched "+c.ID)])
			}
			if u.Status == OnMap && g.zoc(sides.Other(side))[hex.MustParse(u.Hex)] {
				return refuse("7.3", "%s stopped in an enemy zone of control in %s and may not move again this phase", c.ID, u.Hex)
			}
		}
		switch u.Status {
		case Waiting:
			e, _ := g.sc.EntryOf(c)
			if st.T < e.Turn {
				return refuse("8.2", "%s enters on turn %d", c.ID, e.Turn)
			}
			if !slices.Contains(e.Hexes, m.Path[0]) {
				return refuse("8.3", "%s enters through %s only", c.ID, hex.Join(e.Hexes, " or "))
			}
			entering = true
		case OnMap:
			if u.Hex != m.Path[0].String() {
				return refuse("9.5", "%s is in %s, not %s; units moving together begin the phase in the same hex", c.ID, u.Hex, m.Path[0])
			}
			if entering {
				return refuse("8.4", "entering units and units on the map do not move together")
			}
		default:
			return refuse("9.1", "%s is not on the map (%s)", c.ID, u.Status)
		}
		if i > 0 && entering != (u.Status == Waiting) {
			return refuse("8.4", "entering units and units on the map do not move together")
		}
		if c.Side == DE {
			if corps != "" && c.Corps != corps {
				return refuse("6.5", "units of %s and %s Corps may never move together", corps, c.Corps)
			}
			corps = c.Corps
		}
		minMF = min(minMF, c.MF)
		units = append(units, u)
	}
	if m.March {
		if side != DE {
			return refuse("9.20", "there is no British march mode; declare move/move instead")
		}
		if !entering && g.adjacentTo(m.Path[0], BEF) {
			return refuse("9.20", "march mode only for units beginning the phase in a hex not adjacent to any British unit")
		}
		minMF *= 2
	}
	if m.Exit {
		if side != BEF {
			return refuse("4.4", "only British units may move off the map")
		}
		if st.T < 8 {
			return refuse("4.4", "British units may not leave the map before Game Turn 8")
		}
		if !g.sc.Map.InSet("exit", m.Path[len(m.Path)-1]) {
			return refuse("4.4", "units leave only via the exit hexes %s", hex.Join(g.sc.Map.Set("exit"), " or "))
		}
	}
	ezoc := g.zoc(sides.Other(side))
	// Entry in column (8.4): the n-th unit or stack to enter through a hex this phase
	// pays n MP.
	cost := make([]int, len(units))
	if entering {
		n := 1
		for _, w := range st.Used {
			if w == "entered "+m.Path[0].String() {
				n++
			}
		}
		for i := range cost {
			cost[i] = n * g.sc.TEC.Scale
		}
	}
	// 9.5: units move together only if they began the phase stacked together; a
	// continuation (9.6, 9.7) is of units from the stack that moved last.
	origin := ""
	if entering {
		origin = fmt.Sprintf("column %s %d", m.Path[0], cost[0]/g.sc.TEC.Scale)
	}
	for k, u := range units {
		if !st.revised(1) {
			break // no split stacks: each unit moves once (9.2), from where it began
		}
		o := st.Origin[u.ID]
		if o == "" {
			o = origin
			if !entering {
				o = "hex " + u.Hex
			}
		}
		if k == 0 {
			origin = o
		} else if o != origin {
			return refuse("9.5", "%s did not begin the phase stacked with %s; to move together, units must begin their side's movement phase already stacked together", u.ID, units[0].ID)
		}
		cost[k] += st.Spent[u.ID]
	}
	start := 1
	if entering {
		start = 0
	}
	for i := start; i < len(m.Path); i++ {
		h := m.Path[i]
		if !g.sc.Map.OnMap(h) {
			return refuse("9.19", "%s is not on the map", h)
		}
		if i > 0 {
			for k, u := range units {
				mp, ok, why := g.sc.TEC.Step(g.sc.Map, g.counter(u).Class(), m.Path[i-1], h)
				if !ok {
					return refuse("9.8", "%s: %s", u.ID, why)
				}
				cost[k] += mp
			}
		}
		if len(g.at(h, sides.Other(side))) > 0 {
			return refuse("9.4", "%s holds enemy units", h)
		}
		if m.March && g.adjacentTo(h, BEF) {
			return refuse("9.20", "units in march mode may not move next to a British unit (%s)", h)
		}
		if ezoc[h] && i < len(m.Path)-1 {
			return refuse("7.3", "units must stop in the first hex they enter containing an enemy zone of control: %s", h)
		}
		if i == start && !entering && ezoc[m.Path[0]] && ezoc[h] {
			return refuse("7.3", "no unit may move directly from an enemy zone of control (%s) to another (%s)", m.Path[0], h)
		}
		// 6.2: the limit holds hex by hex and instant by instant, passing through too.
		here := append(g.at(h, side), units...)
		if p := g.stackProblem(here); p != "" {
			return refuse("6.3", "in %s: %s", h, p)
		}
	}
	extra := 0
	if m.Exit {
		extra = 1 // 4.4: leaving costs one movement point
	}
	// The TEC counts in 1/Scale MP; Mons' costs are whole MP (Scale 1) and entry costs
	// are whole MP too (8.4).
	scale := g.sc.TEC.Scale
	for k, u := range units {
		if need := cost[k] + extra*scale; need > minMF*scale {
			return refuse("9.3", "%s would need %s MP, it has %d%s", u.ID, mpText(need, scale), minMF, map[bool]string{true: " (march mode, 9.20)", false: " (the slowest MF of the stack, 9.7)"}[m.March])
		}
	}
	// Carry it out.
	for _, h := range m.Path[start:] {
		for _, u := range units {
			g.place(u, h)
		}
	}
	if st.Spent == nil && st.revised(1) {
		st.Spent, st.Origin = map[string]int{}, map[string]string{}
	}
	if st.revised(1) {
		st.Parent = origin
	}
	for k, u := range units {
		if st.revised(1) {
			st.Spent[u.ID], st.Origin[u.ID] = cost[k], origin
		}
		if !st.used("moved " + u.ID) {
			st.use("moved " + u.ID)
		}
		if m.March && !st.used("marched "+u.ID) {
			st.use("marched " + u.ID)
		}
		if m.Exit {
			u.Status, u.Hex = Exited, ""
		}
	}
	if entering {
		st.use("entered " + m.Path[0].String())
	}
	g.updateControl()
	return nil
}

// autoEnter enters the German units due this turn that the player's orders did not move:
// 8.3 allows no voluntary delay. Each unit enters through its first entry hex with room,
// in counter order, and stops there; units that cannot enter wait (8.3).
func (g *game) autoEnter() {
	var entered, waiting []string
	for _, c := range g.sc.Counters {
		u := g.st.unit(c.ID)
		if c.Side != "de" || u == nil || u.Status != Waiting {
			continue
		}
		e, _ := g.sc.EntryOf(c)
		if g.st.T < e.Turn {
			continue
		}
		ok := false
		for _, h := range e.Hexes {
			if g.move(DE, Move{Units: []string{c.ID}, Path: []hex.Hex{h}}) == nil {
				entered = append(entered, c.ID+" at "+h.String())
				ok = true
				break
			}
		}
		if !ok {
			waiting = append(waiting, c.ID)
		}
	}
	if len(entered) > 0 {
		g.EventTo("8.3", []rules.Side{DE}, "Entered by default, since no order moved them and entry may not be delayed (8.3): %s", strings.Join(entered, ", "))
	}
	if len(waiting) > 0 {
		g.EventTo("8.3", []rules.Side{DE}, "Could not enter (no room in the entry hex) and wait off the map (8.3): %s", strings.Join(waiting, ", "))
	}
}

// mpText writes a cost counted in 1/scale MP.
func mpText(n, scale int) string {
	if n%scale == 0 {
		return fmt.Sprint(n / scale)
	}
	return fmt.Sprintf("%d/%d", n, scale)
}
