package rules

import (
	"reflect"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// phased is a State at a phase that a test may change.
type phased struct{ p string }

func (s *phased) Turn() int          { return 1 }
func (s *phased) Phase() string      { return s.p }
func (s *phased) PhaseTitle() string { return s.p }
func (s *phased) Over() bool         { return false }

func TestLog(t *testing.T) {
	st := &phased{p: "I"}
	roll := dice.Roll{}
	ss := Sides{{ID: "us", Name: "US"}, {ID: "de", Name: "German"}}
	for _, c := range []struct {
		name string
		tell func(l *Log)
		want []Event
	}{
		{"event", func(l *Log) { l.Event("1.1", "%d hits", 2) },
			[]Event{{Phase: "I", Rule: "1.1", Text: "2 hits"}}},
		{"event to", func(l *Log) { l.EventTo("1.2", []Side{"de"}, "seen") },
			[]Event{{Phase: "I", Rule: "1.2", Text: "seen", To: []Side{"de"}}}},
		{"roll", func(l *Log) { l.RollEvent("1.3", roll, "rolled") },
			[]Event{{Phase: "I", Rule: "1.3", Text: "rolled", Roll: &roll}}},
		{"owner only", func(l *Log) { l.OwnerOnly("us", "2", "not moved") },
			[]Event{{Phase: "I", Rule: "2", Text: "not moved", To: []Side{"us"}}}},
		{"other only", func(l *Log) { l.OtherOnly("us", "2", "nothing") },
			[]Event{{Phase: "I", Rule: "2", Text: "nothing", To: []Side{"de"}}}},
		{"to each, the same", func(l *Log) { l.ToEach("3", nil, "de", "100%", "100%") },
			[]Event{{Phase: "I", Rule: "3", Text: "100%"}}},
		{"to each, two texts", func(l *Log) { l.ToEach("3", &roll, "de", "mine", "theirs") },
			[]Event{{Phase: "I", Rule: "3", Text: "mine", To: []Side{"de"}, Roll: &roll},
				{Phase: "I", Rule: "3", Text: "theirs", To: []Side{"us"}, Roll: &roll}}},
		{"the phase when told", func(l *Log) { l.Event("a", "x"); st.p = "II"; l.Event("b", "y"); st.p = "I" },
			[]Event{{Phase: "I", Rule: "a", Text: "x"}, {Phase: "II", Rule: "b", Text: "y"}}},
	} {
		l := &Log{State: st, Sides: ss}
		c.tell(l)
		if !reflect.DeepEqual(l.Events, c.want) {
			t.Errorf("%s: events %+v, want %+v", c.name, l.Events, c.want)
		}
	}
	var l Log
	l.Tell("4", nil, nil, "no state").Deal = &dice.Deal{}
	if e := l.Events[0]; e.Phase != "" || e.Deal == nil {
		t.Errorf("a log without a state: %+v, want no phase and the deal set", e)
	}
}
