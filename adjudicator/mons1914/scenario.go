package mons1914

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

// Vocabulary is the words the Mons map may use (9.8-9.17).
var Vocabulary = board.Vocabulary{
	Terrain: []string{"clear", "forest", "industrial", "residential"},
	Sides:   []string{"canal", "river", "road", "bridge", "railbridge"},
	Sets:    []string{"entry", "exit", "bridgehead"},
}

// Unit types (2.8).
const (
	Infantry = "infantry"
	Cavalry  = "cavalry"
	Field    = "field" // field artillery
	Horse    = "horse" // horse artillery
	Heavy    = "heavy" // heavy artillery
)

// Counter is one unit of the counter mix, as printed (or reconstructed).
type Counter struct {
	ID       string
	Side     rules.Side // DE or BEF
	Corps    string     // German corps: III, IV, IX
	Division int        // German division; 0 for a corps' separate units (2.12)
	Type     string
	Steps    int
	Melee    []int // melee and defensive fire factor by steps left, full strength first
	Bombard  int
	Range    int
	MF       int
	SP       int     // stacking points (6.3)
	Start    hex.Hex // British start hex (3.1)
	Fact     board.Fact
}

// Artillery reports whether the unit is artillery of any kind (2.8).
func (c *Counter) Artillery() bool { return c.Type == Field || c.Type == Horse || c.Type == Heavy }

// Class is the unit's column of the terrain effects table.
func (c *Counter) Class() string {
	switch c.Type {
	case Field, Horse:
		return "artillery"
	}
	return c.Type
}

// MeleeAt is the melee (and defensive fire) factor with steps left; artillery has 1
// (11.1, 12.7).
func (c *Counter) MeleeAt(steps int) int {
	if c.Artillery() || len(c.Melee) == 0 {
		return 1
	}
	i := c.Steps - steps
	if i < 0 || i >= len(c.Melee) {
		return 0
	}
	return c.Melee[i]
}

// Entry is one line of 8.2's schedule: the units of a division, or a corps' separate
// units, and their entry hexes and turn.
type Entry struct {
	Corps    string
	Division int // 0: the corps' separate units
	Hexes    []hex.Hex
	Turn     int
}

// Scenario is the shipped game: map, charts, counters, entry schedule.
type Scenario struct {
	Map      *board.Map
	TEC      *board.TEC
	Tables   map[string]*board.Table
	Counters []*Counter
	byID     map[string]*Counter
	Entries  []Entry
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

// entries is 8.2's schedule. 8.2 gives the IV Corps paragraph's separate units as "The
// two separate (see 2.12) III Corps units also enter on Game Turn 4"; III Corps' own
// separate units already entered on turn 1 by the paragraph before, and 2.12 gives every
// corps two separate units, so the sentence is read as IV Corps'. 3.1's sixth entry hex,
// 2700, is named by no formation in 8.2 and is not used.
var entries = []Entry{
	{"IX", 17, []hex.Hex{{Col: 47, Row: 0}}, 1},
	{"IX", 18, []hex.Hex{{Col: 43, Row: 0}}, 1},
	{"IX", 0, []hex.Hex{{Col: 47, Row: 0}, {Col: 43, Row: 0}}, 1},
	{"III", 6, []hex.Hex{{Col: 39, Row: 0}}, 1},
	{"III", 5, []hex.Hex{{Col: 31, Row: 0}}, 1},
	{"III", 0, []hex.Hex{{Col: 39, Row: 0}, {Col: 31, Row: 0}}, 1},
	{"IV", 7, []hex.Hex{{Col: 39, Row: 0}}, 4},
	{"IV", 8, []hex.Hex{{Col: 21, Row: 0}}, 4},
	{"IV", 0, []hex.Hex{{Col: 39, Row: 0}, {Col: 21, Row: 0}}, 4},
}

// EntryOf returns the entry schedule line of a German counter.
func (s *Scenario) EntryOf(c *Counter) (Entry, bool) {
	for _, e := range s.Entries {
		if e.Corps == c.Corps && e.Division == c.Division {
			return e, true
		}
	}
	return Entry{}, false
}

// LoadScenario reads the scenario shipped in data/.
func LoadScenario() (*Scenario, error) { return board.LoadDir(dataFS, "data", ParseScenario) }

// ParseScenario reads and validates a scenario folder (map.txt, tec.txt, tables.txt,
// counters.txt). Every problem is reported with its file and line.
func ParseScenario(fsys fs.FS) (*Scenario, error) {
	read := func(name string) []byte {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil
		}
		return b
	}
	var errs []error
	s := &Scenario{byID: map[string]*Counter{}, Entries: entries}
	var err error
	if s.Map, err = board.ParseMap("map.txt", read("map.txt"), Vocabulary); err != nil {
		errs = append(errs, err)
	}
	if s.TEC, err = board.ParseTEC("tec.txt", read("tec.txt"), Vocabulary); err != nil {
		errs = append(errs, err)
	}
	if s.Tables, err = board.ParseTables("tables.txt", read("tables.txt")); err != nil {
		errs = append(errs, err)
	} else {
		for _, n := range []string{"bombardment", "defensive-fire", "melee"} {
			if s.Tables[n] == nil {
				errs = append(errs, fmt.Errorf("tables.txt: no %s table (13.x)", n))
			}
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := s.checkMap(); err != nil {
		return nil, err
	}
	if err := s.parseCounters(read("counters.txt")); err != nil {
		return nil, err
	}
	return s, nil
}

// checkMap enforces what the rules say of any Mons map, whatever the file says.
func (s *Scenario) checkMap() error {
	m := s.Map
	var errs []error
	for _, h := range m.Hexes() {
		for _, n := range m.Grid.Neighbours(h) {
			if !m.OnMap(n) || hex.Compare(n, h) < 0 {
				continue
			}
			side := m.Side(h, n)
			water := slices.Contains(side, "river") || slices.Contains(side, "canal")
			bridged := slices.Contains(side, "bridge") || slices.Contains(side, "railbridge")
			if slices.Contains(side, "road") && water && !bridged {
				errs = append(errs, fmt.Errorf("map.txt: the road crosses water on %s/%s without a bridge; 9.16: road bridges occur wherever roads cross river or canal hexsides", h, n))
			}
			if bridged && !water {
				errs = append(errs, fmt.Errorf("map.txt: a bridge on %s/%s spans no river or canal (9.16)", h, n))
			}
		}
	}
	want := map[string]int{"entry": 6, "exit": 4, "bridgehead": 6}
	for set, n := range want {
		if len(m.Set(set)) != n {
			errs = append(errs, fmt.Errorf("map.txt: %d %s hexes, the rules give %d (3.1, 4.2, 4.4)", len(m.Set(set)), set, n))
		}
	}
	for _, h := range m.Set("bridgehead") {
		crossed := false
		for _, n := range m.Grid.Neighbours(h) {
			if m.SideHas(h, n, "canal") && (m.SideHas(h, n, "bridge") || m.SideHas(h, n, "railbridge")) {
				crossed = true
			}
		}
		if !crossed {
			errs = append(errs, fmt.Errorf("map.txt: bridge hex %s has no bridge over the canal (4.2)", h))
		}
	}
	return errors.Join(errs...)
}

func (s *Scenario) parseCounters(src []byte) error {
	lines, err := board.Lines("counters.txt", src)
	errs := []error{err}
	for _, l := range lines {
		if l.Fields[0] != "unit" || len(l.Fields) < 3 {
			errs = append(errs, l.Errorf("want unit <id> key=value ..."))
			continue
		}
		c := &Counter{ID: l.Fields[1], Fact: l.Fact}
		bad := func(f string, a ...any) { errs = append(errs, l.Errorf("unit %s: %s", c.ID, fmt.Sprintf(f, a...))) }
		num := func(k, v string) int {
			n, err := strconv.Atoi(v)
			if err != nil || n < 0 {
				bad("%s=%q: want a number", k, v)
			}
			return n
		}
		for _, kv := range l.Fields[2:] {
			k, v, ok := strings.Cut(kv, "=")
			if !ok {
				bad("%q: want key=value", kv)
				continue
			}
			switch k {
			case "side":
				c.Side = rules.Side(v)
			case "corps":
				c.Corps = v
			case "division":
				c.Division = num(k, v)
			case "type":
				c.Type = v
			case "steps":
				c.Steps = num(k, v)
			case "melee":
				for _, p := range strings.Split(v, "/") {
					c.Melee = append(c.Melee, num(k, p))
				}
			case "bombard":
				c.Bombard = num(k, v)
			case "range":
				c.Range = num(k, v)
			case "mf":
				c.MF = num(k, v)
			case "sp":
				c.SP = num(k, v)
			case "start":
				h, err := hex.Parse(v)
				if err != nil || !s.Map.OnMap(h) {
					bad("start=%s: want a hex of the map", v)
				}
				c.Start = h
			default:
				bad("unknown key %q", k)
			}
		}
		switch {
		case c.Side != "de" && c.Side != "bef":
			bad("side=%q: want de or bef", c.Side)
		case !slices.Contains([]string{Infantry, Cavalry, Field, Horse, Heavy}, c.Type):
			bad("type=%q: want infantry, cavalry, field, horse or heavy (2.8)", c.Type)
		case c.Steps < 1 || c.Steps > 4:
			bad("steps=%d: units have one to four steps (2.13)", c.Steps)
		case c.Artillery() && (c.Bombard < 1 || c.Range < 1):
			bad("artillery needs bombard and range (2.9, 10.2)")
		case !c.Artillery() && len(c.Melee) != c.Steps:
			bad("melee needs one factor per step, full strength first (2.13)")
		case c.MF < 1:
			bad("mf=%d: want a movement factor (2.11)", c.MF)
		case c.Side == DE && c.Type == Infantry && c.Steps == 4 && c.SP != 4:
			bad("a German infantry regiment is worth four stacking points (6.3)")
		case !(c.Side == DE && c.Type == Infantry && c.Steps == 4) && c.SP != 1:
			bad("every unit but a German infantry regiment is worth one stacking point (6.3)")
		case c.Side == DE && !slices.Contains([]string{"III", "IV", "IX"}, c.Corps):
			bad("corps=%q: want III, IV or IX (2.12)", c.Corps)
		case c.Side == BEF && !s.Map.OnMap(c.Start):
			bad("British units start on the hex printed on them (3.1): want start=<hex>")
		}
		key := orders.Upper(c.ID)
		if _, dup := s.byID[key]; dup {
			bad("given twice")
			continue
		}
		s.byID[key] = c
		s.Counters = append(s.Counters, c)
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	// 2.1, 2.3: 123 counters, one the turn marker; a four-step regiment is two counters.
	n := 1
	for _, c := range s.Counters {
		n++
		if c.Steps == 4 {
			n++
		}
	}
	if n != 123 {
		errs = append(errs, fmt.Errorf("counters.txt: %d counters with the turn marker, the game has 123 (2.1)", n))
	}
	// 2.12: each corps two divisions and two separate units (heavy artillery, cavalry).
	for _, corps := range []string{"III", "IV", "IX"} {
		divs := map[int]bool{}
		var sep []string
		for _, c := range s.Counters {
			if c.Corps == corps {
				if c.Division == 0 {
					sep = append(sep, c.Type)
				} else {
					divs[c.Division] = true
				}
			}
		}
		slices.Sort(sep)
		if len(divs) != 2 || !slices.Equal(sep, []string{Cavalry, Heavy}) {
			errs = append(errs, fmt.Errorf("counters.txt: corps %s has %d divisions and separate units %v; 2.12 gives two divisions, a heavy artillery regiment and a cavalry battalion", corps, len(divs), sep))
		}
		for d := range divs {
			if _, ok := s.EntryOf(&Counter{Corps: corps, Division: d}); !ok {
				errs = append(errs, fmt.Errorf("counters.txt: corps %s division %d has no entry in 8.2", corps, d))
			}
		}
	}
	return errors.Join(errs...)
}
