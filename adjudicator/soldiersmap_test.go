package adjudicator_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// mapOf cuts the Soldiers map out of a mail: from its header to the end of its key.
func mapOf(t *testing.T, body string) string {
	t.Helper()
	i := strings.Index(body, "Soldiers map -- ")
	j := strings.Index(body, "\nExits: ")
	if i < 0 || j < i {
		t.Fatalf("no whole map in the mail:\n%s", body)
	}
	return body[i : j+strings.Index(body[j+1:], "\n")+1]
}

// TestSoldiersMapSameForBothSides: in Soldiers 1918 both sides see the same map (6.5:
// no fog of war), and a sealed bombardment plot (3.2, 3.3) is never on it: no
// bombardment marker before the plot is revealed and executed, none after (12.4: the
// markers leave the map as each bombarded hex's attack is resolved).
func TestSoldiersMapSameForBothSides(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, "PLOT TURN 1 2000x4, 2100x4\n")
	maps := func(when string) string {
		t.Helper()
		_, um := f.orders("us", passU, "MAP")
		_, dm := f.orders("de", passD, "MAP")
		u, d := mapOf(t, lastTo(t, um, us).Body), mapOf(t, lastTo(t, dm, de).Body)
		if u != d {
			t.Errorf("%s: the US and the German maps differ (6.5):\n%s\n----\n%s", when, u, d)
		}
		strips := u[strings.Index(u, "\nStrip 1 of"):strings.Index(u, "\nLegend")]
		if strings.Contains(strips, "*") {
			t.Errorf("%s: a bombardment marker is on the map:\n%s", when, strips)
		}
		for _, plot := range []string{"1911x3", "3603x3", "2000x4", "2100x4", "1911", "2000"} {
			if strings.Contains(u, plot) {
				t.Errorf("%s: the map shows %q of a plot", when, plot)
			}
		}
		return u[:strings.Index(u, "\n")]
	}
	if head := maps("both plots sealed, the German set-up not yet sent"); !strings.Contains(head, "set-up") {
		t.Errorf("map header %q, want the set-up", head)
	}
	_, mails := f.orders("de", passD, "SETUP DEFAULT\n")
	if len(mails) == 0 {
		t.Fatal("the German set-up queued no mail")
	}
	if head := maps("after the set-up"); !strings.Contains(head, "turn 1") {
		t.Errorf("map header %q, want turn 1: the test would cover no bombardment", head)
	}
}

func lastTo(t *testing.T, mails []store.OutMail, addr string) store.OutMail {
	t.Helper()
	for i := len(mails) - 1; i >= 0; i-- {
		if mails[i].To[0] == addr {
			return mails[i]
		}
	}
	t.Fatalf("no mail to %s", addr)
	return store.OutMail{}
}
