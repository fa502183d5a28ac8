package soissons1918

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// grammar is the orders of Soissons (templates/soissons1918-help.txt), each a keyword
// and its fields (package orders reads the keyword and refuses an unknown one or a line
// short of a field; the orders without a usage read their fields themselves).
var grammar = orders.Grammar{
	{Keyword: "SETUP", Fields: 1, Usage: "SETUP DEFAULT", Rule: "3.1"},
	{Keyword: "PASS", Rule: "4.2"},
	{Keyword: "REINFORCE", Fields: 2, Usage: "REINFORCE <unit> <hex> [CORPS <hq>]", Rule: "18.1"},
	{Keyword: "TANK", Fields: 2, Usage: "TANK <tank group> <division>, or TANK <tank group> REMOVE", Rule: "9.2"},
	{Keyword: "BOMBARD", Fields: 2, Usage: "BOMBARD <hex> [H<n>] [M<n>] [A<n>] [<hq> ...], e.g. BOMBARD 1010 H2 M1 XX", Rule: "17.4"},
	{Keyword: "MOVE", Fields: 2, Usage: "MOVE <unit>[,<unit>...] <path>, e.g. MOVE 1US 0807-0908-1008", Rule: "19"},
	{Keyword: "PREPARE", Fields: 1, Usage: "PREPARE <unit>", Rule: "19.4"},
	{Keyword: "IMPROVISE", Fields: 2, Usage: "IMPROVISE <unit> <hex>", Rule: "19.4.1"},
	{Keyword: "FALLBACK", Fields: 2, Usage: "FALLBACK <unit>[,<unit>...] <path>, e.g. FALLBACK 1US 0807-0908-1008", Rule: "19.6"},
	{Keyword: "PURSUE", Fields: 2, Usage: "PURSUE <unit> <hex>", Rule: "19.7"},
	{Keyword: "ATTACK", Rule: "20.2"},
	{Keyword: "ASSAULT", Rule: "20.2"},
	{Keyword: "LOSSES", Fields: 1, Usage: "LOSSES <unit>,<unit>,... (who takes losses first), or LOSSES DEFAULT", Rule: "17.8"},
	{Keyword: "PLACE", Fields: 2, Usage: "PLACE <unit> <hex>, or PLACE <tank group> <division>|BOX", Rule: "3.1"},
	{Keyword: "RETREAT"}, {Keyword: "CONVERT"}, {Keyword: "ADVANCE"}, {Keyword: "SPENT"},
	{Keyword: "LEAD", Rule: "20.4.2"},
	{Keyword: "XRESULT", Rule: "20.4.7"},
	{Keyword: "CANCEL"},
}

// Keywords are the first words of Soissons orders.
var Keywords = grammar.Keywords()

// Kinds of order line.
const (
	kSetup     = "setup"
	kPlace     = "place"
	kPass      = "pass"
	kReinforce = "reinforce"
	kTank      = "tank"
	kBombard   = "bombard"
	kMove      = "move"
	kPrepare   = "prepare"
	kImprovise = "improvise"
	kFallBack  = "fallback"
	kPursue    = "pursue"
	kLosses    = "losses"
	kCancel    = "cancel"    // CANCEL: withdraws orders on file (cancel.go)
	kWithdrawn = "withdrawn" // an order on file withdrawn by CANCEL, until its step
)

// Bombard is one bombardment of one hex (17.4): army points by type and the HQs whose
// organic point is used.
type Bombard struct {
	Target             hex.Hex
	Heavy, Medium, Air int
	Organic            []string
}

// Points is the total of artillery points (17.6: the column).
func (b Bombard) Points() int { return b.Heavy + b.Medium + b.Air + len(b.Organic) }

func (b Bombard) String() string {
	w := []string{"BOMBARD", b.Target.String()}
	for _, p := range []struct {
		c string
		n int
	}{{"H", b.Heavy}, {"M", b.Medium}, {"A", b.Air}} {
		if p.n > 0 {
			w = append(w, p.c+strconv.Itoa(p.n))
		}
	}
	return strings.Join(append(w, b.Organic...), " ")
}

// item is one parsed order line.
type item struct {
	line    orders.Line
	kind    string
	text    string // canonical text
	rule    string
	units   []string
	path    []hex.Hex
	at      hex.Hex // REINFORCE, IMPROVISE, PURSUE
	corps   string  // REINFORCE ... CORPS
	tank    string
	target  string // TANK: the division, or REMOVE
	bombard Bombard
	combat  Declaration // ASSAULT, ATTACK (20)
	cancel  cancelSpec  // CANCEL
	turn    int         // PASS <turn>: the turn named, 0 for PASS alone
	err     error
}

// parseTurn reads a turn as turnName writes it: "18 July PM" (3.2: 18 July AM to 23
// July PM; AM, PM, night).
func parseTurn(f []string) (int, error) {
	want := fmt.Errorf("%q: want PASS alone (the step the game is at), or PASS and a turn as STATUS writes it, e.g. PASS 18 July PM", strings.Join(f, " "))
	if len(f) != 3 || !orders.EqualFold(f[1], "JULY") {
		return 0, want
	}
	day, err := strconv.Atoi(f[0])
	part := map[string]int{"AM": 0, "PM": 1, "NIGHT": 2}
	p, ok := part[orders.Upper(f[2])]
	t := (day-18)*3 + p + 1
	if err != nil || !ok || t < 1 || t > LastTurn {
		return 0, want
	}
	return t, nil
}

// parseLine reads one order line.
func (sc *Scenario) parseLine(l orders.Line) item {
	it := item{line: l}
	f := l.Fields
	bad := func(rule, format string, args ...any) item {
		it.rule, it.err = rule, fmt.Errorf(format, args...)
		return it
	}
	units := func(w string) ([]string, error) {
		out, err := orders.Units([]string{w}, sc.unitID, "write ids as in STATUS, e.g. 1US, 17/42, XX (2.3.1)")
		if err != nil {
			return nil, err
		}
		if len(out) == 0 {
			return nil, fmt.Errorf("no unit named")
		}
		return out, nil
	}
	oneHex := func(w string) (hex.Hex, error) {
		h, err := hex.Parse(w)
		if err == nil && !sc.Map.OnMap(h) {
			err = fmt.Errorf("%s is off the map", h)
		}
		return h, err
	}
	form, _, err := grammar.Read(l)
	if err != nil {
		return bad(form.Rule, "%v", err)
	}
	switch kw := form.Keyword; kw {
	case "SETUP":
		it.rule = "3.1"
		if len(f) != 2 || !orders.EqualFold(f[1], "DEFAULT") {
			return bad(form.Rule, "%v", form.Want())
		}
		it.kind, it.text = kSetup, "SETUP DEFAULT"
	case "PLACE":
		it.rule = "3.1"
		if len(f) != 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		if it.units, err = units(f[1]); err != nil || len(it.units) != 1 {
			return bad("3.1", "want PLACE <unit> <hex>: %v", err)
		}
		if c, _ := sc.Counter(it.units[0]); c.Kind == KindTank {
			// 3.1: tank groups are attached to a division, or left in the box.
			if d, ok := sc.Counter(f[2]); ok && d.Kind == KindDivision && d.Side == EN {
				it.target = d.ID
			} else if orders.EqualFold(f[2], "BOX") {
				it.target = "BOX"
			} else {
				return bad("3.1", "%q: a tank group is placed on an Entente division (PLACE T1 1US) or left in the Tank Assets box (PLACE T1 BOX), 3.1", f[2])
			}
			it.kind, it.text = kPlace, fmt.Sprintf("PLACE %s %s", it.units[0], it.target)
			break
		}
		if it.at, err = oneHex(f[2]); err != nil {
			return bad("3.1", "%v", err)
		}
		it.kind, it.text = kPlace, fmt.Sprintf("PLACE %s %s", it.units[0], it.at)
	case "PASS":
		// PASS alone answers the step the game is at; PASS 18 July PM a step of that
		// turn (Check: passKey).
		it.kind, it.text, it.rule = kPass, "PASS", "4.2"
		if len(f) > 1 {
			if it.turn, err = parseTurn(f[1:]); err != nil {
				return bad("4.2", "%v", err)
			}
			it.text = "PASS " + turnName(it.turn)
		}
	case "ATTACK", "ASSAULT":
		it.rule = map[string]string{"ASSAULT": "20.2", "ATTACK": "20.2"}[kw]
		if it.combat, err = sc.parseCombat(f); err != nil {
			return bad("20", "%v", err)
		}
		it.kind, it.text = it.combat.Kind, it.combat.String()
	case "LEAD", "XRESULT":
		it.rule = map[string]string{"LEAD": "20.4.2", "XRESULT": "20.4.7"}[kw]
		if it.kind, it.text, err = sc.parseStanding(kw, f); err != nil {
			return bad(it.rule, "%v", err)
		}
	case "REINFORCE":
		it.rule = "18.1"
		if len(f) != 3 && !(len(f) == 5 && orders.EqualFold(f[3], "CORPS")) {
			return bad(form.Rule, "%v", form.Want())
		}
		if it.units, err = units(f[1]); err != nil {
			return bad("18", "%v", err)
		}
		if it.at, err = oneHex(f[2]); err != nil {
			return bad("18.1", "%v", err)
		}
		it.kind, it.text = kReinforce, fmt.Sprintf("REINFORCE %s %s", strings.Join(it.units, ","), it.at)
		if len(f) == 5 {
			c, ok := sc.Counter(f[4])
			if !ok || c.Kind != KindHQ {
				return bad("12", "CORPS %q: want an HQ id (W or S)", f[4])
			}
			it.corps = c.ID
			it.text += " CORPS " + c.ID
		}
	case "TANK":
		it.rule = "9.2"
		if len(f) != 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		c, ok := sc.Counter(f[1])
		if !ok || c.Kind != KindTank {
			return bad("9", "no tank group %q (T1-T8)", f[1])
		}
		it.tank = c.ID
		if orders.EqualFold(f[2], "REMOVE") {
			it.target, it.rule = "REMOVE", "9.4"
		} else if d, ok := sc.Counter(f[2]); !ok || d.Kind != KindDivision || d.Side != EN {
			return bad("9.2", "no Entente division %q", f[2])
		} else {
			it.target = d.ID
		}
		it.kind, it.text = kTank, fmt.Sprintf("TANK %s %s", it.tank, it.target)
	case "BOMBARD":
		it.rule = "17.4"
		b := Bombard{}
		if b.Target, err = oneHex(f[1]); err != nil {
			return bad("17.4", "%v", err)
		}
		for _, w := range f[2:] {
			u := orders.Upper(w)
			if c, ok := sc.Counter(u); ok && c.Kind == KindHQ {
				b.Organic = append(b.Organic, c.ID)
				continue
			}
			n, err := strconv.Atoi(u[1:])
			if len(u) < 2 || err != nil || n < 1 || !strings.ContainsRune("HMA", rune(u[0])) {
				return bad("17", "%q: want H<n> (army heavy), M<n> (army medium), A<n> (air) or an HQ id for its organic point", w)
			}
			switch u[0] {
			case 'H':
				b.Heavy += n
			case 'M':
				b.Medium += n
			case 'A':
				b.Air += n
			}
		}
		it.kind, it.bombard, it.text = kBombard, b, b.String()
	case "MOVE", "FALLBACK":
		it.rule = map[string]string{"MOVE": "19", "FALLBACK": "19.6"}[kw]
		if len(f) != 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		if it.units, err = units(f[1]); err != nil {
			return bad("19", "%v", err)
		}
		if it.path, err = orders.ParsePath(f[2]); err != nil || len(it.path) < 2 {
			return bad("19", "path %q: want hexes joined by -, starting where the units are", f[2])
		}
		for i, h := range it.path {
			if !sc.Map.OnMap(h) {
				return bad("19", "%s is off the map", h)
			}
			if i > 0 && !sc.Map.Grid.Adjacent(it.path[i-1], h) {
				return bad("19", "%s is not next to %s", h, it.path[i-1])
			}
		}
		it.kind = map[string]string{"MOVE": kMove, "FALLBACK": kFallBack}[kw]
		it.text = fmt.Sprintf("%s %s %s", kw, strings.Join(it.units, ","), pathString(it.path))
	case "PREPARE":
		it.rule = "19.4"
		if len(f) != 2 {
			return bad(form.Rule, "%v", form.Want())
		}
		if it.units, err = units(f[1]); err != nil || len(it.units) != 1 {
			return bad(form.Rule, "%v: %v", form.Want(), err)
		}
		it.kind, it.text = kPrepare, "PREPARE "+it.units[0]
	case "IMPROVISE", "PURSUE":
		it.rule = map[string]string{"IMPROVISE": "19.4.1", "PURSUE": "19.7"}[kw]
		if len(f) != 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		if it.units, err = units(f[1]); err != nil || len(it.units) != 1 {
			return bad(form.Rule, "%v: %v", form.Want(), err)
		}
		if it.at, err = oneHex(f[2]); err != nil {
			return bad(it.rule, "%v", err)
		}
		it.kind = map[string]string{"IMPROVISE": kImprovise, "PURSUE": kPursue}[kw]
		it.text = fmt.Sprintf("%s %s %s", kw, it.units[0], it.at)
	case "LOSSES":
		it.rule = "17.8"
		if len(f) != 2 {
			return bad(form.Rule, "%v", form.Want())
		}
		if orders.EqualFold(f[1], "DEFAULT") {
			it.kind, it.text = kLosses, "LOSSES DEFAULT"
			break
		}
		if it.units, err = units(f[1]); err != nil {
			return bad("17.8", "%v", err)
		}
		it.kind, it.text = kLosses, "LOSSES "+strings.Join(it.units, ",")
	case "RETREAT", "CONVERT", "ADVANCE", "SPENT":
		return sc.parseRetreatOrder(it, units, oneHex)
	case "CANCEL":
		if it.cancel, err = sc.parseCancel(f); err != nil {
			return bad(it.cancel.rule, "%v", err)
		}
		it.kind, it.text, it.rule = kCancel, it.cancel.String(), it.cancel.rule
	}
	return it
}

func pathString(p []hex.Hex) string {
	s := make([]string, len(p))
	for i, h := range p {
		s[i] = h.String()
	}
	return strings.Join(s, "-")
}
