package mons1914

import (
	"cmp"
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

// game is a state being worked on with its scenario: what both the order check and the
// resolution use, so that a move is judged the same way in both.
type game struct {
	rules.Log
	sc *Scenario
	st *State
	d  dice.Source // nil in the order check: combat is not tried there
}

// newGame works on st with the scenario sc.
func newGame(sc *Scenario, st *State) *game {
	return &game{Log: rules.Log{State: st, Sides: sides}, sc: sc, st: st}
}

func (g *game) counter(u *Unit) *Counter { c, _ := g.sc.Counter(u.ID); return c }

// at lists the units of side (any side when "") in h, in order of arrival.
func (g *game) at(h hex.Hex, side rules.Side) []*Unit {
	var out []*Unit
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Status == OnMap && u.Hex == h.String() && (side == "" || g.counter(u).Side == side) {
			out = append(out, u)
		}
	}
	slices.SortStableFunc(out, func(a, b *Unit) int { return cmp.Compare(a.Arrived, b.Arrived) })
	return out
}

// positions lists the hexes holding units of side.
func (g *game) positions(side rules.Side) []hex.Hex {
	seen := map[hex.Hex]bool{}
	var out []hex.Hex
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Status != OnMap || g.counter(u).Side != side {
			continue
		}
		h := hex.MustParse(u.Hex)
		if !seen[h] {
			seen[h] = true
			out = append(out, h)
		}
	}
	return out
}

// zoc is the zone of control of side's units (7.1, 7.2).
func (g *game) zoc(side rules.Side) map[hex.Hex]bool {
	return board.Zones(g.sc.Map, g.positions(side), g.sc.ZOCInto)
}

// sp is the stacking points of units (6.3, 6.4: a regiment is 4 SP at every step).
func (g *game) sp(us []*Unit) int {
	n := 0
	for _, u := range us {
		n += g.counter(u).SP
	}
	return n
}

// place puts u in h, on top of any units there, and switches control (3.2).
func (g *game) place(u *Unit, h hex.Hex) {
	g.st.Clock++
	u.Status, u.Hex, u.Arrived = OnMap, h.String(), g.st.Clock
	g.st.setControl(h, g.counter(u).Side == DE)
}

// updateControl applies 3.2's uncontested zones of control: a hex in one side's zone and
// not the other's, holding no unit of the other side, belongs to the first.
func (g *game) updateControl() {
	dz, bz := g.zoc(DE), g.zoc(BEF)
	for h := range dz {
		if !bz[h] && len(g.at(h, BEF)) == 0 {
			g.st.setControl(h, true)
		}
	}
	for h := range bz {
		if !dz[h] && len(g.at(h, DE)) == 0 {
			g.st.setControl(h, false)
		}
	}
	for _, h := range g.positions(DE) {
		g.st.setControl(h, true)
	}
	for _, h := range g.positions(BEF) {
		g.st.setControl(h, false)
	}
}

// stackProblem says why units of side in h break 6.3 or 6.5, or "".
func (g *game) stackProblem(us []*Unit) string {
	if n := g.sp(us); n > 5 {
		return fmt.Sprintf("%d stacking points, the limit is five (6.3; a German regiment is 4 SP at every step, 6.4)", n)
	}
	corps := ""
	for _, u := range us {
		c := g.counter(u)
		if c.Side != "de" {
			continue
		}
		if corps != "" && c.Corps != corps {
			return fmt.Sprintf("units of %s and %s Corps may never occupy the same hex (6.5)", corps, c.Corps)
		}
		corps = c.Corps
	}
	return ""
}

// eliminate puts u in the dead pile, noting 4.5's surrounded condition.
func (g *game) eliminate(u *Unit, rule string) {
	c := g.counter(u)
	h := hex.MustParse(u.Hex)
	if c.Side == BEF {
		dz := g.zoc(DE)
		u.Surrounded = board.Surrounded(g.sc.Map, h, func(x hex.Hex) bool { return dz[x] || len(g.at(x, DE)) > 0 })
	}
	u.Status, u.Hex, u.Steps = Dead, "", 0
	if u.Surrounded {
		g.Event("4.5", "%s eliminated in %s while surrounded: it counts twice (4.5)", u.ID, h)
	} else {
		g.Event(rule, "%s eliminated in %s", u.ID, h)
	}
}

// lossEntry reads one entry of a loss order: "ID" (every step it can give) or "ID:N"
// (at most N steps, 12.12: so that a two-step loss can be one step from each of two
// units).
func lossEntry(e string) (id string, limit int) {
	id, n, ok := strings.Cut(e, ":")
	if !ok {
		return e, 0
	}
	limit, _ = strconv.Atoi(n)
	return id, limit
}

// loseSteps applies n step losses among units, the priority (the choosing player's order,
// entries as lossEntry reads them) first, then the units with the most steps left. With strict (10.9, 11.5) no unit is
// eliminated while another of them has more than one step; without it (12.12, "as each
// sees fit") a unit named in the priority takes losses until it is eliminated, and only
// the default spreads them. It returns what was applied, and whether the priority chose
// any unit (an order naming none of units played no part).
func (g *game) loseSteps(units []*Unit, n int, priority []string, rule string, strict bool) (out []string, ordered bool) {
	taken := make([]int, len(priority)) // steps each entry of the priority has given
	for ; n > 0; n-- {
		alive := slices.DeleteFunc(slices.Clone(units), func(u *Unit) bool { return u.Status != OnMap })
		if len(alive) == 0 {
			break
		}
		multi := slices.ContainsFunc(alive, func(u *Unit) bool { return u.Steps > 1 })
		pick := func(u *Unit) bool { return !multi || u.Steps > 1 }
		named := pick
		if !strict {
			named = func(*Unit) bool { return true }
		}
		var target *Unit
		for i, e := range priority {
			id, limit := lossEntry(e)
			for _, u := range alive {
				if orders.EqualFold(u.ID, id) && named(u) && target == nil && (limit == 0 || taken[i] < limit) {
					target, ordered = u, true
					taken[i]++
				}
			}
		}
		if target == nil {
			for _, u := range alive {
				if pick(u) && (target == nil || u.Steps > target.Steps) {
					target = u
				}
			}
		}
		target.Steps--
		if target.Steps == 0 {
			target.Steps = 1 // eliminate reads the hex and resets it
			g.eliminate(target, rule)
			out = append(out, target.ID+" eliminated")
		} else {
			out = append(out, fmt.Sprintf("%s to %d step(s)", target.ID, target.Steps))
		}
	}
	return out, ordered
}
