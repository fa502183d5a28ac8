package soldiers1918

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Phases VIII and IX: fire (10.0), with Marine cooperation (11.2) and the mandatory
// advance after combat (10.10).

// MaxRange is the longest any unit may fire, whatever the visibility (10.6).
const MaxRange = 16

func isInfantry(kind string) bool { return kind != KindDeHMG }

// fireStrength is a unit's printed FS: German infantry by the division quality (3.4),
// Sergeant York double with the 12.5 option, the others from the chart (13.2).
func (g *game) fireStrength(u Unit) int {
	switch u.Kind {
	case KindDeInf:
		return g.st.GermanFS
	case KindYork:
		if !g.st.Options["york"] {
			return g.r.sc.FireStrength[KindUSArmy].N
		}
	}
	return g.r.sc.FireStrength[u.Kind].N
}

// shooters picks the units a FIRE line uses, from the state as it is when the line's turn
// comes: live, not COWed (7.3), not yet fired this phase (10.2), in range (10.6).
func (g *game) shooters(side rules.Side, f fireSpec) ([]int, error) {
	st, sc := g.st, g.r.sc
	var picked []int
	taken := map[int]bool{} // a unit named twice in one line still fires once (10.2)
	for _, src := range f.From {
		var cands []int
		for _, i := range st.liveIn(src.Hex, side) {
			if u := st.Units[i]; !st.isCOWed(u) && !st.hasFired(u.ID) && !taken[i] {
				cands = append(cands, i)
			}
		}
		here, err := st.pickUnits(cands, src.Count, src.Kind, src.Hex.String(), "fire")
		if err != nil {
			return nil, err
		}
		dist := sc.Grid.Distance(src.Hex, f.Target)
		if dist > MaxRange || (st.Visibility > 0 && dist > st.Visibility) {
			return nil, fmt.Errorf("%s is %d hexes from %s, beyond this turn's visibility of %d (10.6)", f.Target, dist, src.Hex, st.Visibility)
		}
		for _, i := range here {
			taken[i] = true
		}
		picked = append(picked, here...)
	}
	return picked, nil
}

// fire carries out one FIRE line. With d nil it only checks it.
func (g *game) fire(side rules.Side, f fireSpec, d dice.Source) error {
	st, sc := g.st, g.r.sc
	enemy := sides.Other(side)
	targets := st.liveIn(f.Target, enemy)
	if len(targets) == 0 {
		return errEmptyTarget
	}
	for _, t := range st.Targets {
		if t == f.Target.String() {
			return fmt.Errorf("%s was already fired into this phase (10.5)", f.Target)
		}
	}
	units, err := g.shooters(side, f)
	if err != nil {
		return err
	}
	// 11.2: USMC and Army fire together only when every one of them is adjacent.
	marines, army := false, false
	for _, i := range units {
		if st.Units[i].Kind == KindUSMC {
			marines = true
		} else if sideOf(st.Units[i].Kind) == US {
			army = true
		}
	}
	if marines && army {
		for _, i := range units {
			h, _ := hex.Parse(st.Units[i].Hex)
			if !sc.Grid.Adjacent(h, f.Target) {
				return fmt.Errorf("USMC and US Army units fire at one hex only when all of them are adjacent to it, and %s is not (11.2)", h)
			}
		}
	}
	if d == nil {
		return nil
	}
	full, halved := 0, 0
	var adjacentInfantry []int
	var from []hex.Hex // where the fire comes from, for the picture (rules.Aim)
	for _, i := range units {
		u := st.Units[i]
		h, _ := hex.Parse(u.Hex)
		from = append(from, h)
		fs := g.fireStrength(u)
		dist := sc.Grid.Distance(h, f.Target)
		switch {
		case isInfantry(u.Kind) && dist == 1:
			full += 2 * fs // 10.6: doubled when adjacent; never HMGs (10.10)
			adjacentInfantry = append(adjacentInfantry, i)
		case isInfantry(u.Kind) && st.Visibility > 0 && 2*dist >= st.Visibility:
			halved += fs // 10.6: one grand division for all halved units
		default:
			full += fs
		}
		st.Fired = append(st.Fired, u.ID)
	}
	total := full + halved/2
	ds, terrain := sc.Defence(f.Target)
	odds, _ := board.Odds(total, ds) // 10.3: rounded down; no defence, no odds
	hit := HitNumber(odds)
	oddsText := fmt.Sprintf("%d:1", odds)
	if odds < 1 {
		oddsText = "less than 1:1"
	}
	st.Targets = append(st.Targets, f.Target.String())
	text := fmt.Sprintf("%s: %d unit(s), fire strength %d", f, len(units), total)
	if halved > 0 {
		text += fmt.Sprintf(" (of it %d halved to %d at half the visibility or more, 10.6)", halved, halved/2)
	}
	g.Event("10.3, 10.6", "%s against %s (%s, defence %d): odds %s, eliminates on 1-%d (10.8); one roll for each of the %d unit(s) there.",
		text, f.Target, terrain, ds, oddsText, hit, len(targets))
	rules.Aim(g.Events[len(g.Events)-1:], from, f.Target)
	name := sides.Name(side)
	for n, i := range targets {
		u := &st.Units[i]
		roll := d.Roll(dice.Request{Purpose: fmt.Sprintf("10.8 %s fire into %s at %s, %s %d of %d", name, f.Target, oddsText, kindName[u.Kind], n+1, len(targets)), Rule: "10.8", Count: 1, Sides: 6})
		if roll.Result <= hit {
			u.Carnage = true
			g.RollEvent("10.8, 2.6", roll, "%s in %s: rolled %d: eliminated, now carnage.", kindName[u.Kind], f.Target, roll.Result)
		} else {
			g.RollEvent("10.8", roll, "%s in %s: rolled %d: no effect.", kindName[u.Kind], f.Target, roll.Result)
		}
	}
	if len(st.liveIn(f.Target, enemy)) == 0 && len(adjacentInfantry) > 0 {
		g.advance(side, f, adjacentInfantry)
	}
	return nil
}

var errEmptyTarget = fmt.Errorf("the target hex holds no enemy unit (10.2)")

// advance is 10.10: "all of the adjacent participating infantry/rifle units involved in
// that fire must enter the newly vacated hex up to the normal stacking limit. If excess
// eligible units are on hand, the advancing player has his choice from among them."
// Army and USMC never stack together (6.4), so when both fired from adjacent hexes one
// kind advances: the one the FIRE line names (ADVANCE ARMY or ADVANCE USMC), else the
// one that puts more units into the hex (the first listed of two that tie). Of any
// excess, the first listed go.
func (g *game) advance(side rules.Side, f fireSpec, units []int) {
	limit := g.st.stackLimit(side)
	var army, usmc []int
	for _, i := range units {
		if g.st.Units[i].Kind == KindUSMC {
			usmc = append(usmc, i)
		} else {
			army = append(army, i)
		}
	}
	enter, why := units, ""
	if side == US && len(army) > 0 && len(usmc) > 0 {
		nArmy, nUSMC := min(len(army), limit), min(len(usmc), limit)
		switch {
		case f.Advance == KindUSArmy:
			enter, why = army, "US Army platoons, as ordered (ADVANCE ARMY); Army and USMC never stack together (6.4)"
		case f.Advance == KindUSMC:
			enter, why = usmc, "USMC platoons, as ordered (ADVANCE USMC); Army and USMC never stack together (6.4)"
		case nArmy > nUSMC || (nArmy == nUSMC && g.st.Units[units[0]].Kind != KindUSMC):
			enter, why = army, "US Army platoons, by default: the kind that fills the hex most, the first listed of two that tie (ADVANCE USMC on the FIRE line chooses the Marines); Army and USMC never stack together (6.4)"
		default:
			enter, why = usmc, "USMC platoons, by default: the kind that fills the hex most, the first listed of two that tie (ADVANCE ARMY on the FIRE line chooses the Army); Army and USMC never stack together (6.4)"
		}
	} else if side == US && f.Advance != "" && ((f.Advance == KindUSMC) != (len(usmc) > 0)) {
		why = fmt.Sprintf("ADVANCE %s names a kind that has no adjacent platoon in this fire, so those that fired advance", kindWord[f.Advance])
	}
	enter = enter[:min(len(enter), limit)]
	for _, i := range enter {
		g.st.Units[i].Hex = f.Target.String()
	}
	if why != "" {
		why = ": " + why
	}
	g.Event("10.10", "Advance after combat: %d infantry unit(s) must enter %s%s.", len(enter), f.Target, why)
}

// firePhase resolves Phase VIII (German) or IX (US): each FIRE line in the order written.
func (g *game) firePhase(side rules.Side, inputs []rules.Order, next string) error {
	g.st.Fired, g.st.Targets = nil, nil
	fired := 0
	if o, ok := orderByKey(inputs, side, keyFire); ok {
		g.out.Consumed = append(g.out.Consumed, o.ID())
		for _, b := range parseCanonical(o.Text) {
			if b.none {
				continue
			}
			switch err := g.fire(side, b.fire, g.d); {
			case err == errEmptyTarget:
				g.ownerOnly(side, "10.2", "%s: skipped, the target hex holds no enemy unit any more.", b.fire)
			case err != nil:
				g.ownerOnly(side, "10.0", "%s: not carried out: %v.", b.fire, err)
			default:
				fired++
			}
		}
	}
	if fired == 0 {
		g.Event("10.2", "The %s player fires at nothing.", sides.Name(side))
	}
	g.st.Fired, g.st.Targets = nil, nil
	g.st.P = next
	return nil
}
