package soissons1918_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// desk files mails as the desk does: a mail with a refused line files nothing, an
// order replaces the one on file with its phase, side and key.
type desk struct {
	t     *testing.T
	r     *soissons1918.Rules
	st    rules.State
	filed []rules.Order
}

func newDesk(t *testing.T, state ...string) *desk {
	t.Helper()
	r := newRules(t)
	st, err := soissons1918.CaseAdapter{Rules: r}.State(state)
	if err != nil {
		t.Fatal(err)
	}
	return &desk{t: t, r: r, st: st}
}

// mail checks side's lines and files them when all are accepted; it returns the
// verdicts.
func (d *desk) mail(side rules.Side, text string) []rules.Checked {
	d.t.Helper()
	lines, _ := orders.Split(text)
	checked := d.r.Check(d.st, side, lines, d.filed)
	for _, c := range checked {
		if !c.OK {
			return checked
		}
	}
	for _, c := range checked {
		for _, o := range c.Orders {
			if i := slices.IndexFunc(d.filed, func(f rules.Order) bool { return f.ID() == o.ID() }); i >= 0 {
				d.filed[i] = o
			} else {
				d.filed = append(d.filed, o)
			}
		}
	}
	return checked
}

// ok files a mail that must be accepted, and returns its verdicts' reasons.
func (d *desk) ok(side rules.Side, text string) []string {
	d.t.Helper()
	var why []string
	for _, c := range d.mail(side, text) {
		if !c.OK {
			d.t.Fatalf("%s: %q refused: %s", side, c.Line.Text, c.Reason)
		}
		why = append(why, c.Reason)
	}
	return why
}

// refused checks a mail that must be refused, and returns the reason of its first
// refused line.
func (d *desk) refused(side rules.Side, text string) string {
	d.t.Helper()
	for _, c := range d.mail(side, text) {
		if !c.OK {
			return c.Reason
		}
	}
	d.t.Fatalf("%s: %q accepted, want it refused", side, text)
	return ""
}

// resolve resolves the step the game is at with dice, when no side is waited for.
func (d *desk) resolve(dice ...int) []rules.Event {
	d.t.Helper()
	if w := d.r.Waiting(d.st, d.filed); len(w) > 0 {
		d.t.Fatalf("still waiting for %v", w)
	}
	out, err := d.r.Resolve(d.st, d.r.Inputs(d.st, d.filed), scriptOf(dice))
	if err != nil {
		d.t.Fatal(err)
	}
	d.filed = slices.DeleteFunc(d.filed, func(o rules.Order) bool { return slices.Contains(out.Consumed, o.ID()) })
	d.st = out.State
	return out.Events
}

func scriptOf(values []int) dice.Source { return dice.NewScript(values...) }

// summaries lists side's orders on file as STATUS shows them.
func (d *desk) summaries(side rules.Side) []string {
	var out []string
	for _, o := range d.filed {
		if o.Side == side {
			out = append(out, o.Summary)
		}
	}
	return out
}

// fourFronts is the layout of testdata/cases/cancel.txt: four Entente divisions with
// Prepare markers, each next to one German regiment and no other.
var fourFronts = []string{"turn 2", "phase en1",
	"unit 1US 2510 prepare", "unit 1DM 2512 prepare", "unit 2US 2514 prepare", "unit 162 2516 prepare corps=XX",
	"unit XX 2413", "unit 17/42 2610", "unit 131/42 2612", "unit 32/241 2614", "unit 471/241 2616"}

// TestCancelCombatKeepsNumbers: a withdrawn combat keeps its number, the next
// declaration takes a new one, STATUS and the order check show the numbers, and the
// combats left are resolved in the order written (20: "one combat at a time, at the
// attacker's discretion"), the withdrawn one reported to its side only.
func TestCancelCombatKeepsNumbers(t *testing.T) {
	d := newDesk(t, fourFronts...)
	why := d.ok(soissons1918.EN, "ASSAULT 2610 WITH 1US\nASSAULT 2612 WITH 1DM\nASSAULT 2614 WITH 2US")
	for i, w := range why {
		if want := []string{", as assault 1", ", as assault 2", ", as assault 3"}[i]; !strings.HasSuffix(w, want) {
			t.Errorf("line %d: %q, want it to end %q", i+1, w, want)
		}
	}
	why = d.ok(soissons1918.EN, "CANCEL ASSAULT 2")
	if want := "withdrawn: assault 2: ASSAULT 2612 WITH 1DM (18 July PM, Entente step 1)"; why[0] != want {
		t.Errorf("CANCEL ASSAULT 2: %q, want %q", why[0], want)
	}
	why = d.ok(soissons1918.EN, "ASSAULT 2616 WITH 162")
	if !strings.HasSuffix(why[0], ", as assault 4") {
		t.Errorf("a combat after a withdrawal: %q, want assault 4", why[0])
	}
	want := []string{"assault 1: ASSAULT 2610 WITH 1US", "withdrawn: assault 2: ASSAULT 2612 WITH 1DM",
		"assault 3: ASSAULT 2614 WITH 2US", "assault 4: ASSAULT 2616 WITH 162"}
	if got := d.summaries(soissons1918.EN); !slices.Equal(got, want) {
		t.Errorf("orders on file:\n%q\nwant\n%q", got, want)
	}
	if w := d.r.Waiting(d.st, d.filed); !slices.Equal(w, []rules.Side{soissons1918.DE}) {
		t.Errorf("waiting for %v, want the German alone", w)
	}
	d.ok(soissons1918.DE, "PASS")
	var fought []string
	withdrawn := 0
	for _, e := range d.resolve(1, 3, 5) {
		if strings.HasPrefix(e.Text, "ASSAULT ") {
			fought = append(fought, strings.SplitN(e.Text, " (", 2)[0])
		}
		if strings.Contains(e.Text, "withdrawn") {
			withdrawn++
			if !slices.Equal(e.To, []rules.Side{soissons1918.EN}) || !strings.Contains(e.Text, "ASSAULT 2612 WITH 1DM") {
				t.Errorf("withdrawal event %q to %v, want it to name the order, to the Entente alone", e.Text, e.To)
			}
		}
	}
	if want := []string{"ASSAULT 2610 WITH 1US", "ASSAULT 2614 WITH 2US", "ASSAULT 2616 WITH 162"}; !slices.Equal(fought, want) {
		t.Errorf("combats fought: %q, want %q", fought, want)
	}
	if withdrawn != 1 {
		t.Errorf("%d withdrawal events, want 1", withdrawn)
	}
	if len(d.filed) != 0 {
		t.Errorf("orders left on file after the step: %v", d.filed)
	}
}

// TestCancelAll: CANCEL ALL withdraws every order of the side not resolved, those sent
// early included, and the step waits for the side again.
func TestCancelAll(t *testing.T) {
	d := newDesk(t, append(fourFronts, "art en 2,0,0", "unit 11 2508 corps=XX")...)
	d.ok(soissons1918.EN, "ASSAULT 2610 WITH 1US\nASSAULT 2614 WITH 2US\nBOMBARD 2612 H1\nMOVE 11 2508-2408")
	why := d.ok(soissons1918.EN, "CANCEL ALL")
	for _, w := range []string{"assault 1: ASSAULT 2610 WITH 1US (18 July PM, Entente step 1)", "assault 2: ASSAULT 2614",
		"BOMBARD 2612 H1 (18 July PM, Entente step 1)", "MOVE 11 2508-2408 (18 July PM, Entente step 2)"} {
		if !strings.Contains(why[0], w) {
			t.Errorf("CANCEL ALL: %q, want it to name %q", why[0], w)
		}
	}
	if w := d.r.Waiting(d.st, d.filed); !slices.Contains(w, soissons1918.EN) {
		t.Errorf("waiting for %v, want the Entente again", w)
	}
	if r := d.refused(soissons1918.EN, "CANCEL ALL"); !strings.Contains(r, "you have no order on file") || !strings.Contains(r, "those you sent are withdrawn already") {
		t.Errorf("CANCEL ALL twice: %q", r)
	}
	// A new ASSAULT after the withdrawal of assaults 1 and 2 is assault 3.
	if why := d.ok(soissons1918.EN, "ASSAULT 2610 WITH 1US"); !strings.HasSuffix(why[0], ", as assault 3") {
		t.Errorf("after CANCEL ALL: %q, want assault 3", why[0])
	}
	d.ok(soissons1918.DE, "PASS")
	var fought []string
	for _, e := range d.resolve(1) {
		if strings.HasPrefix(e.Text, "ASSAULT ") || strings.Contains(e.Text, "bombards") {
			fought = append(fought, e.Text)
		}
	}
	if len(fought) != 1 || !strings.HasPrefix(fought[0], "ASSAULT 2610 WITH 1US") {
		t.Errorf("carried out: %q, want the new assault alone", fought)
	}
	// The early MOVE was withdrawn with the rest: step 2 holds nothing of the Entente.
	if w := d.r.Waiting(d.st, d.filed); !slices.Contains(w, soissons1918.EN) || d.st.Phase() != "en2" {
		t.Errorf("in %s waiting for %v, want en2 waiting for the Entente", d.st.Phase(), w)
	}
}

// TestCancelEarlyAndKinds: orders held for a later step are withdrawn as those of the
// step the game is at; each keyword names its orders by unit, hex or number, and ALL
// takes every one of a kind.
func TestCancelEarlyAndKinds(t *testing.T) {
	d := newDesk(t, append(fourFronts, "art en 3,0,0")...)
	d.ok(soissons1918.EN, "IMPROVISE 1US 2610\nATTACK 2610 WITH 1US\nMOVE 162 2516-2515\nPREPARE 2US\nBOMBARD 2612 H1\nBOMBARD 2614 H1\nPASS")
	tests := []struct{ mail, want string }{
		{"CANCEL ATTACK 1", "withdrawn: attack 1: ATTACK 2610 WITH 1US (18 July PM, Entente step 2)"},
		{"CANCEL IMPROVISE 1US", "withdrawn: IMPROVISE 1US 2610 (18 July PM, Entente step 2)"},
		{"cancel move 162", "withdrawn: MOVE 162 2516-2515 (18 July PM, Entente step 2)"},
		{"CANCEL BOMBARD 2612", "withdrawn: BOMBARD 2612 H1 (18 July PM, Entente step 1)"},
		{"CANCEL PREPARE ALL", "withdrawn: PREPARE 2US (18 July PM, Entente step 2)"},
		{"CANCEL BOMBARD ALL", "withdrawn: BOMBARD 2614 H1 (18 July PM, Entente step 1)"},
		{"CANCEL PASS", "withdrawn: PASS (18 July PM, Entente step 1)"},
	}
	for _, tt := range tests {
		if why := d.ok(soissons1918.EN, tt.mail); why[0] != tt.want {
			t.Errorf("%s: %q, want %q", tt.mail, why[0], tt.want)
		}
	}
	for _, o := range d.filed {
		if o.Kind != "withdrawn" {
			t.Errorf("still on file: %s", o.Summary)
		}
	}
	// A line sent again word for word after its withdrawal is back on file.
	d.ok(soissons1918.EN, "MOVE 162 2516-2515")
	if got := d.summaries(soissons1918.EN); !slices.Contains(got, "MOVE 162 2516-2515") {
		t.Errorf("orders on file after MOVE again: %q", got)
	}
}

// TestCancelRefused: CANCEL answers what it cannot withdraw, and why (HELP).
func TestCancelRefused(t *testing.T) {
	tests := []struct{ name, first, mail, want string }{
		{"not on file", "ASSAULT 2610 WITH 1US", "CANCEL ASSAULT 2", "you have no ASSAULT 2 on file"},
		{"one of two not on file", "ASSAULT 2610 WITH 1US", "CANCEL ASSAULT 1,2", "you have no ASSAULT 2 on file"},
		{"withdrawn already", "ASSAULT 2610 WITH 1US\nASSAULT 2614 WITH 2US\n---\nCANCEL ASSAULT 1", "CANCEL ASSAULT 1",
			"your ASSAULT 1 is withdrawn already (assault 1: ASSAULT 2610 WITH 1US)"},
		{"twice in a mail", "ASSAULT 2610 WITH 1US\nASSAULT 2614 WITH 2US", "CANCEL ASSAULT 1\nCANCEL ASSAULT 1",
			"your ASSAULT 1 is withdrawn already"},
		{"the other side's", "", "CANCEL MOVE 17/42", "you have no MOVE of 17/42 on file"},
		{"standing", "", "CANCEL LEAD", "LEAD is a standing order: it is not withdrawn but replaced; send LEAD DEFAULT"},
		{"standing retreat", "", "CANCEL RETREAT 17/42", "send RETREAT <unit> DEFAULT or RETREAT ALL LINE"},
		{"no number", "", "CANCEL ASSAULT 1US", `"1US": want the number of the assault`},
		{"unknown", "", "CANCEL EVERYTHING", "want CANCEL ALL, CANCEL ASSAULT 2"},
		{"alone", "", "CANCEL", "want CANCEL ALL"},
		{"pass takes nothing", "", "CANCEL PASS 2", "want CANCEL PASS alone"},
		{"no unit", "", "CANCEL MOVE 9ZZ", `no unit "9ZZ"`},
		{"held for step 2: checked in full then", "IMPROVISE 1US 2610\n---\nATTACK 2610 WITH 1US", "CANCEL IMPROVISE 1US",
			""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDesk(t, fourFronts...)
			for _, m := range strings.Split(tt.first, "\n---\n") {
				if m != "" {
					d.ok(soissons1918.EN, m)
				}
			}
			if tt.want == "" {
				d.ok(soissons1918.EN, tt.mail) // held for step 2: checked in full then
				return
			}
			if got := d.refused(soissons1918.EN, tt.mail); !strings.Contains(got, tt.want) {
				t.Errorf("%s: %q, want it to contain %q", tt.mail, got, tt.want)
			}
		})
	}
}

// TestCancelNeededMarker: in step 2, withdrawing the Improvised Attack marker an
// ATTACK on file needs (19.4.1, 20.3) is refused, unless the mail gives one again.
func TestCancelNeededMarker(t *testing.T) {
	d := newDesk(t, "turn 2", "phase en2", "unit 1US 2510", "unit XX 2413", "unit 17/42 2610")
	d.ok(soissons1918.EN, "IMPROVISE 1US 2610")
	d.ok(soissons1918.EN, "ATTACK 2610 WITH 1US")
	got := d.refused(soissons1918.EN, "CANCEL IMPROVISE 1US")
	if !strings.Contains(got, "attack 1: ATTACK 2610 WITH 1US on file no longer stands: 1US may not attack") {
		t.Errorf("CANCEL IMPROVISE 1US: %q", got)
	}
	d.ok(soissons1918.EN, "CANCEL ATTACK 1\nCANCEL IMPROVISE 1US")
}

// TestCancelAfterResolution: an order resolved with its step is no longer on file, and
// CANCEL says that its step was resolved.
func TestCancelAfterResolution(t *testing.T) {
	d := newDesk(t, fourFronts...)
	d.ok(soissons1918.EN, "ASSAULT 2610 WITH 1US\nATTACK 2614 WITH 2US")
	d.ok(soissons1918.DE, "PASS")
	d.resolve(1)
	got := d.refused(soissons1918.EN, "CANCEL ASSAULT 1")
	if want := "you have no ASSAULT 1 on file that is not resolved yet (STATUS lists your orders on file); orders for 18 July PM, Entente step 1 were resolved with it and can no longer be withdrawn; nothing of this mail is filed, so your orders on file stand as they were: attack 1: ATTACK 2614 WITH 2US (18 July PM, Entente step 2)"; got != want {
		t.Errorf("CANCEL ASSAULT 1 after step 1:\n%q\nwant\n%q", got, want)
	}
	// The ATTACK sent early for step 2 is still the player's to withdraw.
	if why := d.ok(soissons1918.EN, "CANCEL ATTACK 1"); !strings.HasPrefix(why[0], "withdrawn: attack 1: ATTACK 2614 WITH 2US") {
		t.Errorf("CANCEL ATTACK 1 in step 2: %q", why[0])
	}
}

// TestCancelInARefusedMail: a mail with a refused line files nothing, its CANCEL lines
// included (the desk's rule). Its verdicts must not read as if the withdrawal had
// happened: the CANCEL line says what stays on file, its other correct lines what
// they would have done, and the refused line what of the side's orders on file
// stands (issue 21: a CANCEL PASS in a mail with one refused line did nothing, and
// the player could not take the PASS back).
func TestCancelInARefusedMail(t *testing.T) {
	d := newDesk(t, "turn 2", "phase en1", "unit 1US 2510 prepare", "unit XX 2413", "unit 17/42 2610")
	d.ok(soissons1918.EN, "PASS\nMOVE 1US 2510-2410")
	checked := d.mail(soissons1918.EN, "CANCEL PASS\nASSAULT 2610 WITH 1US\nBOMBARD 2610 H2")
	want := []struct {
		ok     bool
		reason string
	}{
		{true, "NOT withdrawn, as line 3 is refused and a mail with a refused line changes nothing: PASS (18 July PM, Entente step 1) stays on file"},
		{true, "would be for NOW, the step the game is at: 18 July PM, Entente step 1"},
		{false, "; nothing of this mail is filed, so your orders on file stand as they were: PASS (18 July PM, Entente step 1); MOVE 1US 2510-2410 (18 July PM, Entente step 2)"},
	}
	for i, c := range checked {
		if c.OK != want[i].ok || !strings.Contains(c.Reason, want[i].reason) {
			t.Errorf("line %q: ok %v, %q; want ok %v and %q", c.Line.Text, c.OK, c.Reason, want[i].ok, want[i].reason)
		}
	}
	if got := d.summaries(soissons1918.EN); !slices.Equal(got, []string{"PASS", "MOVE 1US 2510-2410"}) {
		t.Errorf("orders on file: %q", got)
	}
	// Without the refused line the CANCEL is carried out.
	if why := d.ok(soissons1918.EN, "CANCEL PASS\nASSAULT 2610 WITH 1US"); why[0] != "withdrawn: PASS (18 July PM, Entente step 1)" {
		t.Errorf("CANCEL PASS alone: %q", why[0])
	}
}
