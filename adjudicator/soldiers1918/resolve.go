package soldiers1918

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

func orderByKey(inputs []rules.Order, side rules.Side, key string) (rules.Order, bool) {
	for _, o := range inputs {
		if o.Side == side && o.Key == key {
			return o, true
		}
	}
	return rules.Order{}, false
}

// plots resolves the set-up plot step: both plots are sealed; then the German division
// quality is rolled openly (3.4).
func (g *game) plots(inputs []rules.Order) error {
	g.Event("3.2, 3.3", "Both bombardment plots are sealed: the US plot for turns 1-6 and the German plot for turn 1.")
	if o, ok := orderByKey(inputs, DE, plotKey(1)); ok {
		g.out.Fixed = append(g.out.Fixed, o.ID())
	}
	// 3.2: the US plot is complete before the rest of set-up; from now on it may not be
	// altered, only cancelled (5.2 I).
	g.fixUSPlots(inputs, "complete")
	if q := g.st.FixedQuality; q > 0 {
		g.st.Quality, g.st.GermanFS = q, g.r.sc.GermanInfantryFS[q].N
		g.Event("4.2, 3.4", "Second game of the match: the German division quality of the first game holds, %d, so German infantry fire strength is %d (4.2).", q, g.st.GermanFS)
		g.st.P = PhaseGermanSetup
		return nil
	}
	roll := g.d.Roll(dice.Request{Purpose: "3.4 German division-quality determination", Rule: "3.4", Count: 1, Sides: 6})
	g.st.Quality = roll.Result
	fs, ok := g.r.sc.GermanInfantryFS[roll.Result]
	if !ok {
		return fmt.Errorf("division-quality table has no entry for %d", roll.Result)
	}
	g.st.GermanFS = fs.N
	text := fmt.Sprintf("German division quality: rolled %d, so German infantry fire strength is %d for the whole game", roll.Result, fs.N)
	if !fs.Printed {
		text += " (table reconstructed: the printed 13.2 note is not in the rulebook)"
	}
	if roll.Result == 6 {
		text += "; a shock troop division: the German may stack 4 per hex (6.3)"
	}
	g.RollEvent("3.4", roll, "%s.", text)
	g.st.P = PhaseGermanSetup
	return nil
}

func (g *game) fixUSPlots(inputs []rules.Order, why string) {
	n := 0
	for _, o := range inputs {
		if o.Side == US && o.Kind == "plot" && !o.Fixed {
			g.out.Fixed = append(g.out.Fixed, o.ID())
			n++
		}
	}
	if n > 0 {
		g.Event("3.2", "The US six-turn bombardment plot is %s and may no longer be altered, only cancelled (3.2, 5.2 I).", why)
	}
}

// setup places one side's units (3.5, 3.6).
func (g *game) setup(side rules.Side, inputs []rules.Order, next string) error {
	o, ok := orderByKey(inputs, side, keyPlacement)
	if !ok {
		return fmt.Errorf("no placement for %s", side)
	}
	var items []Placement
	for _, b := range parseCanonical(o.Text) {
		switch {
		case b.err != nil:
			return fmt.Errorf("placement of %s: %w", side, b.err)
		case b.kind == "setup-default":
			items = append(items, g.r.defaultPlacement(side)...)
		default:
			items = append(items, b.place...)
		}
	}
	items = withYork(items)
	if err := g.r.legalPlacement(g.st, side, items); err != nil {
		return fmt.Errorf("placement of %s: %w", side, err)
	}
	for _, it := range items {
		for i := 0; i < it.Count; i++ {
			g.st.Units = append(g.st.Units, Unit{ID: len(g.st.Units) + 1, Kind: it.Kind, Hex: it.Hex.String()})
		}
	}
	g.out.Consumed = append(g.out.Consumed, o.ID())
	name, rule, hexes := "German", "3.5", map[string]bool{}
	if side == US {
		name, rule = "US", "3.6"
	}
	for _, it := range items {
		hexes[it.Hex.String()] = true
	}
	total := 0
	for _, it := range items {
		total += it.Count
	}
	g.Event(rule, "The %s player sets up %d units in %d hexes (see the map).", name, total, len(hexes))
	if side == US {
		g.Event("3.7", "Set-up is done. Game Turn 1 begins.")
		g.st.T = 1
	}
	g.st.P = next
	return nil
}

// usExecution is Phase I: the cancellation attempt, then the US plot of the turn (5.2 I, 12).
func (g *game) usExecution(inputs []rules.Order) error {
	if o, ok := orderByKey(inputs, US, keyCancel); ok {
		g.out.Consumed = append(g.out.Consumed, o.ID())
		if o.Sealed { // filed sealed before 5.2 I's secret was kept (rules.go, checkCancel)
			g.out.Revealed = append(g.out.Revealed, o.ID())
		}
		if !g.st.USCancelled {
			roll := g.d.Roll(dice.Request{Purpose: fmt.Sprintf("5.2 I US attempt to cancel all bombardments, turn %d", g.st.T), Rule: "5.2 I", Count: 1, Sides: 6})
			if roll.Result <= 3 {
				g.st.USCancelled = true
				g.RollEvent("5.2 I", roll, "The US attempts to cancel ALL future bombardments: rolled %d (1-3 succeeds): cancelled for the rest of the game.", roll.Result)
			} else {
				g.RollEvent("5.2 I", roll, "The US attempts to cancel ALL future bombardments: rolled %d (1-3 succeeds): the attempt fails; the plot is executed.", roll.Result)
			}
		}
	}
	if g.st.USCancelled {
		g.Event("5.2 I", "US bombardments are cancelled: no US bombardment this turn.")
	} else if o, ok := orderByKey(inputs, US, plotKey(g.st.T)); ok {
		if err := g.execute(US, o, 8); err != nil {
			return err
		}
	} else {
		g.Event("12.1", "No US plot for turn %d: no US bombardment.", g.st.T)
	}
	g.st.P = PhaseII
	if g.st.T == LastTurn {
		g.st.P = PhaseIII // no plot for a turn 7 (4.2)
	}
	return nil
}

// germanPlot is Phase II: the German plot for the next turn is fixed, still sealed (5.2 II).
func (g *game) germanPlot(inputs []rules.Order) error {
	if o, ok := orderByKey(inputs, DE, plotKey(g.st.T+1)); ok {
		g.out.Fixed = append(g.out.Fixed, o.ID())
		g.Event("5.2 II", "The German bombardment plot for turn %d is sealed and fixed (commitment %s).", g.st.T+1, short(o.Commitment))
	}
	g.st.P = PhaseIII
	return nil
}

func short(c string) string {
	if len(c) > 16 {
		return c[:16] + "..."
	}
	return c
}

// germanExecution is Phase III: the German plot of this turn (5.2 III, 12).
func (g *game) germanExecution(inputs []rules.Order) error {
	o, ok := orderByKey(inputs, DE, plotKey(g.st.T))
	if !ok {
		g.Event("5.2 III", "No German plot for turn %d: no German bombardment.", g.st.T)
	} else if err := g.execute(DE, o, 4); err != nil {
		return err
	}
	g.st.P = PhaseIV
	return nil
}

// execute reveals a plot (12.3) and resolves each bombarded hex in the order written,
// like fire (12.2, 10.3, 10.8) with fs per marker (12.4).
func (g *game) execute(side rules.Side, o rules.Order, fsPerMarker int) error {
	blocks := parseCanonical(o.Text)
	if len(blocks) != 1 || blocks[0].err != nil {
		return fmt.Errorf("plot %s is unreadable: %q", o.ID(), o.Text)
	}
	b := blocks[0]
	g.out.Consumed = append(g.out.Consumed, o.ID())
	g.out.Revealed = append(g.out.Revealed, o.ID())
	name, enemy := "US", DE
	if side == DE {
		name, enemy = "German", US
	}
	if b.none {
		g.Event("12.3", "The %s plot for turn %d is revealed: no bombardment.", name, g.st.T)
		return nil
	}
	total := 0
	for _, it := range b.items {
		total += it.Count
	}
	g.Event("12.3", "The %s plot for turn %d is revealed: %s (%d markers).", name, g.st.T, formatItems(b), total)
	for _, it := range b.items {
		g.bombard(name, enemy, it.Hex, it.Count, fsPerMarker)
	}
	return nil
}

func formatItems(b block) string {
	parts := make([]string, len(b.items))
	for i, it := range b.items {
		parts[i] = it.String()
	}
	return strings.Join(parts, ", ")
}

// HitNumber is the highest roll that eliminates a unit at the given odds (10.8): 1:1 or
// less hits on 1, 2:1 on 1-2, 3:1 on 1-3, 4:1 on 1-4, 5:1 or more on 1-5.
func HitNumber(odds int) int {
	return min(max(odds, 1), 5)
}

func (g *game) bombard(name string, enemy rules.Side, h hex.Hex, markers, fsPerMarker int) {
	targets := g.st.liveIn(h, enemy)
	if len(targets) == 0 {
		g.Event("12.1", "%s bombardment, %d marker(s) into %s: no enemy unit there, no effect.", name, markers, h)
		return
	}
	fs := markers * fsPerMarker
	ds, terrain := g.r.sc.Defence(h)
	odds, _ := board.Odds(fs, ds) // 10.3: rounded down; no defence, no odds
	hit := HitNumber(odds)
	oddsText := fmt.Sprintf("%d:1", odds)
	if odds < 1 {
		oddsText = "less than 1:1"
	}
	g.Event("12.2, 10.3", "%s bombardment into %s (%s, defence %d): %d marker(s) x FS %d = %d, odds %s, eliminates on 1-%d (10.8); one roll for each of the %d unit(s) there.",
		name, h, terrain, ds, markers, fsPerMarker, fs, oddsText, hit, len(targets))
	for n, i := range targets {
		u := &g.st.Units[i]
		roll := g.d.Roll(dice.Request{
			Purpose: fmt.Sprintf("12.2 %s bombardment of %s at %s, %s %d of %d", name, h, oddsText, kindName[u.Kind], n+1, len(targets)),
			Rule:    "10.8", Count: 1, Sides: 6,
		})
		if roll.Result <= hit {
			u.Carnage = true
			g.RollEvent("10.8, 2.6", roll, "%s in %s: rolled %d: eliminated, now carnage.", kindName[u.Kind], h, roll.Result)
		} else {
			g.RollEvent("10.8", roll, "%s in %s: rolled %d: no effect.", kindName[u.Kind], h, roll.Result)
		}
	}
}
