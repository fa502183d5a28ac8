package soldiers1918

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// resolution is the work of resolving one phase.
type resolution struct {
	rules *Rules
	st    *State
	d     dice.Source
	out   rules.Outcome
	moved map[int]bool // units moved this phase (9.1)
	// arrivals numbers the moves of this phase, by unit: the latest mover has the highest.
	arrivals map[int]int
}

func (r *resolution) event(rule, format string, args ...any) {
	r.out.Events = append(r.out.Events, rules.Event{Phase: r.st.P, Rule: rule, Text: fmt.Sprintf(format, args...)})
}

// ownerOnly is an event about an order of side that was not carried out: told to side
// alone (Revision 1), since it says what he meant to do, which the other side sees only
// when it happens; to both in a game of revision 0.
func (r *resolution) ownerOnly(side rules.Side, rule, format string, args ...any) {
	r.event(rule, format, args...)
	if r.st.Revision >= 1 {
		r.out.Events[len(r.out.Events)-1].To = []rules.Side{side}
	}
}

// otherOnly is ownerOnly's counterpart: the event the other side of side is told
// instead. It is not told in a game of revision 0, whose ownerOnly events both sides see.
func (r *resolution) otherOnly(side rules.Side, rule, format string, args ...any) {
	if r.st.Revision < 1 {
		return
	}
	r.event(rule, format, args...)
	r.out.Events[len(r.out.Events)-1].To = []rules.Side{other(side)}
}

// other is the other side of side.
func other(side rules.Side) rules.Side {
	if side == US {
		return DE
	}
	return US
}

func (r *resolution) rollEvent(rule string, roll dice.Roll, format string, args ...any) {
	r.out.Events = append(r.out.Events, rules.Event{Phase: r.st.P, Rule: rule, Text: fmt.Sprintf(format, args...), Roll: &roll})
}

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
func (r *resolution) plots(inputs []rules.Order) error {
	r.event("3.2, 3.3", "Both bombardment plots are sealed: the US plot for turns 1-6 and the German plot for turn 1.")
	if o, ok := orderByKey(inputs, DE, plotKey(1)); ok {
		r.out.Fixed = append(r.out.Fixed, o.ID())
	}
	// 3.2: the US plot is complete before the rest of set-up; from now on it may not be
	// altered, only cancelled (5.2 I).
	r.fixUSPlots(inputs, "complete")
	if q := r.st.FixedQuality; q > 0 {
		r.st.Quality, r.st.GermanFS = q, r.rules.sc.GermanInfantryFS[q].N
		r.event("4.2, 3.4", "Second game of the match: the German division quality of the first game holds, %d, so German infantry fire strength is %d (4.2).", q, r.st.GermanFS)
		r.st.P = PhaseGermanSetup
		return nil
	}
	roll := r.d.Roll(dice.Request{Purpose: "3.4 German division-quality determination", Rule: "3.4", Count: 1, Sides: 6})
	r.st.Quality = roll.Result
	fs, ok := r.rules.sc.GermanInfantryFS[roll.Result]
	if !ok {
		return fmt.Errorf("division-quality table has no entry for %d", roll.Result)
	}
	r.st.GermanFS = fs.N
	text := fmt.Sprintf("German division quality: rolled %d, so German infantry fire strength is %d for the whole game", roll.Result, fs.N)
	if fs.Reconstructed {
		text += " (table reconstructed: the printed 13.2 note is not in the rulebook)"
	}
	if roll.Result == 6 {
		text += "; a shock troop division: the German may stack 4 per hex (6.3)"
	}
	r.rollEvent("3.4", roll, "%s.", text)
	r.st.P = PhaseGermanSetup
	return nil
}

func (r *resolution) fixUSPlots(inputs []rules.Order, why string) {
	n := 0
	for _, o := range inputs {
		if o.Side == US && o.Kind == "plot" && !o.Fixed {
			r.out.Fixed = append(r.out.Fixed, o.ID())
			n++
		}
	}
	if n > 0 {
		r.event("3.2", "The US six-turn bombardment plot is %s and may no longer be altered, only cancelled (3.2, 5.2 I).", why)
	}
}

// setup places one side's units (3.5, 3.6).
func (r *resolution) setup(side rules.Side, inputs []rules.Order, next string) error {
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
			items = append(items, r.rules.defaultPlacement(side)...)
		default:
			items = append(items, b.place...)
		}
	}
	items = withYork(items)
	if err := r.rules.legalPlacement(r.st, side, items); err != nil {
		return fmt.Errorf("placement of %s: %w", side, err)
	}
	for _, it := range items {
		for i := 0; i < it.Count; i++ {
			r.st.Units = append(r.st.Units, Unit{ID: len(r.st.Units) + 1, Kind: it.Kind, Hex: it.Hex.String()})
		}
	}
	r.out.Consumed = append(r.out.Consumed, o.ID())
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
	r.event(rule, "The %s player sets up %d units in %d hexes (see the map).", name, total, len(hexes))
	if side == US {
		r.event("3.7", "Set-up is done. Game Turn 1 begins.")
		r.st.T = 1
	}
	r.st.P = next
	return nil
}

// usExecution is Phase I: the cancellation attempt, then the US plot of the turn (5.2 I, 12).
func (r *resolution) usExecution(inputs []rules.Order) error {
	if o, ok := orderByKey(inputs, US, keyCancel); ok {
		r.out.Consumed = append(r.out.Consumed, o.ID())
		if o.Sealed { // filed sealed before 5.2 I's secret was kept (rules.go, checkCancel)
			r.out.Revealed = append(r.out.Revealed, o.ID())
		}
		if !r.st.USCancelled {
			roll := r.d.Roll(dice.Request{Purpose: fmt.Sprintf("5.2 I US attempt to cancel all bombardments, turn %d", r.st.T), Rule: "5.2 I", Count: 1, Sides: 6})
			if roll.Result <= 3 {
				r.st.USCancelled = true
				r.rollEvent("5.2 I", roll, "The US attempts to cancel ALL future bombardments: rolled %d (1-3 succeeds): cancelled for the rest of the game.", roll.Result)
			} else {
				r.rollEvent("5.2 I", roll, "The US attempts to cancel ALL future bombardments: rolled %d (1-3 succeeds): the attempt fails; the plot is executed.", roll.Result)
			}
		}
	}
	if r.st.USCancelled {
		r.event("5.2 I", "US bombardments are cancelled: no US bombardment this turn.")
	} else if o, ok := orderByKey(inputs, US, plotKey(r.st.T)); ok {
		if err := r.execute(US, o, 8); err != nil {
			return err
		}
	} else {
		r.event("12.1", "No US plot for turn %d: no US bombardment.", r.st.T)
	}
	r.st.P = PhaseII
	if r.st.T == LastTurn {
		r.st.P = PhaseIII // no plot for a turn 7 (4.2)
	}
	return nil
}

// germanPlot is Phase II: the German plot for the next turn is fixed, still sealed (5.2 II).
func (r *resolution) germanPlot(inputs []rules.Order) error {
	if o, ok := orderByKey(inputs, DE, plotKey(r.st.T+1)); ok {
		r.out.Fixed = append(r.out.Fixed, o.ID())
		r.event("5.2 II", "The German bombardment plot for turn %d is sealed and fixed (commitment %s).", r.st.T+1, short(o.Commitment))
	}
	r.st.P = PhaseIII
	return nil
}

func short(c string) string {
	if len(c) > 16 {
		return c[:16] + "..."
	}
	return c
}

// germanExecution is Phase III: the German plot of this turn (5.2 III, 12).
func (r *resolution) germanExecution(inputs []rules.Order) error {
	o, ok := orderByKey(inputs, DE, plotKey(r.st.T))
	if !ok {
		r.event("5.2 III", "No German plot for turn %d: no German bombardment.", r.st.T)
	} else if err := r.execute(DE, o, 4); err != nil {
		return err
	}
	r.st.P = PhaseIV
	return nil
}

// execute reveals a plot (12.3) and resolves each bombarded hex in the order written,
// like fire (12.2, 10.3, 10.8) with fs per marker (12.4).
func (r *resolution) execute(side rules.Side, o rules.Order, fsPerMarker int) error {
	blocks := parseCanonical(o.Text)
	if len(blocks) != 1 || blocks[0].err != nil {
		return fmt.Errorf("plot %s is unreadable: %q", o.ID(), o.Text)
	}
	b := blocks[0]
	r.out.Consumed = append(r.out.Consumed, o.ID())
	r.out.Revealed = append(r.out.Revealed, o.ID())
	name, enemy := "US", DE
	if side == DE {
		name, enemy = "German", US
	}
	if b.none {
		r.event("12.3", "The %s plot for turn %d is revealed: no bombardment.", name, r.st.T)
		return nil
	}
	total := 0
	for _, it := range b.items {
		total += it.Count
	}
	r.event("12.3", "The %s plot for turn %d is revealed: %s (%d markers).", name, r.st.T, formatItems(b), total)
	for _, it := range b.items {
		r.bombard(name, enemy, it.Hex, it.Count, fsPerMarker)
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

// Odds is the odds ratio of 10.3: fire strength divided by defence strength, rounded down.
func Odds(fs, defence int) int {
	if defence <= 0 {
		return 0
	}
	return fs / defence
}

func (r *resolution) bombard(name string, enemy rules.Side, h hex.Hex, markers, fsPerMarker int) {
	targets := r.st.liveIn(h, enemy)
	if len(targets) == 0 {
		r.event("12.1", "%s bombardment, %d marker(s) into %s: no enemy unit there, no effect.", name, markers, h)
		return
	}
	fs := markers * fsPerMarker
	ds, terrain := r.rules.sc.Defence(h)
	odds := Odds(fs, ds)
	hit := HitNumber(odds)
	oddsText := fmt.Sprintf("%d:1", odds)
	if odds < 1 {
		oddsText = "less than 1:1"
	}
	r.event("12.2, 10.3", "%s bombardment into %s (%s, defence %d): %d marker(s) x FS %d = %d, odds %s, eliminates on 1-%d (10.8); one roll for each of the %d unit(s) there.",
		name, h, terrain, ds, markers, fsPerMarker, fs, oddsText, hit, len(targets))
	for n, i := range targets {
		u := &r.st.Units[i]
		roll := r.d.Roll(dice.Request{
			Purpose: fmt.Sprintf("12.2 %s bombardment of %s at %s, %s %d of %d", name, h, oddsText, kindName[u.Kind], n+1, len(targets)),
			Rule:    "10.8", Count: 1, Sides: 6,
		})
		if roll.Result <= hit {
			u.Carnage = true
			r.rollEvent("10.8, 2.6", roll, "%s in %s: rolled %d: eliminated, now carnage.", kindName[u.Kind], h, roll.Result)
		} else {
			r.rollEvent("10.8", roll, "%s in %s: rolled %d: no effect.", kindName[u.Kind], h, roll.Result)
		}
	}
}
