package soissons1918

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
)

// The two combat tables (20.2), by name in data/combat.txt.
const (
	TableAssault    = "assault"
	TableImprovised = "improvised"
)

// CombatTable is the Assault Combat Table or the Improvised Attack Table (20.2), kept as
// data: a result for each odds column and each modified die roll (20.4.6).
type CombatTable struct {
	Name  string
	Cols  []OddsColumn // left to right: the highest odds first (20.4.4)
	Rows  map[int][]CombatResult
	Rolls [2]int // first and last row; a modified roll beyond them reads the nearest
	Fact  board.Fact
	Facts map[int]board.Fact // each row's provenance
}

// OddsColumn is one odds column, A to D ("3-2").
type OddsColumn struct {
	A, D  int
	Label string
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
func (t *CombatTable) Column(att, def int) int {
	for i, c := range t.Cols {
		if att*c.D >= c.A*def {
			return i
		}
	}
	return len(t.Cols) - 1
}

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

// parseCombatTables reads data/combat.txt:
//
//	table assault | reconstructed: ...
//	columns 6-1 5-1 4-1 3-1 2-1 3-2 1-1 | ...      highest odds first (20.4.4)
//	roll 0 2d/0 ... | reconstructed: ...           one result per column
func parseCombatTables(file string, src []byte) (map[string]*CombatTable, error) {
	lines, err := board.Lines(file, src)
	errs := []error{err}
	out := map[string]*CombatTable{}
	var cur *CombatTable
	for _, l := range lines {
		f := l.Fields
		if f[0] != "table" && cur == nil {
			errs = append(errs, l.Errorf("a table line must come first"))
			continue
		}
		switch f[0] {
		case "table":
			if len(f) != 2 || out[f[1]] != nil {
				errs = append(errs, l.Errorf("want table <name>, each name once"))
				cur = nil
				continue
			}
			cur = &CombatTable{Name: f[1], Rows: map[int][]CombatResult{}, Fact: l.Fact, Facts: map[int]board.Fact{}}
			out[f[1]] = cur
		case "columns":
			if cur.Cols != nil || len(f) < 2 {
				errs = append(errs, l.Errorf("want one columns line"))
				continue
			}
			for _, w := range f[1:] {
				a, d, ok := strings.Cut(w, "-")
				na, err1 := strconv.Atoi(a)
				nd, err2 := strconv.Atoi(d)
				if !ok || err1 != nil || err2 != nil || na < 1 || nd < 1 {
					errs = append(errs, l.Errorf("column %q: want odds a-d, e.g. 3-2", w))
					break
				}
				c := OddsColumn{A: na, D: nd, Label: w}
				if n := len(cur.Cols); n > 0 && c.A*cur.Cols[n-1].D >= cur.Cols[n-1].A*c.D {
					errs = append(errs, l.Errorf("column %s: columns run from the highest odds to the lowest (20.4.4)", w))
					break
				}
				cur.Cols = append(cur.Cols, c)
			}
		case "roll":
			n, err := strconv.Atoi(f[1])
			if err != nil || len(f)-2 != len(cur.Cols) {
				errs = append(errs, l.Errorf("want roll <n> and one result per column (%d)", len(cur.Cols)))
				continue
			}
			if len(cur.Rows) > 0 && n != cur.Rolls[1]+1 {
				errs = append(errs, l.Errorf("roll %d: rolls run in order without a gap", n))
				continue
			}
			if len(cur.Rows) == 0 {
				cur.Rolls[0] = n
			}
			cur.Rolls[1] = n
			row := make([]CombatResult, 0, len(f)-2)
			for _, w := range f[2:] {
				r, err := ParseCombatResult(w)
				if err != nil {
					errs = append(errs, l.Errorf("%v", err))
				}
				row = append(row, r)
			}
			cur.Rows[n] = row
			cur.Facts[n] = l.Fact
		default:
			errs = append(errs, l.Errorf("unknown line %q: want table, columns or roll", f[0]))
		}
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
