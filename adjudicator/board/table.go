package board

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Table is a results table kept as data: a result for each column (a range of factors,
// or of odds n:1) and each die roll. Results are the ruleset's words ("-", "1", "1/2").
type Table struct {
	Name    string
	Cols    []Column
	Results map[int][]string // by roll, one per column
	Rolls   [2]int           // first and last roll
	Fact    Fact             // the table line
	pins    []Fact
}

// Column is one column of a table: the values from Lo to Hi (Hi 0: no upper bound), and
// its heading as printed.
type Column struct {
	Lo, Hi int
	Label  string
}

// Column returns the index of the column holding value n, or -1.
func (t *Table) Column(n int) int {
	for i, c := range t.Cols {
		if n >= c.Lo && (c.Hi == 0 || n <= c.Hi) {
			return i
		}
	}
	return -1
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
//	roll 1 - - - 1 1 | ...                     the results of one roll, one per column
//	pin 4 3 1 | printed 10.7: ...              value 4, roll 3 gives 1: checked
//
// Rolls must run without a gap; columns must be in order without overlap.
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
			cur = &Table{Name: f[1], Results: map[int][]string{}, Fact: l.Fact}
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
				errs = append(errs, l.Errorf("roll %d: %d results for %d columns", n, len(f)-2, len(cur.Cols)))
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
			errs = append(errs, l.Errorf("unknown line %q: want table, columns, roll or pin", f[0]))
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
