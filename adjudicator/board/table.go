package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Table is a results table kept as data: a result for each column (a range of factors,
// of odds n:1, or an odds ratio a-d) and each die roll. Results are the ruleset's words
// ("-", "1", "1/2", "1/2d:2(3)").
type Table struct {
	Name     string
	Cols     []Column
	Results  map[int][]string // by roll, one per column
	Rolls    [2]int           // first and last roll
	Fact     Fact             // the table line
	RowFacts map[int]Fact     // each roll line's provenance
	pins     []Fact
}

// Column is one column of a table: the values from Lo to Hi (Hi 0: no upper bound), or
// the odds ratio A to D of an odds table; and its heading as printed.
type Column struct {
	Lo, Hi int
	A, D   int // an odds column "a-d" (D is 0 for a column of values)
	Label  string
}

// Column returns the index of the value column holding value n, or -1.
func (t *Table) Column(n int) int {
	for i, c := range t.Cols {
		if c.D == 0 && n >= c.Lo && (c.Hi == 0 || n <= c.Hi) {
			return i
		}
	}
	return -1
}

// OddsColumn returns the index of the odds column for att against def, odds rounded in
// the defender's favour (Soissons 20.4.4: 15 against 8 reads 3-2): the first column,
// from the highest odds, that att against def reaches; odds below the last column read
// it, odds above the first read that one. It is -1 for a table of value columns.
func (t *Table) OddsColumn(att, def int) int {
	if len(t.Cols) == 0 || t.Cols[0].D == 0 {
		return -1
	}
	for i, c := range t.Cols {
		if att*c.D >= c.A*def {
			return i
		}
	}
	return len(t.Cols) - 1
}

// Lookup gives the result for value n (factors or odds) and a die roll already modified
// and clamped by the ruleset.
func (t *Table) Lookup(n, roll int) (result, column string, err error) {
	i := t.Column(n)
	if i < 0 {
		return "", "", fmt.Errorf("%s table: no column for %d", t.Name, n)
	}
	row, ok := t.Results[roll]
	if !ok {
		return "", "", fmt.Errorf("%s table: no row for roll %d", t.Name, roll)
	}
	return row[i], t.Cols[i].Label, nil
}

// Pins are the provenance of the table's pinned cells, the ones a rulebook prints.
func (t *Table) Pins() []Fact { return t.pins }

// ParseTables reads results tables:
//
//	table bombardment | reconstructed: ...     starts a table
//	columns 1 2 3 4-5 6+ | ...                 its columns: n, n-m, n+, or odds n:1
//	odds 6-1 5-1 4-1 3-2 1-1 | ...             or odds ratios a-d, highest first
//	roll 1 - - - 1 1 | ...                     the results of one roll, one per column
//	pin 4 3 1 | printed 10.7: ...              value 4, roll 3 gives 1: checked
//
// Rolls must run without a gap; columns must be in order without overlap, odds columns
// from the highest odds to the lowest (as Soissons 20.4.4 describes its table).
func ParseTables(file string, src []byte) (map[string]*Table, error) {
	lines, err := Lines(file, src)
	errs := []error{err}
	out := map[string]*Table{}
	var cur *Table
	type pin struct {
		l         Line
		n, roll   int
		want      string
		tableName string
	}
	var pins []pin
	for _, l := range lines {
		f := l.Fields
		if f[0] != "table" && cur == nil {
			errs = append(errs, l.Errorf("a table line must come first"))
			continue
		}
		switch f[0] {
		case "table":
			if len(f) != 2 {
				errs = append(errs, l.Errorf("want table <name>"))
				cur = nil
				continue
			}
			if _, dup := out[f[1]]; dup {
				errs = append(errs, l.Errorf("table %s given twice", f[1]))
			}
			cur = &Table{Name: f[1], Results: map[int][]string{}, Fact: l.Fact, RowFacts: map[int]Fact{}}
			out[f[1]] = cur
		case "columns":
			if cur.Cols != nil || len(f) < 2 {
				errs = append(errs, l.Errorf("want one columns line with at least one column"))
				continue
			}
			prevHi := -1 << 30
			for _, w := range f[1:] {
				c, err := parseColumn(w)
				if err != nil {
					errs = append(errs, l.Errorf("%v", err))
					break
				}
				if c.Lo <= prevHi {
					errs = append(errs, l.Errorf("column %s overlaps or precedes the one before", w))
					break
				}
				if prevHi == 0 {
					errs = append(errs, l.Errorf("column %s follows an open-ended column", w))
					break
				}
				prevHi = c.Hi
				cur.Cols = append(cur.Cols, c)
			}
		case "odds":
			if cur.Cols != nil || len(f) < 2 {
				errs = append(errs, l.Errorf("want one columns or odds line with at least one column"))
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
				c := Column{A: na, D: nd, Label: w}
				if n := len(cur.Cols); n > 0 && c.A*cur.Cols[n-1].D >= cur.Cols[n-1].A*c.D {
					errs = append(errs, l.Errorf("column %s: odds columns run from the highest odds to the lowest", w))
					break
				}
				cur.Cols = append(cur.Cols, c)
			}
		case "roll":
			if len(f) < 3 {
				errs = append(errs, l.Errorf("want roll <n> and one result per column"))
				continue
			}
			n, err := strconv.Atoi(f[1])
			if err != nil {
				errs = append(errs, l.Errorf("want roll <n> and one result per column"))
				continue
			}
			if len(f)-2 != len(cur.Cols) {
				errs = append(errs, l.Errorf("roll %d: %d results for %d columns; want one result per column", n, len(f)-2, len(cur.Cols)))
				continue
			}
			if _, dup := cur.Results[n]; dup {
				errs = append(errs, l.Errorf("roll %d given twice", n))
				continue
			}
			if len(cur.Results) == 0 {
				cur.Rolls = [2]int{n, n}
			} else if n != cur.Rolls[1]+1 {
				errs = append(errs, l.Errorf("roll %d: rolls must run in order without a gap (after %d)", n, cur.Rolls[1]))
				continue
			}
			cur.Rolls[1] = n
			cur.Results[n] = f[2:]
			cur.RowFacts[n] = l.Fact
		case "pin":
			if len(f) != 4 {
				errs = append(errs, l.Errorf("want pin <value> <roll> <result>"))
				continue
			}
			n, err1 := strconv.Atoi(strings.TrimSuffix(f[1], ":1"))
			r, err2 := strconv.Atoi(f[2])
			if err1 != nil || err2 != nil {
				errs = append(errs, l.Errorf("want pin <value> <roll> <result>"))
				continue
			}
			pins = append(pins, pin{l, n, r, f[3], cur.Name})
			cur.pins = append(cur.pins, l.Fact)
		default:
			errs = append(errs, l.Errorf("unknown line %q: want table, columns, odds, roll or pin", f[0]))
		}
	}
	for _, t := range out {
		if len(t.Cols) == 0 || len(t.Results) == 0 {
			errs = append(errs, fmt.Errorf("%s: table %s has no columns or no rolls", file, t.Name))
		}
	}
	for _, p := range pins {
		got, _, err := out[p.tableName].Lookup(p.n, p.roll)
		if err != nil {
			errs = append(errs, p.l.Errorf("pin: %v", err))
		} else if got != p.want {
			errs = append(errs, p.l.Errorf("pin: the %s table gives %s for %d and roll %d, but the rulebook prints %s", p.tableName, got, p.n, p.roll, p.want))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

func parseColumn(w string) (Column, error) {
	body := strings.TrimSuffix(w, ":1")
	bad := fmt.Errorf("column %q: want n, n-m, n+ or n:1", w)
	if rest, ok := strings.CutSuffix(body, "+"); ok {
		n, err := strconv.Atoi(rest)
		if err != nil {
			return Column{}, bad
		}
		return Column{Lo: n, Label: w}, nil
	}
	a, b, isRange := strings.Cut(body, "-")
	lo, err := strconv.Atoi(a)
	if err != nil {
		return Column{}, bad
	}
	hi := lo
	if isRange {
		if hi, err = strconv.Atoi(b); err != nil || hi < lo {
			return Column{}, bad
		}
	}
	if hi == 0 {
		return Column{}, fmt.Errorf("column %q: columns start at 1", w)
	}
	return Column{Lo: lo, Hi: hi, Label: w}, nil
}

// Clamp keeps a modified die roll within lo and hi (Mons 10.8: "Die roll results
// modified to less than one are treated as ones").
func Clamp(roll, lo, hi int) int { return max(lo, min(hi, roll)) }

// Odds is the attacker's total divided by the defender's, rounded down (Mons 12.7: 26
// against 7 is 3, i.e. 3:1). A defender of 0 gives 0 with ok false.
func Odds(attack, defence int) (n int, ok bool) {
	if defence <= 0 {
		return 0, false
	}
	return attack / defence, true
}
