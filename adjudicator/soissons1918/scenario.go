package soissons1918

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
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

//go:embed data/*.txt
var dataFS embed.FS

// Vocabulary is the words the Soissons map may use (2.2, 19.3).
var Vocabulary = board.Vocabulary{
	Terrain: []string{"clear", "woods", "village", "ravine", "city"},
	Sides:   []string{"stream", "aisne", "bridge", "road"},
	Sets:    []string{"german", "west-edge", "east-edge"},
}

// Sides of the game.
const (
	EN rules.Side = "en" // the Entente player
	DE rules.Side = "de" // the German player
)

// Kinds of unit (2.3.1).
const (
	KindHQ       = "hq"
	KindDivision = "division"
	KindRegiment = "regiment"
	KindTank     = "tank"
)

// Counter is one unit of the counter mix, as printed (or reconstructed).
type Counter struct {
	ID       string
	Kind     string
	Side     rules.Side
	Name     string // HQs: "Watter Gruppe"
	Nation   string // Entente divisions: fr, col, br, us (2.3.1)
	Corps    string // the HQ it is subordinated to (12); "grey" for German reinforcements
	Default  string // German reinforcements: the corps given when the player names none
	Division string // regiments: the parent division
	SP       int    // initial strength (5)
	Stars    int    // combativeness (6)
	Start    hex.Hex
	OnStart  bool   // on the map at start (3.1)
	Arrive   int    // reinforcement turn, 0 for none (18)
	Attach   string // tank groups: the default set-up attachment (3.1)
	Fact     board.Fact
}

// Combat reports whether the unit is a combat unit with a ZOC and a TZ (13, 14).
func (c *Counter) Combat() bool { return c.Kind == KindDivision || c.Kind == KindRegiment }

// Sector is a set-up sector (3.1): a band of rows, boundary rows shared.
type Sector struct {
	Side  rules.Side
	Owner string // a German division or an Entente corps
	Rows  [2]int
	Fact  board.Fact
}

// Town is an urban location (3.3).
type Town struct {
	Name   string
	Hexes  []hex.Hex
	Circle string // red, black or none
	VP     int
	Fact   board.Fact
}

// Artillery is one side's army artillery points (17.3.1).
type Artillery struct{ Heavy, Medium, Air int }

// Turn is one box of the turn track (3.2, 17.3.3).
type Turn struct {
	N    int
	Day  int    // 18-23 July
	Part string // AM, PM or night
	EN   Artillery
	DE   Artillery
	Fact board.Fact
}

// Scenario is the shipped game: map, tables, towns, armies and turn track.
type Scenario struct {
	Map        *board.Map
	TEC        *board.TEC
	Tables     map[string]*board.Table
	CRT        map[string]*CombatTable // the two combat tables (20.2), data/combat.txt
	Towns      []*Town
	Counters   []*Counter
	Sectors    []Sector
	Turns      []Turn
	Prepare    map[rules.Side]int // counter mix of Prepare markers by side (19.4)
	Improvised map[rules.Side]int // and of Improvised Attack markers
	byID       map[string]*Counter
}

// Counter returns the counter with the given id, case-insensitively.
func (s *Scenario) Counter(id string) (*Counter, bool) {
	c, ok := s.byID[orders.Upper(id)]
	return c, ok
}

// unitID is the id of the unit a player names id, as the counter mix spells it.
func (s *Scenario) unitID(id string) (string, bool) {
	if c, ok := s.Counter(id); ok {
		return c.ID, true
	}
	return "", false
}

// Town returns the town holding h, if any.
func (s *Scenario) TownAt(h hex.Hex) (*Town, bool) {
	for _, t := range s.Towns {
		if slices.Contains(t.Hexes, h) {
			return t, true
		}
	}
	return nil, false
}

// German reports whether h is east of the 18 July front line (3.1, 3.3).
func (s *Scenario) German(h hex.Hex) bool { return s.Map.InSet("german", h) }

// FrontLine reports whether h is adjacent to the initial front line: it touches a hex
// on the other side of it (3.1).
func (s *Scenario) FrontLine(h hex.Hex) bool {
	for _, n := range s.Map.Grid.Neighbours(h) {
		if s.Map.OnMap(n) && s.German(n) != s.German(h) {
			return true
		}
	}
	return false
}

// InSector reports whether h lies in the set-up sector of owner (3.1).
func (s *Scenario) InSector(side rules.Side, owner string, h hex.Hex) bool {
	for _, sc := range s.Sectors {
		if sc.Side == side && sc.Owner == owner && h.Row >= sc.Rows[0] && h.Row <= sc.Rows[1] {
			return true
		}
	}
	return false
}

// LoadScenario reads and validates the scenario shipped in data/.
func LoadScenario() (*Scenario, error) { return board.LoadDir(dataFS, "data", ParseScenario) }

// ParseScenario reads and validates a scenario from the files map.txt, tec.txt,
// tables.txt, combat.txt, towns.txt, armies.txt and turns.txt of fsys.
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	read := func(name string) []byte {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil
		}
		return b
	}
	sc := &Scenario{byID: map[string]*Counter{}, Prepare: map[rules.Side]int{}, Improvised: map[rules.Side]int{}}
	var errs []error
	var err error
	for _, f := range []string{"map.txt", "tec.txt", "tables.txt", "combat.txt", "towns.txt", "armies.txt", "turns.txt"} {
		if read(f) == nil {
			errs = append(errs, fmt.Errorf("scenario: %s is missing", f))
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	if sc.Map, err = board.ParseMap("map.txt", read("map.txt"), Vocabulary); err != nil {
		return nil, err
	}
	if sc.Map.Grid.Parity != hex.EvenColumnsShifted {
		return nil, fmt.Errorf("map.txt: Soissons needs parity even-columns-shifted (19.5: 2310 touches 2209)")
	}
	if sc.TEC, err = board.ParseTEC("tec.txt", read("tec.txt"), Vocabulary); err != nil {
		return nil, err
	}
	if sc.Tables, err = board.ParseTables("tables.txt", read("tables.txt")); err != nil {
		return nil, err
	}
	if _, ok := sc.Tables["bombardment"]; !ok {
		return nil, fmt.Errorf("tables.txt: no table bombardment (17.6)")
	}
	if sc.CRT, err = parseCombatTables("combat.txt", read("combat.txt")); err != nil {
		return nil, err
	}
	errs = append(errs, sc.parseTowns(read("towns.txt")), sc.parseArmies(read("armies.txt")), sc.parseTurns(read("turns.txt")))
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := sc.validate(); err != nil {
		return nil, err
	}
	return sc, nil
}

// fields splits key=value words; bare words are returned in order.
func fields(ws []string) (kv map[string]string, bare []string) {
	kv = map[string]string{}
	for _, w := range ws {
		if k, v, ok := strings.Cut(w, "="); ok {
			kv[k] = v
		} else {
			bare = append(bare, w)
		}
	}
	return kv, bare
}

func (sc *Scenario) hexOn(l board.Line, s string) (hex.Hex, error) {
	h, err := hex.Parse(s)
	if err != nil {
		return h, l.Errorf("%v", err)
	}
	if !sc.Map.OnMap(h) {
		return h, l.Errorf("hex %s is off the map", h)
	}
	return h, nil
}

func (sc *Scenario) parseTowns(src []byte) error {
	lines, err := board.Lines("towns.txt", src)
	errs := []error{err}
	for _, l := range lines {
		kv, bare := fields(l.Fields[1:])
		if l.Fields[0] != "town" || len(bare) < 2 {
			errs = append(errs, l.Errorf("want town <Name> <hexes> circle=red|black|none vp=N"))
			continue
		}
		t := &Town{Name: bare[0], Circle: kv["circle"], Fact: l.Fact}
		for _, w := range bare[1:] {
			h, err := sc.hexOn(l, w)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			t.Hexes = append(t.Hexes, h)
			if tr := sc.Map.Terrain(h); tr != "village" && tr != "city" {
				errs = append(errs, l.Errorf("town %s: hex %s is %s, want village or city", t.Name, h, tr))
			}
		}
		if !slices.Contains([]string{"red", "black", "none"}, t.Circle) {
			errs = append(errs, l.Errorf("town %s: circle=%q, want red, black or none", t.Name, t.Circle))
		}
		if t.VP, err = strconv.Atoi(kv["vp"]); err != nil || t.VP < 0 || (t.Circle == "none") != (t.VP == 0) {
			errs = append(errs, l.Errorf("town %s: vp=%q, want a number, 0 exactly when the town has no circle", t.Name, kv["vp"]))
		}
		sc.Towns = append(sc.Towns, t)
	}
	return errors.Join(errs...)
}

func (sc *Scenario) parseArmies(src []byte) error {
	lines, err := board.Lines("armies.txt", src)
	errs := []error{err}
	num := func(l board.Line, kv map[string]string, k string, lo, hi int) int {
		n, err := strconv.Atoi(kv[k])
		if err != nil || n < lo || n > hi {
			errs = append(errs, l.Errorf("%s=%q: want a number %d-%d", k, kv[k], lo, hi))
		}
		return n
	}
	for _, l := range lines {
		kv, bare := fields(l.Fields[1:])
		switch kind := l.Fields[0]; kind {
		case "markers":
			m := map[string]map[rules.Side]int{"prepare": sc.Prepare, "improvised": sc.Improvised}[l.Fields[1]]
			if m == nil || len(bare) != 1 {
				errs = append(errs, l.Errorf("want markers prepare|improvised de=N en=N"))
				continue
			}
			m[DE], m[EN] = num(l, kv, "de", 0, 99), num(l, kv, "en", 0, 99)
		case "sector":
			if len(bare) != 4 || bare[2] != "rows" {
				errs = append(errs, l.Errorf("want sector de|en <owner> rows NN-NN"))
				continue
			}
			a, b, _ := strings.Cut(bare[3], "-")
			lo, e1 := strconv.Atoi(a)
			hi, e2 := strconv.Atoi(b)
			if e1 != nil || e2 != nil || lo > hi {
				errs = append(errs, l.Errorf("rows %q: want NN-NN", bare[3]))
				continue
			}
			sc.Sectors = append(sc.Sectors, Sector{Side: rules.Side(bare[0]), Owner: orders.Upper(bare[1]), Rows: [2]int{lo, hi}, Fact: l.Fact})
		case KindHQ, KindDivision, KindRegiment, KindTank:
			if len(bare) != 1 {
				errs = append(errs, l.Errorf("want %s <id> key=value ...", kind))
				continue
			}
			c := &Counter{ID: orders.Upper(bare[0]), Kind: kind, Side: rules.Side(kv["side"]), Nation: kv["nation"], Corps: orders.Upper(kv["corps"]),
				Default: orders.Upper(kv["default"]), Division: orders.Upper(kv["division"]), Attach: orders.Upper(kv["attach"]),
				Name: strings.ReplaceAll(kv["name"], "_", " "), Fact: l.Fact}
			if kind == KindTank {
				c.Side = EN // 2.3.1: "Tank groups are only available to the Entente player"
			}
			if c.Side != EN && c.Side != DE {
				errs = append(errs, l.Errorf("%s %s: side=%q, want de or en", kind, c.ID, c.Side))
			}
			if _, dup := sc.byID[c.ID]; dup {
				errs = append(errs, l.Errorf("unit %s given twice", c.ID))
				continue
			}
			if kind == KindDivision || kind == KindRegiment {
				if _, ok := kv["sp"]; ok || c.Side == EN || kind == KindRegiment {
					c.SP = num(l, kv, "sp", 1, 30)
					c.Stars = num(l, kv, "stars", 1, 3)
				}
			}
			if kind == KindRegiment {
				if c.SP != 3 {
					errs = append(errs, l.Errorf("regiment %s: sp=%d; 2.3.1: a regiment's maximum strength \"is always 3\"", c.ID, c.SP))
				}
				if c.Side != DE {
					errs = append(errs, l.Errorf("regiment %s: 2.3.1: \"Regiments and remnants are only available to the German player\"", c.ID))
				}
			}
			if kind == KindDivision && c.SP > 0 && c.SP < 9 {
				errs = append(errs, l.Errorf("division %s: sp=%d; 2.3.1: a division's maximum strength \"is 9 or higher\"", c.ID, c.SP))
			}
			if s, ok := kv["start"]; ok {
				h, err := sc.hexOn(l, s)
				errs = append(errs, err)
				c.Start, c.OnStart = h, true
			}
			if _, ok := kv["arrive"]; ok {
				c.Arrive = num(l, kv, "arrive", 2, 17)
			}
			sc.byID[c.ID] = c
			sc.Counters = append(sc.Counters, c)
		default:
			errs = append(errs, l.Errorf("unknown line %q: want hq, division, regiment, tank, sector or markers", kind))
		}
	}
	return errors.Join(errs...)
}

func (sc *Scenario) parseTurns(src []byte) error {
	lines, err := board.Lines("turns.txt", src)
	errs := []error{err}
	art := func(l board.Line, s string) Artillery {
		var n [3]int
		ps := strings.Split(s, ",")
		if len(ps) != 3 {
			errs = append(errs, l.Errorf("artillery %q: want heavy,medium,air", s))
			return Artillery{}
		}
		for i, p := range ps {
			v, err := strconv.Atoi(p)
			if err != nil || v < 0 {
				errs = append(errs, l.Errorf("artillery %q: want three numbers", s))
			}
			n[i] = v
		}
		return Artillery{n[0], n[1], n[2]}
	}
	for _, l := range lines {
		kv, bare := fields(l.Fields[1:])
		if l.Fields[0] != "turn" || len(bare) != 3 {
			errs = append(errs, l.Errorf("want turn <n> <day> AM|PM|night [en=H,M,A de=H,M,A]"))
			continue
		}
		n, e1 := strconv.Atoi(bare[0])
		d, e2 := strconv.Atoi(bare[1])
		t := Turn{N: n, Day: d, Part: bare[2], Fact: l.Fact}
		if e1 != nil || e2 != nil || n != len(sc.Turns)+1 {
			errs = append(errs, l.Errorf("turn %s: want turns numbered 1, 2, ... in order", bare[0]))
		}
		want := [3]string{"AM", "PM", "night"}[(n-1)%3]
		if t.Part != want || d != 18+(n-1)/3 {
			errs = append(errs, l.Errorf("turn %d: want %d July %s (4.1: AM, PM, night)", n, 18+(n-1)/3, want))
		}
		_, hasEN := kv["en"]
		if hasEN != (want != "PM") {
			errs = append(errs, l.Errorf("turn %d: artillery comes with AM and night turns only (17.3.3, 17.3.4)", n))
		}
		if hasEN {
			t.EN, t.DE = art(l, kv["en"]), art(l, kv["de"])
			if want == "night" && (t.EN.Air > 0 || t.DE.Air > 0) {
				errs = append(errs, l.Errorf("turn %d: 17.1.4: air support is never available at night", n))
			}
		}
		sc.Turns = append(sc.Turns, t)
	}
	if len(sc.Turns) != 17 {
		errs = append(errs, fmt.Errorf("turns.txt: %d turns, 3.2: \"The game is 17 turns long\"", len(sc.Turns)))
	}
	return errors.Join(errs...)
}

// validate checks what ties the files together, and that the default set-up is legal
// (3.1), so that a game started with defaults starts right.
func (sc *Scenario) validate() error {
	var errs []error
	bad := func(c *Counter, format string, args ...any) {
		errs = append(errs, fmt.Errorf("armies.txt:%d: %s: %s", c.Fact.Line, c.ID, fmt.Sprintf(format, args...)))
	}
	hqs := map[string]bool{}
	for _, c := range sc.Counters {
		if c.Kind == KindHQ {
			hqs[c.ID] = true
		}
	}
	count := map[string]int{}
	for _, c := range sc.Counters {
		switch c.Kind {
		case KindDivision:
			if c.Corps != "GREY" && !hqs[c.Corps] {
				bad(c, "corps %q is no HQ (12)", c.Corps)
			}
			if c.Corps == "GREY" && (c.Side != DE || !hqs[c.Default]) {
				bad(c, "a grey (reinforcement) division is German and names its default=<hq> (12)")
			}
		case KindRegiment:
			d, ok := sc.Counter(c.Division)
			if !ok || d.Kind != KindDivision || d.Side != DE {
				bad(c, "division %q is no German division", c.Division)
				continue
			}
			c.Corps, c.Default = d.Corps, d.Default
		case KindTank:
			if c.Attach != "" {
				if d, ok := sc.Counter(c.Attach); !ok || d.Kind != KindDivision || d.Side != EN || !d.OnStart {
					bad(c, "attach=%s: want an Entente division on the map at start (3.1)", c.Attach)
				}
			}
		}
		if c.OnStart && c.Arrive > 0 {
			bad(c, "both start= and arrive=")
		}
		if c.Kind != KindTank && !c.OnStart && c.Arrive == 0 && c.SP > 0 {
			bad(c, "neither start= nor arrive=")
		}
		if c.OnStart {
			count[string(c.Side)+c.Start.String()]++
		}
	}
	for side, n := range sc.Prepare {
		if n == 0 {
			errs = append(errs, fmt.Errorf("armies.txt: no Prepare markers for %s (19.4)", side))
		}
	}
	errs = append(errs, sc.checkSetup())
	return errors.Join(errs...)
}

// checkSetup checks the default set-up against 3.1.
func (sc *Scenario) checkSetup() error {
	pos := map[string]hex.Hex{}
	for _, c := range sc.Counters {
		if c.OnStart {
			pos[c.ID] = c.Start
		}
	}
	var errs []error
	for _, side := range []rules.Side{DE, EN} {
		for _, p := range sc.SetupProblems(side, pos) {
			line := 0
			if c, ok := sc.Counter(p.Unit); ok {
				line = c.Fact.Line
			}
			errs = append(errs, fmt.Errorf("armies.txt:%d: %s: default set-up: %s", line, p.Unit, p.Text))
		}
	}
	return errors.Join(errs...)
}

// Problem is one breach of the set-up rules (3.1), by unit.
type Problem struct{ Unit, Text string }

// SetupProblems checks side's set-up against 3.1, given where every unit set up so far
// stands (pos, by unit id; the German sets up first, so the Entente's is checked
// against the German one).
func (sc *Scenario) SetupProblems(side rules.Side, pos map[string]hex.Hex) []Problem {
	var out []Problem
	g := sc.Map.Grid
	bad := func(c *Counter, format string, args ...any) {
		out = append(out, Problem{c.ID, fmt.Sprintf(format, args...)})
	}
	het := sc.Town("Hartennes-et-Taux")
	divsAt := map[hex.Hex]map[string]int{}
	for _, c := range sc.Counters {
		h, ok := pos[c.ID]
		if !ok || c.Side != side || !c.OnStart {
			continue
		}
		switch c.Kind {
		case KindRegiment:
			if !sc.German(h) {
				bad(c, "%s is west of the front line (3.1)", h)
			}
			if c.Division == "3R" {
				if het == nil || (h != het.Hexes[0] && !g.Adjacent(h, het.Hexes[0])) {
					bad(c, "3.1: the 3rd Reserve Division sets up in or adjacent to Hartennes-et-Taux (1915)")
				}
			} else if !sc.FrontLine(h) || !sc.InSector(DE, c.Division, h) {
				bad(c, "3.1: regiments set up adjacent to the front line within their divisional sector")
			}
			if divsAt[h] == nil {
				divsAt[h] = map[string]int{}
			}
			divsAt[h][c.Division]++
			if n := divsAt[h][c.Division]; n > 3 || len(divsAt[h]) > 1 {
				bad(c, "3.1: up to three regiments of the same division a hex, and hexes on a sector boundary hold one division's units, not both (%s)", h)
			}
		case KindDivision:
			if sc.German(h) || !sc.FrontLine(h) || !sc.InSector(EN, c.Corps, h) {
				bad(c, "3.1: divisions set up adjacent to the front line within their corps sector")
			}
			if divsAt[h] != nil {
				bad(c, "3.1: \"Only one division may occupy a single hex\" (%s)", h)
			}
			divsAt[h] = map[string]int{c.ID: 1}
		case KindHQ:
			if side == EN && (sc.German(h) || sc.FrontLine(h) || !sc.InSector(EN, c.ID, h)) {
				bad(c, "3.1: Entente corps HQs set up in their sector, not adjacent to the front line")
			}
			if side == DE {
				near := false
				for _, o := range sc.Counters {
					if oh, ok := pos[o.ID]; ok && o.Kind == KindRegiment && o.Corps == c.ID && sc.FrontLine(oh) && g.Distance(oh, h) <= 4 {
						near = true
					}
				}
				if !near {
					bad(c, "3.1: German HQs set up within four hexes of a subordinate regiment on the front line")
				}
			}
		}
	}
	if side != EN {
		return out
	}
	// 3.1 "every German regiment" is read as every regiment on the front line: the 3rd
	// Reserve Division sets up around Hartennes-et-Taux, far behind it.
	for _, c := range sc.Counters {
		h, ok := pos[c.ID]
		if !ok || c.Kind != KindRegiment || !sc.FrontLine(h) {
			continue
		}
		covered := false
		for _, o := range sc.Counters {
			if oh, ok := pos[o.ID]; ok && o.Kind == KindDivision && o.Side == EN && g.Adjacent(oh, h) {
				covered = true
			}
		}
		if !covered {
			out = append(out, Problem{c.ID, fmt.Sprintf("3.1: \"At least one division must be set up adjacent to every German regiment\": none is next to %s in %s", c.ID, h)})
		}
	}
	return out
}

// Town returns the town of the given name.
func (sc *Scenario) Town(name string) *Town {
	for _, t := range sc.Towns {
		if t.Name == name {
			return t
		}
	}
	return nil
}
