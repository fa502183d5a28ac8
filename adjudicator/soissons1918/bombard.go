package soissons1918

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// segment is the bombardment segment of the current step: "first", "second", "night".
func (g *game) segment() string {
	switch g.st.P[2:] {
	case StepOne:
		return "first"
	case StepTwo:
		return "second"
	}
	return "night"
}

// bombard checks one bombardment against 17.1-17.4 and, with dice, resolves it on the
// Bombardment Table (17.6-17.8).
func (g *game) bombard(side rules.Side, b Bombard) error {
	st, m := g.st, g.sc.Map
	t := b.Target
	phasingSide := phasing(st.P) == side
	seg := g.segment()
	enemy := sides.Other(side)
	targets := g.combatAt(t, enemy)
	if len(targets) == 0 {
		return fmt.Errorf("%s holds no enemy combat unit (17.4: bombard eligible enemy units)", t)
	}
	friendlyNext := func(ok func(u *Unit) bool) bool {
		for _, n := range m.Grid.Neighbours(t) {
			for _, u := range g.unitsAt(n, side) {
				if ok(u) {
					return true
				}
			}
		}
		return false
	}
	switch {
	case seg == "first" && phasingSide:
		if !friendlyNext(func(u *Unit) bool { return u.Prepare }) {
			return fmt.Errorf("%s is next to none of your units with a Prepare marker (17.2.1)", t)
		}
	case seg == "first":
		if !friendlyNext(func(*Unit) bool { return true }) {
			return fmt.Errorf("%s is next to none of your units (17.2.1)", t)
		}
	case seg == "second" && !phasingSide:
		if !friendlyNext(func(u *Unit) bool { return u.Dis != Shocked }) {
			return fmt.Errorf("%s is next to none of your units that is not Shocked (17.2.2)", t)
		}
	case seg == "night" && !phasingSide:
		return fmt.Errorf("at night only the phasing player bombards (17.2.3)")
	}
	if b.Air > 0 && Night(st.T) {
		return fmt.Errorf("air support is never available at night (17.1.4)")
	}
	// 17.6: "Artillery bombardment against one hex is resolved by rolling a die", on
	// the column of "the total number of artillery points used against that hex": one
	// bombardment a hex, all its points in one order.
	if g.shelled[shellID{side, t}] {
		return fmt.Errorf("%s is bombarded already this segment (17.6: one roll on the total of the points used against a hex); to change it, CANCEL BOMBARD %s and send it again with all its points", t, t)
	}
	have := st.Art[side]
	if b.Heavy > have.Heavy || b.Medium > have.Medium || b.Air > have.Air {
		return fmt.Errorf("you have heavy %d, medium %d, air %d points left (17.3, 17.4)", have.Heavy, have.Medium, have.Air)
	}
	if b.Medium > 0 {
		ok := false
		for i := range st.Units {
			u := &st.Units[i]
			if u.Where == OnMap && g.sideOf(u) == side && g.counter(u).Kind == KindHQ && m.Grid.Distance(g.hexOf(u), t) <= 5 {
				ok = true
			}
		}
		if !ok {
			return fmt.Errorf("army medium artillery reaches only within five hexes of a friendly HQ (17.1.2)")
		}
	}
	seen := map[string]bool{}
	for _, id := range b.Organic {
		hq := st.unit(id)
		if hq == nil || g.sideOf(hq) != side || hq.Where != OnMap {
			return fmt.Errorf("%s is not one of your HQs on the map", id)
		}
		if hq.ArtUsed || seen[id] {
			return fmt.Errorf("HQ %s's organic point is used (17.3.2: one point, flipped when used)", id)
		}
		seen[id] = true
		if m.Grid.Distance(g.hexOf(hq), t) > 5 {
			return fmt.Errorf("%s is more than five hexes from HQ %s (17.1.1)", t, id)
		}
		if own, others := g.nearestOf(side, t, id); own < 0 || (others >= 0 && others < own) {
			return fmt.Errorf("%s is closer to a unit of another corps than to one of %s's (17.1.1)", t, id)
		}
	}
	if g.shelled == nil {
		g.shelled = map[shellID]bool{}
	}
	g.shelled[shellID{side, t}] = true
	have.Heavy -= b.Heavy
	have.Medium -= b.Medium
	have.Air -= b.Air
	st.Art[side] = have
	for _, id := range b.Organic {
		st.unit(id).ArtUsed = true
	}
	if g.d == nil {
		return nil
	}
	// 17.7's DRMs, all cumulative.
	var mods []string
	mod := 0
	add := func(n int, why string) { mod += n; mods = append(mods, fmt.Sprintf("%+d %s", n, why)) }
	if seg == "first" && phasingSide {
		add(1, "first bombardment, phasing player")
	}
	if side == DE && st.T == 1 && seg == "first" {
		add(-2, "German, 18 July AM first mutual bombardment (22)")
	}
	switch m.Terrain(t) {
	case "village", "ravine":
		add(-1, "village or ravine")
	case "city":
		add(-2, "Soissons city hex")
	}
	if Night(st.T) {
		add(-1, "night")
	}
	airAlone := b.Air > 0 && b.Points() == b.Air
	if !airAlone && !friendlyNext(func(*Unit) bool { return true }) {
		add(-1, "not adjacent to a friendly unit")
	}
	tab := g.sc.Tables["bombardment"]
	r := g.rollD6(fmt.Sprintf("17.6 bombardment of %s with %d points", t, b.Points()), "17.6", mod)
	roll := board.Clamp(r.Result, tab.Rolls[0], tab.Rolls[1])
	res, col, err := tab.Lookup(b.Points(), roll)
	if err != nil {
		return fmt.Errorf("bombardment table: %w", err)
	}
	detail := ""
	if len(mods) > 0 {
		detail = " [" + strings.Join(mods, ", ") + "]"
	}
	total := strconv.Itoa(r.Result)
	if roll != r.Result {
		total += fmt.Sprintf(", read as %d", roll) // 17.6: the table's rows end there
	}
	points := "points"
	if b.Points() == 1 {
		points = "point"
	}
	g.RollEvent("17.6", r, "%s bombards %s with %d %s (column %s): roll %d%s = %s: %s", sides.Name(side), t, b.Points(), points, col, r.Values[0], detail, total, g.applyBombardment(targets, res))
	return nil
}

// nearestOf gives the distance from t to the nearest unit of side subordinated to hq,
// and to the nearest one subordinated to another HQ (-1: none).
func (g *game) nearestOf(side rules.Side, t hex.Hex, hq string) (own, others int) {
	own, others = -1, -1
	for i := range g.st.Units {
		u := &g.st.Units[i]
		if u.Where != OnMap || g.sideOf(u) != side || !g.counter(u).Combat() || u.Remnant {
			continue
		}
		d := g.sc.Map.Grid.Distance(t, g.hexOf(u))
		if g.corps(u) == hq {
			if own < 0 || d < own {
				own = d
			}
		} else if others < 0 || d < others {
			others = d
		}
	}
	return own, others
}

// applyBombardment applies a result of 17.8 to every unit in the hex, and says what
// happened.
func (g *game) applyBombardment(us []*Unit, res string) string {
	switch res {
	case "-":
		return "no effect"
	case "(D)":
		// 17.8 example: "(D) applied to a Good Order unit causes the unit to be
		// Disorganized, not Reforming"; on a Disorganized unit it has no effect.
		for _, u := range us {
			u.Dis = max(u.Dis, Disorganized)
		}
		return "(D): every unit at least Disorganized"
	}
	losses := 0
	if res == "1" || res == "2" {
		losses = int(res[0] - '0')
	}
	// The disruption is applied before the losses, so that a regiment turned into a
	// remnant by this result (8) is not disrupted twice.
	for _, u := range us {
		g.disrupt(u, 1)
		u.Dis = max(u.Dis, Disorganized)
	}
	var took []string
	for range losses {
		u := g.lossTaker(us)
		if u == nil {
			took = append(took, "void (17.8.1: only remnants left)")
			break
		}
		took = append(took, g.takeLoss(u)+g.lossWhy)
	}
	out := "D: disruption up one, at least Disorganized"
	if losses > 0 {
		out = fmt.Sprintf("%s losses (%s), and disruption up one, at least Disorganized", res, strings.Join(took, "; "))
	}
	return out
}

// lossTaker is the unit that takes the next loss. 17.8 and 17.8.1 disagree: 17.8 says
// losses "may only be applied to remnants (and therefore converted into retreat) if
// another non-remnant unit is not present", 17.8.1 that "Remnants are immune to
// bombardment losses ... additional Loss results are void. Remnants do not convert
// bombardment losses into retreats." 17.8.1, the specific case, is applied: once only
// remnants are left, a loss is void. The taker is the defender's standing LOSSES
// order, else the strongest non-remnant unit (17.8: "allocated freely by the
// defender").
func (g *game) lossTaker(us []*Unit) *Unit {
	var cands []*Unit
	for _, u := range us {
		if !u.Remnant && g.strength(u) > 1 {
			cands = append(cands, u)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	if o, ok := g.standing[standingID{g.sideOf(cands[0]), kLosses}]; ok {
		for _, id := range strings.Split(strings.TrimPrefix(o, "LOSSES "), ",") {
			for _, u := range cands {
				if u.ID == id {
					g.lossWhy = " (its owner's LOSSES order)"
					return u
				}
			}
		}
	}
	g.lossWhy = " (default: the strongest unit)"
	slices.SortStableFunc(cands, func(a, b *Unit) int { return g.strength(b) - g.strength(a) })
	return cands[0]
}

// takeLoss gives u one loss; a German unit left with 1 SP becomes a remnant (8).
func (g *game) takeLoss(u *Unit) string {
	u.Losses++
	c := g.counter(u)
	if c.Side == DE && g.strength(u) <= 1 {
		u.Remnant = true
		u.Prepare, u.Improvised = false, ""
		u.Dis = max(u.Dis, Disorganized)
		return u.ID + " becomes a remnant"
	}
	return fmt.Sprintf("%s now %d SP", u.ID, g.strength(u))
}

// shellID is a hex one side bombarded in the current segment (17.6: one bombardment a
// hex, all its points in one order).
type shellID struct {
	side rules.Side
	hex  hex.Hex
}
