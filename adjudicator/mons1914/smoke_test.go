package mons1914_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

func check(t *testing.T, r *mons1914.Rules, st adjudicator.State, side adjudicator.Side, text string, filed []adjudicator.Order) ([]adjudicator.Checked, []adjudicator.Order) {
	t.Helper()
	lines, _ := orders.Split(text)
	cs := r.Check(st, side, lines, filed)
	var out []adjudicator.Order
	for _, c := range cs {
		out = append(out, c.Orders...)
	}
	return cs, out
}

func TestSmokeTurn(t *testing.T) {
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	st, _ := r.New(nil)
	m := r.Map(st, mons1914.DE)
	for i, l := range strings.Split(m, "\n") {
		if len(l) > 78 {
			t.Errorf("map line %d too long: %q", i, l)
		}
	}
	t.Log("\n" + m[:3000])
	cs, ords := check(t, r, st, mons1914.DE, "MOVE IX/75/17 4700-4701-4702-4703\nMARCH III/8/5 3100-3101-3102-3103-3104-3105\nBOMBARD 2708 WITH III/FA18/5", nil)
	for _, c := range cs {
		t.Logf("%d %v %s (%s)", c.Line.No, c.OK, c.Reason, c.Rule)
	}
	out, err := r.Resolve(st, ords, dice.NewScript(1, 2, 3, 4, 5, 6))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range out.Events {
		t.Log(e.Rule, e.Text)
	}
	t.Log(r.Status(out.State, mons1914.DE))
}
