// Scenario data for Soldiers: Decision in the Trenches, 1918: the map, the
// charts and the counter mix, loaded from the human-editable files in data/
// (see data/README.md for their format).
//
// The printed map and charts (13.x) are not in the rulebook. Every value the
// rule text does give is honoured exactly and loaded as printed; everything
// else was reconstructed and is loaded as such (its Fact not Printed), so that an
// owner of the printed game can replace it without touching code.
//
// Orientation. Row numbers grow to the NORTH on this map: No Man's Land is
// row xx00 on the south edge (3.6), the German position lies north of the
// Main Trench line (3.5) and the exit hexes 1020 through 4919 are on the
// north edge (4.1). Because 1020 and 4919 end the exit range, even columns
// run from row 00 to row 20 and odd columns from row 00 to row 19: odd
// columns sit half a hex north of even ones, which is the hex package's
// OddColumnsShifted geometry (an odd-column hex rr touches rows rr and rr+1 of
// the columns beside it). The compass names in hex.Grid.Neighbours (drawn for
// maps whose rows grow south) are therefore mirrored here; adjacency and
// distance are not affected.

package soldiers1918

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Terrain is one kind of terrain feature in a hex.
type Terrain string

// The terrain of the Terrain Effects Chart (13.1). A hex may hold several.
const (
	Open          Terrain = "open"
	NoMansLand    Terrain = "nomansland"
	MainTrench    Terrain = "main"
	SupportTrench Terrain = "support"
	CommTrench    Terrain = "communication"
	Bunker        Terrain = "bunker"
	Wire          Terrain = "wire"
)

// scTerrains lists every Terrain in the canonical order used for
// HexInfo.Features and for breaking ties.
var scTerrains = []Terrain{Open, NoMansLand, MainTrench, SupportTrench, CommTrench, Bunker, Wire}

// Unit kinds, as used in Counters, FireStrength, Movement and Placement.
const (
	scDeInf  = "de-inf"
	scDeHMG  = "de-hmg"
	scArmy   = "us-army"
	scYork   = "york" // one of the 144 US Army platoons (12.5)
	scMarine = "usmc"
)

var scKinds = []string{scDeInf, scDeHMG, scArmy, scYork, scMarine}

// Stacking limits printed in the rules. The default German deployment must
// fit the usual limit, which is legal whatever the division roll (6.3).
const (
	scGermanStack = 3 // 6.3 (four for a shock-troop division, roll of six)
	scUSStack     = 4 // 6.4
)

// HexInfo is what the map says about one hex.
type HexInfo struct {
	// Features lists the hex's terrain in the order Open, NoMansLand,
	// MainTrench, SupportTrench, CommTrench, Bunker, Wire. A hex holds at
	// least one feature other than Wire: wire lies on open ground unless the
	// map gives it other terrain.
	Features []Terrain
	Outpost  bool // a far-forward Main Trench hex (3.5)
	Exit     bool // north edge exit hex (4.1)
}

// Has reports whether the hex holds terrain t.
func (i HexInfo) Has(t Terrain) bool { return slices.Contains(i.Features, t) }

// Value is a number with its provenance: the kit's fact of the line that gave it.
type Value struct {
	N int
	board.Fact
}

// Placement puts Count units of Kind in Hex.
type Placement struct {
	Hex   hex.Hex
	Kind  string
	Count int
}

// SourceLine is one line of the data files: the fact it states, without the provenance,
// and the provenance (the kit's fact: file, line, printed or reconstructed, and why).
type SourceLine struct {
	Text string
	board.Fact
}

// Scenario is the Soldiers 1918 map, charts and counter mix.
//
// DefenceStrength is the chart that the brief called Defence: Go does not
// allow a field and a method of the same name, and the method Defence(h) is
// the one the fire rules need.
type Scenario struct {
	// Map is map.txt as the kit reads it (adjudicator/board): the extent, the
	// terrain and features of every hex, the exit set, and where each came from.
	Map *board.Map
	// TEC is tec.txt, the chart's movement costs as the kit reads them: the MP to
	// enter a hex (9.5: 1 or 2), the dearest of its ground and features.
	TEC              *board.TEC
	Grid             hex.Grid
	DefenceStrength  map[Terrain]Value // defence strength per terrain (10.3); no Wire entry
	GermanInfantryFS map[int]Value     // 3.4 division-quality roll 1..6 -> German infantry FS (7.1: 2, 3, 4 or 6)
	FireStrength     map[string]Value  // unit kind -> FS: us-army, usmc, york, de-hmg
	Movement         map[string]Value  // unit kind -> MA
	Counters         map[string]int    // unit kind -> number in the counter mix
	DefaultGerman    []Placement       // a legal German deployment (3.5, 6.3, 6.6)
	DefaultUS        []Placement       // a legal US deployment (3.6, 6.4)

	CounterSources map[string]Value // provenance of Counters (N is the count)
	Sources        []SourceLine     // every data line, in load order

	scHexes   map[hex.Hex]*HexInfo // what the rules make of Map, hex by hex
	scOrder   []hex.Hex            // sorted by column then row
	scMainRow map[int]int          // column -> row of its Main Trench line hex (not an outpost)
	mvBases   *mvBases             // the views' shared parts (mapview.go)
}

// The data files, relative to the root of the file system given to
// ParseScenario.
const (
	scMapFile     = "map.txt"
	scChartsFile  = "charts.txt"
	scTECFile     = "tec.txt"
	scTablesFile  = "tables.txt"
	scCounterFile = "counters.txt"
	scGermanFile  = "deploy-german.txt"
	scUSFile      = "deploy-us.txt"
)

//go:embed data
var scData embed.FS

// LoadScenario loads the scenario shipped in data/.
func LoadScenario() (*Scenario, error) { return board.LoadDir(scData, "data", ParseScenario) }

// ParseScenario loads and validates a scenario from the data files at the
// root of fsys. Every problem found is reported, each error naming the file
// and (where there is one) the line: "map.txt:12: hex 5002 is off the map".
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	p := &scParser{}
	s := &Scenario{
		DefenceStrength:  map[Terrain]Value{},
		GermanInfantryFS: map[int]Value{},
		FireStrength:     map[string]Value{},
		Movement:         map[string]Value{},
		Counters:         map[string]int{},
		CounterSources:   map[string]Value{},
		scHexes:          map[hex.Hex]*HexInfo{},
		scMainRow:        map[int]int{},
		mvBases:          &mvBases{},
	}
	mapOK := false
	if src, _, ok := p.read(fsys, scMapFile, s, false); ok {
		mapOK = p.parseMap(s, src)
	}
	_, charts, _ := p.read(fsys, scChartsFile, s, true)
	p.parseCharts(s, charts)
	if src, _, ok := p.read(fsys, scTECFile, s, false); ok {
		p.parseTEC(s, src)
	}
	if src, _, ok := p.read(fsys, scTablesFile, s, false); ok {
		p.parseTables(s, src)
	}
	_, counters, _ := p.read(fsys, scCounterFile, s, true)
	countersOK := p.parseCounters(s, counters)
	_, german, _ := p.read(fsys, scGermanFile, s, true)
	_, us, _ := p.read(fsys, scUSFile, s, true)
	if mapOK && countersOK {
		s.DefaultGerman = p.parseDeploy(s, scGermanFile, german, true)
		s.DefaultUS = p.parseDeploy(s, scUSFile, us, false)
	}
	if len(p.errs) > scMaxErrors {
		n := len(p.errs) - scMaxErrors
		p.errs = append(p.errs[:scMaxErrors], fmt.Errorf("... and %d more errors", n))
	}
	if len(p.errs) > 0 {
		return nil, errors.Join(p.errs...)
	}
	return s, nil
}

// OnMap reports whether h is a hex of the map.
func (s *Scenario) OnMap(h hex.Hex) bool {
	_, ok := s.scHexes[h]
	return ok
}

// Hex returns what the map says about h; the zero HexInfo off the map.
func (s *Scenario) Hex(h hex.Hex) HexInfo {
	info, ok := s.scHexes[h]
	if !ok {
		return HexInfo{}
	}
	c := *info
	c.Features = slices.Clone(info.Features)
	return c
}

// Hexes returns all map hexes, sorted by column then row.
func (s *Scenario) Hexes() []hex.Hex { return slices.Clone(s.scOrder) }

// Defence returns the defence strength of h and the terrain that gives it:
// the strongest of the hex's features (10.11: "if two kinds of trenches
// exist in the same hex, that hex always defends using the strongest type").
// Wire adds nothing to a hex's defence (reconstructed: the TEC is not in the
// rulebook; wire is an obstacle, not cover), so a hex of open ground and wire
// defends as open ground. Off the map it returns 0 and "".
func (s *Scenario) Defence(h hex.Hex) (strength int, t Terrain) {
	info, ok := s.scHexes[h]
	if !ok {
		return 0, ""
	}
	return s.scDefence(info)
}

func (s *Scenario) scDefence(info *HexInfo) (int, Terrain) {
	best, bestT := -1, Terrain("")
	for _, f := range info.Features {
		if f == Wire {
			continue
		}
		if v := s.DefenceStrength[f].N; v > best {
			best, bestT = v, f
		}
	}
	if best < 0 { // cannot happen for a loaded map: every hex has a non-wire feature
		return s.DefenceStrength[Open].N, Open
	}
	return best, bestT
}

// EnterCost returns the movement points a unit pays to step from one hex into the
// adjacent hex to, not counting the +1 for carnage or friendly units (9.4): the most
// expensive of the entered hex's ground and features (tec.txt; 9.5 makes it 1 or 2).
// ok is false for a step the chart does not allow (off the map, not adjacent).
func (s *Scenario) EnterCost(from, to hex.Hex) (mp int, ok bool) {
	mp, ok, _ = s.TEC.Step(s.Map, s.TEC.Classes[0], from, to)
	return mp, ok
}

// GermanSetupHex reports whether German units may set up in h (3.5): on the
// Main Trench line or north of it in h's column, or in an outpost; never in
// No Man's Land (xx00) and never in an xx01 hex that is not an outpost.
func (s *Scenario) GermanSetupHex(h hex.Hex) bool {
	info, ok := s.scHexes[h]
	if !ok || h.Row == 0 {
		return false
	}
	if info.Outpost {
		return true
	}
	if h.Row == 1 {
		return false
	}
	main, ok := s.scMainRow[h.Col]
	return ok && h.Row >= main
}

// NoMansLand reports whether h is a No Man's Land hex: a map hex in row 00
// (3.6).
func (s *Scenario) NoMansLand(h hex.Hex) bool {
	return h.Row == 0 && s.OnMap(h)
}

// MainTrenchRow returns the row of the Main Trench line (not counting
// outposts) in column col, the southern bound of the German set-up area
// (3.5).
func (s *Scenario) MainTrenchRow(col int) (int, bool) {
	r, ok := s.scMainRow[col]
	return r, ok
}

// ---- parsing -------------------------------------------------------------

// scMaxErrors caps the errors ParseScenario reports: past that many the
// rest are usually one mistake repeated.
const scMaxErrors = 40

type scParser struct {
	errs []error
}

func (p *scParser) errorf(l board.Line, format string, args ...any) {
	p.errs = append(p.errs, l.Errorf(format, args...))
}

func (p *scParser) fileErrorf(file, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...)))
}

// factErrorf reports a problem at the line that gave fact f.
func (p *scParser) factErrorf(f board.Fact, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s:%d: %s", f.File, f.Line, fmt.Sprintf(format, args...)))
}

// read reads a data file and splits it into the kit's fact lines (adjudicator/board:
// "#" comments, every fact ending in "| printed <rule>: ..." or "| reconstructed:
// why"), recording each in s.Sources. Malformed lines are reported unless the caller
// reports them itself (map.txt, which board.ParseMap reads whole). ok is false when
// the file could not be read (and that is reported).
func (p *scParser) read(fsys fs.FS, name string, s *Scenario, report bool) (data []byte, lines []board.Line, ok bool) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		p.fileErrorf(name, "cannot read: %v", err)
		return nil, nil, false
	}
	lines, err = board.Lines(name, data)
	if err != nil && report {
		p.errs = append(p.errs, err)
	}
	for _, l := range lines {
		s.Sources = append(s.Sources, SourceLine{Text: strings.Join(l.Fields, " "), Fact: l.Fact})
	}
	return data, lines, true
}

// scNumber parses a non-negative decimal number.
func scNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return n, nil
}

func scTerrainNamed(s string) (Terrain, bool) {
	for _, t := range scTerrains {
		if string(t) == s {
			return t, true
		}
	}
	return "", false
}

func scTerrainList() string {
	var names []string
	for _, t := range scTerrains {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

// The words of map.txt beyond the Terrain names: an outpost is a feature of its
// own (a Main Trench hex far forward, 3.5), the exit hexes a set (4.1).
const (
	scOutpost = "outpost"
	scExit    = "exit"
)

// scVocabulary is what map.txt may say, in the kit's map format: the natural
// ground of a hex is open or No Man's Land; the trenches, bunkers and wire are
// in-hex features, any number a hex (10.11: "two kinds of trenches ... in the
// same hex").
var scVocabulary = board.Vocabulary{
	Terrain:  []string{string(Open), string(NoMansLand)},
	Features: []string{string(MainTrench), scOutpost, string(SupportTrench), string(CommTrench), string(Bunker), string(Wire)},
	Sets:     []string{scExit},
}

// parseMap reads map.txt with the kit (board.ParseMap), then checks what the
// Soldiers rules require of it and derives each hex's HexInfo. It reports
// whether the map is usable for checking deployments.
func (p *scParser) parseMap(s *Scenario, src []byte) bool {
	m, err := board.ParseMap(scMapFile, src, scVocabulary)
	if err != nil {
		p.errs = append(p.errs, err)
		return false
	}
	nerr := len(p.errs)
	s.Map, s.Grid, s.scOrder = m, m.Grid, m.Hexes()
	for _, h := range s.scOrder {
		info := &HexInfo{Outpost: m.HasFeature(h, scOutpost), Exit: m.InSet(scExit, h)}
		s.scHexes[h] = info
		nml := m.Terrain(h) == string(NoMansLand)
		tf, _ := m.TerrainFact(h)
		switch {
		case h.Row == 0 && !nml:
			p.fileErrorf(scMapFile, "hex %s is in row 00 but not No Man's Land: No Man's Land is the xx00 row (3.6)", h)
		case h.Row != 0 && nml:
			p.factErrorf(tf, "hex %s: No Man's Land is the xx00 row only (3.6)", h)
		}
		if nml {
			info.Features = append(info.Features, NoMansLand)
		}
		for _, f := range m.Features(h) {
			if f != scOutpost {
				info.Features = append(info.Features, Terrain(f))
			}
		}
		main, isMain := m.FeatureFact(h, string(MainTrench))
		if info.Outpost {
			of, _ := m.FeatureFact(h, scOutpost)
			switch {
			case isMain:
				p.factErrorf(main, "hex %s: an outpost is a Main Trench hex already (3.5, line %d); drop it from the main line", h, of.Line)
			case h.Row == 0:
				p.factErrorf(of, "hex %s: an outpost cannot be in No Man's Land (3.5)", h)
			default:
				info.Features = append(info.Features, MainTrench)
			}
		}
		if h.Row == 1 && !info.Outpost && isMain {
			p.factErrorf(main, "hex %s: a Main Trench hex in row 01 must be an outpost (3.5: no German set-up in xx01 hexes without one)", h)
		}
		// Wire lies on open ground unless the map gives other terrain.
		if !slices.ContainsFunc(info.Features, func(t Terrain) bool { return t != Wire }) {
			info.Features = append(info.Features, Open)
		}
		slices.SortFunc(info.Features, func(a, b Terrain) int {
			return slices.Index(scTerrains, a) - slices.Index(scTerrains, b)
		})
		if isMain {
			if r, ok := s.scMainRow[h.Col]; !ok || h.Row < r {
				s.scMainRow[h.Col] = h.Row
			}
		}
	}
	for c := m.Cols[0]; c <= m.Cols[1]; c++ {
		if _, ok := s.scMainRow[c]; !ok {
			p.fileErrorf(scMapFile, "column %02d has no Main Trench hex (other than outposts): the German set-up area (3.5) is bounded by one in every column", c)
		}
	}
	if len(m.Set(scExit)) == 0 {
		p.fileErrorf(scMapFile, "no exit hexes (e.g. \"set exit 1020 1119 ... | printed 4.1\")")
	}
	return len(p.errs) == nerr
}

// MapSource returns the provenance of one claim of the map about h: that the
// hex exists (what "hex"), holds a terrain (what is the Terrain's string), is
// an outpost ("outpost") or an exit hex ("exit"). ok is false when the map
// makes no such claim. N is 1.
func (s *Scenario) MapSource(h hex.Hex, what string) (v Value, ok bool) {
	info, on := s.scHexes[h]
	if !on {
		return Value{}, false
	}
	m := s.Map
	var f board.Fact
	switch what {
	case "hex":
		// A hex exists by its column's rows and the columns; either reconstructed
		// makes it so.
		key := "rows even"
		if h.Col&1 == 1 {
			key = "rows odd"
		}
		f, ok = m.ExtentFact(key)
		if cf, _ := m.ExtentFact("columns"); !cf.Printed {
			f = cf
		}
	case scExit:
		f, ok = m.SetFact(scExit)
		ok = ok && info.Exit
	case scOutpost:
		f, ok = m.FeatureFact(h, scOutpost)
	case string(NoMansLand):
		f, ok = m.TerrainFact(h)
		ok = ok && info.Has(NoMansLand)
	case string(Open):
		f, ok = m.ExtentFact("default")
		ok = ok && info.Has(Open)
	case string(MainTrench):
		if f, ok = m.FeatureFact(h, scOutpost); !ok {
			f, ok = m.FeatureFact(h, what)
		}
	default:
		f, ok = m.FeatureFact(h, what)
	}
	if !ok {
		return Value{}, false
	}
	return Value{N: 1, Fact: f}, true
}

func (s *Scenario) scExtent() string {
	m := s.Map
	return fmt.Sprintf("columns %02d-%02d, rows %02d-%02d in even columns and %02d-%02d in odd columns",
		m.Cols[0], m.Cols[1], m.EvenRows[0], m.EvenRows[1], m.OddRows[0], m.OddRows[1])
}

// parseCharts reads charts.txt.
func (p *scParser) parseCharts(s *Scenario, lines []board.Line) {
	seen := map[string]int{}
	fsLine := map[string]board.Line{}
	for _, l := range lines {
		f := l.Fields
		if len(f) != 3 {
			p.errorf(l, "want: <defence|fs|movement> <what> <number>")
			continue
		}
		n, err := scNumber(f[2])
		if err != nil {
			p.errorf(l, "%s %s: %v", f[0], f[1], err)
			continue
		}
		key := f[0] + " " + f[1]
		if prev, dup := seen[key]; dup {
			p.errorf(l, "%s already given at line %d", key, prev)
			continue
		}
		v := Value{N: n, Fact: l.Fact}
		switch f[0] {
		case "defence":
			t, ok := scTerrainNamed(f[1])
			if !ok {
				p.errorf(l, "unknown terrain %q: want one of %s", f[1], scTerrainList())
				continue
			}
			if t == Wire {
				p.errorf(l, "wire adds nothing to a hex's defence: a hex defends with its other terrain (10.11); remove this line")
				continue
			}
			if n < 1 {
				p.errorf(l, "a defence strength must be at least 1 (10.3 divides by it)")
				continue
			}
			s.DefenceStrength[t] = v
		case "fs":
			switch f[1] {
			case scArmy, scMarine, scYork, scDeHMG:
			case scDeInf:
				p.errorf(l, "German infantry FS comes from the german-fs table of tables.txt (3.4), not from fs")
				continue
			default:
				p.errorf(l, "fs: unknown unit kind %q: want us-army, usmc, york or de-hmg", f[1])
				continue
			}
			if n < 1 {
				p.errorf(l, "a fire strength must be at least 1")
				continue
			}
			s.FireStrength[f[1]] = v
			fsLine[f[1]] = l
		case "movement":
			if !slices.Contains(scKinds, f[1]) {
				p.errorf(l, "movement: unknown unit kind %q: want one of %s", f[1], strings.Join(scKinds, ", "))
				continue
			}
			if n < 1 {
				p.errorf(l, "a movement allowance must be at least 1")
				continue
			}
			s.Movement[f[1]] = v
		default:
			p.errorf(l, "unknown keyword %q: want defence, fs or movement (the movement costs are in tec.txt, german-fs in tables.txt)", f[0])
			continue
		}
		seen[key] = l.N
	}
	for _, t := range scTerrains {
		if _, ok := s.DefenceStrength[t]; !ok && t != Wire {
			p.fileErrorf(scChartsFile, "no defence line for %s", t)
		}
	}
	for _, k := range []string{scArmy, scMarine, scYork, scDeHMG} {
		if _, ok := s.FireStrength[k]; !ok {
			p.fileErrorf(scChartsFile, "no fs line for %s", k)
		}
	}
	if a, ok := s.FireStrength[scArmy]; ok {
		if y, ok := s.FireStrength[scYork]; ok && y.N != 2*a.N {
			p.errorf(fsLine[scYork], "york FS %d must be exactly double the us-army FS %d (12.5)", y.N, a.N)
		}
	}
	for _, k := range scKinds {
		if _, ok := s.Movement[k]; !ok {
			p.fileErrorf(scChartsFile, "no movement line for %s", k)
		}
	}
}

// parseTEC reads tec.txt with the kit (board.ParseTEC), then checks what 9.5 asks of
// it: one class (every unit pays the same), every terrain and feature given, each at 1
// or 2 MP, and an outpost at what the Main Trench costs (3.5: it is a Main Trench hex).
func (p *scParser) parseTEC(s *Scenario, src []byte) {
	t, err := board.ParseTEC(scTECFile, src, scVocabulary)
	if err != nil {
		p.errs = append(p.errs, err)
		return
	}
	nerr := len(p.errs)
	if len(t.Classes) != 1 {
		p.fileErrorf(scTECFile, "want one class: every unit pays the same to enter a hex (9.5)")
	}
	if t.Scale != 1 {
		p.fileErrorf(scTECFile, "want whole MP: every hex costs 1 or 2 MP (9.5)")
	}
	for _, name := range append(slices.Clone(scVocabulary.Terrain), scVocabulary.Features...) {
		row, ok := t.Enter[name]
		if !ok {
			p.fileErrorf(scTECFile, "no enter line for %s", name)
			continue
		}
		f, _ := t.Fact("enter " + name)
		for _, c := range row {
			if c.Prohibited || c.MP != 1 && c.MP != 2 {
				p.factErrorf(f, "movement cost %s: every hex costs 1 or 2 MP (9.5)", c)
			}
		}
	}
	if o, m := t.Enter[scOutpost], t.Enter[string(MainTrench)]; len(o) > 0 && len(m) > 0 && o[0] != m[0] {
		f, _ := t.Fact("enter " + scOutpost)
		p.factErrorf(f, "an outpost costs what the Main Trench does (3.5: it is a Main Trench hex)")
	}
	if len(p.errs) == nerr {
		s.TEC = t
	}
}

// parseTables reads tables.txt with the kit (board.ParseTables): the German
// division-quality chart, table german-fs, a roll of one die (3.4) giving the German
// infantry FS, which 7.1 allows to be 2, 3, 4 or 6, and 6 for the shock-troop
// division of a roll of six (6.3).
func (p *scParser) parseTables(s *Scenario, src []byte) {
	tabs, err := board.ParseTables(scTablesFile, src)
	if err != nil {
		p.errs = append(p.errs, err)
		return
	}
	t, ok := tabs["german-fs"]
	if !ok {
		p.fileErrorf(scTablesFile, "no table german-fs (3.4)")
		return
	}
	have := map[int]bool{}
	for roll := 1; roll <= 6; roll++ {
		res, _, err := t.Lookup(1, roll)
		if err != nil {
			p.fileErrorf(scTablesFile, "table german-fs has no roll %d (3.4: one die)", roll)
			continue
		}
		f := t.RowFacts[roll]
		n, err := scNumber(res)
		switch {
		case err != nil:
			p.factErrorf(f, "german-fs roll %d: %v", roll, err)
			continue
		case n != 2 && n != 3 && n != 4 && n != 6:
			p.factErrorf(f, "German infantry FS %d: 7.1 allows only 2, 3, 4 or 6", n)
			continue
		case roll == 6 && n != 6:
			p.factErrorf(f, "a roll of six is the shock-troop division (6.3): its infantry FS is 6, not %d", n)
			continue
		}
		s.GermanInfantryFS[roll] = Value{N: n, Fact: f}
		have[n] = true
	}
	if t.Rolls != [2]int{1, 6} && len(s.GermanInfantryFS) == 6 {
		p.fileErrorf(scTablesFile, "table german-fs: rolls %d to %d, want 1 to 6 (3.4: one die)", t.Rolls[0], t.Rolls[1])
	}
	for _, want := range []int{2, 3, 4, 6} {
		if !have[want] && len(s.GermanInfantryFS) == 6 {
			p.fileErrorf(scTablesFile, "no roll gives German infantry FS %d, one of the four 7.1 lists", want)
		}
	}
}

// parseCounters reads counters.txt and reports whether it is complete.
func (p *scParser) parseCounters(s *Scenario, lines []board.Line) bool {
	nerr := len(p.errs)
	seen := map[string]int{}
	for _, l := range lines {
		f := l.Fields
		if len(f) != 3 || f[0] != "counter" {
			p.errorf(l, "want: counter <kind> <number>, e.g. counter de-inf 24")
			continue
		}
		if !slices.Contains(scKinds, f[1]) {
			p.errorf(l, "unknown unit kind %q: want one of %s", f[1], strings.Join(scKinds, ", "))
			continue
		}
		n, err := scNumber(f[2])
		if err != nil {
			p.errorf(l, "counter %s: %v", f[1], err)
			continue
		}
		if prev, dup := seen[f[1]]; dup {
			p.errorf(l, "counter %s already given at line %d", f[1], prev)
			continue
		}
		seen[f[1]] = l.N
		s.Counters[f[1]] = n
		s.CounterSources[f[1]] = Value{N: n, Fact: l.Fact}
	}
	for _, k := range scKinds {
		if _, ok := s.Counters[k]; !ok {
			p.fileErrorf(scCounterFile, "no counter line for %s", k)
		}
	}
	return len(p.errs) == nerr
}

// parseDeploy reads a deployment file and checks it against the set-up
// rules: German units in the German position (3.5) at most three a hex
// (6.3), US units in the xx00 row (3.6) at most four a hex with Army and
// USMC never mixed (6.4), and every unit of the side's counter mix placed.
func (p *scParser) parseDeploy(s *Scenario, file string, lines []board.Line, german bool) []Placement {
	kinds := []string{scArmy, scYork, scMarine}
	if german {
		kinds = []string{scDeInf, scDeHMG}
	}
	type key struct {
		h    hex.Hex
		kind string
	}
	sums := map[key]int{}
	perHex := map[hex.Hex]map[string]int{}
	totals := map[string]int{}
	for _, l := range lines {
		f := l.Fields
		if len(f) != 3 {
			p.errorf(l, "want: <hex or run> <kind> <count>, e.g. 3801 %s 1", kinds[0])
			continue
		}
		hs, err := board.ParseHexes(f[:1])
		if err != nil {
			p.errorf(l, "%v", err)
			continue
		}
		kind := f[1]
		if !slices.Contains(kinds, kind) {
			p.errorf(l, "unit kind %q: this file places %s", kind, strings.Join(kinds, ", "))
			continue
		}
		n, err := scNumber(f[2])
		if err != nil || n < 1 {
			p.errorf(l, "count %q: want a number of units, at least 1", f[2])
			continue
		}
		for _, h := range hs {
			switch {
			case !s.OnMap(h):
				p.errorf(l, "hex %s is off the map (%s)", h, s.scExtent())
				continue
			case german && !s.GermanSetupHex(h):
				p.errorf(l, "hex %s is outside the German position: German units set up on or behind the Main Trench line or in an outpost, never in No Man's Land or an xx01 hex without an outpost (3.5)", h)
				continue
			case !german && !s.NoMansLand(h):
				p.errorf(l, "hex %s is not in the No Man's Land row: US units set up in xx00 hexes (3.6)", h)
				continue
			}
			if perHex[h] == nil {
				perHex[h] = map[string]int{}
			}
			perHex[h][kind] += n
			sums[key{h, kind}] += n
			totals[kind] += n
			stack := perHex[h]
			if german {
				if t := stack[scDeInf] + stack[scDeHMG]; t > scGermanStack {
					p.errorf(l, "hex %s holds %d German units: at most %d a hex (6.3)", h, t, scGermanStack)
				}
				continue
			}
			army, usmc := stack[scArmy]+stack[scYork], stack[scMarine]
			if army > 0 && usmc > 0 {
				p.errorf(l, "hex %s mixes US Army and USMC units: they may not stack together (6.4)", h)
			}
			if army > scUSStack || usmc > scUSStack {
				p.errorf(l, "hex %s holds %d units: at most %d US Army or %d USMC units a hex (6.4)", h, max(army, usmc), scUSStack, scUSStack)
			}
		}
	}
	for _, k := range kinds {
		if totals[k] != s.Counters[k] {
			p.fileErrorf(file, "%d %s placed, but the counter mix has %d: every unit sets up (3.5, 3.6)", totals[k], k, s.Counters[k])
		}
	}
	out := make([]Placement, 0, len(sums))
	for k, n := range sums {
		out = append(out, Placement{Hex: k.h, Kind: k.kind, Count: n})
	}
	slices.SortFunc(out, func(a, b Placement) int {
		if c := hex.Compare(a.Hex, b.Hex); c != 0 {
			return c
		}
		return slices.Index(scKinds, a.Kind) - slices.Index(scKinds, b.Kind)
	})
	return out
}
