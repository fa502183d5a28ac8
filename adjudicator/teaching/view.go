package teaching

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// legend is how the teaching game draws its map in a game of revision rev. Cut wire is
// a hexside feature of the map drawn for a state (see viewMap), so that the one
// renderer shows it. From revision 1 the trenches, bunkers and wire are in the kit's
// letters (mapview.Works); a game created before keeps the letters it was shown
// (oldWorks), whose "#" is Soldiers 1918's wire and "x" also a dead American.
func legend(rev int) mapview.Legend {
	works := worksAt(rev)
	wire := mapview.WireSide("barbed wire")
	wire.Char = works["wire"]
	return mapview.Legend{
		Terrain: []mapview.Symbol{{Name: "clear", Char: '.', Text: "clear"}},
		Sides: []mapview.SideSymbol{
			{Name: mapview.CutWire.Name, Char: mapview.CutWire.Char, Point: true, Text: "cut wire (clear terrain from the turn after)"},
			wire,
		},
		Marks: slices.Concat([]mapview.Symbol{{Name: "smoke", Char: '*', Text: "smoke (a white chip)"}},
			mapview.WorkSymbols(works, nil, "bunker", "main", "support", "communication"), []mapview.Symbol{
				{Name: "mg", Char: 'M', Text: "German MG"},
				{Name: "inf", Char: 'I', Text: "German infantry"},
				{Name: "army-black", Char: 'k', Text: "Army, black chip"},
				{Name: "army-blue", Char: 'b', Text: "Army, blue chip"},
				{Name: "army", Char: 'a', Text: "Army, no chip"},
				{Name: "marine-black", Char: 'K', Text: "Marine, black chip"},
				{Name: "marine-blue", Char: 'B', Text: "Marine, blue chip"},
				{Name: "marine", Char: 'm', Text: "Marine, no chip"},
				{Name: "dead", Char: 'x', Text: "a flipped (dead) American"},
			}),
		Forces: []mapview.Symbol{
			{Name: string(German), Char: 'G', Text: "German units"},
			{Name: string(American), Char: 'A', Text: "American units"},
		},
		// The picture draws the trenches and bunkers; its counters hold the smoke and the
		// units (View.Counters).
		Features: mapview.WorkSymbols(nil, nil, "main", "support", "communication", "bunker"),
	}
}

// oldWorks is the letter of each trench work and of wire in a game created before
// revision 1.
var oldWorks = map[string]byte{"bunker": '#', "main": '=', "support": 's', "communication": 'c', "wire": 'x'}

// worksAt is the letter of each trench work and of wire in a game of revision rev.
func worksAt(rev int) map[string]byte {
	if rev < 1 {
		return oldWorks
	}
	return mapview.WorkLetters()
}

var cellChar = map[string]byte{"mg": 'M', "inf": 'I', "army-black": 'k', "army-blue": 'b', "army": 'a',
	"marine-black": 'K', "marine-blue": 'B', "marine": 'm'}

// viewMap is the shipped map with all the state's cut wire as "cut" hexsides, this
// turn's included.
func (r *Rules) viewMap(st *State) *board.Map { return r.cutMap(st, math.MaxInt) }

// Map implements rules.Ruleset: the text of [Rules.MapView].
func (r *Rules) Map(s rules.State, side rules.Side) string {
	return mapview.Render(r.MapView(s, side))
}

// MapView implements rules.Viewer. Both sides see everything: the teaching game
// hides nothing but the cards not yet turned, which are in no map.
func (r *Rules) MapView(s rules.State, side rules.Side) mapview.View {
	st := s.(*State)
	forces := map[hex.Hex][]string{}
	cells := map[hex.Hex]string{}
	counters := map[hex.Hex]string{}
	m := r.sc.Map
	works := worksAt(st.Revision)
	for _, h := range m.Hexes() {
		var b, counter strings.Builder
		if st.smoked(h) {
			counter.WriteByte('*')
		}
		mark := byte(' ')
		if st.smoked(h) {
			mark = '*'
		} else {
			// The strongest work of the hex, as the rules name them.
			for _, f := range []string{"bunker", "main", "support", "communication"} {
				if m.HasFeature(h, f) {
					mark = works[f]
					break
				}
			}
		}
		b.WriteByte(mark)
		dead := 0
		for _, u := range st.Units {
			if u.Hex != h {
				continue
			}
			if u.Dead {
				dead++
				continue
			}
			if f := string(u.side()); !slices.Contains(forces[h], f) {
				forces[h] = append(forces[h], f)
			}
			k := u.Kind
			if u.Chip != "" {
				k += "-" + u.Chip
			}
			b.WriteByte(cellChar[k])
			counter.WriteByte(cellChar[k])
		}
		b.WriteString(strings.Repeat("x", dead))
		counter.WriteString(strings.Repeat("x", dead))
		if t := strings.TrimRight(b.String(), " "); t != "" {
			cells[h] = b.String()
		}
		if counter.Len() > 0 {
			counters[h] = counter.String()
		}
	}
	title := fmt.Sprintf("Teaching game map for the %s player -- %s", sides.Name(side), strings.SplitN(st.PhaseTitle(), " (", 2)[0])
	var key []string
	key = append(key, "Each hex of the text map: a trench or smoke mark, then one letter per unit (the picture draws the trenches).")
	if over := st.overflowKey(); len(over) > 0 {
		key = append(key, over...)
	}
	if len(st.Shown) > 0 {
		key = append(key, "Cards turned this turn: "+strings.Join(st.Shown, "; ")+".")
	}
	key = append(key, fmt.Sprintf("Wire markers placed: %d of %d. American casualties: %d.", st.markersUsed(), MaxMarkers, st.casualties()))
	return mapview.View{Title: title, Map: r.viewMap(st), Legend: legend(st.Revision), Cells: cells, Key: key, Forces: forces, Counters: counters}
}

// overflowKey lists the hexes whose units do not fit in a cell.
func (st *State) overflowKey() []string {
	count := map[hex.Hex]int{}
	for _, u := range st.Units {
		count[u.Hex]++
	}
	var hs []hex.Hex
	for h, n := range count {
		if n > 3 {
			hs = append(hs, h)
		}
	}
	slices.SortFunc(hs, hex.Compare)
	var out []string
	for _, h := range hs {
		out = append(out, fmt.Sprintf("%s: %s.", h, st.describe(h)))
	}
	return out
}

// Status implements rules.Ruleset.
func (r *Rules) Status(s rules.State, side rules.Side) string {
	st := s.(*State)
	var b strings.Builder
	fmt.Fprintf(&b, "%s. Counter mix: %s.", st.PhaseTitle(), st.Mix)
	if len(st.Options) > 0 {
		fmt.Fprintf(&b, " Options: %s.", strings.Join(st.Options, ", "))
	}
	fmt.Fprintf(&b, "\nLive: %d American, %d German (%d MG). American casualties: %d.", st.liveSide(American), st.liveSide(German), st.liveCount("mg"), st.casualties())
	fmt.Fprintf(&b, "\nCards left: American %d, German %d. Wire markers left: %d.", st.Decks[American].left(), st.Decks[German].left(), MaxMarkers-st.markersUsed())
	if st.Over() {
		fmt.Fprintf(&b, "\nThe game is over: %s.", st.End)
	}
	return b.String()
}
