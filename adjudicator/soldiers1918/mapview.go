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
func (s *Scenario) View(v MapView) mapview.View {
	cells := make(map[hex.Hex]string, len(s.scOrder))
	counters := make(map[hex.Hex]string, len(v.Stacks)+len(v.Carnage))
	forces := make(map[hex.Hex][]string, len(v.Stacks))
	for h, st := range v.Stacks {
		if st.DeInf+st.DeHMG > 0 {
			forces[h] = append(forces[h], string(DE))
		}
		if st.USArmy+st.USMC > 0 {
			forces[h] = append(forces[h], string(US))
		}
	}
	works := mvWorks(v.Revision)
	var notes []string
	for _, h := range s.scOrder {
		cell, full, counter := mvCellText(s, works, s.scHexes[h], h, v)
		if cell != "" {
			cells[h] = cell
		}
		if counter != "" {
			counters[h] = counter
		}
		if len(cell) > mvCellWidth-1 {
			notes = append(notes, fmt.Sprintf("+ column %02d, row %02d: %s", h.Col, h.Row, full))
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
	legend := mapview.Legend{
		Terrain: []mapview.Symbol{
			{Name: string(Open), Char: '.', Text: "open ground" + def(Open)},
			{Name: string(NoMansLand), Char: '~', Text: "No Man's Land" + def(NoMansLand)},
		},
		Marks: append(mapview.WorkSymbols(works, texts, main, outpost, support, comm, bunker, wire), []mapview.Symbol{
			{Name: "g", Char: 'g', Text: "German infantry"},
			{Name: "h", Char: 'h', Text: "German HMG"},
			{Name: "a", Char: 'a', Text: "US Army"},
			{Name: "y", Char: 'y', Text: "one of them is Sergeant York"},
			{Name: "m", Char: 'm', Text: "USMC"},
			{Name: "!", Char: '!', Text: "COWed"},
			{Name: "*", Char: '*', Text: "bombardment markers"},
			{Name: "x", Char: 'x', Text: "carnage"},
		}...),
		Forces: []mapview.Symbol{
			{Name: string(DE), Char: 'G', Text: "German units"},
			{Name: string(US), Char: 'A', Text: "American units"},
		},
		// The picture draws the trenches as trench lines, not letters: its counters
		// hold the units and markers only (Counters).
		Features: mapview.WorkSymbols(nil, featureTexts, main, outpost, support, comm, wire, bunker),
	}
	key := []string{
		"Trenches: a hex with several defends with the strongest (10.11). The text map spells them after the ground, the strongest first; the picture draws them as lines.",
		"Units and markers: 3g is three German infantry, 1h one German HMG, 4a four US Army platoons (4ay: one of them is Sergeant York), 4m four USMC; ! COWed, *2 two bombardment markers, x3 three carnage.",
		"Hexes: a hex's id is its column number (above and below its strip) then its row number (at the left of its line). Rows grow north.",
	}
	if mvExitsOnTop(s) {
		key = append(key, "Exits: the top hex of every column is a north-edge exit hex (4.1).")
	}
	if len(notes) > 0 {
		key = append(key, "A cell ending in + is spelt out here:")
		key = append(key, notes...)
	}
	return mapview.View{
		Title:       mvHeader(v),
		Map:         s.Map,
		Legend:      legend,
		CellWidth:   mvCellWidth,
		Cells:       cells,
		Key:         key,
		LegendTitle: "Legend (defence strength in brackets)",
		RowsUp:      true,
		Forces:      forces,
		Counters:    counters,
	}
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
func mvCellText(s *Scenario, works map[string]byte, info *HexInfo, h hex.Hex, v MapView) (cell, full, counter string) {
	trenches := mvTrenches(s, works, info)
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
	rest := string(items)
	cell = trenches
	if rest != "" {
		cell = trenches + " " + rest
		if len(cell) > mvCellWidth-1 {
			cell = trenches + rest // squeeze out the space
		}
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
	return cell, full, rest
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
