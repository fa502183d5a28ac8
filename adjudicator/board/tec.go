package board

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Cost is one cell of a terrain effects table: movement points, or prohibited.
type Cost struct {
	MP         int
	Prohibited bool
}

// String writes the cost as the table file does: "2", "+1" for a hexside, "-".
func (c Cost) String() string {
	if c.Prohibited {
		return "-"
	}
	return strconv.Itoa(c.MP)
}

// TEC is a terrain effects table for movement: per class of unit, the cost to enter each
// terrain and in-hex feature, the extra cost to cross each hexside feature, the cost of
// travelling along a hexside feature such as a road, and the hexside features that
// negate others (a bridge negates the river it spans).
//
// The cost of one step is: along a road (a hexside with an "along" feature), the along
// cost; otherwise the dearest of the entered hex's terrain and features. To it are added
// (Combine "sum", Mons 9.18) or maximised with (Combine "max", Soissons 19.3) the
// crossing costs of the hexside's features that nothing on that hexside negates. Any
// prohibited cell that applies prohibits the step.
type TEC struct {
	Classes []string
	// Scale is how many cost units make one MP: 1 unless the table gives fractions
	// (Soissons 19.4: road movement at 1/2 MP a hex makes it 2). Costs in Enter, Cross and
	// Along, and what Step and PathCost return, are in 1/Scale MP: compare them with a
	// movement allowance times Scale.
	Scale   int
	Combine string // "sum" or "max"
	Enter   map[string][]Cost
	Cross   map[string][]Cost
	Along   map[string][]Cost
	Negates map[string][]string
	facts   map[string]Fact
}

// ParseTEC reads a terrain effects table:
//
//	classes infantry cavalry artillery heavy   the unit classes, in column order
//	combine sum                                sum or max (see [TEC])
//	enter clear 1 1 1 2                        cost to enter, one per class; - prohibited
//	cross river 1 2 - -                        extra cost to cross a hexside feature
//	along road 1 1 1 1                         cost of a step along a hexside feature
//	negates bridge river canal                 a bridge hexside ignores river and canal
//
// A cost may be a fraction, "1/2"; then every cost is kept in units of the smallest
// fraction (see Scale).
// Every terrain of the vocabulary needs an enter line; features and hexside features
// without a line have no effect on movement.
func ParseTEC(file string, src []byte, v Vocabulary) (*TEC, error) {
	lines, err := Lines(file, src)
	errs := []error{err}
	t := &TEC{Enter: map[string][]Cost{}, Cross: map[string][]Cost{}, Along: map[string][]Cost{}, Negates: map[string][]string{}, facts: map[string]Fact{}, Scale: 1}
	type rawRow struct {
		kind, name string
		cells      []string
	}
	var raw []rawRow
	for _, l := range lines {
		f := l.Fields
		switch f[0] {
		case "classes":
			if t.Classes != nil || len(f) < 2 {
				errs = append(errs, l.Errorf("want one classes line naming at least one class"))
				continue
			}
			t.Classes = f[1:]
		case "combine":
			if len(f) != 2 || (f[1] != "sum" && f[1] != "max") {
				errs = append(errs, l.Errorf("want combine sum or combine max"))
				continue
			}
			t.Combine = f[1]
		case "enter", "cross", "along":
			if t.Classes == nil {
				errs = append(errs, l.Errorf("the classes line must come first"))
				continue
			}
			if len(f) != 2+len(t.Classes) {
				errs = append(errs, l.Errorf("want %s <name> and one cost per class (%s)", f[0], strings.Join(t.Classes, " ")))
				continue
			}
			allowed := v.Sides
			if f[0] == "enter" {
				allowed = append(slices.Clone(v.Terrain), v.Features...)
			}
			if !slices.Contains(allowed, f[1]) {
				errs = append(errs, l.Errorf("unknown %q: want one of %s", f[1], strings.Join(allowed, ", ")))
				continue
			}
			key := f[0] + " " + f[1]
			if prev, dup := t.facts[key]; dup {
				errs = append(errs, l.Errorf("%s given twice (line %d)", key, prev.Line))
				continue
			}
			ok := true
			for _, w := range f[2:] {
				if _, _, err := parseCost(w); err != nil {
					errs = append(errs, l.Errorf("%v", err))
					ok = false
				}
			}
			if !ok {
				continue
			}
			t.facts[key] = l.Fact
			raw = append(raw, rawRow{f[0], f[1], f[2:]})
		case "negates":
			if len(f) < 3 {
				errs = append(errs, l.Errorf("want negates <hexside feature> <features it negates>"))
				continue
			}
			for _, w := range f[1:] {
				if !slices.Contains(v.Sides, w) {
					errs = append(errs, l.Errorf("unknown hexside feature %q: want one of %s", w, strings.Join(v.Sides, ", ")))
				}
			}
			t.Negates[f[1]] = append(t.Negates[f[1]], f[2:]...)
		default:
			errs = append(errs, l.Errorf("unknown line %q: want classes, combine, enter, cross, along or negates", f[0]))
		}
	}
	if t.Combine == "" {
		errs = append(errs, fmt.Errorf("%s: no combine line", file))
	}
	for _, r := range raw {
		for _, w := range r.cells {
			if _, den, err := parseCost(w); err == nil && den > 0 {
				t.Scale = lcm(t.Scale, den)
			}
		}
	}
	for _, r := range raw {
		var row []Cost
		for _, w := range r.cells {
			num, den, _ := parseCost(w)
			if den == 0 {
				row = append(row, Cost{Prohibited: true})
				continue
			}
			row = append(row, Cost{MP: num * (t.Scale / den)})
		}
		map[string]map[string][]Cost{"enter": t.Enter, "cross": t.Cross, "along": t.Along}[r.kind][r.name] = row
	}
	for _, tr := range v.Terrain {
		if _, ok := t.Enter[tr]; !ok && t.Classes != nil {
			errs = append(errs, fmt.Errorf("%s: no enter line for terrain %s", file, tr))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return t, nil
}

// Fact is where a line of the table was given, by its key ("enter forest", "cross river").
func (t *TEC) Fact(key string) (Fact, bool) {
	f, ok := t.facts[key]
	return f, ok
}

func (t *TEC) class(c string) (int, error) {
	i := slices.Index(t.Classes, c)
	if i < 0 {
		return 0, fmt.Errorf("unknown unit class %q: want one of %s", c, strings.Join(t.Classes, ", "))
	}
	return i, nil
}

// Step is the cost for a unit of class to move from one hex into the adjacent hex to.
// When the step is prohibited, ok is false and why names the terrain or hexside feature.
func (t *TEC) Step(m *Map, class string, from, to hex.Hex) (mp int, ok bool, why string) {
	ci, err := t.class(class)
	if err != nil {
		return 0, false, err.Error()
	}
	if !m.Grid.Adjacent(from, to) {
		return 0, false, fmt.Sprintf("%s is not next to %s", to, from)
	}
	if !m.OnMap(to) {
		return 0, false, fmt.Sprintf("%s is off the map", to)
	}
	side := m.Side(from, to)
	negated := map[string]bool{}
	for _, s := range side {
		for _, n := range t.Negates[s] {
			negated[n] = true
		}
	}
	along := ""
	for _, s := range side {
		if row, ok := t.Along[s]; ok && !row[ci].Prohibited {
			along = s
			break
		}
	}
	if along != "" {
		mp = t.Along[along][ci].MP
	} else {
		names := append([]string{m.Terrain(to)}, m.Features(to)...)
		for _, n := range names {
			row, ok := t.Enter[n]
			if !ok {
				continue
			}
			if row[ci].Prohibited {
				return 0, false, fmt.Sprintf("%s may not enter %s (%s) but along a road", class, n, to)
			}
			mp = max(mp, row[ci].MP)
		}
	}
	for _, s := range side {
		row, ok := t.Cross[s]
		if !ok || negated[s] {
			continue
		}
		if row[ci].Prohibited {
			return 0, false, fmt.Sprintf("%s may not cross the %s hexside %s/%s", class, s, from, to)
		}
		if t.Combine == "max" {
			mp = max(mp, row[ci].MP)
		} else {
			mp += row[ci].MP
		}
	}
	return mp, true, ""
}

// PathCost is the total cost of moving a unit of class along path (its first hex is where
// it starts). The error names the first step that cannot be made.
func (t *TEC) PathCost(m *Map, class string, path []hex.Hex) (int, error) {
	total := 0
	for i := 1; i < len(path); i++ {
		mp, ok, why := t.Step(m, class, path[i-1], path[i])
		if !ok {
			return 0, fmt.Errorf("%s-%s: %s", path[i-1], path[i], why)
		}
		total += mp
	}
	return total, nil
}

// parseCost reads a cost cell: "-" (prohibited: den 0), "2", "+1" or "1/2".
func parseCost(w string) (num, den int, err error) {
	if w == "-" {
		return 0, 0, nil
	}
	bad := fmt.Errorf("cost %q: want a number of MP (2, +1, 1/2) or - for prohibited", w)
	a, b, frac := strings.Cut(strings.TrimPrefix(w, "+"), "/")
	num, err = strconv.Atoi(a)
	if err != nil || num < 0 {
		return 0, 0, bad
	}
	den = 1
	if frac {
		if den, err = strconv.Atoi(b); err != nil || den < 1 || den > 12 {
			return 0, 0, bad
		}
	}
	return num, den, nil
}

func lcm(a, b int) int {
	x, y := a, b
	for y != 0 {
		x, y = y, x%y
	}
	return a / x * b
}
