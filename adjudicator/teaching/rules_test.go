package teaching_test

import (
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

func caseState(t *testing.T, r *teaching.Rules, lines ...string) rules.State {
	t.Helper()
	st, err := teaching.CaseAdapter{Rules: r}.State(lines)
	if err != nil {
		t.Fatal(err)
	}
	return st
}

func check(r *teaching.Rules, st rules.State, side rules.Side, text string) []rules.Checked {
	lines, _ := orders.Split(text)
	return r.Check(st, side, lines, nil)
}

// TestOrderCheckSaysEachCase: an order that depends on a card not yet turned is
// answered with what happens in each case (issue 11, "By email").
func TestOrderCheckSaysEachCase(t *testing.T) {
	r := newRules(t)
	st := caseState(t, r, "turn 2", "unit mg 0619", "unit inf 0618", "unit army 0612 2", "unit marine 0611 black", "unit army 0516", "unit marine 0615 black")
	got := check(r, st, teaching.American, "SHELL HE 0619\nSHELL SMOKE 0102\nMOVE 0611-0610\nMOVE 2 ARMY 0612-0613\nMOVE MARINE 0615-0616-0617\nCUT 0516/0517\nCHIP 0613 BLACK\n")
	want := []string{
		"A: 0619 (1 German MG); 3: 0618 (1 German infantry); 2 4 5 6 7 8 9 10 J Q K: a hex with nobody in it now",
		"smoke kills nothing and stays where it lands",
		"10 J: off the map, no effect",
		"if a shell of this turn kills them first, they do not move",
		"not placed if no live American is in 0516 or 0517 after movement",
		"black chip on 2 unit(s) in 0613 after movement (next turn: move up to 3); if fewer are alive there then, on those",
		"Army units whose only American neighbours a shell kills may not move",
		"Then, if no shell changes it: hand to hand at 0618 (German inf, strength 1) against 1 American unit(s), strength 1, 1 to 1: you turn a card, red kills the German, black the Americans next to it",
	}
	var reasons []string
	for _, c := range got {
		if !c.OK {
			t.Errorf("%q refused: %s", c.Line.Text, c.Reason)
		}
		reasons = append(reasons, c.Reason)
	}
	all := strings.Join(reasons, "\n")
	for _, w := range want {
		if !strings.Contains(all, w) {
			t.Errorf("order check lacks %q; it says:\n%s", w, all)
		}
	}
	de := caseState(t, r, "turn 2", "phase de", "unit mg 0619", "unit inf 0618", "unit army 0612 2 black")
	got = check(r, de, teaching.German, "SHELL 0612\nFIRE 0619 0618 AT 0612 BLACK\n")
	all = got[0].Reason + "\n" + got[1].Reason
	for _, w := range []string{"A: 0612 (2 Army (black chip))", "5 point(s)", "up to 5 killed", "a unit your shells kill first does not fire, and units they kill are not fired at"} {
		if !strings.Contains(all, w) {
			t.Errorf("German order check lacks %q; it says:\n%s", w, all)
		}
	}
}

// TestCheckRefusesAndNamesTheKeywords: a word that is no order is refused with the list.
func TestCheckRefusesAndNamesTheKeywords(t *testing.T) {
	r := newRules(t)
	st := caseState(t, r, "turn 2", "unit mg 0619", "unit army 0612")
	got := check(r, st, teaching.American, "ADVANCE 0612\n")
	if got[0].OK || !strings.Contains(got[0].Reason, `unknown order "ADVANCE": want one of SETUP, PLACE, PASS, SHELL, MOVE, CUT, CHIP, FIRE`) {
		t.Errorf("Check(ADVANCE) = %+v", got[0])
	}
	for _, k := range r.Keywords() {
		if k != strings.ToUpper(k) || strings.ContainsFunc(k, func(c rune) bool { return c > 127 }) {
			t.Errorf("keyword %q is not upper-case ASCII", k)
		}
	}
}

// TestDefaults: SETUP DEFAULT at set-up, PASS in a turn, and the results say so.
func TestDefaults(t *testing.T) {
	r := newRules(t)
	st, err := r.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	d := r.Defaults(st, teaching.German, nil)
	if len(d) != 1 || d[0].Text != "SETUP DEFAULT" {
		t.Fatalf("Defaults at set-up = %+v", d)
	}
	if d := r.Defaults(st, teaching.American, nil); len(d) != 0 {
		t.Errorf("Defaults for the side not to move = %+v", d)
	}
	turn := caseState(t, r, "turn 2", "unit mg 0619", "unit army 0612")
	d = r.Defaults(turn, teaching.American, nil)
	if len(d) != 1 || d[0].Text != "PASS" {
		t.Fatalf("Defaults in a turn = %+v", d)
	}
	if !strings.Contains(d[0].Summary, "default orders") {
		t.Errorf("Summary %q does not say the orders are the default", d[0].Summary)
	}
	out, err := r.Resolve(turn, d, dice.NewScript())
	if err != nil {
		t.Fatal(err)
	}
	if out.State.Phase() != teaching.PhaseGerman {
		t.Errorf("after the default American turn: phase %s", out.State.Phase())
	}
}

// TestNewOptions: options are checked; the mix option picks a mix.
func TestNewOptions(t *testing.T) {
	r := newRules(t)
	for _, tc := range []struct {
		opts    rules.Options
		wantErr string
	}{
		{rules.Options{"york": true}, `option "york"`},
		{rules.Options{teaching.OptTurns12: true, teaching.OptTurns24: true}, "one turn limit"},
		{rules.Options{"mix-small": true}, ""},
		{rules.Options{teaching.OptNoReshuffle: true, teaching.OptSmokeClears: true}, ""},
	} {
		st, err := r.New(tc.opts)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("New(%v) = %v", tc.opts, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("New(%v) error = %v, want %q", tc.opts, err, tc.wantErr)
		case err == nil && tc.opts["mix-small"] && !strings.Contains(r.Status(st, teaching.American), "Counter mix: small"):
			t.Errorf("mix-small: status %q", r.Status(st, teaching.American))
		}
	}
	names := r.OptionNames()
	for _, o := range []string{teaching.OptNoReshuffle, teaching.OptSmokeClears, teaching.OptTurns12, teaching.OptTurns24, "mix-small"} {
		if !strings.Contains(names[o], "not printed") && !strings.Contains(names[o], "reconstructed") {
			t.Errorf("option %s is not marked as not printed: %q", o, names[o])
		}
	}
}

// TestHelp: the HELP text prints the shipped scatter chart line for line, shows every
// order keyword in an example, and keeps to 78 columns.
func TestHelp(t *testing.T) {
	r := newRules(t)
	raw, err := os.ReadFile("../../templates/teaching-help.txt")
	if err != nil {
		t.Fatal(err)
	}
	help := string(raw)
	for _, l := range r.Scenario().ChartLines() {
		if !strings.Contains(help, "\n  "+l+"\n") {
			t.Errorf("HELP lacks the chart line %q", l)
		}
	}
	for _, k := range r.Keywords() {
		if !regexp.MustCompile(`\n +` + k + `\b`).MatchString(help) {
			t.Errorf("HELP has no example of %s", k)
		}
	}
	for i, l := range strings.Split(help, "\n") {
		if len(l) > 78 {
			t.Errorf("HELP line %d is %d columns", i+1, len(l))
		}
	}
	// Every example in HELP is an order the grammar reads.
	for _, l := range strings.Split(help, "\n") {
		f := strings.Fields(l)
		if strings.HasPrefix(l, "        ") && len(f) > 0 && slices.Contains(r.Keywords(), f[0]) {
			lines, _ := orders.Split(strings.TrimSpace(l))
			st := caseState(t, r, "turn 2", "unit mg 0619", "unit army 0612")
			for _, c := range r.Check(st, teaching.American, lines, nil) {
				if !c.OK && (strings.Contains(c.Reason, "expected") || strings.HasPrefix(c.Reason, "want ") || strings.Contains(c.Reason, "unknown order")) && !strings.Contains(c.Reason, "is not an order of the American turn") {
					t.Errorf("HELP example %q does not parse: %s", strings.TrimSpace(l), c.Reason)
				}
			}
		}
	}
}

// TestMap: the opening map is the golden one; every line fits 78 columns; cut wire,
// smoke, chips and dead units show.
//
// A game of revision 0 keeps the trench and wire letters it was shown (the golden of
// then, unchanged); from revision 1 they are the kit's (mapview.Works), the only
// change between the two goldens.
func TestMap(t *testing.T) {
	r := newRules(t)
	for _, tc := range []struct {
		revision int
		path     string
		legend   []string
	}{
		{0, "testdata/map.golden", []string{`"#" bunker`, `"=" main trench`, `"x" barbed wire`}},
		{1, "testdata/map-r1.golden", []string{`"D" bunker`, `"T" main trench`, `"S" support`, `"Z" communication`, `"W" barbed wire`, `"o" cut wire`}},
	} {
		t.Run(strconv.Itoa(tc.revision), func(t *testing.T) {
			st, err := r.New(nil)
			if err != nil {
				t.Fatal(err)
			}
			st.(*teaching.State).Revision = tc.revision
			for _, side := range []rules.Side{teaching.German, teaching.American} {
				out, err := r.Resolve(st, r.Defaults(st, side, nil), dice.NewScript())
				if err != nil {
					t.Fatal(err)
				}
				st = out.State
			}
			got := r.Map(st, teaching.American)
			if *update {
				if err := os.WriteFile(tc.path, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			golden, err := os.ReadFile(tc.path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(golden) {
				t.Errorf("Map() =\n%s\nwant (%s)\n%s", got, tc.path, golden)
			}
			for _, w := range tc.legend {
				if !strings.Contains(strings.Join(strings.Fields(got), " "), w) {
					t.Errorf("legend lacks %s", w)
				}
			}
		})
	}
	mid := caseState(t, r, "turn 3", "unit mg 0619", "unit army 0612 2 black", "unit marine 0612 blue", "dead army 0611", "smoke 0614", "cut 0516/0517 2")
	m := r.Map(mid, teaching.German)
	for _, want := range []string{"kkB", "*", ". x ", "Wire markers placed: 1 of 27. American casualties: 1."} {
		if !strings.Contains(m, want) {
			t.Errorf("map lacks %q:\n%s", want, m)
		}
	}
	for i, l := range strings.Split(m, "\n") {
		if len(l) > 78 {
			t.Errorf("map line %d is %d columns", i+1, len(l))
		}
	}
}

// TestDataErrors: the loader names the file and line of what is wrong.
func TestDataErrors(t *testing.T) {
	mapSrc, _ := os.ReadFile("data/map.txt")
	scatter, _ := os.ReadFile("data/scatter.txt")
	mix, _ := os.ReadFile("data/mix.txt")
	tec, _ := os.ReadFile("data/tec.txt")
	for _, tc := range []struct {
		name                    string
		mapS, scatS, mixS, tecS string
		want                    string
	}{
		{"no provenance", string(mapSrc), string(scatter) + "\nK SE 2\n", string(mix), "", "scatter.txt:"},
		{"rank twice", string(mapSrc), string(scatter) + "\nK SE 2 | reconstructed: twice\n", string(mix), "", "rank K given twice"},
		{"rank missing", string(mapSrc), strings.Replace(string(scatter), "\nQ  S  2", "\n# Q", 1), string(mix), "", "no line for rank Q"},
		{"ace moves", string(mapSrc), strings.Replace(string(scatter), "A  -  0", "A  N  1", 1), string(mix), "", "the Ace is the aimed hex"},
		{"german in the open", string(mapSrc), string(scatter), string(mix) + "\nunit de inf 0612 | reconstructed: test\n", "", "0612: set-up: Germans set up"},
		{"american stack of 4", string(mapSrc), string(scatter), string(mix) + "\nunit us army 0506 1 | reconstructed: test\n", "", "0506: set-up: American units may stack up to 3 high"},
		{"bad word", string(mapSrc) + "\nterrain forest 0101 | reconstructed: test\n", string(scatter), string(mix), "", "map.txt:"},
		{"tec without clear", "", "", "", strings.Replace(string(tec), "enter clear 1", "# clear", 1), "tec.txt: no enter line for terrain clear"},
		{"tec crossing an unknown side", "", "", "", string(tec) + "cross hedge - | reconstructed: test\n", `tec.txt:10: unknown "hedge"`},
	} {
		for _, f := range []struct {
			s   *string
			def []byte
		}{{&tc.mapS, mapSrc}, {&tc.scatS, scatter}, {&tc.mixS, mix}, {&tc.tecS, tec}} {
			if *f.s == "" {
				*f.s = string(f.def)
			}
		}
		_, err := teaching.ParseScenario(fstest.MapFS{
			"map.txt":     {Data: []byte(tc.mapS)},
			"scatter.txt": {Data: []byte(tc.scatS)},
			"mix.txt":     {Data: []byte(tc.mixS)},
			"tec.txt":     {Data: []byte(tc.tecS)},
		})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: ParseScenario error = %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestScatterChartOnData: every value of the chart is marked; only the Ace is printed.
func TestScatterChartOnData(t *testing.T) {
	r := newRules(t)
	for rank, s := range r.Scenario().Scatter {
		if s.Fact.Printed != (rank == "A") {
			t.Errorf("rank %s: printed = %v", rank, s.Fact.Printed)
		}
	}
}

// TestMapHoldsThePrintedFacts: the reconstructed map has what the rulebook's text says
// the printed one has: German bunkers, main and support trenches south of hexrow 16,
// communication trenches there too, an American support trench north of it, barbed
// wire on hexsides, the Germans in the south and the Americans in the north.
func TestMapHoldsThePrintedFacts(t *testing.T) {
	r := newRules(t)
	m := r.Scenario().Map
	found := map[string]bool{}
	for _, h := range m.Hexes() {
		for _, f := range m.Features(h) {
			south := h.Row > 16
			found[fmt.Sprintf("%s south=%v", f, south)] = true
		}
	}
	for _, want := range []string{"bunker south=true", "main south=true", "support south=true", "communication south=true", "support south=false"} {
		if !found[want] {
			t.Errorf("the map has no %s", want)
		}
	}
	wire := 0
	for _, h := range m.Hexes() {
		for _, n := range m.Grid.Neighbours(h) {
			if m.SideHas(h, n, "wire") {
				wire++
			}
		}
	}
	if wire == 0 {
		t.Error("no barbed wire on any hexside")
	}
	for _, p := range r.Scenario().Mixes["default"].Places {
		if (p.Side == teaching.German) != (p.Hex.Row > 16) {
			t.Errorf("default set-up: %s %s in %s is on the wrong side of hexrow 16", p.Side, p.Kind, p.Hex)
		}
	}
}

// TestReshuffleIsSealed turns a card from a used-up deck with the desk's dealer: the
// discards are shuffled from the deck seed (not printed), the shuffle is recorded with
// the discards in the order turned, and the card turned is the first of the new order,
// which DealOrder re-derives from the seed and the record alone.
func TestReshuffleIsSealed(t *testing.T) {
	r := newRules(t)
	st := caseState(t, r, "turn 9", "unit mg 0619", "unit army 0210", "deck us", "discards us KS 3D 7H 2C")
	seed := dice.Seed{42}
	dealer := dice.NewDealer(seed, "g")
	out, err := r.Resolve(st, []rules.Order{{Phase: "9.us", Side: teaching.American, Key: "turn", Text: "SHELL HE 0618"}},
		dice.WithDealer(dice.NewScript(), dealer))
	if err != nil {
		t.Fatal(err)
	}
	deals := dealer.Deals()
	if len(deals) != 2 || deals[0].Kind != dice.KindDeckShuffle || deals[1].Kind != dice.KindCard {
		t.Fatalf("deals = %+v, want a reshuffle and a card", deals)
	}
	sh := deals[0]
	if strings.Join(sh.Cards, " ") != "KS 3D 7H 2C" || sh.Deck != "us" || sh.Index != 1 {
		t.Errorf("reshuffle record %+v: want deck us, shuffle 1, the discards in the order turned", sh)
	}
	want := dice.DealOrder(seed, "g", "us", 1, sh.Purpose, sh.Rule, sh.Cards)
	if deals[1].Cards[0] != want[0] || deals[1].Index != 0 {
		t.Errorf("card turned %+v, the seed gives %s at place 0", deals[1], want[0])
	}
	var shuffleEvent, cardEvent bool
	for _, e := range out.Events {
		shuffleEvent = shuffleEvent || (e.Deal != nil && e.Deal.Kind == dice.KindDeckShuffle && strings.Contains(e.Text, "not printed"))
		cardEvent = cardEvent || (e.Deal != nil && e.Deal.Kind == dice.KindCard && strings.Contains(e.Text, "turns "+want[0]))
	}
	if !shuffleEvent || !cardEvent {
		t.Errorf("events do not carry the reshuffle (%v) and the card (%v): %+v", shuffleEvent, cardEvent, out.Events)
	}
	dk := out.State.(*teaching.State).Decks[teaching.American]
	if dk.Shuffles != 2 || dk.Next != 1 || len(dk.Order) != 4 {
		t.Errorf("deck after the reshuffle: %+v", dk)
	}
}

// TestNoDealerNoCard: a source that deals no sealed decks is refused when a card is
// to be turned, rather than turning a card from nowhere.
func TestNoDealerNoCard(t *testing.T) {
	r := newRules(t)
	st := caseState(t, r, "turn 2", "unit mg 0619", "unit army 0210", "deck us AS 2S")
	_, err := r.Resolve(st, []rules.Order{{Phase: "2.us", Side: teaching.American, Key: "turn", Text: "SHELL HE 0618"}}, dice.NewScript())
	if err == nil || !strings.Contains(err.Error(), "sealed decks") {
		t.Errorf("Resolve without a dealer: %v", err)
	}
}

// TestStepDefaults: a player who stopped after a step and sent nothing by the deadline
// gets PASS for the steps left (HELP, PACE OF PLAY), and the results tell him that
// those steps were played by default.
func TestStepDefaults(t *testing.T) {
	r := newRules(t)
	tests := []struct {
		phase, next string
		side        rules.Side
	}{
		{teaching.PhaseAmericanMove, teaching.PhaseGerman, teaching.American},
		{teaching.PhaseAmericanWire, teaching.PhaseGerman, teaching.American},
		{teaching.PhaseGermanFire, teaching.PhaseAmerican, teaching.German},
	}
	for _, tt := range tests {
		t.Run(tt.phase, func(t *testing.T) {
			st := caseState(t, r, "turn 2", "phase "+tt.phase, "unit mg 0619", "unit army 0610 2 black")
			if w := r.Waiting(st, nil); len(w) != 1 || w[0] != tt.side {
				t.Fatalf("Waiting = %v, want %s", w, tt.side)
			}
			defs := r.Defaults(st, tt.side, nil)
			if len(defs) != 1 || defs[0].Text != "PASS" || !strings.Contains(defs[0].Summary, st.PhaseTitle()) {
				t.Fatalf("Defaults = %+v", defs)
			}
			if w := r.Waiting(st, defs); len(w) != 0 {
				t.Fatalf("Waiting after the defaults = %v", w)
			}
			out, err := r.Resolve(st, r.Inputs(st, defs), nil)
			if err != nil {
				t.Fatal(err)
			}
			if out.State.Phase() != tt.next {
				t.Errorf("phase after the default: %s, want %s", out.State.Phase(), tt.next)
			}
			told := false
			for _, e := range out.Events {
				told = told || (strings.Contains(e.Text, "by default, no mail by the deadline: PASS") && e.VisibleTo(tt.side) && !e.VisibleTo(other(tt.side)))
			}
			if !told {
				t.Errorf("no event tells the %s alone that the steps were played by default: %v", tt.side, out.Events)
			}
		})
	}
}

func other(s rules.Side) rules.Side {
	if s == teaching.American {
		return teaching.German
	}
	return teaching.American
}

// TestProvisionalMoveSaysSo: a move only a German the mail's shells may kill forbids
// is accepted for now, and the order check says when it is judged again and what
// happens if it is illegal then; it forecasts no hand to hand with the German the move
// needs dead.
func TestProvisionalMoveSaysSo(t *testing.T) {
	r := newRules(t)
	st := caseState(t, r, "turn 2", "unit mg 0619", "unit inf 0614", "unit marine 0611 black")
	cs := check(r, st, teaching.American, "SHELL HE 0614\nMOVE MARINE 0611-0612-0613-0713")
	if len(cs) != 2 || !cs[1].OK {
		t.Fatalf("verdicts: %+v", cs)
	}
	for _, want := range []string{"accepted for now, checked again when step 3 comes", "kill the German(s) in 0614 first", "not carried out and the units stay in 0611"} {
		if !strings.Contains(cs[1].Reason, want) {
			t.Errorf("the verdict %q lacks %q", cs[1].Reason, want)
		}
	}
	if strings.Contains(cs[1].Reason, "hand to hand at 0614") {
		t.Errorf("the verdict forecasts a hand to hand with the German the move needs dead: %q", cs[1].Reason)
	}
}
