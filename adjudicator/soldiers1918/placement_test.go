package soldiers1918_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// placeLines turns order texts into numbered lines, as a mail would give them.
func placeLines(texts []string) []orders.Line {
	out := make([]orders.Line, len(texts))
	for i, t := range texts {
		out[i] = orders.Line{No: i + 1, Text: t, Fields: strings.Fields(t)}
	}
	return out
}

// verdicts groups Check's answer by line: every entry for each line, in order.
func verdicts(checked []rules.Checked) map[int][]rules.Checked {
	m := map[int][]rules.Checked{}
	for _, c := range checked {
		m[c.Line.No] = append(m[c.Line.No], c)
	}
	return m
}

// TestPlacementEveryErrorAtOnce: a placement with several mistakes is answered with
// each wrong line's own reason, each wrong total once, and the right lines marked
// right (not sealed), so one reply lists everything to fix (issue 8).
func TestPlacementEveryErrorAtOnce(t *testing.T) {
	a := caseAdapter(t)
	st, err := a.State([]string{"phase setup-german", "quality 3"})
	if err != nil {
		t.Fatal(err)
	}
	// A legal placement of the whole mix (24 INF, 9 HMG), then three mistakes and one
	// platoon more than the mix has.
	texts := []string{
		"PLACE 1911 2 HMG 2 INF", // 1911 over the limit of 3 (6.3), one INF too many
		"PLACE 2808 2 HMG 1 INF", "PLACE 3603 2 HMG 1 INF",
		"PLACE 1401 1 INF", "PLACE 2901 1 INF", "PLACE 3801 1 INF", "PLACE 4701 1 INF",
		"PLACE 2000 1 INF", // No Man's Land: outside the German position (3.5)
		"PLACE 2902 1 INF", "PLACE 3802 1 INF", "PLACE 4702 1 INF",
		"PLACE 1602 1 HMG", "PLACE 2303 1 HMG", "PLACE 4403 1 HMG",
		"PLACE 1102 1 INF", "PLACE 1802 1 INF", "PLACE 2103 1 INF", "PLACE 2502 1 INF",
		"PLACE 3202 1 INF", "PLACE 3502 1 INF", "PLACE 4002 1 INF", "PLACE 4303 1 INF",
		"PLACE 4802 1 INF", "PLACE 1506 1 INF", "PLACE 2505 1 INF", "PLACE 3306 1 INF",
		"PLACE 4506 1 INF",
		"PLACE 2010 1 ARMY", // not the German's
	}
	wrong := map[int]string{
		1:          "hex 1911 holds 4 units; the German limit is 3 per hex (6.3)",
		8:          "hex 2000 is outside the German position",
		len(texts): "ARMY units are not yours to place",
	}
	got := verdicts(a.Rules.Check(st, "de", placeLines(texts), nil))
	last := len(texts)
	for no := 1; no <= len(texts); no++ {
		vs := got[no]
		if len(vs) == 0 {
			t.Fatalf("line %d has no verdict", no)
		}
		v := vs[0]
		if want, bad := wrong[no]; bad {
			if v.OK || !strings.Contains(v.Reason, want) {
				t.Errorf("line %d %q: %v %q, want refused with %q", no, texts[no-1], v.OK, v.Reason, want)
			}
		} else if !v.OK || strings.Contains(v.Reason, "sealed") {
			t.Errorf("line %d %q: %v %q, want ok and not sealed", no, texts[no-1], v.OK, v.Reason)
		}
		if len(v.Orders) > 0 {
			t.Errorf("line %d: an order is filed from a refused placement", no)
		}
		if no != last && len(vs) > 1 {
			t.Errorf("line %d has %d verdicts, want one: %+v", no, len(vs), vs)
		}
	}
	// One total does not add up: 25 INF (the 1911 line has one more). It is said once,
	// as a further refusal on the last PLACE line; the HMG total is right.
	totals := got[last][1:]
	if len(totals) != 1 || totals[0].OK || !strings.Contains(totals[0].Reason, "25 INF placed; the counter mix has exactly 24") {
		t.Errorf("totals = %+v, want one refusal: 25 INF placed; the counter mix has exactly 24", totals)
	}
}

// TestPlacementUnreadLineNotCounted: a PLACE line that cannot be read is refused on
// its own, and the totals say they do not count it.
func TestPlacementUnreadLineNotCounted(t *testing.T) {
	a := caseAdapter(t)
	st, err := a.State([]string{"phase setup-us", "quality 3"})
	if err != nil {
		t.Fatal(err)
	}
	got := verdicts(a.Rules.Check(st, "us", placeLines([]string{"PLACE 1000 4 ARMY", "PLACE 1100 4 TANKS"}), nil))
	if v := got[2][0]; v.OK || !strings.Contains(v.Reason, `unit kind "TANKS"`) {
		t.Errorf("line 2: %v %q, want refused for its unit kind", v.OK, v.Reason)
	}
	if v := got[1]; len(v) != 3 || !v[0].OK || v[1].OK ||
		!strings.Contains(v[1].Reason, "4 Army platoons (ARMY and YORK together) placed") ||
		!strings.Contains(v[1].Reason, "not counting the 1 PLACE line(s) that could not be read") {
		t.Errorf("line 1 = %+v, want ok, then the Army and USMC totals noting the unread line", v)
	}
}

// TestPlacementTotalsAgreeWithHelp: the counts a refusal gives are the ones HELP
// gives: 24 INF and 9 HMG (3.5); 144 Army platoons with Sergeant York's (3.6, 12.5),
// 12 USMC.
func TestPlacementTotalsAgreeWithHelp(t *testing.T) {
	help, err := os.ReadFile("../../templates/soldiers1918-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	helpText := strings.Join(strings.Fields(string(help)), " ")
	a := caseAdapter(t)
	for _, tc := range []struct {
		side, phase string
		lines       []string
		want        []string // numbers the refusal gives, each in HELP as "<n> <word>"
		inHelp      []string
	}{
		{"de", "setup-german", []string{"PLACE 3801 1 INF"}, []string{"exactly 24", "exactly 9"}, []string{"24 infantry", "9 HMG"}},
		{"us", "setup-us", []string{"PLACE 1000 4 ARMY"}, []string{"exactly 144", "exactly 12"}, []string{"144 Army platoons", "12 USMC"}},
		{"us", "setup-us", []string{"PLACE 1000 3 ARMY 1 YORK", "PLACE 1100 1 YORK"}, []string{"exactly 144", "2 YORK placed; there is 1 Sergeant York"}, nil},
	} {
		st, err := a.State([]string{"phase " + tc.phase, "quality 3"})
		if err != nil {
			t.Fatal(err)
		}
		var reasons []string
		for _, c := range a.Rules.Check(st, rules.Side(tc.side), placeLines(tc.lines), nil) {
			if !c.OK {
				reasons = append(reasons, c.Reason)
			}
		}
		all := strings.Join(reasons, "\n")
		for _, w := range tc.want {
			if !strings.Contains(all, w) {
				t.Errorf("%s %q: refusals %q lack %q", tc.side, tc.lines, all, w)
			}
		}
		for _, w := range tc.inHelp {
			if !strings.Contains(helpText, w) {
				t.Errorf("HELP lacks %q, which the refusal counts", w)
			}
		}
		if n := regexp.MustCompile(`exactly 143`).FindString(all); n != "" {
			t.Errorf("a refusal counts the Army without York: %q", all)
		}
	}
}
