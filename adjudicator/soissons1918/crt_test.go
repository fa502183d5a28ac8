package soissons1918

import (
	"strings"
	"testing"
)

func crt(t *testing.T) map[string]*CombatTable {
	t.Helper()
	sc, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	return sc.CRT
}

// TestOddsColumns: 20.4.4 "Always round off odds in favor of the defender. Example: 15
// attacking SP against 8 defending SP would be resolved on the 3-2 column. Attacks at
// odds lower than 1-1 are resolved on the rightmost column, attacks at odds higher
// than 6-1 are resolved on the leftmost column."
func TestOddsColumns(t *testing.T) {
	for name, tab := range crt(t) {
		tests := []struct {
			att, def int
			want     string
		}{
			{15, 8, "3-2"}, {16, 8, "2-1"}, {11, 8, "1-1"}, {12, 8, "3-2"}, {8, 8, "1-1"},
			{3, 8, "1-1"}, {0, 8, "1-1"}, {17, 6, "2-1"}, {18, 6, "3-1"}, {30, 5, "6-1"},
			{99, 1, "6-1"}, {29, 5, "5-1"}, {20, 8, "2-1"}, {7, 2, "3-1"},
		}
		for _, tt := range tests {
			if got := tab.Cols[tab.Column(tt.att, tt.def)].Label; got != tt.want {
				t.Errorf("%s: %d against %d reads %s, want %s", name, tt.att, tt.def, got, tt.want)
			}
		}
		if l := tab.Cols[len(tab.Cols)-1].Label; l != "1-1" {
			t.Errorf("%s: rightmost column %s, want 1-1 (20.4.4)", name, l)
		}
		if l := tab.Cols[0].Label; l != "6-1" {
			t.Errorf("%s: leftmost column %s, want 6-1 (20.4.4)", name, l)
		}
	}
}

// value scores a result for the attacker: the defender's losses and retreat less the
// attacker's losses, X counted as 1.5.
func value(r CombatResult, first bool) float64 {
	n := func(x int) float64 {
		if x == X {
			return 1.5
		}
		return float64(x)
	}
	ret := r.Retreat
	if first {
		ret = r.First
	}
	v := n(r.Def) - n(r.Att) + 0.75*float64(ret)
	if r.DefD {
		v += 0.5
	}
	if r.AttD {
		v -= 0.5
	}
	return v
}

// TestTablesShape: both tables cover the same odds and rolls, every cell is marked
// reconstructed (neither table is printed), results never get worse for the attacker
// with a higher roll or better odds, and the assault table is at every cell at least
// as favourable to the attacker as the improvised one (20.2: "The Assault Combat
// Table is more favorable to the attacker than the Improvised Attack Table"), and
// somewhere strictly more.
func TestTablesShape(t *testing.T) {
	ts := crt(t)
	a, im := ts[TableAssault], ts[TableImprovised]
	if len(a.Cols) != len(im.Cols) || a.Rolls != im.Rolls {
		t.Fatalf("tables differ in shape: %v %v", a.Rolls, im.Rolls)
	}
	better := false
	for _, tab := range []*CombatTable{a, im} {
		if tab.Fact.Printed {
			t.Errorf("%s: marked printed; no combat table is printed in rulebook 002", tab.Name)
		}
		for roll := tab.Rolls[0]; roll <= tab.Rolls[1]; roll++ {
			if f := tab.RowFacts[roll]; f.Printed || !strings.Contains(f.Source, "every cell") {
				t.Errorf("%s roll %d: provenance %q, want every cell marked reconstructed", tab.Name, roll, f.Source)
			}
			for c := range tab.Cols {
				r := tab.Rows[roll][c]
				if roll > tab.Rolls[0] && value(r, false) < value(tab.Rows[roll-1][c], false) {
					t.Errorf("%s: roll %d column %s (%s) is worse for the attacker than roll %d", tab.Name, roll, tab.Cols[c].Label, r.Text, roll-1)
				}
				if c > 0 && value(tab.Rows[roll][c-1], false) < value(r, false) {
					t.Errorf("%s: roll %d, column %s is worse than %s", tab.Name, roll, tab.Cols[c-1].Label, tab.Cols[c].Label)
				}
				if r.First < r.Retreat {
					t.Errorf("%s roll %d column %s: the first-turn retreat (%d) is shorter than the usual one (22: surprise)", tab.Name, roll, tab.Cols[c].Label, r.First)
				}
			}
		}
	}
	for roll := a.Rolls[0]; roll <= a.Rolls[1]; roll++ {
		for c := range a.Cols {
			ar, ir := a.Rows[roll][c], im.Rows[roll][c]
			n := func(x int) int { // doubled, X as 1.5
				if x == X {
					return 3
				}
				return 2 * x
			}
			if n(ar.Att) > n(ir.Att) || n(ar.Def) < n(ir.Def) || ar.Retreat < ir.Retreat {
				t.Errorf("roll %d column %s: assault %s is worse for the attacker than improvised %s (20.2)", roll, a.Cols[c].Label, ar.Text, ir.Text)
			}
			if value(ar, false) > value(ir, false) {
				better = true
			}
		}
	}
	if !better {
		t.Error("the assault table is nowhere more favourable to the attacker (20.2)")
	}
}

// TestParseCombatResult reads the cell forms of 20.4.7 and refuses others.
func TestParseCombatResult(t *testing.T) {
	tests := []struct {
		in   string
		want CombatResult
	}{
		{"1/2d:2(3)", CombatResult{Att: 1, Def: 2, DefD: true, Retreat: 2, First: 3}},
		{"Xd/0", CombatResult{Att: X, AttD: true}},
		{"X/X:1", CombatResult{Att: X, Def: X, Retreat: 1, First: 1}},
		{"0/1:0(1)", CombatResult{Def: 1, First: 1}},
	}
	for _, tt := range tests {
		got, err := ParseCombatResult(tt.in)
		tt.want.Text = tt.in
		if err != nil || got != tt.want {
			t.Errorf("%q: %+v %v, want %+v", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "1", "1/", "Y/1", "1/1:", "1/1:(2)", "12/1", "1/1:1(2", "1/1 d"} {
		if _, err := ParseCombatResult(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestCombatTableErrors: broken data is refused with the file and line.
func TestCombatTableErrors(t *testing.T) {
	good, err := dataFS.ReadFile("data/combat.txt")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		edit func(string) string
		want string
	}{
		{func(s string) string { return strings.Replace(s, "odds     6-1", "odds     1-2 6-1", 1) }, "highest odds"},
		{func(s string) string { return strings.Replace(s, "roll 3 ", "roll 4 ", 1) }, "without a gap"},
		{func(s string) string { return strings.Replace(s, "2d/0", "2q/0", 1) }, "want A/D"},
		{func(s string) string { return strings.Replace(s, "table improvised", "table other", 1) }, "table improvised"},
		{func(s string) string { return strings.Replace(s, "2d/0", "2d/0 1/1", 1) }, "one result per column"},
	}
	for _, tt := range tests {
		_, err := parseCombatTables("combat.txt", []byte(tt.edit(string(good))))
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "combat.txt") {
			t.Errorf("error %v, want one naming combat.txt and saying %q", err, tt.want)
		}
	}
}

// FuzzParseCombatResult: the cell parser never panics and what it accepts reads back.
func FuzzParseCombatResult(f *testing.F) {
	for _, s := range []string{"1/2d:2(3)", "X/X", "2d/0", "0/3d:4(5)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseCombatResult(s)
		if err == nil && r.Text != s {
			t.Errorf("%q read as %q", s, r.Text)
		}
	})
}
