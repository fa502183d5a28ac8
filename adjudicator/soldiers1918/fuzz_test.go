package soldiers1918_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

// FuzzCheck feeds arbitrary order text to the Soldiers 1918 order parser in every set-up
// phase and for both sides: it must never panic, must give every line a verdict, and
// every accepted order must read back from its canonical text to the same order.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"PLOT TURN 1 4300x3, 4400x3, 4500x2, 4600x4",
		"PLOT TURN 2\n2301x4 2302x4\n2303x4\nPLOT COMPLETE",
		"PLOT NONE\nCANCEL BOMBARDMENT",
		"SETUP DEFAULT",
		"PLACE 3801 2 INF 1 HMG\nPLACE 2808 3 INF",
		"PLACE 1000 4 ARMY\nPLACE 1100 3 ARMY 1 YORK",
		"MOVE 2301-2302\nFIRE 2305",
		"PLOT TURN 7 4300x3\nPLOT 9999x99",
		"OVERSTACK CARNAGE\nOVERSTACK 2305 1 ARMY TO 2306\nOVERSTACK 2307 INF MOVE",
		"OVERSTACK 2305 2 USMC CARNAGE\nOVERSTACK MOVE",
		"FIRE 2510 FROM 2511 2509 ADVANCE USMC",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	rs, err := soldiers1918.New()
	if err != nil {
		f.Fatal(err)
	}
	setup, _ := rs.New(nil)
	states := []rules.State{setup}
	// The movement and fire phases try orders on a copy of the map: fuzz those too.
	for _, phase := range []string{"VII", "VIII", "IX", "X"} {
		st, err := soldiers1918.CaseAdapter{Rules: rs}.State([]string{
			"turn 1", "phase " + phase, "quality 3", "visibility 8", "cowed 2302",
			"unit us-army 2300 3", "unit york 2300", "unit usmc 3000 4", "unit us-army 2319 2",
			"unit de-inf 2302 2", "unit de-hmg 2401 1", "unit de-inf 1911 1", "carnage de-inf 2301",
		})
		if err != nil {
			f.Fatal(err)
		}
		states = append(states, st)
	}
	for _, s := range []string{"MOVE 2300-2301-2401", "MOVE 4 ARMY 2300-2301", "MOVE 2 ARMY 2319-EXIT", "MOVE USMC 3000-3001-3002-3003",
		"FIRE 2302 FROM 2300 2 ARMY 2300 YORK ADVANCE ARMY", "FIRE 2300 FROM 2302 2401 HMG", "MOVE 2302-2303\nMOVE 2302-2303", "FIRE 2302 FROM 2300\nFIRE 2302 FROM 3000"} {
		f.Add(s, true)
		f.Add(s, false)
	}
	f.Fuzz(func(t *testing.T, text string, american bool) {
		side := rules.Side("de")
		if american {
			side = "us"
		}
		lines, _ := orders.Split(text)
		for _, st := range states {
			checkOne(t, rs, st, side, lines, text)
		}
	})
}

func checkOne(t *testing.T, rs *soldiers1918.Rules, st rules.State, side rules.Side, lines []orders.Line, text string) {
	{
		checked := rs.Check(st, side, lines, nil)
		// One verdict a line; a line may carry further refusals (a placement's totals).
		first := map[int]bool{}
		for _, c := range checked {
			if first[c.Line.No] && c.OK {
				t.Fatalf("line %d has a second verdict that is not a refusal, for %q", c.Line.No, text)
			}
			first[c.Line.No] = true
		}
		if len(first) != len(lines) {
			t.Fatalf("%d lines, %d lines with a verdict for %q", len(lines), len(first), text)
		}
		for _, c := range checked {
			if !c.OK && c.Reason == "" {
				t.Fatalf("line %q refused without a reason", c.Line.Text)
			}
			for _, o := range c.Orders {
				back, _ := orders.Split(o.Text)
				again := rs.Check(st, side, back, nil)
				if len(again) == 0 || !again[0].OK || len(again[0].Orders) != 1 || again[0].Orders[0].Text != o.Text {
					if o.Kind == "complete" { // needs the six plots beside it
						continue
					}
					t.Fatalf("canonical text %q does not read back: %+v", o.Text, again)
				}
				if strings.TrimSpace(o.Text) == "" || o.Summary == "" {
					t.Fatalf("order without text or summary: %+v", o)
				}
			}
		}
	}
}

// FuzzResolve resolves whatever movement and fire orders the order check accepts, with
// any dice: it must never fail or panic, no hex may end up holding live units of both
// sides (9.6), and the side that moved must be within its stacking limits (6.1-6.4).
func FuzzResolve(f *testing.F) {
	rs, err := soldiers1918.New()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{"MOVE 2300-2301-2401", "MOVE 4 ARMY 2300-2301\nMOVE USMC 3000-3001", "MOVE 2 ARMY 2319-EXIT",
		"FIRE 2302 FROM 2300 2401", "FIRE 2401 FROM 2300", "FIRE 2300 FROM 2302 2401 HMG", "MOVE 2302-2303-2304", "MOVE 2401-2400"} {
		for phase := 0; phase < 4; phase++ {
			f.Add(s, uint8(phase), []byte{1, 2, 3, 4, 5, 6})
		}
	}
	phases := []string{"VII", "VIII", "IX", "X"}
	f.Fuzz(func(t *testing.T, text string, p uint8, rolls []byte) {
		phase := phases[int(p)%len(phases)]
		st, err := soldiers1918.CaseAdapter{Rules: rs}.State([]string{
			"turn 1", "phase " + phase, "quality 3", "visibility 8", "cowed 2303", "unit de-inf 2303",
			"unit us-army 2300 3", "unit york 2300", "unit usmc 3000 4", "unit us-army 2319 2", "unit us-army 2400 4",
			"unit de-inf 2302 2", "unit de-hmg 2401 1", "unit de-inf 1911 1", "carnage de-inf 2301",
		})
		if err != nil {
			t.Fatal(err)
		}
		side := rules.Side("us")
		if phase == "VIII" || phase == "X" {
			side = "de"
		}
		lines, _ := orders.Split(text)
		var inputs []rules.Order
		for _, c := range rs.Check(st, side, lines, nil) {
			if !c.OK {
				return
			}
			inputs = append(inputs, c.Orders...)
		}
		values := make([]int, 0, len(rolls)+64)
		for _, r := range rolls {
			values = append(values, int(r%6)+1)
		}
		for len(values) < 64 {
			values = append(values, 4)
		}
		out, err := rs.Resolve(st, inputs, dice.NewScript(values...))
		if err != nil {
			t.Fatalf("Resolve(%q) in phase %s: %v", text, phase, err)
		}
		end := out.State.(*soldiers1918.State)
		sides := map[string]rules.Side{}
		count := map[string]int{}
		for _, u := range end.Units {
			if u.Carnage || u.Hex == "exit" {
				continue
			}
			s := rules.Side("us")
			if strings.HasPrefix(u.Kind, "de-") {
				s = "de"
			}
			if prev, ok := sides[u.Hex]; ok && prev != s {
				t.Fatalf("after %q, %s holds live units of both sides", text, u.Hex)
			}
			sides[u.Hex] = s
			if s == side {
				count[u.Hex]++
			}
		}
		if phase == "VII" || phase == "X" {
			for h, n := range count {
				if n > 4 {
					t.Fatalf("after %q, %s holds %d units of the side that moved", text, h, n)
				}
			}
		}
	})
}

// FuzzParseScenarioMap feeds arbitrary map files to ParseScenario (the kit's reader,
// then the Soldiers checks): it must never panic, and a map it accepts keeps what the
// rules need of it (3.5, 3.6, 4.1).
func FuzzParseScenarioMap(f *testing.F) {
	data, err := os.ReadFile("data/map.txt")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(data))
	f.Add(strings.Replace(string(data), "feature outpost 3801", "feature outpost 3801 3800", 1))
	f.Add(strings.Replace(string(data), "set exit", "# set exit", 1))
	f.Add("columns 10-11 | printed 4.1\nrows all 00-02 | reconstructed: x\nparity even-columns-shifted | reconstructed: x\n" +
		"default open | reconstructed: x\nterrain nomansland 1000 1100 | printed 3.6\nfeature main 1002 1102 | reconstructed: x\n" +
		"feature wire 1001 1000 | reconstructed: x\nset exit 1002 1102 | printed 4.1\n")
	f.Fuzz(func(t *testing.T, text string) {
		m := scDataFS(t)
		m["map.txt"] = &fstest.MapFile{Data: []byte(text)}
		s, err := soldiers1918.ParseScenario(m)
		if err != nil {
			return
		}
		for _, h := range s.Hexes() {
			info := s.Hex(h)
			if info.Has(soldiers1918.NoMansLand) != (h.Row == 0) {
				t.Errorf("hex %s: No Man's Land %v in row %02d (3.6)", h, info.Has(soldiers1918.NoMansLand), h.Row)
			}
			if len(info.Features) == 0 || (len(info.Features) == 1 && info.Has(soldiers1918.Wire)) {
				t.Errorf("hex %s: features %v, want a terrain besides wire", h, info.Features)
			}
			if info.Outpost && !info.Has(soldiers1918.MainTrench) {
				t.Errorf("hex %s: an outpost that is not a Main Trench hex (3.5)", h)
			}
			if _, ok := s.MainTrenchRow(h.Col); !ok {
				t.Errorf("column %02d has no Main Trench line", h.Col)
			}
		}
	})
}
