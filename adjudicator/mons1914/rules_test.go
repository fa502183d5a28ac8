package mons1914_test

import (
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func newRules(t testing.TB) *mons1914.Rules {
	t.Helper()
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func submit(r *mons1914.Rules, st rules.State, side rules.Side, text string, filed []rules.Order) ([]rules.Checked, []rules.Order) {
	lines, _ := orders.Split(text)
	cs := r.Check(st, side, lines, filed)
	var out []rules.Order
	for _, c := range cs {
		out = append(out, c.Orders...)
	}
	return cs, out
}

// TestNewGame: 3.1's set-up and 3.2's initial control.
func TestNewGame(t *testing.T) {
	r := newRules(t)
	st, err := r.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	a := mons1914.CaseAdapter{Rules: r}
	lines := a.Describe(st)
	var onMap, waiting, german int
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, "unit "):
			onMap++
		case strings.HasPrefix(l, "wait "):
			waiting++
		case strings.HasPrefix(l, "german "):
			german++
		}
	}
	if onMap != 53 || waiting != 45 || german != 0 {
		t.Errorf("New: %d units on the map, %d waiting, %d German hexes; want 53 British on their printed hexes (3.1), 45 German to enter (8.0), none German (3.2)", onMap, waiting, german)
	}
	if !slices.Contains(lines, "unit 1/NF 2908 2") || !slices.Contains(lines, "phase gm") || !slices.Contains(lines, "turn 1") {
		t.Errorf("New: %v", lines)
	}
	if _, err := r.New(rules.Options{"york": true}); err == nil {
		t.Error("New with an unknown option: no error")
	}
	raw, err := r.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	back, err := r.Decode(raw)
	if err != nil || !slices.Equal(a.Describe(back), lines) {
		t.Errorf("Decode(Encode()) differs: %v", err)
	}
}

// TestFogOfWar: 6.6, "Neither player may look beneath the top unit of any enemy stack
// until such time as the combat resolution procedure calls for it."
func TestFogOfWar(t *testing.T) {
	r := newRules(t)
	a := mons1914.CaseAdapter{Rules: r}
	st, err := a.State([]string{"unit 1/SF 2708", "unit RFA27 2708", "unit III/12/5 2707", "dead 1/NF surrounded", "exited 2/DG", "wait IV/26/7"})
	if err != nil {
		t.Fatal(err)
	}
	de := r.Map(st, mons1914.DE)
	bef := r.Map(st, mons1914.BEF)
	if !strings.Contains(de, "2708 B: 1/SF and more: a stack (6.6)") || strings.Contains(de, "RFA27") {
		t.Errorf("German map shows more than the top unit of the British stack:\n%s", tail(de))
	}
	for _, want := range []string{"Exited (4.4), 1: 2/DG", "Dead, surrounded (4.5: count twice), 1: 1/NF"} {
		if !strings.Contains(de, want) || !strings.Contains(bef, want) {
			t.Errorf("a map lacks %q", want)
		}
	}
	// Off the map, the German knows his own units still to enter; the British know
	// 8.2's schedule only (TestBritishNeverSeeBeneathTheTop).
	if !strings.Contains(de, "Still to enter (8.2), 1: IV/26/7") || strings.Contains(bef, "IV/26/7") || !strings.Contains(r.Status(st, mons1914.BEF), "German entry (8.2;") {
		t.Errorf("units still to enter: German map\n%s\nBritish map\n%s", tail(de), tail(bef))
	}
	if !strings.Contains(bef, "2708 B: 1/SF(2), RFA27") || !strings.Contains(bef, "2707 G: III/12/5") {
		t.Errorf("British map:\n%s", tail(bef))
	}
	// The owner chooses the top unit (6.6).
	_, filed := submit(r, st, mons1914.BEF, "TOP 2708 RFA27", nil)
	if len(filed) != 1 {
		t.Fatalf("TOP not accepted: %v", filed)
	}
	_, moves := submit(r, st, mons1914.DE, "MOVE NONE", filed)
	out, err := r.Resolve(st, append(filed, moves...), dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	de = r.Map(out.State, mons1914.DE)
	if !strings.Contains(de, "2708 B: RFA27 and more") || strings.Contains(de, "1/SF") {
		t.Errorf("German map after TOP 2708 RFA27:\n%s", tail(de))
	}
	for _, m := range []string{de, bef} {
		for i, l := range strings.Split(m, "\n") {
			if len(l) > 78 {
				t.Errorf("map line %d is %d columns", i+1, len(l))
			}
		}
	}
	// Move orders are told to their own side only; the other side is told what its map
	// shows of them, the top unit of a stack where it was and where it is (6.6).
	_, mv := submit(r, st, mons1914.DE, "MOVE III/12/5 2707-2706", nil)
	out, err = r.Resolve(st, mv, dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, e := range out.Events {
		switch {
		case !e.VisibleTo(mons1914.BEF):
		case strings.Contains(e.Text, "MOVE III/12/5"):
			t.Errorf("the British player is told of a German move order: %q", e.Text)
		case strings.Contains(e.Text, "III/12/5 2707 to 2706"):
			seen = true
		}
	}
	if !seen || !strings.Contains(r.Map(out.State, mons1914.BEF), "2706 G: III/12/5") {
		t.Errorf("the British player is not told the German move his map shows: %v", out.Events)
	}
}

func tail(s string) string {
	if i := strings.Index(s, "Units (yours"); i >= 0 {
		return s[i:]
	}
	return s
}

// TestWholeGameByDefaults plays 14 turns in which nobody sends an order: German units
// enter by 8.3's default, nothing else happens, and the last phase gives 4.3's verdict.
func TestWholeGameByDefaults(t *testing.T) {
	r := newRules(t)
	st, _ := r.New(nil)
	var seed dice.Seed
	for i := 0; i < 1000 && !st.Over(); i++ {
		var filed []rules.Order
		for _, side := range r.Waiting(st, nil) {
			filed = append(filed, r.Defaults(st, side, filed)...)
		}
		if len(r.Waiting(st, filed)) != 0 {
			t.Fatalf("turn %d phase %s: the defaults do not satisfy the phase", st.Turn(), st.Phase())
		}
		out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewStream(seed, dice.Context{Game: "t", Turn: st.Turn(), Phase: st.Phase()}))
		if err != nil {
			t.Fatal(err)
		}
		st = out.State
	}
	if !st.Over() || st.Turn() != 14 {
		t.Fatalf("after the defaults: turn %d phase %s", st.Turn(), st.Phase())
	}
	status := r.Status(st, mons1914.DE)
	// No exits, no dead, Bavai British: one VP (4.3), the British win.
	if !strings.Contains(strings.Join(strings.Fields(status), " "), "German VP: 1. The British player wins.") {
		t.Errorf("verdict: %s", status)
	}
}

func FuzzCheck(f *testing.F) {
	for _, s := range []string{
		"MOVE IX/75/17 4700-4701-4702", "MARCH III/8/5 3100-3101", "MOVE 1/NF 1926-1927-OFF",
		"BOMBARD 2708 WITH III/FA18/5 LOSSES 1/SF", "MELEE 2708 WITH III/8/5 ADVANCE III/8/5",
		"SEQUENCE fight/move", "THEN", "TOP 2708 1/SF", "LOSSES 1/SF", "PASS", "MOVE NONE", "COMBAT NONE",
		"MOVE 1/NF 2908-", "MELEE 2708 WITH", "BOMBARD x WITH y", "DEFFIRE SPREAD", "DEFFIRE",
		"MELEE 2708 WITH III/8/5 ADVANCE III/8/5 BEYOND 2709 III/8/5", "MELEE 2708 WITH III/8/5 ADVANCE BEYOND",
		"MELEE 4006 WITH IX/31/18 16/IX BEYOND 4106 IX/31/18 BEYOND 4007 16/IX", "MELEE 4006 WITH IX/31/18 BEYOND",
		"LOSSES 1/SF:1 4/RF:1 1/SF", "LOSSES 1/SF:", "LOSSES :1", "HIT IX/31/18:2", "BOMBARD 2708 WITH 2/III LOSSES 1/SF:1",
		"DEFFIRE 1/NF AT 4105", "DEFFIRE 1/NF 2/DG HOLD", "DEFFIRE 1/NF DEFAULT", "DEFFIRE AT 4105", "DEFFIRE 1/NF AT",
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	r := newRules(f)
	st, _ := r.New(nil)
	f.Fuzz(func(t *testing.T, text string, german bool) {
		side := mons1914.BEF
		if german {
			side = mons1914.DE
		}
		cs, filed := submit(r, st, side, text, nil)
		for _, c := range cs {
			if !c.OK {
				return
			}
		}
		if _, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript(1, 2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6)); err != nil {
			t.Fatalf("Resolve after an accepted %q: %v", text, err)
		}
	})
}

// TestMapGolden pins the German player's map at the start of the game (go test -update
// rewrites testdata/map-de-start.golden; review the diff).
func TestMapGolden(t *testing.T) {
	r := newRules(t)
	st, _ := r.New(nil)
	got := r.Map(st, mons1914.DE)
	path := "testdata/map-de-start.golden"
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if got != string(want) {
		t.Errorf("Map(start, de) differs from %s; run go test -update and review the diff", path)
	}
}

func TestCaseAdapterStateErrors(t *testing.T) {
	a := mons1914.CaseAdapter{Rules: newRules(t)}
	for _, tt := range []struct{ line, want string }{
		{"turn 15", "want turn 1-14"},
		{"phase xx", "want phase gm, gc, b1, b2 or over"},
		{"sequence up/down", "want sequence"},
		{"unit 9/XX 4005", "no unit 9/XX"},
		{"unit 1/NF 9999", "9999 is not a hex of the map"},
		{"unit 1/NF 4005 3", "steps: want 1-2"},
		{"german 0000", "0000 is not a hex of the map"},
		{"weather fine", "unknown state line"},
	} {
		if _, err := a.State([]string{tt.line}); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("State(%q) error = %v, want %q", tt.line, err, tt.want)
		}
	}
	if _, err := (mons1914.CaseAdapter{}).State(nil); err == nil {
		t.Error("State() without Rules: no error")
	}
}

// TestRefusalsStayWithTheirSide: an order not carried out is told to its own side only,
// since its reason may name units the enemy has not seen (6.6).
func TestRefusalsStayWithTheirSide(t *testing.T) {
	r := newRules(t)
	a := mons1914.CaseAdapter{Rules: r}
	st, err := a.State([]string{"phase gm", "unit IX/FA9/18 4401", "unit IX/31/18 4005", "unit 1/NF 4006"})
	if err != nil {
		t.Fatal(err)
	}
	_, filed := submit(r, st, mons1914.DE, "MARCH IX/FA9/18 4401-4402\nBOMBARD 4006 WITH IX/FA9/18", nil)
	out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	out, err = r.Resolve(out.State, r.Inputs(out.State, filed), dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range out.Events {
		if strings.Contains(e.Text, "Not carried out") {
			found = true
			if e.VisibleTo(mons1914.BEF) {
				t.Errorf("the British player is told %q", e.Text)
			}
		}
	}
	if !found {
		t.Error("no Not carried out event")
	}
}

// TestKeywords: every order HELP shows starts with a keyword the desk is told of, and
// every keyword is one the grammar answers (not "unknown order").
func TestKeywords(t *testing.T) {
	r := newRules(t)
	help, err := os.ReadFile("../../templates/mons1914-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	kw := r.Keywords()
	for _, l := range strings.Split(string(help), "\n") {
		if !strings.HasPrefix(l, "  ") || strings.HasPrefix(l, "   ") {
			continue
		}
		f := strings.Fields(l)
		if len(f) > 1 && f[0] == strings.ToUpper(f[0]) && !slices.Contains(kw, f[0]) {
			t.Errorf("HELP shows %q, whose keyword %s is not in Keywords()", l, f[0])
		}
	}
	st, _ := r.New(nil)
	for _, k := range kw {
		cs, _ := submit(r, st, mons1914.DE, k, nil)
		if len(cs) != 1 || strings.Contains(cs[0].Reason, "unknown order") && !strings.Contains(cs[0].Reason, "bombard with BOMBARD") {
			t.Errorf("keyword %s: %+v", k, cs)
		}
	}
}

// TestTopIsTheOwners: 6.6, "Neither player may look beneath the top unit of any enemy
// stack": TOP arranges the giver's own stack. A TOP naming an enemy unit would be a
// probe (the enemy stack shows that unit on top if it is there), and would override
// the owner's choice.
func TestTopIsTheOwners(t *testing.T) {
	r, st := topState(t)
	cs, probe := submit(r, st, mons1914.DE, "TOP 2708 RFA27", nil)
	if len(probe) != 0 || len(cs) != 1 || cs[0].OK {
		t.Errorf("German TOP naming a British unit: accepted (%+v); want refused (6.6)", cs)
	}
	// Even on file (filed before the check refused it), it shows the German nothing
	// beneath the top unit.
	probe = []rules.Order{{Phase: "standing", Side: mons1914.DE, Key: "top 2708", Kind: "standing", Text: "TOP 2708 RFA27"}}
	_, moves := submit(r, st, mons1914.DE, "MOVE NONE", nil)
	out, err := r.Resolve(st, append(probe, moves...), dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	if de := r.Map(out.State, mons1914.DE); strings.Contains(de, "RFA27") {
		t.Errorf("German map after a German TOP 2708 RFA27 shows the unit beneath the top:\n%s", tail(de))
	}
}

// TestTopStaleOrderOfTheOtherSide: 6.6 again. A TOP order stays on file when its stack
// moves on; when the enemy later stacks in that hex and chooses his own top unit, the
// stale order must not undo his choice, or his opponent's map would show the unit he
// chose to keep beneath.
func TestTopStaleOrderOfTheOtherSide(t *testing.T) {
	// 1/SF arrived first in 2708; the British want RFA27 on top. The German TOP for
	// 2708 is from a turn when a German stack stood there.
	r, st := topState(t)
	_, bef := submit(r, st, mons1914.BEF, "TOP 2708 RFA27", nil)
	_, de := submit(r, st, mons1914.DE, "TOP 2708 III/12/5", nil)
	_, moves := submit(r, st, mons1914.DE, "MOVE NONE", nil)
	// The desk hands the orders on file sorted by phase, side and key: "bef" first.
	in := append(append(bef, de...), moves...)
	out, err := r.Resolve(st, in, dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	if m := r.Map(out.State, mons1914.DE); !strings.Contains(m, "2708 B: RFA27 and more") || strings.Contains(m, "1/SF") {
		t.Errorf("German map: the British choice of RFA27 on top of 2708 is undone by a stale German TOP:\n%s", tail(m))
	}
}

// topState is a British stack in 2708 (1/SF arrived first, then RFA27) beside a
// German regiment in 2707.
func topState(t *testing.T) (*mons1914.Rules, rules.State) {
	t.Helper()
	r := newRules(t)
	st, err := mons1914.CaseAdapter{Rules: r}.State([]string{"unit 1/SF 2708", "unit RFA27 2708", "unit III/12/5 2707"})
	if err != nil {
		t.Fatal(err)
	}
	return r, st
}
