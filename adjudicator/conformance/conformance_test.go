package conformance_test

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
)

func parse(t *testing.T, text string) []conformance.Case {
	t.Helper()
	cases, err := conformance.Parse(strings.NewReader(text), "cases.txt")
	if err != nil {
		t.Fatalf("Parse() error:\n%v", err)
	}
	return cases
}

func TestParse(t *testing.T) {
	const text = `# a corpus
CASE first          # trailing comment
RULE 12.2, 10.8
# a comment inside
STATE
  turn 1
    phase I
ORDERS
  us: PLOT TURN 1 1911x6   # the plot
  us:PLOT TURN 2 NONE
  ---
  de:  PLOT TURN 2 NONE
DICE 1 4
  6, 2
EXPECT
  unit de-inf 1911 1
  event: odds 3:1
  phase: II
END

CASE second
RULE 3.4
EXPECT
  quality 3
END
`
	got := parse(t, text)
	want := []conformance.Case{{
		Name: "first", Rule: "12.2, 10.8", File: "cases.txt", Line: 2,
		State:  []string{"turn 1", "phase I"},
		Orders: []string{"us: PLOT TURN 1 1911x6", "us: PLOT TURN 2 NONE", "---", "de: PLOT TURN 2 NONE"},
		Dice:   []int{1, 4, 6, 2},
		Expect: []string{"unit de-inf 1911 1", "event: odds 3:1", "phase: II"},
	}, {
		Name: "second", Rule: "3.4", File: "cases.txt", Line: 21,
		Expect: []string{"quality 3"},
	}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse() =\n%#v\nwant\n%#v", got, want)
	}
	if p := got[1].Pos(); p != "cases.txt:21" {
		t.Errorf("Pos() = %q, want cases.txt:21", p)
	}
}

func TestParseErrors(t *testing.T) {
	const ok = "RULE 1\nEXPECT\n  x\nEND\n"
	tests := []struct{ name, text, want string }{
		{"outside", "junk\n", `f.txt:1: "junk" outside a case`},
		{"not closed", "CASE a\nRULE 1\nEXPECT\n x\n", "f.txt:1: case a is not closed"},
		{"case in case", "CASE a\nRULE 1\nEXPECT\n x\nCASE b\n" + ok, "f.txt:5: CASE inside case a"},
		{"no rule", "CASE a\nEXPECT\n x\nEND\n", "f.txt:1: case a has no RULE line"},
		{"two rules", "CASE a\nRULE 1\nRULE 2\nEXPECT\n x\nEND\n", "f.txt:3: second RULE line"},
		{"empty rule", "CASE a\nRULE\nEXPECT\n x\nEND\n", "f.txt:2: RULE needs the rule sections"},
		{"no expect", "CASE a\nRULE 1\nSTATE\n x\nEND\n", "f.txt:1: case a has no EXPECT lines"},
		{"empty expect", "CASE a\nRULE 1\nEXPECT\nEND\n", "f.txt:1: case a has no EXPECT lines"},
		{"two words", "CASE a b\n" + ok, "f.txt:1: want CASE <name> with a one-word name"},
		{"no name", "CASE\n" + ok, "f.txt:1: want CASE <name>"},
		{"duplicate name", "CASE a\n" + ok + "CASE a\n" + ok, "f.txt:6: case a already defined at line 1"},
		{"order without side", "CASE a\nRULE 1\nORDERS\n PLOT TURN 1 NONE\nEXPECT\n x\nEND\n", `f.txt:4: want an order line "side: order"`},
		{"order without text", "CASE a\nRULE 1\nORDERS\n us:\nEXPECT\n x\nEND\n", "f.txt:4: want an order line"},
		{"break first", "CASE a\nRULE 1\nORDERS\n ---\n us: X\nEXPECT\n x\nEND\n", `f.txt:8: case a: ORDERS line 1: "---" ends a submission, but none is open`},
		{"dice word", "CASE a\nRULE 1\nDICE 1 x 3\nEXPECT\n x\nEND\n", `f.txt:3: DICE value "x" is not a number`},
		{"two states", "CASE a\nRULE 1\nSTATE\n x\nSTATE\n" + "EXPECT\n x\nEND\n", "f.txt:5: second STATE section in case a (the first is at line 3)"},
		{"header with text", "CASE a\nRULE 1\nSTATE turn 1\nEXPECT\n x\nEND\n", "f.txt:3: STATE stands alone on its line"},
		{"line before section", "CASE a\nRULE 1\n turn 1\nEXPECT\n x\nEND\n", `f.txt:3: "turn 1" before any section`},
		{"end with text", "CASE a\nRULE 1\nEXPECT\n x\nEND now\n", "f.txt:5: END takes nothing after it"},
		{"refused and event", "CASE a\nRULE 1\nEXPECT\n refused: no\n event: yes\nEND\n", "f.txt:6: case a: expects both a refusal and events"},
		{"refused and dice", "CASE a\nRULE 1\nDICE 1\nEXPECT\n refused: no\nEND\n", "f.txt:6: case a: expects a refusal and gives DICE"},
		{"two phases", "CASE a\nRULE 1\nEXPECT\n phase: I\n phase: II\nEND\n", `f.txt:6: case a: "phase: II": only one phase: line`},
		{"bad turn", "CASE a\nRULE 1\nEXPECT\n turn: one\nEND\n", `f.txt:5: case a: "turn: one": want turn: <number>`},
		{"empty event", "CASE a\nRULE 1\nEXPECT\n event:\nEND\n", "f.txt:5: case a: an EXPECT event:, refused: or absent: line is empty"},
		{"unseen without text", "CASE a\nRULE 1\nEXPECT\n unseen: b\nEND\n", `f.txt:5: case a: "unseen: b": want unseen: <side> <text>`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cases, err := conformance.Parse(strings.NewReader(tt.text), "f.txt")
			if err == nil {
				t.Fatalf("Parse() = %d cases, want an error containing %q", len(cases), tt.want)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Parse() error =\n%v\nwant it to contain %q", err, tt.want)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	one := "CASE a\nRULE 1\nEXPECT\n x\nEND\n"
	two := "CASE b\nRULE 1\nEXPECT\n x\nEND\nCASE c\nRULE 1\nEXPECT\n x\nEND\n"
	fsys := fstest.MapFS{
		"cases/z.txt":          {Data: []byte(one)},
		"cases/b.txt":          {Data: []byte(two)},
		"cases/pending/p.txt":  {Data: []byte("not a case")},
		"cases/readme.md":      {Data: []byte("not a case")},
		"other/dup.txt":        {Data: []byte(one)},
		"broken/bad.txt":       {Data: []byte("CASE a\n")},
		"broken/also-bad.txt":  {Data: []byte("junk\n")},
		"broken/also-fine.txt": {Data: []byte(two)},
	}
	cases, err := conformance.Load(fsys, "cases/*.txt")
	if err != nil {
		t.Fatalf("Load() error: %v", err)
	}
	var got []string
	for _, c := range cases {
		got = append(got, c.Pos()+" "+c.Name)
	}
	want := []string{"cases/b.txt:1 b", "cases/b.txt:6 c", "cases/z.txt:1 a"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Load() = %q, want %q (files in name order, pending/ not loaded)", got, want)
	}

	fsys["cases/dup.txt"] = &fstest.MapFile{Data: []byte(one)}
	if _, err := conformance.Load(fsys, "cases/*.txt"); err == nil || !strings.Contains(err.Error(), "cases/z.txt:1: case a already defined at cases/dup.txt:1") {
		t.Errorf("Load() with a name used twice: error %v, want it to name both places", err)
	}
	if _, err := conformance.Load(fsys, "nothing/*.txt"); err == nil || !strings.Contains(err.Error(), `no case file matches "nothing/*.txt"`) {
		t.Errorf("Load() of an empty glob: error %v, want no case file matches", err)
	}
	_, err = conformance.Load(fsys, "broken/*.txt")
	for _, want := range []string{"broken/bad.txt:1: case a is not closed", `broken/also-bad.txt:1: "junk" outside a case`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Load() of broken files: error %v, want it to contain %q", err, want)
		}
	}
}

// passing holds cases the tally ruleset passes; each also shows one runner rule.
const passing = `
CASE plan-and-roll   # two phases, the roll order fixed by the first and used by the second
RULE fake 1, fake 2
ORDERS
  a: ADD 2
  a: ROLL 2
  b: ADD 3
DICE 4 5
EXPECT
  total 14
  turn 2
  phase plan       # waits again: the ADD orders were consumed
  event: the plans add up to 5
  event: rolled [4 5]
END

CASE stop-at-phase   # the roll phase would need a die the case does not give
RULE fake 1
ORDERS
  a: ADD 1
  b: ADD 1
EXPECT
  phase: roll
  total 2
END

CASE stop-at-turn-and-phase   # passes phase plan of turn 2 without stopping
RULE fake 2
STATE
  endless
EXPECT
  turn: 3
  phase: plan
END

CASE second-mail-replaces   # "---": the second ADD 5 of side a replaces its ADD 1
RULE fake 1
ORDERS
  a: ADD 1
  ---
  a: ADD 5
  b: ADD 1
EXPECT
  phase: roll
  total 6
END

CASE refused-changes-nothing
RULE fake 1
ORDERS
  a: ADD 1
  b: FLY
EXPECT
  refused: unknown order "FLY"
  total 0
  phase: plan
END

CASE game-over
RULE fake 2
STATE
  turn 2
  total 10
ORDERS
  a: ADD 6
  b: ADD 6
DICE 6
EXPECT
  over
  total 28
  absent: phase plan
END
`

func TestRunPasses(t *testing.T) {
	cases := parse(t, passing)
	for _, c := range cases {
		if err := conformance.Check(tallyAdapter{}, c); err != nil {
			t.Errorf("Check(%s) = %v, want nil", c.Name, err)
		}
	}
	conformance.Run(t, tallyAdapter{}, cases)
}

// TestCheckFails proves that a wrong expectation fails, with a message that leads to
// the case and shows what happened.
func TestCheckFails(t *testing.T) {
	tests := []struct {
		name string
		body string // the case after its CASE and RULE lines
		want []string
	}{
		{"wrong state line", "ORDERS\n a: ADD 1\n b: ADD 2\nEXPECT\n phase: roll\n total 4\n",
			[]string{`state has no line "total 4"`, "state:\n    phase roll\n    total 3\n    turn 1"}},
		{"unused dice", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 3 4\nEXPECT\n total 6\n",
			[]string{"1 DICE value(s) not used"}},
		{"missing dice", "ORDERS\n a: ADD 1\n a: ROLL 2\n b: ADD 2\nDICE 3\nEXPECT\n total 7\n",
			[]string{"the DICE do not fit the rolls made", "script exhausted"}},
		{"die out of range", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 7\nEXPECT\n total 9\n",
			[]string{"is not a face of a d6"}},
		{"wrong event", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 3\nEXPECT\n event: rolled [4]\n",
			[]string{`no event contains "rolled [4]"`, "events:\n    turn 1 phase plan [fake 1]: the plans add up to 3\n    turn 1 phase roll [fake 2]: rolled [3]",
				"rolls:\n    0: fake roll (fake 2) [3]"}},
		// The fake ruleset's events go to every side.
		{"an event the side receives", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 3\nEXPECT\n unseen: b add up to\n",
			[]string{`an event b receives contains "add up to": the plans add up to 3`}},
		{"refusal expected but accepted", "ORDERS\n a: ADD 1\nEXPECT\n refused: unknown order\n",
			[]string{`no order line was refused with a reason containing "unknown order"`, "orders:\n    1 a: ADD 1 -> ok: understood (fake 1)"}},
		{"refusal with the wrong reason", "ORDERS\n a: FLY\nEXPECT\n refused: too late\n",
			[]string{`no order line was refused with a reason containing "too late"`, `1 a: FLY -> REFUSED: unknown order "FLY"`}},
		{"unexpected refusal", "ORDERS\n a: ADD 1\n b: ADD 9\nEXPECT\n total 1\n",
			[]string{`order line 2 b: ADD 9 was refused: unknown order "ADD 9"`}},
		{"refusal leaves the state", "ORDERS\n a: FLY\nEXPECT\n refused: unknown order\n total 1\n",
			[]string{`state has no line "total 1"`}},
		{"phase never reached", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 3\nEXPECT\n phase: over\n",
			[]string{"ends in phase plan, want phase over"}},
		{"turn never reached", "ORDERS\n a: ADD 1\n b: ADD 2\nDICE 3\nEXPECT\n turn: 5\n",
			[]string{"ends in turn 2, want turn 5"}},
		{"absent line present", "EXPECT\n absent: total 0\n",
			[]string{`state has the line "total 0", which the case expects absent`}},
		{"line without a verdict", "ORDERS\n a: ADD 1\n a: MUTE\nEXPECT\n total 1\n",
			[]string{"Check gave no verdict on order line 2 a: MUTE"}},
		{"unknown side", "ORDERS\n c: ADD 1\nEXPECT\n total 1\n",
			[]string{`side "c" is not one of tally's sides (a, b)`}},
		{"bad state", "STATE\n weather fine\nEXPECT\n total 0\n",
			[]string{`STATE: unknown state line "weather fine"`}},
		{"resolve error", "STATE\n broken\nORDERS\n a: ADD 1\n b: ADD 1\nEXPECT\n total 2\n",
			[]string{"Resolve turn 1 phase plan: the state is broken"}},
		{"endless", "STATE\n endless\nEXPECT\n total 0\n",
			[]string{"still resolving after 1000 phases"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "# header\n\nCASE " + strings.ReplaceAll(tt.name, " ", "-") + "\nRULE fake 9\n" + tt.body + "END\n"
			c := parse(t, text)[0]
			err := conformance.Check(tallyAdapter{}, c)
			if err == nil {
				t.Fatalf("Check() = nil, want a failure containing %q", tt.want)
			}
			var f *conformance.Failure
			if !errors.As(err, &f) {
				t.Fatalf("Check() error %T, want *conformance.Failure", err)
			}
			msg := err.Error()
			head := "cases.txt:3: case " + c.Name + " (rule fake 9) failed:"
			if !strings.HasPrefix(msg, head) {
				t.Errorf("Check() error starts %q, want %q", strings.SplitN(msg, "\n", 2)[0], head)
			}
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("Check() error =\n%s\nwant it to contain %q", msg, w)
				}
			}
		})
	}
}

// TestCheckBuiltInCode runs a case built without Parse: Check validates it itself.
func TestCheckBuiltInCode(t *testing.T) {
	c := conformance.Case{Name: "coded", Rule: "fake 1", File: "x_test.go", Line: 7,
		Orders: []string{"a: FLY"}, Dice: []int{1}, Expect: []string{"refused: unknown"}}
	err := conformance.Check(tallyAdapter{}, c)
	if err == nil || !strings.Contains(err.Error(), "x_test.go:7: case coded") || !strings.Contains(err.Error(), "gives DICE") {
		t.Errorf("Check() = %v, want the case refused for giving DICE to a refusal", err)
	}
}
