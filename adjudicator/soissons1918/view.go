package soissons1918

import (
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Legend is how the Soissons map is drawn.
var Legend = mapview.Legend{
	Terrain: []mapview.Symbol{
		{Name: "clear", Char: '.', Text: "clear"},
		{Name: "woods", Char: 'w', Text: "woods"},
		{Name: "village", Char: 'v', Text: "village (a town)"},
		{Name: "ravine", Char: 'r', Text: "ravine"},
		{Name: "city", Char: 'C', Text: "city of Soissons"},
	},
	Sides: []mapview.SideSymbol{
		{Name: "bridge", Char: '#', Point: true, Text: "bridge over the Aisne"},
		{Name: "road", Char: ':', Point: true, Text: "road across the hexside"},
		{Name: "aisne", Char: '~', Text: "the Aisne (impassable but by bridge)"},
		{Name: "stream", Char: '=', Text: "stream"},
	},
	Marks: []mapview.Symbol{
		{Char: 'E', Text: "Entente units (E2: two units; stacks in the key)"},
		{Char: 'G', Text: "German units, as E"},
		{Char: 'e', Text: "a town the Entente controls (3.3)"},
		{Char: 'g', Text: "a town the Germans control (3.3)"},
	},
	// The picture's counters carry these after the units (View.Counters); the text map
	// gives the same in its key, unit by unit.
	CounterMarks: []mapview.Symbol{
		{Char: 'P', Text: "a Prepare marker in the stack (19.4)"},
		{Char: 'R', Text: "a Retreat marker in the stack (21)"},
		{Char: '1', Text: "1-3: the worst disruption in the stack: 1 Reforming, 2 Disorganized, 3 Shocked (11)"},
	},
	Forces: []mapview.Symbol{
		{Name: string(EN), Char: 'E', Text: "Entente units"},
		{Name: string(DE), Char: 'G', Text: "German units"},
	},
	Arrows: []mapview.Symbol{
		{Name: "improvised", Text: "Improvised Attack marker, pointing at its target (19.4.1)"},
	},
}

// describe is a unit as the key shows it: id, SP, disruption and markers.
func (g *game) describe(u *Unit) string {
	c := g.counter(u)
	var w []string
	switch c.Kind {
	case KindHQ:
		w = append(w, "HQ "+u.ID)
		if u.ArtUsed {
			w = append(w, "artillery used")
		}
	case KindTank:
		w = append(w, "tanks "+u.ID)
		if u.Reduced {
			w = append(w, "reduced")
		}
	default:
		id := u.ID
		if u.Remnant {
			id += " remnant"
		}
		w = append(w, fmt.Sprintf("%s %dSP %s", id, g.strength(u), strings.Repeat("*", c.Stars)))
		if u.Dis > GoodOrder {
			w = append(w, DisruptionNames[u.Dis])
		}
	}
	if u.Prepare {
		w = append(w, "Prepare")
	}
	if u.Improvised != "" {
		w = append(w, "Improvised->"+u.Improvised)
	}
	if u.Retreat {
		w = append(w, "Retreat")
	}
	return strings.Join(w, " ")
}

// Map implements rules.Ruleset: the text of MapView.
func (r *Rules) Map(s rules.State, side rules.Side) string {
	return mapview.Render(r.MapView(s, side))
}

// MapView implements rules.Viewer. 5: "Players may inspect each other's stacks",
// so both sides see every unit on the map; what stays secret is the sealed orders.
func (r *Rules) MapView(s rules.State, side rules.Side) mapview.View {
	st := s.(*State)
	forces := map[hex.Hex][]string{}
	g := newGame(r.sc, st)
	cells, labels := map[hex.Hex]string{}, map[hex.Hex]string{}
	var key []string
	var arrows []mapview.Arrow
	for _, h := range r.sc.Map.Hexes() {
		cell := ""
		if t, ok := r.sc.TownAt(h); ok {
			cell = map[rules.Side]string{EN: "e", DE: "g"}[st.Control[t.Name]]
		}
		for _, sd := range sides.IDs() {
			us := g.at(h, sd)
			if len(us) == 0 {
				continue
			}
			forces[h] = append(forces[h], string(sd))
			// The picture's counter shows the first unit's id (a division, a
			// regiment of one, an HQ), the counter's text how many there are.
			labels[h] = strings.TrimSpace(labels[h] + " " + us[0].ID)
			letter := map[rules.Side]string{EN: "E", DE: "G"}[sd]
			cell += fmt.Sprintf("%s%d", letter, len(us))
			var names []string
			for _, u := range us {
				names = append(names, g.describe(u))
				// 19.4.1: "The arrows on the Improvised Attack marker must point towards
				// the enemy unit targeted": the picture draws the arrow.
				if to, err := hex.Parse(u.Improvised); err == nil {
					a := mapview.Arrow{From: h, To: to, Name: "improvised"}
					if !slices.Contains(arrows, a) {
						arrows = append(arrows, a)
					}
				}
			}
			key = append(key, fmt.Sprintf("%s %s: %s", h, letter, strings.Join(names, "; ")))
		}
		if cell != "" {
			cells[h] = cell
		}
	}
	slices.Sort(key)
	// 15.1: an isolated stack has no supply line; the map says which, for both sides.
	var isolated []string
	for _, h := range r.sc.Map.Hexes() {
		for _, sd := range sides.IDs() {
			if len(g.combatAt(h, sd)) > 0 && g.isolated(sd, h) {
				isolated = append(isolated, fmt.Sprintf("%s %s", h, map[rules.Side]string{EN: "E", DE: "G"}[sd]))
			}
		}
	}
	slices.Sort(isolated)
	if len(isolated) == 0 {
		isolated = []string{"none"}
	}
	// The picture's counters: the cell, then the stack's markers (19.4, 21, 11).
	counters := map[hex.Hex]string{}
	for h, c := range cells {
		counters[h] = c + g.stackMarks(h)
	}
	vp, why := g.VP()
	for _, l := range []string{
		fmt.Sprintf("Isolated stacks (15.1: no supply line to their friendly edge): %s", strings.Join(isolated, ", ")),
		vpLine(vp, why),
	} {
		key = append(key, strings.Split(wrapLines(l), "\n")...)
	}
	return mapview.View{
		Title: fmt.Sprintf("Soissons map for the %s player -- %s", sides.Name(side), turnName(st.T)),
		Map:   r.sc.Map, Legend: Legend, Cells: cells, Forces: forces, Arrows: arrows, Counters: counters, Labels: labels,
		Key: append([]string{"Units (5: every stack may be inspected):"}, key...),
	}
}

// Status implements rules.Ruleset.
func (r *Rules) Status(s rules.State, side rules.Side) string {
	st := s.(*State)
	g := newGame(r.sc, st)
	var b strings.Builder
	fmt.Fprintf(&b, "Soissons 1918 -- %s\n", st.PhaseTitle())
	if st.Over() {
		fmt.Fprintf(&b, "%s\n", st.Verdict)
		return wrapLines(b.String())
	}
	a := st.Art[side]
	fmt.Fprintf(&b, "Your artillery points: heavy %d, medium %d, air %d (17.3)\n", a.Heavy, a.Medium, a.Air)
	fmt.Fprintf(&b, "Markers in use: Prepare %d of %d, Improvised Attack %d of %d (19.4)\n",
		g.markers(side, false), r.sc.Prepare[side], g.markers(side, true), r.sc.Improvised[side])
	b.WriteString(vpLine(g.VP()) + "\n")
	var towns []string
	for _, t := range r.sc.Towns {
		towns = append(towns, fmt.Sprintf("%s %s", t.Name, sides.Name(st.Control[t.Name])))
	}
	fmt.Fprintf(&b, "Towns: %s\n", strings.Join(towns, ", "))
	var box []string
	for _, u := range st.sortedUnits() {
		if g.sideOf(u) == side && u.Where == Box {
			box = append(box, u.ID)
		}
	}
	if len(box) > 0 {
		fmt.Fprintf(&b, "Tank Assets box: %s\n", strings.Join(box, ", "))
	}
	for _, u := range st.sortedUnits() {
		c := g.counter(u)
		if c.Side != side || u.Where != OnMap || !c.Combat() {
			continue
		}
		cmd := "in command"
		if !g.inCommand(u) {
			cmd = "out of command"
		}
		iso := ""
		if g.isolated(c.Side, g.hexOf(u)) {
			iso = ", isolated"
		}
		fmt.Fprintf(&b, "  %s %s, %s%s\n", u.Hex, g.describe(u), cmd, iso)
	}
	return wrapLines(b.String())
}

// wrapLines keeps mail lines within 78 characters.
func wrapLines(s string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		for len(l) > 78 {
			i := strings.LastIndex(l[:78], " ")
			if i <= 0 {
				break
			}
			out = append(out, l[:i])
			l = "    " + l[i+1:]
		}
		out = append(out, l)
	}
	return strings.Join(out, "\n")
}

var _ rules.Viewer = (*Rules)(nil)

// stackMarks are the marks of the units in h for the picture's counter: P for a
// Prepare marker, R for a Retreat marker, and the worst disruption level as a digit.
func (g *game) stackMarks(h hex.Hex) string {
	prepare, retreat, worst := false, false, GoodOrder
	for _, sd := range sides.IDs() {
		for _, u := range g.at(h, sd) {
			prepare = prepare || u.Prepare
			retreat = retreat || u.Retreat
			worst = max(worst, u.Dis)
		}
	}
	out := ""
	if prepare {
		out += "P"
	}
	if retreat {
		out += "R"
	}
	if worst > GoodOrder {
		out += fmt.Sprint(worst)
	}
	return out
}

// vpLine is the Entente's VP as the game stands (3.3), with where they come from.
func vpLine(vp int, why []string) string {
	return strings.TrimSuffix(fmt.Sprintf("Entente VP if the game ended now (3.3): %d (%s)", vp, strings.Join(why, ", ")), " ()")
}
