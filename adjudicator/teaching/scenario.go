package teaching

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
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

//go:embed data/*.txt
var dataFS embed.FS

// vocab is the words the teaching game's map may use.
var vocab = board.Vocabulary{
	Terrain:  []string{"clear"},
	Features: []string{"bunker", "main", "support", "communication"},
	Sides:    []string{"wire", "cut"},
}

// Placement is N units of one kind in one hex.
type Placement struct {
	Side Side
	Kind string
	Hex  hex.Hex
	N    int
}

// Mix is one counter mix and its default set-up.
type Mix struct {
	Name   string
	Fact   board.Fact
	Places []Placement
}

// Count returns how many units of kind the mix has.
func (m Mix) Count(kind string) int {
	n := 0
	for _, p := range m.Places {
		if p.Kind == kind {
			n += p.N
		}
	}
	return n
}

// Scatter is where a shell lands for one card rank (rule 1's chart, reconstructed).
type Scatter struct {
	Rank     string
	Dir      int // index into hex.Grid.Neighbours: 0 S, 1 SW, 2 NW, 3 N, 4 NE, 5 SE; -1 for the aimed hex
	Distance int
	Fact     board.Fact
}

// Scenario is the teaching game's data: map, scatter chart, strengths and mixes.
type Scenario struct {
	Map *board.Map
	// TEC is tec.txt: a move counts hexes (rule 3), uncut wire bars a hexside (rule 4).
	TEC      *board.TEC
	Scatter  map[string]Scatter // by rank
	Strength map[string]int     // hand-to-hand strength by kind
	Mixes    map[string]Mix
}

var dirNames = []string{"S", "SW", "NW", "N", "NE", "SE"}

// LoadScenario loads the scenario shipped in data/.
func LoadScenario() (*Scenario, error) { return board.LoadDir(dataFS, "data", ParseScenario) }

// ParseScenario loads and validates a scenario from the four data files at the root of
// fsys (map.txt, scatter.txt, mix.txt, tec.txt); every problem names its file and line.
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	var src [4][]byte
	for i, name := range []string{"map.txt", "scatter.txt", "mix.txt", "tec.txt"} {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, err
		}
		src[i] = b
	}
	mapSrc, scatterSrc, mixSrc, tecSrc := src[0], src[1], src[2], src[3]
	m, err := board.ParseMap("map.txt", mapSrc, vocab)
	if err != nil {
		return nil, err
	}
	tec, err := board.ParseTEC("tec.txt", tecSrc, vocab)
	if err != nil {
		return nil, err
	}
	sc := &Scenario{Map: m, TEC: tec, Scatter: map[string]Scatter{}, Strength: map[string]int{}, Mixes: map[string]Mix{}}
	var errs []error
	lines, err := board.Lines("scatter.txt", scatterSrc)
	errs = append(errs, err)
	for _, l := range lines {
		if len(l.Fields) != 3 {
			errs = append(errs, l.Errorf("want: rank direction distance"))
			continue
		}
		rank := orders.Upper(l.Fields[0])
		if !slices.Contains(ranks, rank) {
			errs = append(errs, l.Errorf("rank %q: want one of %s", l.Fields[0], strings.Join(ranks, " ")))
			continue
		}
		d, err := strconv.Atoi(l.Fields[2])
		if err != nil || d < 0 || d > 5 {
			errs = append(errs, l.Errorf("distance %q: want 0 to 5", l.Fields[2]))
			continue
		}
		dir := slices.Index(dirNames, orders.Upper(l.Fields[1]))
		if (d == 0) != (dir < 0) {
			errs = append(errs, l.Errorf("direction %q: want - with distance 0, else one of %s", l.Fields[1], strings.Join(dirNames, " ")))
			continue
		}
		if _, dup := sc.Scatter[rank]; dup {
			errs = append(errs, l.Errorf("rank %s given twice", rank))
		}
		sc.Scatter[rank] = Scatter{Rank: rank, Dir: dir, Distance: d, Fact: l.Fact}
	}
	for _, r := range ranks {
		if _, ok := sc.Scatter[r]; !ok {
			errs = append(errs, fmt.Errorf("scatter.txt: no line for rank %s", r))
		}
	}
	if s, ok := sc.Scatter["A"]; ok && s.Distance != 0 {
		errs = append(errs, fmt.Errorf("scatter.txt:%d: rule 1: the Ace is the aimed hex", s.Fact.Line))
	}
	errs = append(errs, sc.parseMixes(mixSrc))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return sc, nil
}

var kindSide = map[string]Side{"inf": German, "mg": German, "army": American, "marine": American}

func (sc *Scenario) parseMixes(src []byte) error {
	lines, err := board.Lines("mix.txt", src)
	errs := []error{err}
	var cur *Mix
	flush := func() {
		if cur != nil {
			sc.Mixes[cur.Name] = *cur
		}
	}
	for _, l := range lines {
		f := l.Fields
		switch f[0] {
		case "strength":
			n, err := strconv.Atoi(f[len(f)-1])
			if len(f) != 3 || err != nil || n < 1 || kindSide[f[1]] == "" {
				errs = append(errs, l.Errorf("want: strength inf|mg|army|marine N"))
				continue
			}
			sc.Strength[f[1]] = n
		case "mix":
			if len(f) != 2 {
				errs = append(errs, l.Errorf("want: mix NAME"))
				continue
			}
			flush()
			cur = &Mix{Name: f[1], Fact: l.Fact}
		case "unit":
			if cur == nil || len(f) < 4 {
				errs = append(errs, l.Errorf("want: unit SIDE KIND HEX [N], after a mix line"))
				continue
			}
			side, kind := Side(f[1]), f[2]
			if kindSide[kind] != side {
				errs = append(errs, l.Errorf("%s %s: want de inf, de mg, us army or us marine", f[1], kind))
				continue
			}
			words, n := f[3:], 1
			if last := words[len(words)-1]; len(last) < 4 {
				c, err := strconv.Atoi(last)
				if err != nil || c < 1 || c > 3 {
					errs = append(errs, l.Errorf("count %q: want 1 to 3", last))
					continue
				}
				words, n = words[:len(words)-1], c
			}
			hs, err := board.ParseHexes(words)
			if err != nil {
				errs = append(errs, l.Errorf("%v", err))
				continue
			}
			for _, h := range hs {
				cur.Places = append(cur.Places, Placement{Side: side, Kind: kind, Hex: h, N: n})
			}
		default:
			errs = append(errs, l.Errorf("unknown line %q: want strength, mix or unit", f[0]))
		}
	}
	flush()
	for _, k := range []string{"inf", "mg", "army", "marine"} {
		if sc.Strength[k] == 0 {
			errs = append(errs, fmt.Errorf("mix.txt: no strength for %s", k))
		}
	}
	if _, ok := sc.Mixes["default"]; !ok {
		errs = append(errs, errors.New("mix.txt: no mix named default"))
	}
	for _, mx := range sc.Mixes {
		if err := sc.checkSetup(mx.Places); err != nil {
			errs = append(errs, fmt.Errorf("mix.txt: mix %s: %w", mx.Name, err))
		}
	}
	return errors.Join(errs...)
}

// GermanSetupHex reports whether a German unit may set up in h (set-up: "in any
// bunkers, main or support trenches south of hexrow 16; ignore communication
// trenches").
func (sc *Scenario) GermanSetupHex(h hex.Hex) bool {
	if !sc.Map.OnMap(h) || h.Row <= 16 {
		return false
	}
	for _, f := range []string{"bunker", "main", "support"} {
		if sc.Map.HasFeature(h, f) {
			return true
		}
	}
	return false
}

// AmericanSetupHex reports whether American units may set up in h (set-up: "in or
// north of the support trench north of hexrow 16"): the hex is the support trench, or
// lies north of a support-trench hex of its own column, north of hexrow 16.
func (sc *Scenario) AmericanSetupHex(h hex.Hex) bool {
	if !sc.Map.OnMap(h) || h.Row >= 16 {
		return false
	}
	for r := h.Row; r < 16; r++ {
		if sc.Map.HasFeature(hex.Hex{Col: h.Col, Row: r}, "support") {
			return true
		}
	}
	return false
}

// checkSetup checks a complete set-up against the set-up paragraphs' stacking and set-up areas.
func (sc *Scenario) checkSetup(ps []Placement) error {
	var errs []error
	for _, e := range sc.setupErrors(ps) {
		if e != nil {
			errs = append(errs, e)
		}
	}
	return errors.Join(errs...)
}

// setupErrors gives, for each placement, what is wrong with it (nil: nothing), so that
// an order check can refuse the line that placed it.
func (sc *Scenario) setupErrors(ps []Placement) []error {
	errs := make([]error, len(ps))
	count := map[hex.Hex]int{}
	for i, p := range ps {
		count[p.Hex] += p.N
		switch {
		case p.Side == German && !sc.GermanSetupHex(p.Hex):
			errs[i] = fmt.Errorf("%s: set-up: Germans set up in bunkers, main or support trenches south of hexrow 16", p.Hex)
		case p.Side == German && count[p.Hex] > 1:
			errs[i] = fmt.Errorf("%s: set-up: only 1 German unit is allowed in a hex", p.Hex)
		case p.Side == American && !sc.AmericanSetupHex(p.Hex):
			errs[i] = fmt.Errorf("%s: set-up: Americans set up in or north of the support trench north of hexrow 16", p.Hex)
		case p.Side == American && count[p.Hex] > MaxStack:
			errs[i] = fmt.Errorf("%s: set-up: American units may stack up to 3 high", p.Hex)
		}
	}
	return errs
}

// placements are the units a PLACE line puts down.
func (it item) placements(side Side) []Placement {
	var ps []Placement
	for _, h := range it.From {
		ps = append(ps, Placement{Side: side, Kind: it.Kind, Hex: h, N: it.N})
	}
	return ps
}

// Land returns where a shell aimed at aim lands when rank is turned (rule 1's chart).
func (sc *Scenario) Land(aim hex.Hex, rank string) hex.Hex {
	s := sc.Scatter[rank]
	h := aim
	for range s.Distance {
		h = sc.Map.Grid.Neighbours(h)[s.Dir]
	}
	return h
}

// ChartLines draws the scatter chart as text for HELP and the order check.
func (sc *Scenario) ChartLines() []string {
	var out []string
	for _, r := range ranks {
		s := sc.Scatter[r]
		where := "the aimed hex"
		if s.Distance > 0 {
			where = fmt.Sprintf("%d hex%s %s", s.Distance, map[bool]string{true: "", false: "es"}[s.Distance == 1], dirNames[s.Dir])
		}
		kind := "reconstructed"
		if s.Fact.Printed {
			kind = "printed"
		}
		out = append(out, fmt.Sprintf("%-2s %-16s (%s)", r, where, kind))
	}
	return out
}
