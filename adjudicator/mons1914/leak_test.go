package mons1914_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// TestBritishNeverSeeBeneathTheTop plays the first five turns (both German entries, 8.2)
// with German entry stacks, and reads everything the British player is sent: his map,
// his status and the events he receives. 6.6: "Neither player may look beneath the top
// unit of any enemy stack until such time as the combat resolution procedure calls for
// it." So his map names one German unit per German hex (its top unit) and the dead, his
// status says nothing that changes as German units enter, and no movement or entry event
// he receives names a German unit. A list of the German units still to enter, read turn
// after turn, would give each entry stack's composition (3100 = III/48/5 + III/FA18/5).
func TestBritishNeverSeeBeneathTheTop(t *testing.T) {
	r := newRules(t)
	st, _ := r.New(nil)
	german := map[string]bool{}
	for _, c := range r.Scenario().Counters {
		if c.Side == mons1914.DE {
			german[c.ID] = true
		}
	}
	token := regexp.MustCompile(`[A-Za-z0-9/]+`)
	named := func(s string) []string {
		var out []string
		for _, w := range token.FindAllString(s, -1) {
			if german[w] {
				out = append(out, w)
			}
		}
		return out
	}
	germanLine := regexp.MustCompile(`^\s*\d{4} G: `)
	check := func(when string, st rules.State) {
		// The key's lines are wrapped: join each entry's continuation lines.
		var entries []string
		for _, l := range strings.Split(r.Map(st, mons1914.BEF), "\n") {
			if strings.HasPrefix(l, "  ") && len(entries) > 0 {
				entries[len(entries)-1] += " " + strings.TrimSpace(l)
				continue
			}
			entries = append(entries, l)
		}
		for _, e := range entries {
			ids := named(e)
			switch {
			case len(ids) == 0, strings.Contains(e, "Dead"):
			case germanLine.MatchString(e) && len(ids) == 1:
			default:
				t.Errorf("%s: the British map names German units %v beyond the top of a stack: %q", when, ids, e)
			}
		}
		if ids := named(r.Status(st, mons1914.BEF)); len(ids) > 0 {
			t.Errorf("%s: the British status names German units %v", when, ids)
		}
	}
	statusLine := func(st rules.State) string {
		for _, l := range strings.Split(r.Status(st, mons1914.BEF), "\n") {
			if strings.HasPrefix(l, "German units") {
				return l
			}
		}
		return ""
	}
	first := statusLine(st)
	var seed dice.Seed
	check("start", st)
	for i := 0; i < 40 && st.Turn() <= 5 && !st.Over(); i++ {
		var filed []rules.Order
		if st.Turn() == 1 && st.Phase() == mons1914.PhaseGermanMove {
			cs, orders := submit(r, st, mons1914.DE, "MOVE III/48/5 III/FA18/5 3100-3101-3102\nMOVE IX/75/17 16/IX 4700-4701", nil)
			for _, c := range cs {
				if !c.OK {
					t.Fatalf("turn 1 entry refused: %s: %s", c.Line.Text, c.Reason)
				}
			}
			filed = orders
		}
		for _, side := range r.Waiting(st, filed) {
			filed = append(filed, r.Defaults(st, side, filed)...)
		}
		when := st.PhaseTitle()
		out, err := r.Resolve(st, r.Inputs(st, filed), dice.NewStream(seed, dice.Context{Game: "leak", Turn: st.Turn(), Phase: st.Phase()}))
		if err != nil {
			t.Fatal(err)
		}
		st = out.State
		for _, e := range out.Events {
			if e.VisibleTo(mons1914.BEF) && (strings.HasPrefix(e.Rule, "8") || strings.HasPrefix(e.Rule, "9")) && len(named(e.Text)) > 0 {
				t.Errorf("after %s: the British receive %q", when, e.Text)
			}
		}
		check("after "+when, st)
		if got := statusLine(st); got != first {
			t.Errorf("after %s the British status says %q, at the start %q: what entered shows", when, got, first)
		}
	}
	if st.Turn() <= 5 {
		t.Fatalf("the game stopped at turn %d", st.Turn())
	}
}
