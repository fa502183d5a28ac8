package soissons1918

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// TestRetreatCases runs the cases of testdata/retreat: the conformance format, with
// the combat's result given by "call:" lines in ORDERS, so that retreats (21) and the
// advance after combat (19.5) are pinned apart from the combat tables (20):
//
//	call: RETREAT <from> <n> <attacker hex>,... assault|improvised
//	call: END                      the segment's last combat is resolved (endRetreats)
//	call: CONVERT <unit>,... <losses>  asks the 21.1 choice; the answer is an event
//
// Other ORDERS lines ("de: RETREAT 17/42 1513") go through Rules.Check as in a mail:
// standing orders are filed as Resolve reads them, the others are carried out at
// once, in order (their refusals are matched by "refused:" lines).
func TestRetreatCases(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	cases, err := conformance.Load(os.DirFS("testdata/retreat"), "*.txt")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := runRetreatCase(r, c); err != nil {
				t.Errorf("%s: %v", c.Pos(), err)
			}
		})
	}
}

func runRetreatCase(r *Rules, c conformance.Case) error {
	a := CaseAdapter{Rules: r}
	s, err := a.State(c.State)
	if err != nil {
		return fmt.Errorf("STATE: %w", err)
	}
	st := s.(*State)
	script := dice.NewScript(c.Dice...)
	g := newGame(r.sc, st)
	g.d, g.moved, g.used, g.standing = script, map[string]bool{}, map[string]int{}, map[standingID]string{}
	var problems, refusals []string
	for no, l := range c.Orders {
		side, text, _ := strings.Cut(l, ":")
		side, text = strings.TrimSpace(side), strings.TrimSpace(text)
		if side == "call" {
			if err := retreatCall(g, text); err != nil {
				problems = append(problems, fmt.Sprintf("call %q: %v", text, err))
			}
			continue
		}
		line := orders.Line{No: no + 1, Text: text, Fields: strings.Fields(text)}
		for _, ch := range r.Check(st, rules.Side(side), []orders.Line{line}, nil) {
			if !ch.OK {
				refusals = append(refusals, ch.Reason)
				continue
			}
			for _, o := range ch.Orders {
				if o.Phase == phaseStanding {
					g.standing[standingID{o.Side, o.Key}] = o.Text
				}
			}
		}
		it := r.sc.parseLine(line)
		if it.err == nil && it.kind != kRetreat && it.kind != kConvert && it.kind != kSpent && it.kind != kLosses {
			if err := g.apply(rules.Side(side), it); err != nil {
				refusals = append(refusals, err.Error())
			}
		}
	}
	var events []string
	for _, e := range g.Events {
		events = append(events, e.Text)
	}
	have := a.Describe(st)
	norm := func(s string) string { return strings.Join(strings.Fields(s), " ") }
	for i := range have {
		have[i] = norm(have[i])
	}
	var wantRefused []string
	for _, e := range c.Expect {
		k, v, _ := strings.Cut(e, ":")
		v = strings.TrimSpace(v)
		switch k {
		case "event":
			if !slices.ContainsFunc(events, func(x string) bool { return strings.Contains(x, v) }) {
				problems = append(problems, fmt.Sprintf("no event contains %q", v))
			}
		case "absent":
			if slices.Contains(have, norm(v)) {
				problems = append(problems, fmt.Sprintf("state has %q", v))
			}
		case "refused":
			wantRefused = append(wantRefused, v)
			if !slices.ContainsFunc(refusals, func(x string) bool { return strings.Contains(x, v) }) {
				problems = append(problems, fmt.Sprintf("nothing refused with %q", v))
			}
		default:
			if !slices.Contains(have, norm(e)) {
				problems = append(problems, fmt.Sprintf("state has no line %q", e))
			}
		}
	}
	if len(wantRefused) == 0 && len(refusals) > 0 {
		problems = append(problems, fmt.Sprintf("refused: %q", refusals))
	}
	if err := script.Err(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s\nevents:\n  %s\nstate:\n  %s", strings.Join(problems, "\n"),
			strings.Join(events, "\n  "), strings.Join(have, "\n  "))
	}
	return nil
}

// retreatCall carries out one "call:" line of a retreat case.
func retreatCall(g *game, text string) error {
	f := strings.Fields(text)
	switch {
	case len(f) == 5 && f[0] == "RETREAT":
		from, err := hex.Parse(f[1])
		if err != nil {
			return err
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		var att []hex.Hex
		for _, w := range strings.Split(f[3], ",") {
			h, err := hex.Parse(w)
			if err != nil {
				return err
			}
			att = append(att, h)
		}
		g.retreat(RetreatCall{From: from, Attackers: att, N: n, Segment: f[4]})
	case len(f) == 1 && f[0] == "END":
		g.endRetreats()
	case len(f) == 3 && f[0] == "CONVERT":
		var us []*Unit
		for _, id := range strings.Split(f[1], ",") {
			u := g.st.unit(id)
			if u == nil {
				return fmt.Errorf("no unit %s", id)
			}
			us = append(us, u)
		}
		n, err := strconv.Atoi(f[2])
		if err != nil {
			return err
		}
		yes, why := g.convertLoss(us, n)
		g.Event("21.1", "convert: %v, %s", yes, why)
	default:
		return fmt.Errorf("want RETREAT <from> <n> <attackers> <segment>, END or CONVERT <units> <losses>")
	}
	return nil
}

// TestStackingWarning checks that the order check accepts a move that leaves its hex
// over-stacked (16: the owner then loses the excess) but warns of it, and does not
// warn when a later move of the same mail brings the hex back within the limits.
func TestStackingWarning(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	st0, err := CaseAdapter{Rules: r}.State([]string{"turn 2", "phase de2", "unit 17/42 2121", "unit 32/241 2221", "unit 471/241 2221", "unit 131/42 2321"})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		lines []string
		warn  []bool
	}{
		{[]string{"MOVE 17/42 2121-2221"}, []bool{true}},
		{[]string{"MOVE 17/42 2121-2221", "MOVE 32/241 2221-2222"}, []bool{false, false}},
		{[]string{"MOVE 17/42 2121-2122"}, []bool{false}},
	} {
		var ls []orders.Line
		for i, l := range tc.lines {
			ls = append(ls, orders.Line{No: i + 1, Text: l, Fields: strings.Fields(l)})
		}
		for i, ch := range r.Check(st0, DE, ls, nil) {
			if !ch.OK {
				t.Errorf("%q refused: %s", ch.Line.Text, ch.Reason)
			}
			if got := strings.Contains(ch.Reason, "WARNING"); got != tc.warn[i] {
				t.Errorf("%v: %q warns = %v, want %v (%s)", tc.lines, ch.Line.Text, got, tc.warn[i], ch.Reason)
			}
		}
	}
}

// FuzzRetreatOrders feeds arbitrary text to the RETREAT, CONVERT, SPENT and ADVANCE
// parser and the order check: neither may panic, and an accepted line's canonical text
// reads back as itself (what the players see in the order check is what is filed).
func FuzzRetreatOrders(f *testing.F) {
	for _, s := range []string{"RETREAT 17/42 1513,1613", "RETREAT 17/42,131/42 DEFAULT", "RETREAT ALL COVER",
		"CONVERT ALL", "CONVERT 17/42 no", "SPENT T1 1DM,2US", "SPENT T1 REMOVE", "ADVANCE 1US", "ADVANCE 1US 0908",
		"RETREAT ALL", "CONVERT", "SPENT 1US 1DM", "RETREAT 17/42 9999"} {
		f.Add(s)
	}
	r, err := New()
	if err != nil {
		f.Fatal(err)
	}
	st, err := r.New(nil)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, text string) {
		fields := strings.Fields(text)
		if len(fields) == 0 {
			return
		}
		line := orders.Line{No: 1, Text: text, Fields: fields}
		it := r.sc.parseLine(line)
		if it.err == nil {
			again := r.sc.parseLine(orders.Line{No: 1, Text: it.text, Fields: strings.Fields(it.text)})
			if again.err != nil || again.text != it.text {
				t.Errorf("%q reads as %q, which reads as %q (%v)", text, it.text, again.text, again.err)
			}
		}
		r.Check(st, EN, []orders.Line{line}, nil)
		r.Check(st, DE, []orders.Line{line}, nil)
	})
}

// TestMustCross checks the hexes every shortest path crosses (12.1.2) against the
// paths themselves, listed one by one, for every pair of hexes up to five apart in a
// corner and the middle of the map.
func TestMustCross(t *testing.T) {
	r, err := New()
	if err != nil {
		t.Fatal(err)
	}
	g := &game{sc: r.sc}
	gr := r.sc.Map.Grid
	for _, a := range []hex.Hex{hex.MustParse("0101"), hex.MustParse("1615"), hex.MustParse("1710"), hex.MustParse("3422")} {
		for _, b := range r.sc.Map.Hexes() {
			if gr.Distance(a, b) > 5 {
				continue
			}
			var all [][]hex.Hex
			var walk func(cur hex.Hex, acc []hex.Hex)
			walk = func(cur hex.Hex, acc []hex.Hex) {
				if cur == b {
					all = append(all, acc)
					return
				}
				for _, n := range gr.Neighbours(cur) {
					if r.sc.Map.OnMap(n) && gr.Distance(n, b) == gr.Distance(cur, b)-1 {
						next := append(slices.Clone(acc), n)
						walk(n, next)
					}
				}
			}
			walk(a, nil)
			var want []hex.Hex
			for _, h := range r.sc.Map.Hexes() {
				if h == b || h == a {
					continue
				}
				every := len(all) > 0
				for _, p := range all {
					every = every && slices.Contains(p, h)
				}
				if every {
					want = append(want, h)
				}
			}
			got := g.mustCross(a, b)
			slices.SortFunc(got, hex.Compare)
			slices.SortFunc(want, hex.Compare)
			if !slices.Equal(got, want) {
				t.Errorf("mustCross(%s, %s) = %v, want %v", a, b, got, want)
			}
		}
	}
}
