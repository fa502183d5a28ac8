// The text map of Soldiers 1918: the kit's map (adjudicator/mapview) drawn from
// this game's view of one side, for mails read in a monospace font on anything
// down to a phone held sideways.
//
// North (the German side, high rows) is at the top: rows grow north on this map
// (scenario.go), so the view sets RowsUp. Each hex is drawn as the kit draws it,
// its content line holding mvCellWidth characters:
//
//	ground trenches [space] units markers        e.g.  ".BC 1g2h"  "~# 4ay"  ".S x2"
//
// ground is the kit's terrain symbol ("." open ground, "~" No Man's Land);
// trenches are one letter per feature, the one it defends with first (10.11),
// wire last, in the kit's letters (mapview.Works: ".DZ 1g2h", "~W 4ay") from
// revision 2 and in the letters of before (mvOldWorks) in a game created earlier; units are counts by kind; markers are COWed, bombardment and
// carnage. A cell that cannot hold everything ends in "+" and is spelt out in the
// key after the legend (by column and row, not by hex id: no four-digit id is
// printed anywhere in the map, since mails are searched for hex ids).

package soldiers1918

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// MapView is what one side may see, for rendering. Both sides see the same map
// (6.5): nothing on it is hidden, and sealed plots are never on it (they are not
// in the state; bombardment markers are on the map only while a bombardment is
// resolved, 12.4).
type MapView struct {
	Turn       int    // 0 is set-up
	Phase      string // as it should be printed, e.g. "VII US Movement"
	Visibility int    // 0 = not yet determined
	Stacks     map[hex.Hex]Stack
	Carnage    map[hex.Hex]int
	COWed      map[hex.Hex]bool
	// Bombardment is the number of bombardment markers in place in a hex.
	Bombardment map[hex.Hex]int
	// Revision is the rules revision of the game (State.Revision): a game created
	// before revision 2 keeps the trench letters it was shown (mvOldWorks).
	Revision int
}

// Stack is the units of both sides in one hex. USArmy counts every US Army
// platoon in the hex, the Sergeant York unit included; York says that one
// of them is Sergeant York (12.5).
type Stack struct {
	DeInf, DeHMG, USArmy, USMC int
	York                       bool
}

// mvCellWidth is a hex's content, its ground symbol included: room for a bunker on
// a communication trench with a full German stack, ".BC 1g2h". Eight columns of the
// forty make a strip (five strips).
const mvCellWidth = 8

// mvOldWorks is the letter of each in-hex feature in a game created before revision
// 2, whose map keeps the letters it was shown; later games draw the kit's
// (mapview.Works), which collide with no unit or marker of any game ("B" is a bunker
// here and a Marine in the teaching game, "#" wire here and a bunker there). An
// outpost shows its own letter instead of the Main Trench's. Open ground and No Man's
// Land are the ground, the kit's terrain symbol.
var mvOldWorks = map[string]byte{
	string(MainTrench): 'M', scOutpost: 'O', string(SupportTrench): 'S', string(CommTrench): 'C', string(Bunker): 'B', string(Wire): '#',
}

// mvWorks is the letter of each in-hex feature in a game of revision rev.
func mvWorks(rev int) map[string]byte {
	if rev < 2 {
		return mvOldWorks
	}
	return mapview.WorkLetters()
}

// RenderMap draws v on s's map as plain text: a header, the map in labelled
// strips, the legend and the key.
func RenderMap(s *Scenario, v MapView) string {
	return mapview.Render(s.View(v))
}

// View is the kit's view of v: the header, the cells and the legend.
//
// What does not change from one state to the next (each hex's trench letters, the
// cells of the hexes with nothing in them, the legend and the key) is made once a
// scenario and rules revision (mvBaseOf); a view fills in the hexes that hold units or
// markers, a few dozen of the map's hundreds.
func (s *Scenario) View(v MapView) mapview.View {
	base := s.mvBaseOf(v.Revision)
	cells := maps.Clone(base.cells)
	counters := make(map[hex.Hex]string, len(v.Stacks)+len(v.Carnage))
	forces := make(map[hex.Hex][]string, len(v.Stacks))
	for h, st := range v.Stacks {
		de, us := st.DeInf+st.DeHMG > 0, st.USArmy+st.USMC > 0
		switch {
		case de && us:
			forces[h] = mvForcesBoth
		case de:
			forces[h] = mvForcesDE
		case us:
			forces[h] = mvForcesUS
		}
	}
	// The hexes with something in them, by their place in scOrder: the key spells
	// out the crowded ones in the map's order.
	held := make([]int, 0, len(v.Stacks)+len(v.Carnage)+len(v.COWed)+len(v.Bombardment))
	hold := func(h hex.Hex) {
		if at, ok := base.at[h]; ok {
			held = append(held, at)
		}
	}
	for h := range v.Stacks {
		hold(h)
	}
	for h := range v.Carnage {
		hold(h)
	}
	for h := range v.COWed {
		hold(h)
	}
	for h := range v.Bombardment {
		hold(h)
	}
	slices.Sort(held)
	held = slices.Compact(held)
	var notes []string
	note := func(h hex.Hex, full string) {
		notes = append(notes, fmt.Sprintf("+ column %02d, row %02d: %s", h.Col, h.Row, full))
	}
	bn := 0 // the next of base.notes
	for _, at := range held {
		for ; bn < len(base.notes) && base.notes[bn].at < at; bn++ {
			note(s.scOrder[base.notes[bn].at], base.notes[bn].full)
		}
		if bn < len(base.notes) && base.notes[bn].at == at {
			bn++ // this hex's note, if any, is made with its units below
		}
		h := s.scOrder[at]
		cell, full, counter := mvCellText(base.trenches[at], s.scHexes[h], h, v)
		if cell != "" {
			cells[h] = cell
		} else {
			delete(cells, h)
		}
		if counter != "" {
			counters[h] = counter
		}
		if len(cell) > mvCellWidth-1 {
			note(h, full)
		}
	}
	for ; bn < len(base.notes); bn++ {
		note(s.scOrder[base.notes[bn].at], base.notes[bn].full)
	}
	key := slices.Clip(base.key)
	if len(notes) > 0 {
		key = append(key, "A cell ending in + is spelt out here:")
		key = append(key, notes...)
	}
	return mapview.View{
		Title:       mvHeader(v),
		Map:         s.Map,
		Legend:      base.legend,
		CellWidth:   mvCellWidth,
		Cells:       cells,
		Key:         key,
		LegendTitle: "Legend (defence strength in brackets)",
		RowsUp:      true,
		Forces:      forces,
		Counters:    counters,
	}
}

// The forces of a hex (mapview.View.Forces), shared by every view: clipped, so that
// appending to one copies it.
var (
	mvForcesDE   = []string{string(DE)}
	mvForcesUS   = []string{string(US)}
	mvForcesBoth = []string{string(DE), string(US)}
)

// mvBase is what every view of a scenario's map in one rules revision shares: each
// hex's trench letters (by its place in scOrder), the cells of an empty map, the key
// of the hexes whose trenches alone overflow their cell, the legend and the key.
type mvBase struct {
	trenches []string
	at       map[hex.Hex]int // a hex's place in scOrder
	cells    map[hex.Hex]string
	notes    []mvNote
	legend   mapview.Legend
	key      []string
}

// mvNote is the key's line for the hex at scOrder[at] when empty: full is its cell
// spelt out.
type mvNote struct {
	at   int
	full string
}

// mvBases are a scenario's mvBase for revisions before 2 ([0]) and from 2 ([1]),
// each made once.
type mvBases struct {
	once [2]sync.Once
	base [2]*mvBase
}

// mvBaseOf returns the shared part of the views of revision rev, made at first use.
func (s *Scenario) mvBaseOf(rev int) *mvBase {
	i := 0
	if rev >= 2 {
		i = 1
	}
	if s.mvBases == nil {
		return s.mvMakeBase(rev) // a Scenario not made by ParseScenario
	}
	s.mvBases.once[i].Do(func() { s.mvBases.base[i] = s.mvMakeBase(rev) })
	return s.mvBases.base[i]
}

// mvMakeBase makes the shared part of the views of revision rev. Its slices are
// clipped, so that a caller appending to a view's legend or key copies them.
func (s *Scenario) mvMakeBase(rev int) *mvBase {
	works := mvWorks(rev)
	b := &mvBase{
		trenches: make([]string, len(s.scOrder)),
		at:       make(map[hex.Hex]int, len(s.scOrder)),
		cells:    make(map[hex.Hex]string, len(s.scOrder)),
	}
	for i, h := range s.scOrder {
		b.at[h] = i
		b.trenches[i] = mvTrenches(s, works, s.scHexes[h])
		cell, full, _ := mvCellText(b.trenches[i], s.scHexes[h], h, MapView{})
		if cell != "" {
			b.cells[h] = cell
		}
		if len(cell) > mvCellWidth-1 {
			b.notes = append(b.notes, mvNote{at: i, full: full})
		}
	}
	def := func(t Terrain) string {
		if d, ok := s.DefenceStrength[t]; ok {
			return " (" + strconv.Itoa(d.N) + ")"
		}
		return ""
	}
	main, outpost, support, comm, bunker, wire := string(MainTrench), scOutpost, string(SupportTrench), string(CommTrench), string(Bunker), string(Wire)
	texts := map[string]string{
		main: "Main Trench" + def(MainTrench), outpost: "outpost: Main Trench" + def(MainTrench),
		support: "Support Trench" + def(SupportTrench), comm: "communication trench" + def(CommTrench),
		bunker: "bunker" + def(Bunker), wire: "wire (adds nothing)",
	}
	featureTexts := maps.Clone(texts)
	featureTexts[outpost] = "outpost (Main Trench)"
	b.legend = mapview.Legend{
		Terrain: []mapview.Symbol{
			{Name: string(Open), Char: '.', Text: "open ground" + def(Open)},
			{Name: string(NoMansLand), Char: '~', Text: "No Man's Land" + def(NoMansLand)},
		},
		Marks: slices.Clip(append(mapview.WorkSymbols(works, texts, main, outpost, support, comm, bunker, wire), []mapview.Symbol{
			{Name: "g", Char: 'g', Text: "German infantry"},
			{Name: "h", Char: 'h', Text: "German HMG"},
			{Name: "a", Char: 'a', Text: "US Army"},
			{Name: "y", Char: 'y', Text: "one of them is Sergeant York"},
			{Name: "m", Char: 'm', Text: "USMC"},
			{Name: "!", Char: '!', Text: "COWed"},
			{Name: "*", Char: '*', Text: "bombardment markers"},
			{Name: "x", Char: 'x', Text: "carnage"},
		}...)),
		Forces: []mapview.Symbol{
			{Name: string(DE), Char: 'G', Text: "German units"},
			{Name: string(US), Char: 'A', Text: "American units"},
		},
		// The picture draws the trenches as trench lines, not letters: its counters
		// hold the units and markers only (Counters).
		Features: slices.Clip(mapview.WorkSymbols(nil, featureTexts, main, outpost, support, comm, wire, bunker)),
	}
	b.key = []string{
		"Trenches: a hex with several defends with the strongest (10.11). The text map spells them after the ground, the strongest first; the picture draws them as lines.",
		"Units and markers: 3g is three German infantry, 1h one German HMG, 4a four US Army platoons (4ay: one of them is Sergeant York), 4m four USMC; ! COWed, *2 two bombardment markers, x3 three carnage.",
		"Hexes: a hex's id is its column number (above and below its strip) then its row number (at the left of its line). Rows grow north.",
	}
	if mvExitsOnTop(s) {
		b.key = append(b.key, "Exits: the top hex of every column is a north-edge exit hex (4.1).")
	}
	b.key = slices.Clip(b.key)
	return b
}

func mvHeader(v MapView) string {
	turn := "set-up"
	if v.Turn > 0 {
		turn = "turn " + strconv.Itoa(v.Turn)
	}
	vis := "visibility not yet determined"
	if v.Visibility > 0 {
		vis = "visibility " + strconv.Itoa(v.Visibility)
	}
	phase := strings.Join(strings.Fields(v.Phase), " ")
	if phase == "" {
		phase = "-"
	}
	return mapview.Wrap("Soldiers map -- "+turn+", "+vis+", phase "+phase, "    ")
}

// mvCellText returns the text of h after its ground symbol, which may be longer
// than the cell, the hex spelt out with spaces for the key when the cell is longer
// (else ""), and the text of its counter in the picture (units and markers: the
// picture draws the trenches).
//
// trenches is the hex's trenches as mvTrenches spells them.
func mvCellText(trenches string, info *HexInfo, h hex.Hex, v MapView) (cell, full, counter string) {
	// items are the units, then the markers, each as "3g" or "*2": a map is drawn for
	// every results mail, so they are spelt in a buffer, not a string each.
	var buf [64]byte
	var ends [8]int
	items, n := buf[:0], 0
	item := func(count int, letter string) {
		items = strconv.AppendInt(items, int64(count), 10)
		items = append(items, letter...)
		ends[n] = len(items)
		n++
	}
	if st, ok := v.Stacks[h]; ok {
		if st.DeInf > 0 {
			item(st.DeInf, "g")
		}
		if st.DeHMG > 0 {
			item(st.DeHMG, "h")
		}
		if st.USArmy > 0 {
			a := "a"
			if st.York {
				a = "ay"
			}
			item(st.USArmy, a)
		}
		if st.USMC > 0 {
			item(st.USMC, "m")
		}
	}
	if v.COWed[h] {
		items = append(items, '!')
		ends[n] = len(items)
		n++
	}
	if c := v.Bombardment[h]; c > 0 {
		items = append(items, '*')
		item(c, "")
	}
	if c := v.Carnage[h]; c > 0 {
		items = append(items, 'x')
		item(c, "")
	}
	cell = trenches
	if len(items) > 0 {
		// The cell and its counter in one string: the counter is the cell's end.
		var text [80]byte
		line := append(text[:0], trenches...)
		if len(trenches)+1+len(items) <= mvCellWidth-1 {
			line = append(line, ' ')
		} // else squeeze out the space
		line = append(line, items...)
		cell = string(line)
		counter = cell[len(cell)-len(items):]
	}
	if len(cell) > mvCellWidth-1 {
		ground := "."
		if info.Has(NoMansLand) {
			ground = "~"
		}
		var f strings.Builder
		f.WriteString(ground + trenches + " ")
		for i := range n {
			if i > 0 {
				f.WriteByte(' ')
			}
			from := 0
			if i > 0 {
				from = ends[i-1]
			}
			f.Write(items[from:ends[i]])
		}
		full = strings.TrimSpace(f.String())
	}
	return cell, full, counter
}

// mvTrenches spells a hex's trenches, bunker and wire: the feature it defends
// with first when that is one of them, then its other features in the order of
// HexInfo.Features, wire last, each in its letter of works. The ground (open, No
// Man's Land) is the kit's terrain symbol, drawn before them.
func mvTrenches(s *Scenario, works map[string]byte, info *HexInfo) string {
	_, primary := s.scDefence(info)
	char := func(t Terrain) byte {
		if t == MainTrench && info.Outpost {
			return works[scOutpost]
		}
		return works[string(t)]
	}
	var out []byte
	if char(primary) != 0 && primary != Wire {
		out = append(out, char(primary))
	}
	for _, t := range info.Features {
		if t != primary && t != Wire && char(t) != 0 {
			out = append(out, char(t))
		}
	}
	if slices.Contains(info.Features, Wire) {
		out = append(out, works[string(Wire)])
	}
	return string(out)
}

// mvExitsOnTop reports whether the exit hexes are exactly the top hex of every
// column, which the key can then say in one line.
func mvExitsOnTop(s *Scenario) bool {
	m := s.Map
	n := 0
	for _, h := range m.Set(scExit) {
		top := m.EvenRows[1]
		if h.Col&1 == 1 {
			top = m.OddRows[1]
		}
		if h.Row != top {
			return false
		}
		n++
	}
	return n == m.Cols[1]-m.Cols[0]+1
}
