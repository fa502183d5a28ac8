// Scenario data for Soldiers: Decision in the Trenches, 1918: the map, the
// charts and the counter mix, loaded from the human-editable files in data/
// (see data/README.md for their format).
//
// The printed map and charts (13.x) are not in the rulebook. Every value the
// rule text does give is honoured exactly and loaded as printed; everything
// else was reconstructed and is loaded with Reconstructed set, so that an
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

// Value is a number with its provenance.
type Value struct {
	N             int
	Reconstructed bool
	Source        string // rule cited, or "reconstructed: why"
}

// Placement puts Count units of Kind in Hex.
type Placement struct {
	Hex   hex.Hex
	Kind  string
	Count int
}

// MapFact names one claim of the map: that a hex exists (What "hex"), holds
// a terrain (What is the Terrain's string), is an outpost ("outpost") or an
// exit hex ("exit").
type MapFact struct {
	Hex  hex.Hex
	What string
}

// SourceLine is one line of the data files with its provenance.
type SourceLine struct {
	File          string
	Line          int
	Text          string // the fact, without the provenance
	Reconstructed bool
	Source        string
}

// Scenario is the Soldiers 1918 map, charts and counter mix.
//
// DefenceStrength is the chart that the brief called Defence: Go does not
// allow a field and a method of the same name, and the method Defence(h) is
// the one the fire rules need.
type Scenario struct {
	Grid             hex.Grid
	DefenceStrength  map[Terrain]Value // defence strength per terrain (10.3); no Wire entry
	MoveCost         map[Terrain]Value // MP to enter (9.5), 1 or 2
	GermanInfantryFS map[int]Value     // 3.4 division-quality roll 1..6 -> German infantry FS (7.1: 2, 3, 4 or 6)
	FireStrength     map[string]Value  // unit kind -> FS: us-army, usmc, york, de-hmg
	Movement         map[string]Value  // unit kind -> MA
	Counters         map[string]int    // unit kind -> number in the counter mix
	DefaultGerman    []Placement       // a legal German deployment (3.5, 6.3, 6.6)
	DefaultUS        []Placement       // a legal US deployment (3.6, 6.4)

	MapSources     map[MapFact]Value // provenance of every map claim (N is 1)
	CounterSources map[string]Value  // provenance of Counters (N is the count)
	Sources        []SourceLine      // every data line, in load order

	scHexes   map[hex.Hex]*HexInfo
	scOrder   []hex.Hex   // sorted by column then row
	scMainRow map[int]int // column -> row of its Main Trench line hex (not an outpost)
	scCols    [2]int      // first and last column
	scRows    [2][2]int   // [even, odd] -> first and last row
}

// The data files, relative to the root of the file system given to
// ParseScenario.
const (
	scMapFile     = "map.txt"
	scChartsFile  = "charts.txt"
	scCounterFile = "counters.txt"
	scGermanFile  = "deploy-german.txt"
	scUSFile      = "deploy-us.txt"
)

//go:embed data
var scData embed.FS

// LoadScenario loads the scenario shipped in data/.
func LoadScenario() (*Scenario, error) {
	sub, err := fs.Sub(scData, "data")
	if err != nil {
		return nil, err
	}
	return ParseScenario(sub)
}

// ParseScenario loads and validates a scenario from the data files at the
// root of fsys. Every problem found is reported, each error naming the file
// and (where there is one) the line: "map.txt:12: hex 5002 is off the map".
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	p := &scParser{}
	s := &Scenario{
		DefenceStrength:  map[Terrain]Value{},
		MoveCost:         map[Terrain]Value{},
		GermanInfantryFS: map[int]Value{},
		FireStrength:     map[string]Value{},
		Movement:         map[string]Value{},
		Counters:         map[string]int{},
		MapSources:       map[MapFact]Value{},
		CounterSources:   map[string]Value{},
		scHexes:          map[hex.Hex]*HexInfo{},
		scMainRow:        map[int]int{},
	}
	mapOK := p.parseMap(s, p.read(fsys, scMapFile, s))
	p.parseCharts(s, p.read(fsys, scChartsFile, s))
	countersOK := p.parseCounters(s, p.read(fsys, scCounterFile, s))
	german := p.read(fsys, scGermanFile, s)
	us := p.read(fsys, scUSFile, s)
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

// EnterCost returns the movement points a unit pays to enter h, not counting
// the +1 for carnage or friendly units (9.4): the most expensive of the
// hex's features (reconstructed rule; 9.5 makes it 1 or 2), and that
// feature. Off the map it returns 0 and "".
func (s *Scenario) EnterCost(h hex.Hex) (mp int, t Terrain) {
	info, ok := s.scHexes[h]
	if !ok {
		return 0, ""
	}
	for _, f := range info.Features {
		if v := s.MoveCost[f].N; v > mp {
			mp, t = v, f
		}
	}
	return mp, t
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

// scLine is one fact line of a data file.
type scLine struct {
	file   string
	n      int
	fields []string
	prov   Value
}

func (l scLine) pos() string { return fmt.Sprintf("%s:%d", l.file, l.n) }

func (p *scParser) errorf(l scLine, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: %s", l.pos(), fmt.Sprintf(format, args...)))
}

func (p *scParser) fileErrorf(file, format string, args ...any) {
	p.errs = append(p.errs, fmt.Errorf("%s: %s", file, fmt.Sprintf(format, args...)))
}

// read splits a data file into fact lines: "#" starts a comment, blank lines
// are skipped, and every fact ends with "| printed <rule>" or
// "| reconstructed <why>".
func (p *scParser) read(fsys fs.FS, name string, s *Scenario) []scLine {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		p.fileErrorf(name, "cannot read: %v", err)
		return nil
	}
	var out []scLine
	for i, raw := range strings.Split(string(data), "\n") {
		l := scLine{file: name, n: i + 1}
		text, _, _ := strings.Cut(raw, "#")
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		fact, prov, ok := strings.Cut(text, "|")
		if !ok {
			p.errorf(l, "missing provenance: end the line with %q or %q", "| printed <rule>", "| reconstructed <why>")
			continue
		}
		l.fields = strings.Fields(fact)
		if len(l.fields) == 0 {
			p.errorf(l, "no fact before %q", "|")
			continue
		}
		word, why, _ := strings.Cut(strings.TrimSpace(prov), " ")
		why = strings.TrimSpace(why)
		switch strings.ToLower(strings.TrimSuffix(word, ":")) {
		case "printed":
			if why == "" {
				p.errorf(l, "%q needs the rule it comes from, e.g. %q", "printed", "| printed 3.5")
				continue
			}
			l.prov = Value{Source: why}
		case "reconstructed":
			if why == "" {
				p.errorf(l, "%q needs a reason", "reconstructed")
				continue
			}
			l.prov = Value{Reconstructed: true, Source: "reconstructed: " + why}
		default:
			p.errorf(l, "provenance %q: want %q or %q after |", word, "printed", "reconstructed")
			continue
		}
		out = append(out, l)
		s.Sources = append(s.Sources, SourceLine{File: name, Line: l.n, Text: strings.Join(l.fields, " "),
			Reconstructed: l.prov.Reconstructed, Source: l.prov.Source})
	}
	return out
}

// scNumber parses a non-negative decimal number.
func scNumber(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("%q is not a number", s)
	}
	return n, nil
}

// scRange parses "A-B" with A <= B.
func scRange(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "-")
	if !ok {
		return 0, 0, fmt.Errorf("%q: want a range such as 10-49", s)
	}
	lo, err := scNumber(a)
	if err != nil {
		return 0, 0, err
	}
	hi, err := scNumber(b)
	if err != nil {
		return 0, 0, err
	}
	if lo > hi || hi > 99 {
		return 0, 0, fmt.Errorf("%q: want a range from low to high within 00-99", s)
	}
	return lo, hi, nil
}

// scHexList parses hex tokens: a hex id ("3801") or a run along a row
// ("1002..1902": columns 10 through 19 of row 02) or up a column
// ("2802..2820": rows 02 through 20 of column 28).
func scHexList(tokens []string) ([]hex.Hex, error) {
	var out []hex.Hex
	for _, tok := range tokens {
		a, b, isRun := strings.Cut(tok, "..")
		from, err := hex.Parse(a)
		if err != nil {
			return nil, err
		}
		if !isRun {
			out = append(out, from)
			continue
		}
		to, err := hex.Parse(b)
		if err != nil {
			return nil, err
		}
		switch {
		case from.Row == to.Row && from.Col <= to.Col:
			for c := from.Col; c <= to.Col; c++ {
				out = append(out, hex.Hex{Col: c, Row: from.Row})
			}
		case from.Col == to.Col && from.Row <= to.Row:
			for r := from.Row; r <= to.Row; r++ {
				out = append(out, hex.Hex{Col: from.Col, Row: r})
			}
		default:
			return nil, fmt.Errorf("run %q: the ends must share a row or a column, lower id first", tok)
		}
	}
	return out, nil
}

func scTerrainNamed(s string) (Terrain, bool) {
	for _, t := range scTerrains {
		if string(t) == s {
			return t, true
		}
	}
	return "", false
}

// parseMap reads map.txt. It reports whether the map is usable for checking
// deployments.
func (p *scParser) parseMap(s *Scenario, lines []scLine) bool {
	nerr := len(p.errs)
	var (
		colsLine, parityLine, exitLine *scLine
		rowsLine                       [2]*scLine
		features                       []scLine
	)
	once := func(slot **scLine, l scLine, what string) bool {
		if *slot != nil {
			p.errorf(l, "%s already given at line %d", what, (*slot).n)
			return false
		}
		*slot = &l
		return true
	}
	for _, l := range lines {
		f := l.fields
		switch f[0] {
		case "columns":
			if len(f) != 2 {
				p.errorf(l, "want: columns <first>-<last>, e.g. columns 10-49")
				continue
			}
			lo, hi, err := scRange(f[1])
			if err != nil {
				p.errorf(l, "columns: %v", err)
				continue
			}
			if once(&colsLine, l, "columns") {
				s.scCols = [2]int{lo, hi}
			}
		case "rows":
			if len(f) != 3 || (f[1] != "even" && f[1] != "odd" && f[1] != "all") {
				p.errorf(l, "want: rows even|odd|all <first>-<last>, e.g. rows odd 00-19")
				continue
			}
			lo, hi, err := scRange(f[2])
			if err != nil {
				p.errorf(l, "rows: %v", err)
				continue
			}
			for par, name := range []string{"even", "odd"} {
				if f[1] == name || f[1] == "all" {
					if once(&rowsLine[par], l, "rows for "+name+" columns") {
						s.scRows[par] = [2]int{lo, hi}
					}
				}
			}
		case "parity":
			if len(f) != 2 {
				p.errorf(l, "want: parity odd-columns-shifted|even-columns-shifted")
				continue
			}
			var par hex.Parity
			switch f[1] {
			case "odd-columns-shifted":
				par = hex.OddColumnsShifted
			case "even-columns-shifted":
				par = hex.EvenColumnsShifted
			default:
				p.errorf(l, "parity %q: want odd-columns-shifted or even-columns-shifted", f[1])
				continue
			}
			if once(&parityLine, l, "parity") {
				s.Grid = hex.Grid{Parity: par}
			}
		case "exit":
			if len(f) < 2 {
				p.errorf(l, "want: exit north-edge, or exit followed by hex ids")
				continue
			}
			once(&exitLine, l, "exit")
		default:
			if _, ok := scTerrainNamed(f[0]); !ok && f[0] != "outpost" {
				p.errorf(l, "unknown keyword %q: want columns, rows, parity, exit, outpost or a terrain (%s)", f[0], scTerrainList())
				continue
			}
			if len(f) < 2 {
				p.errorf(l, "want: %s followed by hex ids or runs such as 1002..1902", f[0])
				continue
			}
			features = append(features, l)
		}
	}
	if colsLine == nil {
		p.fileErrorf(scMapFile, "no columns line (e.g. \"columns 10-49 | printed 4.1\")")
	}
	for par, name := range []string{"even", "odd"} {
		if rowsLine[par] == nil {
			p.fileErrorf(scMapFile, "no rows line for %s columns (e.g. \"rows %s 00-20 | printed 4.1\")", name, name)
		}
	}
	if parityLine == nil {
		p.fileErrorf(scMapFile, "no parity line (odd-columns-shifted or even-columns-shifted)")
	}
	if len(p.errs) > nerr {
		return false // without an extent nothing else can be checked
	}

	// The hexes.
	for c := s.scCols[0]; c <= s.scCols[1]; c++ {
		rows, rl := s.scRows[c&1], rowsLine[c&1]
		for r := rows[0]; r <= rows[1]; r++ {
			h := hex.Hex{Col: c, Row: r}
			s.scHexes[h] = &HexInfo{}
			s.scOrder = append(s.scOrder, h)
			src := rl.prov
			src.Reconstructed = src.Reconstructed || colsLine.prov.Reconstructed
			src.N = 1
			s.MapSources[MapFact{h, "hex"}] = src
		}
	}

	// The features.
	where := map[MapFact]int{} // fact -> line that gave it
	add := func(l scLine, h hex.Hex, what string) {
		k := MapFact{h, what}
		if n, dup := where[k]; dup {
			if what == string(MainTrench) && s.scHexes[h].Outpost {
				p.errorf(l, "hex %s: an outpost is a Main Trench hex already (3.5, line %d)", h, n)
			} else {
				p.errorf(l, "hex %s: %s already given at line %d", h, what, n)
			}
			return
		}
		where[k] = l.n
		v := l.prov
		v.N = 1
		s.MapSources[k] = v
		info := s.scHexes[h]
		switch what {
		case "outpost":
			info.Outpost = true
			add2 := MapFact{h, string(MainTrench)}
			if n, dup := where[add2]; dup {
				p.errorf(l, "hex %s: an outpost is a Main Trench hex already (3.5); drop it from the main line at line %d", h, n)
				return
			}
			where[add2] = l.n
			s.MapSources[add2] = v
			info.Features = append(info.Features, MainTrench)
		case "exit":
			info.Exit = true
		default:
			info.Features = append(info.Features, Terrain(what))
		}
	}
	// Outposts first, so that a main line listing an outpost is caught
	// whatever the order of the lines.
	slices.SortStableFunc(features, func(a, b scLine) int {
		return scBool(b.fields[0] == "outpost") - scBool(a.fields[0] == "outpost")
	})
	for _, l := range features {
		hs, err := scHexList(l.fields[1:])
		if err != nil {
			p.errorf(l, "%v", err)
			continue
		}
		for _, h := range hs {
			if !s.OnMap(h) {
				p.errorf(l, "hex %s is off the map (%s)", h, s.scExtent())
				continue
			}
			add(l, h, l.fields[0])
		}
	}
	if exitLine != nil {
		l := *exitLine
		if len(l.fields) == 2 && l.fields[1] == "north-edge" {
			for c := s.scCols[0]; c <= s.scCols[1]; c++ {
				add(l, hex.Hex{Col: c, Row: s.scRows[c&1][1]}, "exit")
			}
		} else if hs, err := scHexList(l.fields[1:]); err != nil {
			p.errorf(l, "%v", err)
		} else {
			for _, h := range hs {
				if !s.OnMap(h) {
					p.errorf(l, "hex %s is off the map (%s)", h, s.scExtent())
					continue
				}
				add(l, h, "exit")
			}
		}
	}

	// Checks across lines, then the derived facts.
	for _, h := range s.scOrder {
		info := s.scHexes[h]
		nml := slices.Contains(info.Features, NoMansLand)
		switch {
		case h.Row == 0 && !nml:
			p.fileErrorf(scMapFile, "hex %s is in row 00 but not No Man's Land: No Man's Land is the xx00 row (3.6)", h)
		case h.Row != 0 && nml:
			p.errorf(scLine{file: scMapFile, n: where[MapFact{h, string(NoMansLand)}]},
				"hex %s: No Man's Land is the xx00 row only (3.6)", h)
		}
		if info.Outpost && h.Row == 0 {
			p.errorf(scLine{file: scMapFile, n: where[MapFact{h, "outpost"}]},
				"hex %s: an outpost cannot be in No Man's Land (3.5)", h)
		}
		if h.Row == 1 && !info.Outpost && slices.Contains(info.Features, MainTrench) {
			p.errorf(scLine{file: scMapFile, n: where[MapFact{h, string(MainTrench)}]},
				"hex %s: a Main Trench hex in row 01 must be an outpost (3.5: no German set-up in xx01 hexes without one)", h)
		}
		onlyWire := true
		for _, f := range info.Features {
			if f != Wire {
				onlyWire = false
			}
		}
		if onlyWire {
			info.Features = append(info.Features, Open)
			s.MapSources[MapFact{h, string(Open)}] = Value{N: 1, Reconstructed: true,
				Source: "reconstructed: open ground wherever the map lists no other terrain"}
		}
		slices.SortFunc(info.Features, func(a, b Terrain) int {
			return slices.Index(scTerrains, a) - slices.Index(scTerrains, b)
		})
		if slices.Contains(info.Features, MainTrench) && !info.Outpost {
			if r, ok := s.scMainRow[h.Col]; !ok || h.Row < r {
				s.scMainRow[h.Col] = h.Row
			}
		}
	}
	for c := s.scCols[0]; c <= s.scCols[1]; c++ {
		if _, ok := s.scMainRow[c]; !ok {
			p.fileErrorf(scMapFile, "column %02d has no Main Trench hex (other than outposts): the German set-up area (3.5) is bounded by one in every column", c)
		}
	}
	if exitLine == nil {
		p.fileErrorf(scMapFile, "no exit line (e.g. \"exit north-edge | printed 4.1\")")
	}
	return len(p.errs) == nerr
}

func scBool(b bool) int {
	if b {
		return 1
	}
	return 0
}

func scTerrainList() string {
	var names []string
	for _, t := range scTerrains {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

func (s *Scenario) scExtent() string {
	return fmt.Sprintf("columns %02d-%02d, rows %02d-%02d in even columns and %02d-%02d in odd columns",
		s.scCols[0], s.scCols[1], s.scRows[0][0], s.scRows[0][1], s.scRows[1][0], s.scRows[1][1])
}

// parseCharts reads charts.txt.
func (p *scParser) parseCharts(s *Scenario, lines []scLine) {
	seen := map[string]int{}
	fsLine := map[string]scLine{}
	var rollLines = map[int]scLine{}
	for _, l := range lines {
		f := l.fields
		if len(f) != 3 {
			p.errorf(l, "want: <defence|movecost|german-fs|fs|movement> <what> <number>")
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
		v := l.prov
		v.N = n
		switch f[0] {
		case "defence", "movecost":
			t, ok := scTerrainNamed(f[1])
			if !ok {
				p.errorf(l, "unknown terrain %q: want one of %s", f[1], scTerrainList())
				continue
			}
			if f[0] == "defence" {
				if t == Wire {
					p.errorf(l, "wire adds nothing to a hex's defence: a hex defends with its other terrain (10.11); remove this line")
					continue
				}
				if n < 1 {
					p.errorf(l, "a defence strength must be at least 1 (10.3 divides by it)")
					continue
				}
				s.DefenceStrength[t] = v
			} else {
				if n != 1 && n != 2 {
					p.errorf(l, "movement cost %d: every hex costs 1 or 2 MP (9.5)", n)
					continue
				}
				s.MoveCost[t] = v
			}
		case "german-fs":
			roll, err := scNumber(f[1])
			if err != nil || roll < 1 || roll > 6 {
				p.errorf(l, "german-fs: roll %q must be 1 to 6 (3.4: one die)", f[1])
				continue
			}
			if n != 2 && n != 3 && n != 4 && n != 6 {
				p.errorf(l, "German infantry FS %d: 7.1 allows only 2, 3, 4 or 6", n)
				continue
			}
			if roll == 6 && n != 6 {
				p.errorf(l, "a roll of six is the shock-troop division (6.3): its infantry FS is 6, not %d", n)
				continue
			}
			s.GermanInfantryFS[roll] = v
			rollLines[roll] = l
		case "fs":
			switch f[1] {
			case scArmy, scMarine, scYork, scDeHMG:
			case scDeInf:
				p.errorf(l, "German infantry FS comes from the german-fs lines (3.4), not from fs")
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
			p.errorf(l, "unknown keyword %q: want defence, movecost, german-fs, fs or movement", f[0])
			continue
		}
		seen[key] = l.n
	}
	for _, t := range scTerrains {
		if _, ok := s.DefenceStrength[t]; !ok && t != Wire {
			p.fileErrorf(scChartsFile, "no defence line for %s", t)
		}
		if _, ok := s.MoveCost[t]; !ok {
			p.fileErrorf(scChartsFile, "no movecost line for %s", t)
		}
	}
	have := map[int]bool{}
	for roll := 1; roll <= 6; roll++ {
		v, ok := s.GermanInfantryFS[roll]
		if !ok {
			p.fileErrorf(scChartsFile, "no german-fs line for roll %d (3.4)", roll)
		}
		have[v.N] = true
	}
	for _, want := range []int{2, 3, 4, 6} {
		if !have[want] && len(s.GermanInfantryFS) == 6 {
			p.fileErrorf(scChartsFile, "no roll gives German infantry FS %d, one of the four 7.1 lists", want)
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

// parseCounters reads counters.txt and reports whether it is complete.
func (p *scParser) parseCounters(s *Scenario, lines []scLine) bool {
	nerr := len(p.errs)
	seen := map[string]int{}
	for _, l := range lines {
		f := l.fields
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
		seen[f[1]] = l.n
		s.Counters[f[1]] = n
		v := l.prov
		v.N = n
		s.CounterSources[f[1]] = v
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
func (p *scParser) parseDeploy(s *Scenario, file string, lines []scLine, german bool) []Placement {
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
		f := l.fields
		if len(f) != 3 {
			p.errorf(l, "want: <hex or run> <kind> <count>, e.g. 3801 %s 1", kinds[0])
			continue
		}
		hs, err := scHexList(f[:1])
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
