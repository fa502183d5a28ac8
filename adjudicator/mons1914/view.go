package mons1914

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Legend is how the Mons map is drawn.
var Legend = mapview.Legend{
	Terrain: []mapview.Symbol{
		{Name: "clear", Char: '.', Text: "clear"},
		{Name: "forest", Char: 'f', Text: "forest"},
		{Name: "industrial", Char: 'I', Text: "built-up industrial"},
		{Name: "residential", Char: 'R', Text: "built-up residential"},
	},
	Sides: []mapview.SideSymbol{
		{Name: "railbridge", Char: 'H', Point: true, Text: "rail bridge"},
		{Name: "bridge", Char: '#', Point: true, Text: "road bridge"},
		{Name: "road", Char: ':', Point: true, Text: "road across the hexside"},
		{Name: "canal", Char: '=', Text: "canal"},
		{Name: "river", Char: '~', Text: "river"},
	},
	Marks: []mapview.Symbol{
		{Char: 'g', Text: "German-controlled hex (3.2; unmarked hexes are British)"},
		{Char: 'G', Text: "German units: G2 two units, G* an enemy stack (top unit in the key, 6.6)"},
		{Char: 'B', Text: "British units, as G"},
		{Char: 'E', Text: "entry hex (3.1)"},
		{Char: 'X', Text: "exit hex (4.4)"},
	},
	Forces: []mapview.Symbol{
		{Name: string(DE), Char: 'G', Text: "German units"},
		{Name: string(BEF), Char: 'B', Text: "British units"},
	},
}

// top is the unit shown on top of a stack (6.6): the owner's TOP choice if it is
// there, else the unit that arrived first.
func (g *game) top(h hex.Hex, us []*Unit) *Unit {
	if id, ok := g.st.Top[h.String()]; ok {
		for _, u := range us {
			if u.ID == id {
				return u
			}
		}
	}
	return us[0]
}

// Map implements rules.Ruleset: the text of [Rules.MapView].
func (r *Rules) Map(s rules.State, side rules.Side) string {
	return mapview.Render(r.MapView(s, side))
}

// MapView implements rules.Viewer: what side may see (6.6: only the top unit of
// an enemy stack, and that it is a stack).
func (r *Rules) MapView(s rules.State, side rules.Side) mapview.View {
	st := s.(*State)
	forces := map[hex.Hex][]string{}
	g := newGame(r.sc, st)
	cells, labels := map[hex.Hex]string{}, map[hex.Hex]string{}
	var key []string
	for _, h := range r.sc.Map.Hexes() {
		mark := " "
		switch {
		case st.germanControls(h):
			mark = "g"
		case r.sc.Map.InSet("entry", h):
			mark = "E"
		case r.sc.Map.InSet("exit", h):
			mark = "X"
		}
		cell := mark
		for _, sd := range []rules.Side{DE, BEF} {
			us := g.at(h, sd)
			if len(us) == 0 {
				continue
			}
			letter := map[rules.Side]string{DE: "G", BEF: "B"}[sd]
			forces[h] = append(forces[h], string(sd))
			// The picture's counter shows the top unit's id, as the counter on the
			// table does (6.6: all an enemy sees of a stack).
			labels[h] = strings.TrimSpace(labels[h] + " " + g.top(h, us).ID)
			if sd == side {
				cell += fmt.Sprintf("%s%d", letter, len(us))
				var names []string
				for _, u := range us {
					names = append(names, unitName(g, u))
				}
				key = append(key, fmt.Sprintf("%s %s: %s", h, letter, strings.Join(names, ", ")))
				continue
			}
			t := g.top(h, us)
			more := ""
			cell += letter
			if len(us) > 1 {
				cell += "*"
				more = " and more: a stack (6.6)"
			}
			key = append(key, fmt.Sprintf("%s %s: %s%s", h, letter, t.ID, more))
		}
		if cell != " " {
			cells[h] = cell
		}
	}
	slices.Sort(key)
	// The dead piles and the exits are known to both sides (4.3, 4.4, 4.5). Of the
	// German units still to enter the British know 8.2's schedule (in Status), not
	// which units are left: a list of them, read turn after turn, would tell what entered in each
	// stack, which 6.6 hides ("Neither player may look beneath the top unit of any
	// enemy stack").
	piles := map[string][]string{}
	for i := range st.Units {
		u := &st.Units[i]
		c := g.counter(u)
		switch {
		case u.Status == Dead && u.Surrounded:
			piles["Dead, surrounded (4.5: count twice)"] = append(piles["Dead, surrounded (4.5: count twice)"], u.ID)
		case u.Status == Dead:
			piles["Dead, "+sides.Name(c.Side)] = append(piles["Dead, "+sides.Name(c.Side)], u.ID)
		case u.Status == Exited:
			piles["Exited (4.4)"] = append(piles["Exited (4.4)"], u.ID)
		case u.Status == Waiting && (side == DE || !st.revised(1)):
			piles["Still to enter (8.2)"] = append(piles["Still to enter (8.2)"], u.ID)
		}
	}
	for _, k := range []string{"Still to enter (8.2)", "Exited (4.4)", "Dead, German", "Dead, British", "Dead, surrounded (4.5: count twice)"} {
		if len(piles[k]) > 0 {
			key = append(key, fmt.Sprintf("%s, %d: %s", k, len(piles[k]), strings.Join(piles[k], " ")))
		}
	}
	return mapview.View{
		Title: fmt.Sprintf("Mons map for the %s player -- turn %d, %s", sides.Name(side), st.T, st.PhaseTitle()),
		Map:   r.sc.Map, Legend: Legend, Cells: cells, Forces: forces, Counters: pictureCounters(cells, forces), Labels: labels,
		Key: append([]string{"Units (yours in full; the enemy's top unit only, 6.6):"}, key...),
	}
}

func unitName(g *game, u *Unit) string {
	c := g.counter(u)
	if c.Steps > 1 {
		return fmt.Sprintf("%s(%d)", u.ID, u.Steps)
	}
	return u.ID
}

// Status implements rules.Ruleset.
func (r *Rules) Status(s rules.State, side rules.Side) string {
	st := s.(*State)
	g := newGame(r.sc, st)
	var b strings.Builder
	fmt.Fprintf(&b, "Game Turn %d of %d, %s.\n", st.T, LastTurn, st.PhaseTitle())
	if st.Over() {
		b.WriteString(mapview.Wrap(st.Verdict, "  "))
		return b.String()
	}
	counts := map[rules.Side]map[string]int{DE: {}, BEF: {}}
	for i := range st.Units {
		u := &st.Units[i]
		counts[g.counter(u).Side][u.Status]++
	}
	if side == DE || !st.revised(1) {
		fmt.Fprintf(&b, "German units: %d on the map, %d still to enter, %d dead.\n", counts[DE][OnMap], counts[DE][Waiting], counts[DE][Dead])
	} else {
		// 6.6: which German units are still off the map is the German's (see MapView).
		fmt.Fprintf(&b, "German units: %d dead, %d on the map or still to enter (8.2).\n", counts[DE][Dead], counts[DE][OnMap]+counts[DE][Waiting])
		b.WriteString(mapview.Wrap(r.sc.entrySchedule(), "  "))
	}
	sc := g.score(false)
	fmt.Fprintf(&b, "British units: %d on the map, %d exited, %d dead (%d surrounded, 4.5).\n", counts[BEF][OnMap], sc.Exited, sc.Dead, sc.Surrounded)
	held := 0
	for _, h := range r.sc.Map.Set("bridgehead") {
		if st.germanControls(h) {
			held++
		}
	}
	fmt.Fprintf(&b, "Bridge hexes German-controlled: %d of 6 (4.2). Bavai: %s.\n", held, map[bool]string{true: "German", false: "British"}[sc.Bavai])
	return b.String()
}

// entrySchedule is 8.2's schedule as the British know it: which formations enter when and
// where, not which units are still off the map.
func (sc *Scenario) entrySchedule() string {
	var parts []string
	for _, e := range sc.Entries {
		who := fmt.Sprintf("%s Corps %dth Division", e.Corps, e.Division)
		if e.Division == 0 {
			who = fmt.Sprintf("%s Corps' separate units", e.Corps)
		}
		parts = append(parts, fmt.Sprintf("turn %d %s through %s", e.Turn, who, hex.Join(e.Hexes, " or ")))
	}
	return "German entry (8.2; which units are still to enter is hidden, 6.6): " + strings.Join(parts, "; ")
}
