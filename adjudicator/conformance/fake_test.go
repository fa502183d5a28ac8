package conformance_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/conformance"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// tally is a tiny ruleset for testing the runner. Each turn has two phases:
//
//   - "plan" waits until both sides have filed ADD n (sealed); it adds every n to the
//     total, consumes the ADD orders and fixes side a's standing ROLL k order;
//   - "roll" rolls k dice (1 without a ROLL order), adds them to the total and starts the
//     next turn; the game is over after turn 2.
//
// A state marked endless never waits, never ends and rolls nothing; one marked broken
// fails to resolve.
type tally struct{}

type tallyState struct {
	T       int    `json:"t"`
	P       string `json:"p"`
	Total   int    `json:"total"`
	Endless bool   `json:"endless,omitempty"`
	Broken  bool   `json:"broken,omitempty"`
}

func (s *tallyState) Turn() int          { return s.T }
func (s *tallyState) Phase() string      { return s.P }
func (s *tallyState) PhaseTitle() string { return "turn " + strconv.Itoa(s.T) + " " + s.P }
func (s *tallyState) Over() bool         { return s.P == "over" }

var _ rules.Ruleset = tally{}

func (tally) Name() string  { return "tally" }
func (tally) Title() string { return "Tally (a test ruleset)" }
func (tally) Sides() []rules.SideInfo {
	return []rules.SideInfo{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}}
}
func (tally) OptionNames() map[string]string { return nil }
func (tally) Keywords() []string             { return []string{"ADD", "ROLL"} }
func (tally) New(rules.Options) (rules.State, error) {
	return &tallyState{T: 1, P: "plan"}, nil
}
func (tally) Decode(raw []byte) (rules.State, error) {
	var s tallyState
	return &s, json.Unmarshal(raw, &s)
}
func (tally) Encode(st rules.State) ([]byte, error) { return json.Marshal(st) }
func (tally) Map(rules.State, rules.Side) string {
	return ""
}
func (tally) Status(rules.State, rules.Side) string { return "" }
func (tally) Defaults(rules.State, rules.Side, []rules.Order) []rules.Order {
	return nil
}

func addPhase(s *tallyState) string { return fmt.Sprintf("%d.plan", s.T) }

func (tally) Check(st rules.State, side rules.Side, lines []orders.Line, filed []rules.Order) []rules.Checked {
	s := st.(*tallyState)
	var out []rules.Checked
	for _, l := range lines {
		if l.Text == "MUTE" {
			continue // a ruleset bug: a line without a verdict
		}
		c := rules.Checked{Line: l, Rule: "fake 1"}
		n := 0
		if len(l.Fields) == 2 {
			n, _ = strconv.Atoi(l.Fields[1])
		}
		switch {
		case s.P != "plan":
			c.Reason = "orders are given in the plan phase"
		case l.Keyword() == "ADD" && n >= 1 && n <= 6:
			c.OK, c.Reason = true, "understood"
			c.Orders = []rules.Order{{Phase: addPhase(s), Side: side, Key: "add", Kind: "add", Text: l.Text, Sealed: true}}
		case l.Keyword() == "ROLL" && side == "a" && n >= 0:
			c.OK, c.Reason = true, "standing order"
			c.Orders = []rules.Order{{Phase: "roll", Side: side, Key: "roll", Kind: "roll", Text: l.Text}}
		default:
			c.Reason = "unknown order " + strconv.Quote(l.Text)
		}
		out = append(out, c)
	}
	return out
}

func (tally) Waiting(st rules.State, filed []rules.Order) []rules.Side {
	s := st.(*tallyState)
	if s.Endless || s.P != "plan" {
		return nil
	}
	var w []rules.Side
	for _, side := range []rules.Side{"a", "b"} {
		found := false
		for _, o := range filed {
			found = found || (o.Side == side && o.Phase == addPhase(s))
		}
		if !found {
			w = append(w, side)
		}
	}
	return w
}

func (tally) Inputs(st rules.State, filed []rules.Order) []rules.Order {
	s := st.(*tallyState)
	var in []rules.Order
	for _, o := range filed {
		if (s.P == "plan" && o.Phase == addPhase(s)) || o.Phase == "roll" {
			in = append(in, o)
		}
	}
	return in
}

func (tally) Resolve(st rules.State, inputs []rules.Order, d dice.Source) (rules.Outcome, error) {
	s := *st.(*tallyState)
	var out rules.Outcome
	if s.Broken {
		return out, errors.New("the state is broken")
	}
	switch {
	case s.Endless && s.P == "plan":
		s.P = "roll"
	case s.Endless:
		s.P, s.T = "plan", s.T+1
	case s.P == "plan":
		for _, o := range inputs {
			switch o.Kind {
			case "add":
				if o.Commitment == "" {
					return out, fmt.Errorf("order %s was filed without its commitment", o.ID())
				}
				n, _ := strconv.Atoi(strings.Fields(o.Text)[1])
				s.Total += n
				out.Consumed = append(out.Consumed, o.ID())
				out.Revealed = append(out.Revealed, o.ID())
			case "roll":
				out.Fixed = append(out.Fixed, o.ID())
			}
		}
		out.Events = append(out.Events, rules.Event{Rule: "fake 1", Text: fmt.Sprintf("the plans add up to %d", s.Total)})
		s.P = "roll"
	case s.P == "roll":
		k := 1
		for _, o := range inputs {
			if !o.Fixed {
				return out, fmt.Errorf("order %s is not fixed", o.ID())
			}
			k, _ = strconv.Atoi(strings.Fields(o.Text)[1])
		}
		r := d.Roll(dice.Request{Purpose: "fake roll", Rule: "fake 2", Count: k, Sides: 6})
		s.Total += r.Result
		out.Events = append(out.Events, rules.Event{Rule: "fake 2", Text: fmt.Sprintf("rolled %v", r.Values), Roll: &r})
		s.T++
		s.P = "plan"
		if s.T > 2 {
			s.P = "over"
		}
	default:
		return out, fmt.Errorf("nothing to resolve in %s", s.P)
	}
	out.State = &s
	return out, nil
}

// tallyAdapter builds tally states from "turn N", "phase P", "total N", "endless" and
// "broken" lines and describes them as "turn N", "phase P", "total N" and "over".
type tallyAdapter struct{}

var _ conformance.Adapter = tallyAdapter{}

func (tallyAdapter) Ruleset() rules.Ruleset { return tally{} }

func (tallyAdapter) State(lines []string) (rules.State, error) {
	s := &tallyState{T: 1, P: "plan"}
	for _, l := range lines {
		f := strings.Fields(l)
		var err error
		switch {
		case len(f) == 2 && f[0] == "turn":
			s.T, err = strconv.Atoi(f[1])
		case len(f) == 2 && f[0] == "phase":
			s.P = f[1]
		case len(f) == 2 && f[0] == "total":
			s.Total, err = strconv.Atoi(f[1])
		case l == "endless":
			s.Endless = true
		case l == "broken":
			s.Broken = true
		default:
			err = fmt.Errorf("unknown state line %q", l)
		}
		if err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (tallyAdapter) Describe(st rules.State) []string {
	s := st.(*tallyState)
	out := []string{"phase " + s.P, "total " + strconv.Itoa(s.Total), "turn " + strconv.Itoa(s.T)}
	if s.Over() {
		out = append(out, "over")
	}
	return out
}
