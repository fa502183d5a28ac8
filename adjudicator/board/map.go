package board

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Vocabulary is the words one ruleset's map may use. A word not listed here is an error
// at load time, so that a typo in a data file never silently becomes clear terrain.
type Vocabulary struct {
	Terrain  []string // natural terrain of a hex, one per hex (Mons 9.8)
	Features []string // in-hex features, any number per hex
	Sides    []string // hexside features
	Sets     []string // named sets of hexes
}

// Fact is the provenance of one value: the line of the file it came from and whether the
// rulebook prints it.
type Fact struct {
	File    string
	Line    int
	Printed bool
	Source  string // "10.4: ..." for printed values, the reason for reconstructed ones
}

// String gives the provenance as the file wrote it, with its position.
func (f Fact) String() string {
	kind := "reconstructed"
	if f.Printed {
		kind = "printed"
	}
	return fmt.Sprintf("%s:%d: %s %s", f.File, f.Line, kind, f.Source)
}

// Map is a validated map: geometry, terrain and features, and where each came from.
type Map struct {
	Grid     hex.Grid
	Cols     [2]int // first and last column
	OddRows  [2]int // first and last row of odd columns
	EvenRows [2]int // first and last row of even columns
	Default  string // terrain of hexes not listed
	terrain  map[hex.Hex]string
	features map[hex.Hex][]string
	sides    map[hex.Hexside][]string
	Places   []Place
	sets     map[string][]hex.Hex
	facts    map[string]Fact // "terrain 3615", "side canal 1708/1709", "set entry", "place Conde", "columns"
}

// Place is a named place of the map (Mons 2.2: "the town of Conde is in hex 1708").
type Place struct {
	Name string
	Hex  hex.Hex
}

// OnMap reports whether h is a hex of the map.
func (m *Map) OnMap(h hex.Hex) bool {
	if h.Col < m.Cols[0] || h.Col > m.Cols[1] {
		return false
	}
	r := m.EvenRows
	if h.Col&1 == 1 {
		r = m.OddRows
	}
	return r[0] <= h.Row && h.Row <= r[1]
}

// Hexes lists every hex of the map, by column then row.
func (m *Map) Hexes() []hex.Hex {
	var out []hex.Hex
	for c := m.Cols[0]; c <= m.Cols[1]; c++ {
		for r := 0; r <= 99; r++ {
			if h := (hex.Hex{Col: c, Row: r}); m.OnMap(h) {
				out = append(out, h)
			}
		}
	}
	return out
}

// Rows returns the first and last row of any column.
func (m *Map) Rows() (first, last int) {
	return min(m.OddRows[0], m.EvenRows[0]), max(m.OddRows[1], m.EvenRows[1])
}

// Terrain is the natural terrain of h (the map's default where none is given).
func (m *Map) Terrain(h hex.Hex) string {
	if t, ok := m.terrain[h]; ok {
		return t
	}
	return m.Default
}

// Features lists the in-hex features of h, sorted.
func (m *Map) Features(h hex.Hex) []string { return m.features[h] }

// HasFeature reports whether h has feature f.
func (m *Map) HasFeature(h hex.Hex, f string) bool { return slices.Contains(m.features[h], f) }

// Side lists the features of the hexside between a and b, sorted; nil when there are
// none or a and b are not adjacent.
func (m *Map) Side(a, b hex.Hex) []string {
	s, ok := m.Grid.Hexside(a, b)
	if !ok {
		return nil
	}
	return m.sides[s]
}

// WithSides is a copy of m with feature added to each hexside of sides, its provenance
// the fact given there: what a state adds to the printed map (the teaching game's cut
// wire), without parsing the map again. m is unchanged.
func (m *Map) WithSides(feature string, sides map[hex.Hexside]Fact) *Map {
	cp := *m
	cp.sides = maps.Clone(m.sides)
	cp.facts = maps.Clone(m.facts)
	for s, f := range sides {
		if slices.Contains(cp.sides[s], feature) {
			continue
		}
		cp.sides[s] = append(slices.Clone(cp.sides[s]), feature)
		slices.Sort(cp.sides[s])
		cp.facts["side "+feature+" "+s.String()] = f
	}
	return &cp
}

// SideHas reports whether the hexside between a and b has feature f.
func (m *Map) SideHas(a, b hex.Hex, f string) bool { return slices.Contains(m.Side(a, b), f) }

// Set returns the named set of hexes, in the order the file gives them.
func (m *Map) Set(name string) []hex.Hex { return m.sets[name] }

// InSet reports whether h is in the named set.
func (m *Map) InSet(name string, h hex.Hex) bool { return slices.Contains(m.sets[name], h) }

// Place returns the hex of a named place.
func (m *Map) Place(name string) (hex.Hex, bool) {
	for _, p := range m.Places {
		if strings.EqualFold(p.Name, name) {
			return p.Hex, true
		}
	}
	return hex.Hex{}, false
}

// TerrainFact is where the terrain of h was given; ok is false for default terrain.
func (m *Map) TerrainFact(h hex.Hex) (Fact, bool) {
	f, ok := m.facts["terrain "+h.String()]
	return f, ok
}

// SideFact is where feature f of the hexside between a and b was given.
func (m *Map) SideFact(a, b hex.Hex, f string) (Fact, bool) {
	s, ok := m.Grid.Hexside(a, b)
	if !ok {
		return Fact{}, false
	}
	fact, ok := m.facts["side "+f+" "+s.String()]
	return fact, ok
}

// FeatureFact is where feature f of hex h was given.
func (m *Map) FeatureFact(h hex.Hex, f string) (Fact, bool) {
	fact, ok := m.facts["feature "+f+" "+h.String()]
	return fact, ok
}

// SetFact is where the named set was given (its first line).
func (m *Map) SetFact(name string) (Fact, bool) {
	f, ok := m.facts["set "+name]
	return f, ok
}

// PlaceFact is where the named place was given.
func (m *Map) PlaceFact(name string) (Fact, bool) {
	f, ok := m.facts["place "+name]
	return f, ok
}

// ExtentFact is where one line of the map's extent was given: key is "columns", "rows
// odd", "rows even", "parity" or "default" (a "rows all" line gives both rows).
func (m *Map) ExtentFact(key string) (Fact, bool) {
	switch key {
	case "columns", "rows odd", "rows even", "parity", "default":
		f, ok := m.facts[key]
		return f, ok
	}
	return Fact{}, false
}

// Line is one fact line of a kit file: its fields, its provenance and its position.
type Line struct {
	File   string
	N      int
	Fields []string
	Fact   Fact
}

// Errorf makes an error that names the line.
func (l Line) Errorf(format string, args ...any) error {
	return fmt.Errorf("%s:%d: %s", l.File, l.N, fmt.Sprintf(format, args...))
}

// Lines splits a kit file into fact lines: comments and blank lines dropped, the
// provenance after "|" checked and parsed. Every malformed line is reported.
func Lines(file string, src []byte) ([]Line, error) {
	var out []Line
	var errs []error
	for i, raw := range strings.Split(string(src), "\n") {
		n := i + 1
		text := raw
		if k := strings.IndexByte(text, '#'); k >= 0 {
			text = text[:k]
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		body, prov, ok := strings.Cut(text, "|")
		if !ok {
			errs = append(errs, fmt.Errorf("%s:%d: no provenance: end the line with \"| printed <rule>: ...\" or \"| reconstructed: <why>\"", file, n))
			continue
		}
		fact, err := parseProvenance(strings.TrimSpace(prov))
		if err != nil {
			errs = append(errs, fmt.Errorf("%s:%d: %w", file, n, err))
			continue
		}
		fact.File, fact.Line = file, n
		fields := strings.Fields(body)
		if len(fields) == 0 {
			errs = append(errs, fmt.Errorf("%s:%d: a provenance with no fact before it", file, n))
			continue
		}
		out = append(out, Line{File: file, N: n, Fields: fields, Fact: fact})
	}
	return out, errors.Join(errs...)
}

func parseProvenance(p string) (Fact, error) {
	kind, rest, _ := strings.Cut(p, " ")
	if k, ok := strings.CutSuffix(kind, ":"); ok {
		kind = k
	}
	rest = strings.TrimSpace(rest)
	switch kind {
	case "printed":
		// The rule section first: "10.4: ..." or "10.4 ...".
		sec := ""
		if f := strings.Fields(rest); len(f) > 0 {
			sec = strings.TrimRight(f[0], ":,")
		}
		if sec == "" || sec[0] < '0' || sec[0] > '9' {
			return Fact{}, fmt.Errorf("provenance %q: printed values name their rule, e.g. \"printed 10.4: ...\"", p)
		}
		return Fact{Printed: true, Source: rest}, nil
	case "reconstructed":
		if strings.TrimLeft(rest, ": ") == "" {
			return Fact{}, fmt.Errorf("provenance %q: say why the value was reconstructed", p)
		}
		return Fact{Source: strings.TrimLeft(rest, ": ")}, nil
	}
	return Fact{}, fmt.Errorf("provenance %q: want \"printed <rule>: ...\" or \"reconstructed: <why>\"", p)
}

// ParseHexes reads hex ids and runs ("1002..1902" along a row, "2802..2820" down a
// column), lower id first.
func ParseHexes(words []string) ([]hex.Hex, error) {
	var out []hex.Hex
	for _, w := range words {
		a, b, run := strings.Cut(w, "..")
		from, err := hex.Parse(a)
		if err != nil {
			return nil, err
		}
		if !run {
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
			return nil, fmt.Errorf("run %q: want a run along one row or one column, lower id first", w)
		}
	}
	return out, nil
}

func parseRange(s string) ([2]int, error) {
	a, b, ok := strings.Cut(s, "-")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || x < 0 || y > 99 || x > y {
		return [2]int{}, fmt.Errorf("range %q: want first-last, e.g. 12-48", s)
	}
	return [2]int{x, y}, nil
}

// ParseMap reads and validates a map file against a ruleset's vocabulary. Every problem
// is reported with its line; the map is usable only when the error is nil.
func ParseMap(file string, src []byte, v Vocabulary) (*Map, error) {
	lines, err := Lines(file, src)
	errs := []error{err}
	m := &Map{
		terrain:  map[hex.Hex]string{},
		features: map[hex.Hex][]string{},
		sides:    map[hex.Hexside][]string{},
		sets:     map[string][]hex.Hex{},
		facts:    map[string]Fact{},
	}
	seen := map[string]bool{}
	// The extent comes first wherever it is written, since every hex is checked
	// against it.
	for _, l := range lines {
		f := l.Fields
		switch f[0] {
		case "columns", "rows", "parity", "default":
			key := f[0]
			if f[0] == "rows" && len(f) > 1 {
				key += " " + f[1]
			}
			if seen[key] {
				errs = append(errs, l.Errorf("%s given twice", key))
				continue
			}
			seen[key] = true
			m.facts[key] = l.Fact
		}
		switch f[0] {
		case "columns":
			r, err := parseRange(strings.Join(f[1:], ""))
			if err != nil || len(f) != 2 {
				errs = append(errs, l.Errorf("want columns <first>-<last>"))
				continue
			}
			m.Cols = r
		case "rows":
			if len(f) != 3 {
				errs = append(errs, l.Errorf("want rows odd|even|all <first>-<last>"))
				continue
			}
			r, err := parseRange(f[2])
			if err != nil {
				errs = append(errs, l.Errorf("%v", err))
				continue
			}
			switch f[1] {
			case "odd":
				m.OddRows = r
			case "even":
				m.EvenRows = r
			case "all":
				m.OddRows, m.EvenRows = r, r
				seen["rows odd"], seen["rows even"] = true, true
				m.facts["rows odd"], m.facts["rows even"] = l.Fact, l.Fact
			default:
				errs = append(errs, l.Errorf("want rows odd|even|all <first>-<last>"))
			}
		case "parity":
			switch strings.Join(f[1:], " ") {
			case "odd-columns-shifted":
				m.Grid = hex.Grid{Parity: hex.OddColumnsShifted}
			case "even-columns-shifted":
				m.Grid = hex.Grid{Parity: hex.EvenColumnsShifted}
			default:
				errs = append(errs, l.Errorf("want parity odd-columns-shifted or even-columns-shifted"))
			}
		case "default":
			if len(f) != 2 || !slices.Contains(v.Terrain, f[1]) {
				errs = append(errs, l.Errorf("want default <terrain>, one of %s", strings.Join(v.Terrain, ", ")))
				continue
			}
			m.Default = f[1]
		}
	}
	for _, k := range []string{"columns", "rows odd", "rows even", "parity", "default"} {
		if !seen[k] {
			errs = append(errs, fmt.Errorf("%s: no %q line", file, k))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	extent := fmt.Sprintf("columns %d-%d, rows %02d-%02d in odd and %02d-%02d in even columns",
		m.Cols[0], m.Cols[1], m.OddRows[0], m.OddRows[1], m.EvenRows[0], m.EvenRows[1])
	hexes := func(l Line, words []string) []hex.Hex {
		hs, err := ParseHexes(words)
		if err != nil {
			errs = append(errs, l.Errorf("%v", err))
			return nil
		}
		for _, h := range hs {
			if !m.OnMap(h) {
				errs = append(errs, l.Errorf("hex %s is off the map (%s)", h, extent))
				return nil
			}
		}
		return hs
	}
	word := func(l Line, kind string, w string, allowed []string) bool {
		if !slices.Contains(allowed, w) {
			errs = append(errs, l.Errorf("unknown %s %q: want one of %s", kind, w, strings.Join(allowed, ", ")))
			return false
		}
		return true
	}
	addSide := func(l Line, feat string, s hex.Hexside) {
		key := "side " + feat + " " + s.String()
		if prev, dup := m.facts[key]; dup {
			errs = append(errs, l.Errorf("hexside %s already has %s (line %d)", s, feat, prev.Line))
			return
		}
		m.facts[key] = l.Fact
		m.sides[s] = append(m.sides[s], feat)
		slices.Sort(m.sides[s])
	}
	for _, l := range lines {
		f := l.Fields
		switch f[0] {
		case "columns", "rows", "parity", "default":
		case "terrain":
			if len(f) < 3 || !word(l, "terrain", f[1], v.Terrain) {
				if len(f) < 3 {
					errs = append(errs, l.Errorf("want terrain <kind> <hexes>"))
				}
				continue
			}
			for _, h := range hexes(l, f[2:]) {
				key := "terrain " + h.String()
				if prev, dup := m.facts[key]; dup {
					errs = append(errs, l.Errorf("hex %s already has terrain %s (line %d): one natural terrain a hex", h, m.terrain[h], prev.Line))
					continue
				}
				m.terrain[h], m.facts[key] = f[1], l.Fact
			}
		case "feature":
			if len(f) < 3 {
				errs = append(errs, l.Errorf("want feature <kind> <hexes>"))
				continue
			}
			if !word(l, "feature", f[1], v.Features) {
				continue
			}
			for _, h := range hexes(l, f[2:]) {
				key := "feature " + f[1] + " " + h.String()
				if prev, dup := m.facts[key]; dup {
					errs = append(errs, l.Errorf("hex %s already has %s (line %d)", h, f[1], prev.Line))
					continue
				}
				m.facts[key] = l.Fact
				m.features[h] = append(m.features[h], f[1])
				slices.Sort(m.features[h])
			}
		case "side":
			if len(f) < 3 {
				errs = append(errs, l.Errorf("want side <feature> <hex>/<hex> ..."))
				continue
			}
			if !word(l, "hexside feature", f[1], v.Sides) {
				continue
			}
			for _, w := range f[2:] {
				s, err := hex.ParseHexside(w)
				if err != nil {
					errs = append(errs, l.Errorf("%v", err))
					continue
				}
				if !m.OnMap(s.A) || !m.OnMap(s.B) {
					errs = append(errs, l.Errorf("hexside %s: both hexes must be on the map (%s)", s, extent))
					continue
				}
				if !m.Grid.Adjacent(s.A, s.B) {
					errs = append(errs, l.Errorf("hexside %s: %s and %s are not adjacent (%s)", s, s.A, s.B, m.Grid.Parity))
					continue
				}
				addSide(l, f[1], s)
			}
		case "path":
			if len(f) != 3 {
				errs = append(errs, l.Errorf("want path <feature> <hex>-<hex>-..."))
				continue
			}
			if !word(l, "hexside feature", f[1], v.Sides) {
				continue
			}
			var hs []hex.Hex
			for _, w := range strings.Split(f[2], "-") {
				h, err := hex.Parse(w)
				if err != nil {
					errs = append(errs, l.Errorf("path %s: %v", f[2], err))
					hs = nil
					break
				}
				hs = append(hs, h)
			}
			if len(hs) == 1 {
				errs = append(errs, l.Errorf("path %s: want at least two hexes", f[2]))
				continue
			}
			for i := 1; i < len(hs); i++ {
				a, b := hs[i-1], hs[i]
				if !m.OnMap(a) || !m.OnMap(b) {
					errs = append(errs, l.Errorf("path %s: %s-%s leaves the map (%s)", f[2], a, b, extent))
					break
				}
				s, ok := m.Grid.Hexside(a, b)
				if !ok {
					errs = append(errs, l.Errorf("path %s: %s and %s are not adjacent (%s)", f[2], a, b, m.Grid.Parity))
					break
				}
				addSide(l, f[1], s)
			}
		case "place":
			if len(f) != 3 {
				errs = append(errs, l.Errorf("want place <Name> <hex> (one word; _ for a space)"))
				continue
			}
			hs := hexes(l, f[2:])
			if len(hs) != 1 {
				continue
			}
			name := strings.ReplaceAll(f[1], "_", " ")
			if _, dup := m.Place(name); dup {
				errs = append(errs, l.Errorf("place %s given twice", name))
				continue
			}
			m.Places = append(m.Places, Place{Name: name, Hex: hs[0]})
			m.facts["place "+name] = l.Fact
		case "set":
			if len(f) < 3 {
				errs = append(errs, l.Errorf("want set <name> <hexes>"))
				continue
			}
			if !word(l, "set", f[1], v.Sets) {
				continue
			}
			for _, h := range hexes(l, f[2:]) {
				if slices.Contains(m.sets[f[1]], h) {
					errs = append(errs, l.Errorf("set %s lists %s twice", f[1], h))
					continue
				}
				m.sets[f[1]] = append(m.sets[f[1]], h)
			}
			if _, ok := m.facts["set "+f[1]]; !ok {
				m.facts["set "+f[1]] = l.Fact
			}
		default:
			errs = append(errs, l.Errorf("unknown line %q: want columns, rows, parity, default, terrain, feature, side, path, place or set", f[0]))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return m, nil
}

// LoadDir parses the scenario folder dir of fsys (a ruleset's embedded data/) with
// parse, the ruleset's ParseScenario, which reads its files from the folder's root.
func LoadDir[S any](fsys fs.FS, dir string, parse func(fs.FS) (S, error)) (S, error) {
	sub, err := fs.Sub(fsys, dir)
	if err != nil {
		var zero S
		return zero, fmt.Errorf("scenario folder %s: %w", dir, err)
	}
	return parse(sub)
}
