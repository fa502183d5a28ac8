package conformance

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Adapter lets the runner drive one ruleset.
type Adapter interface {
	Ruleset() rules.Ruleset
	State(lines []string) (rules.State, error) // build a state from STATE lines
	Describe(st rules.State) []string          // canonical state lines comparable with EXPECT lines
}

// MaxPhases bounds the phases one case may resolve, so that a ruleset whose phases never
// wait fails the case instead of hanging the test.
const MaxPhases = 1000

// Salt is the salt of the fake commitment a sealed order gets when a case files it.
const Salt = "conformance"

// Run runs every case as a subtest named after it (go test -run 'TestCases/name').
func Run(t *testing.T, a Adapter, cases []Case) {
	t.Helper()
	if len(cases) == 0 {
		t.Fatal("conformance.Run: no cases")
	}
	for _, c := range cases {
		t.Run(c.Name, func(t *testing.T) {
			if err := Check(a, c); err != nil {
				t.Error(err)
			}
		})
	}
}

// Failure is why a case failed, with what the runner saw.
type Failure struct {
	Case     Case
	Problems []string
	Verdicts []string // one line per order line: "1 us: PLOT ... -> ok: reason (rule)"
	Events   []string // "turn 1 phase I [12.2]: text", in order
	Rolls    []string // "0: purpose (rule) [values]", every roll made from the DICE
	State    []string // Describe of the final state; nil when no state was built
}

// Error implements error: the case's file:line and name, then every problem and what the
// runner saw, one item a line.
func (f *Failure) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: case %s (rule %s) failed:", f.Case.Pos(), f.Case.Name, f.Case.Rule)
	for _, p := range f.Problems {
		b.WriteString("\n  - " + p)
	}
	section := func(title string, lines []string) {
		fmt.Fprintf(&b, "\n%s:", title)
		if len(lines) == 0 {
			b.WriteString(" none")
		}
		for _, l := range lines {
			b.WriteString("\n    " + l)
		}
	}
	section("orders", f.Verdicts)
	section("events", f.Events)
	section("rolls", f.Rolls)
	if f.State != nil {
		section("state", f.State)
	}
	return b.String()
}

// submission is one side's mail: the order lines Check sees together.
type submission struct {
	side  rules.Side
	lines []orders.Line
}

func submissions(orderLines []string) ([]submission, error) {
	var out []submission
	open := false
	no := 0
	for _, l := range orderLines {
		if l == orderBreak {
			open = false
			continue
		}
		side, text, ok := strings.Cut(l, ":")
		text = strings.TrimSpace(text)
		if !ok || text == "" {
			return nil, fmt.Errorf("ORDERS line %q: want \"side: order\"", l)
		}
		no++
		s := rules.Side(strings.TrimSpace(side))
		if !open || out[len(out)-1].side != s {
			out = append(out, submission{side: s})
			open = true
		}
		sub := &out[len(out)-1]
		sub.lines = append(sub.lines, orders.Line{No: no, Text: text, Fields: strings.Fields(text)})
	}
	return out, nil
}

// Check runs one case and returns nil when it passes, else a [*Failure]. Run is Check
// with one subtest per case; Check alone lets a tool, or the runner's own tests, run a
// case without a testing.T.
func Check(a Adapter, c Case) error {
	f := &Failure{Case: c}
	fail := func(format string, args ...any) error {
		f.Problems = append(f.Problems, fmt.Sprintf(format, args...))
		return f
	}
	exp, _ := readExpect(c.Expect)
	errs := validate(c) // Parse has checked this already, unless the case was built in code
	for _, err := range errs {
		fail("EXPECT: %v", err)
	}
	if len(errs) > 0 {
		return f
	}
	rs := a.Ruleset()
	if rs == nil {
		return fail("the adapter has no ruleset")
	}
	st, err := a.State(c.State)
	if err != nil {
		return fail("STATE: %v", err)
	}
	if st == nil {
		return fail("STATE: the adapter built no state")
	}
	known := map[rules.Side]bool{}
	var sideNames []string
	for _, s := range rs.Sides() {
		known[s.ID] = true
		sideNames = append(sideNames, string(s.ID))
	}
	subs, err := submissions(c.Orders)
	if err != nil {
		return fail("%v", err)
	}

	// File the orders, one submission at a time, as the desk does.
	var filed []rules.Order
	type refusal struct{ line, reason string }
	var refusals []refusal
	for _, sub := range subs {
		if !known[sub.side] {
			return fail("ORDERS: side %q is not one of %s's sides (%s)", sub.side, rs.Name(), strings.Join(sideNames, ", "))
		}
		checked := rs.Check(st, sub.side, sub.lines, filed)
		ok := true
		answered := map[int]bool{}
		for _, ch := range checked {
			answered[ch.Line.No] = true
			verdict := "ok"
			if !ch.OK {
				verdict, ok = "REFUSED", false
				refusals = append(refusals, refusal{fmt.Sprintf("%d %s: %s", ch.Line.No, sub.side, ch.Line.Text), ch.Reason})
			}
			f.Verdicts = append(f.Verdicts, fmt.Sprintf("%d %s: %s -> %s: %s (%s)", ch.Line.No, sub.side, ch.Line.Text, verdict, ch.Reason, ch.Rule))
		}
		for _, l := range sub.lines {
			if !answered[l.No] {
				fail("Check gave no verdict on order line %d %s: %s", l.No, sub.side, l.Text)
			}
		}
		if !ok {
			continue // the desk files nothing from a submission with a refused line
		}
		for _, ch := range checked {
			for _, o := range ch.Orders {
				if o.Sealed {
					o.Commitment = rules.Commitment(o.Text, Salt)
				}
				i := slices.IndexFunc(filed, func(x rules.Order) bool { return x.ID() == o.ID() })
				switch {
				case i < 0:
					filed = append(filed, o)
				case filed[i].Fixed:
					fail("Check accepted order %s, but the order it replaces is fixed", o.ID())
				default:
					filed[i] = o
				}
			}
		}
	}

	if len(exp.refused) > 0 {
		for _, want := range exp.refused {
			if !slices.ContainsFunc(refusals, func(r refusal) bool { return strings.Contains(r.reason, want) }) {
				fail("no order line was refused with a reason containing %q", want)
			}
		}
		return finish(f, a, st, exp, dice.NewScript(c.Dice...))
	}
	for _, r := range refusals {
		fail("order line %s was refused: %s", r.line, r.reason)
	}
	if len(f.Problems) > 0 {
		f.State = a.Describe(st)
		return f
	}

	// Resolve phases as the desk does (adjudicator.Desk.advance).
	script := dice.NewScript(c.Dice...)
	// Sealed card decks (rules.Dealer) are the case's STATE: its shuffles keep
	// the cards in the order given.
	src := dice.WithDealer(script, dice.NewScriptDealer())
	var events []string
	for n := 0; !st.Over() && len(rs.Waiting(st, filed)) == 0; n++ {
		if n == MaxPhases {
			fail("still resolving after %d phases without waiting or ending", MaxPhases)
			break
		}
		turn, phase := st.Turn(), st.Phase()
		inputs := rs.Inputs(st, filed)
		out, err := rs.Resolve(st, inputs, src)
		if err != nil {
			fail("Resolve turn %d phase %s: %v", turn, phase, err)
			break
		}
		if out.State == nil {
			fail("Resolve turn %d phase %s returned no state", turn, phase)
			break
		}
		for _, e := range out.Events {
			// The arrows the picture draws of the event read as words after it, so
			// that EXPECT "event: arrow attack 2304-2305" pins them (rules.Aim).
			told := e.Text
			for _, a := range e.Arrows {
				told += fmt.Sprintf(" (arrow %s %s-%s)", a.Name, a.From, a.To)
			}
			events = append(events, told)
			for _, u := range exp.unseen {
				if strings.Contains(e.Text, u.text) && (e.To == nil || slices.Contains(e.To, u.side)) {
					fail("an event %s receives contains %q: %s", u.side, u.text, e.Text)
				}
			}
			f.Events = append(f.Events, fmt.Sprintf("turn %d phase %s [%s]: %s", turn, phase, e.Rule, told))
		}
		var err2 error
		filed, err2 = apply(filed, out)
		if err2 != nil {
			fail("after turn %d phase %s: %v", turn, phase, err2)
			break
		}
		st = out.State
		if exp.phase != "" || exp.hasTurn {
			if (exp.phase == "" || st.Phase() == exp.phase) && (!exp.hasTurn || st.Turn() == exp.turn) {
				break
			}
		}
	}
	for _, want := range exp.events {
		if !slices.ContainsFunc(events, func(e string) bool { return strings.Contains(e, want) }) {
			fail("no event contains %q", want)
		}
	}
	return finish(f, a, st, exp, script)
}

// finish makes the checks common to every case on the final state and the dice.
func finish(f *Failure, a Adapter, st rules.State, exp expectation, script *dice.Script) error {
	fail := func(format string, args ...any) {
		f.Problems = append(f.Problems, fmt.Sprintf(format, args...))
	}
	if err := script.Err(); err != nil {
		fail("the DICE do not fit the rolls made: %v", err)
	}
	if n := script.Remaining(); n > 0 {
		fail("%d DICE value(s) not used: the rules rolled fewer dice than the case gives", n)
	}
	for _, r := range script.Rolls() {
		f.Rolls = append(f.Rolls, fmt.Sprintf("%d: %s (%s) %v", r.Index, r.Purpose, r.Rule, r.Values))
	}
	f.State = a.Describe(st)
	have := map[string]bool{}
	for _, l := range f.State {
		have[normalize(l)] = true
	}
	for _, want := range exp.state {
		if !have[want] {
			fail("state has no line %q", want)
		}
	}
	for _, not := range exp.absent {
		if have[not] {
			fail("state has the line %q, which the case expects absent", not)
		}
	}
	if exp.phase != "" && st.Phase() != exp.phase {
		fail("ends in phase %s, want phase %s", st.Phase(), exp.phase)
	}
	if exp.hasTurn && st.Turn() != exp.turn {
		fail("ends in turn %d, want turn %d", st.Turn(), exp.turn)
	}
	if len(f.Problems) > 0 {
		return f
	}
	return nil
}

// apply carries out an outcome's revealed, fixed and consumed orders on the filed orders,
// in the desk's order; an ID not on file is an error, as it is for the desk.
func apply(filed []rules.Order, out rules.Outcome) ([]rules.Order, error) {
	filed = slices.Clone(filed)
	find := func(what, id string) (int, error) {
		i := slices.IndexFunc(filed, func(o rules.Order) bool { return o.ID() == id })
		if i < 0 {
			return i, fmt.Errorf("%s order %s: not on file", what, id)
		}
		return i, nil
	}
	var errs []error
	for _, id := range out.Revealed {
		if _, err := find("reveal", id); err != nil {
			errs = append(errs, err)
		}
	}
	for _, id := range out.Fixed {
		i, err := find("fix", id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		filed[i].Fixed = true
	}
	for _, id := range out.Consumed {
		i, err := find("consume", id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		filed = slices.Delete(filed, i, i+1)
	}
	return filed, errors.Join(errs...)
}
