package soldiers1918_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
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
	} {
		f.Add(s, true)
		f.Add(s, false)
	}
	rules, err := soldiers1918.New()
	if err != nil {
		f.Fatal(err)
	}
	st, _ := rules.New(nil)
	f.Fuzz(func(t *testing.T, text string, american bool) {
		side := adjudicator.Side("de")
		if american {
			side = "us"
		}
		lines, _ := orders.Split(text)
		checked := rules.Check(st, side, lines, nil)
		if len(checked) != len(lines) {
			t.Fatalf("%d lines, %d verdicts for %q", len(lines), len(checked), text)
		}
		for _, c := range checked {
			if !c.OK && c.Reason == "" {
				t.Fatalf("line %q refused without a reason", c.Line.Text)
			}
			for _, o := range c.Orders {
				back, _ := orders.Split(o.Text)
				again := rules.Check(st, side, back, nil)
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
	})
}
