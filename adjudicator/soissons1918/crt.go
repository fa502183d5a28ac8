package soissons1918

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
)

// The two combat tables (20.2), by name in data/combat.txt.
const (
	TableAssault    = "assault"
	TableImprovised = "improvised"
)

// CombatTable is the Assault Combat Table or the Improvised Attack Table (20.2), kept as
// data in the kit's table format (board.ParseTables, "odds" columns, the highest odds
// first as 20.4.4 describes them): a result for each odds column and each modified die
// roll (20.4.6), each cell read once at load as a CombatResult.
type CombatTable struct {
	*board.Table
	Rows map[int][]CombatResult // the cells of Table.Results, read (20.4.7)
}

// CombatResult is one cell (20.4.7): the attacker's and the defender's losses, X for the
// attacker's choice of 1 or 2, "d" for a disruption result, and the defender's
// mandatory retreat with the parenthesized value of the 18 July AM Entente assault.
type CombatResult struct {
	Att, Def   int // -1: X
	AttD, DefD bool
	Retreat    int
	First      int // the parenthesized number (20.4.7, 22)
	Text       string
}

// X is the loss number written X (20.4.7: "the attacker [chooses] between X=1 and X=2").
const X = -1

// Column gives the index of the column for att attacking SP against def defending SP,
// odds rounded in the defender's favour (20.4.4: 15 against 8 is 3-2); odds below the
// rightmost column read it, odds above the leftmost read that one.
func (t *CombatTable) Column(att, def int) int { return t.OddsColumn(att, def) }

// Lookup gives the result in column col for a modified roll, held within the rows.
func (t *CombatTable) Lookup(col, roll int) (CombatResult, int) {
	roll = board.Clamp(roll, t.Rolls[0], t.Rolls[1])
	return t.Rows[roll][col], roll
}

var resultRE = regexp.MustCompile(`^([0-9X])(d?)/([0-9X])(d?)(?::([0-9])(?:\(([0-9])\))?)?$`)

// ParseCombatResult reads one cell: "1/2d:2(3)", "Xd/0", "X/X:1". The retreat after
// ":" is 0 when left out; its parenthesized first-turn value is the same number when
// left out.
func ParseCombatResult(s string) (CombatResult, error) {
	m := resultRE.FindStringSubmatch(s)
	if m == nil {
		return CombatResult{}, fmt.Errorf("result %q: want A/D with A and D a digit or X, each with an optional d, then an optional :R or :R(F) retreat (20.4.7)", s)
	}
	num := func(w string) int {
		if w == "X" {
			return X
		}
		n, _ := strconv.Atoi(w)
		return n
	}
	r := CombatResult{Att: num(m[1]), AttD: m[2] == "d", Def: num(m[3]), DefD: m[4] == "d", Text: s}
	if m[5] != "" {
		r.Retreat = num(m[5])
	}
	r.First = r.Retreat
	if m[6] != "" {
		r.First = num(m[6])
	}
	return r, nil
}

// parseCombatTables reads data/combat.txt, a kit table file (board.ParseTables):
//
//	table assault | reconstructed: ...
//	odds 6-1 5-1 4-1 3-1 2-1 3-2 1-1 | ...         highest odds first (20.4.4)
//	roll 0 2d/0 ... | reconstructed: ...           one result per column
//
// and reads every cell as a CombatResult.
func parseCombatTables(file string, src []byte) (map[string]*CombatTable, error) {
	tabs, err := board.ParseTables(file, src)
	errs := []error{err}
	out := map[string]*CombatTable{}
	for name, tab := range tabs {
		if tab.Cols != nil && tab.Cols[0].D == 0 {
			errs = append(errs, fmt.Errorf("%s:%d: table %s: want odds columns a-d, the highest first (20.4.4)", file, tab.Fact.Line, name))
			continue
		}
		ct := &CombatTable{Table: tab, Rows: map[int][]CombatResult{}}
		for roll := tab.Rolls[0]; roll <= tab.Rolls[1] && len(tab.Results) > 0; roll++ {
			for _, w := range tab.Results[roll] {
				r, err := ParseCombatResult(w)
				if err != nil {
					errs = append(errs, fmt.Errorf("%s:%d: %w", file, tab.RowFacts[roll].Line, err))
				}
				ct.Rows[roll] = append(ct.Rows[roll], r)
			}
		}
		out[name] = ct
	}
	for _, name := range []string{TableAssault, TableImprovised} {
		if t := out[name]; t == nil || len(t.Cols) == 0 || len(t.Rows) == 0 {
			errs = append(errs, fmt.Errorf("%s: table %s (20.2) is missing or empty", file, name))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}
