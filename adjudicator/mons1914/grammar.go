package mons1914

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// item is one parsed order line.
type item struct {
	line    orders.Line
	kind    string // move, combat (bombard and melee), none-move, none-combat, pass, sequence, then, top, losses, hit, deffire, deffire-unit
	text    string // canonical text
	rule    string
	move    Move
	bombard Bombard
	melee   Melee
	seq     string
	err     error
}

// grammar is the orders of Mons 1914, each a keyword and its fields (package orders
// reads the keyword and refuses an unknown one or a line short of a field).
var grammar = orders.Grammar{
	{Keyword: "MOVE", Fields: 1, Usage: "MOVE <units> <path>, e.g. MOVE 1/NF 2908-2909-3009", Rule: "9.1"},
	{Keyword: "MARCH", Fields: 2, Usage: "MARCH <units> <path>, e.g. MARCH 1/NF 2908-2909-3009", Rule: "9.1"},
	{Keyword: "BOMBARD", Fields: 3, Usage: "BOMBARD <hex> WITH <units>", Rule: "10.0"},
	{Keyword: "MELEE", Fields: 3, Usage: "MELEE <hex> WITH <units>", Rule: "12.0"},
	{Keyword: "COMBAT", Fields: 1, Usage: "COMBAT NONE", Rule: "10.0"},
	{Keyword: "PASS", Rule: "5.1"},
	{Keyword: "SEQUENCE", Fields: 1, Usage: "SEQUENCE move/fight, fight/move, fight/fight or move/move", Rule: "5.3"},
	{Keyword: "THEN", Rule: "5.3"},
	{Keyword: "TOP", Fields: 2, Usage: "TOP <hex> <unit>", Rule: "6.6"},
	{Keyword: "DEFFIRE", Fields: 1, Usage: "DEFFIRE STRONGEST, DEFFIRE SPREAD, DEFFIRE <units> AT <hex>, DEFFIRE <units> HOLD or DEFFIRE <units> DEFAULT", Rule: "11.2"},
	{Keyword: "HIT", Fields: 1, Usage: "HIT <enemy units, first to lose a step to your defensive fire first>", Rule: "11.5"},
	{Keyword: "LOSSES", Fields: 1, Usage: "LOSSES <units, first to lose a step first>, a unit with :N giving at most N steps (LOSSES 1/SF:1 4/RF:1)", Rule: "12.12"},
}

// otherCombatWords are other games' words for combat: orders to the desk (Keywords), so
// that a line starting with one is answered with the Mons way of saying it.
var otherCombatWords = []string{"BOMBARDMENT", "FIRE", "ATTACK"}

// parseLine reads one order line (the grammar is in templates/mons1914-help.txt).
func (sc *Scenario) parseLine(l orders.Line) item {
	it := item{line: l}
	f := l.Fields
	bad := func(rule, format string, args ...any) item {
		it.rule, it.err = rule, fmt.Errorf(format, args...)
		return it
	}
	unitIDs := func(ws []string) ([]string, error) {
		return orders.Units(ws, sc.unitID, "write unit ids as printed, e.g. III/8/5 or 1/NF (2.6)")
	}
	// lossIDs reads a loss order's entries: a unit, or a unit and the most steps it
	// gives, "1/SF:1" (12.12, 10.9, 11.5).
	lossIDs := func(ws []string) ([]string, error) {
		var out []string
		for _, w := range ws {
			for _, e := range strings.Split(w, ",") {
				if e == "" {
					continue
				}
				id, n, counted := strings.Cut(e, ":")
				ids, err := unitIDs([]string{id})
				if err != nil {
					return nil, err
				}
				if len(ids) != 1 {
					return nil, fmt.Errorf("%q: write a unit, or a unit, a colon and the most steps it gives (1/SF:1)", e)
				}
				if counted {
					k, err := strconv.Atoi(n)
					if err != nil || k < 1 || k > 4 {
						return nil, fmt.Errorf("%q: after the colon, the most steps the unit gives, 1-4 (e.g. 1/SF:1)", e)
					}
					ids[0] += ":" + strconv.Itoa(k)
				}
				out = append(out, ids...)
			}
		}
		return out, nil
	}
	if kw := l.Keyword(); slices.Contains(otherCombatWords, kw) {
		return bad("10.0", "unknown order %s: bombard with BOMBARD <hex> WITH <guns>, attack with MELEE <hex> WITH <units>", kw)
	}
	form, _, err := grammar.Read(l)
	if err != nil {
		if form.Keyword == "" {
			return bad("5.1", "%v", err)
		}
		return bad(form.Rule, "%v", err)
	}
	switch kw := form.Keyword; kw {
	case "MOVE", "MARCH":
		it.rule = "9.0"
		if len(f) == 2 && orders.EqualFold(f[1], "NONE") && kw == "MOVE" {
			it.kind, it.text = "none-move", "MOVE NONE"
			return it
		}
		if len(f) < 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		path := f[len(f)-1]
		exit := false
		if p, ok := strings.CutSuffix(orders.Upper(path), "-OFF"); ok {
			path, exit = p, true
		}
		hs, err := parsePath(path)
		if err != nil {
			return bad("9.1", "path %q: %v", f[len(f)-1], err)
		}
		ids, err := unitIDs(f[1 : len(f)-1])
		if err != nil {
			return bad("2.6", "%v", err)
		}
		it.kind = "move"
		it.move = Move{March: kw == "MARCH", Units: ids, Path: hs, Exit: exit}
		it.text = it.move.String()
		if it.move.March {
			it.rule = "9.20"
		}
	case "BOMBARD", "MELEE":
		it.rule = map[string]string{"BOMBARD": "10.0", "MELEE": "12.0"}[kw]
		if !orders.EqualFold(f[2], "WITH") {
			return bad(it.rule, "%v", form.Want())
		}
		h, err := hex.Parse(f[1])
		if err != nil {
			return bad(it.rule, "%v", err)
		}
		rest := f[3:]
		tailWord := map[string]string{"BOMBARD": "LOSSES", "MELEE": "ADVANCE"}[kw]
		var tail []string
		hasTail := false
		var legWords []string // MELEE: BEYOND <hex> <units> ..., with or without ADVANCE
		for i, w := range rest {
			if orders.EqualFold(w, tailWord) {
				tail, rest, hasTail = rest[i+1:], rest[:i], true
				break
			}
			if kw == "MELEE" && orders.EqualFold(w, "BEYOND") {
				legWords, rest = rest[i:], rest[:i]
				break
			}
		}
		ids, err := unitIDs(rest)
		if err != nil {
			return bad("2.6", "%v", err)
		}
		var beyond []Leg
		if kw == "MELEE" {
			// ADVANCE <units> BEYOND <hex> <units> [BEYOND <hex> <units> ...] (12.13)
			var legs [][]string
			tail = append(tail, legWords...)
			for i := len(tail) - 1; i >= 0; i-- {
				if orders.EqualFold(tail[i], "BEYOND") {
					legs = append([][]string{tail[i+1:]}, legs...)
					tail = tail[:i]
				}
			}
			for _, l := range legs {
				if len(l) < 2 {
					return bad("12.13", "want ... ADVANCE <units> BEYOND <hex> <units>, one BEYOND per hex")
				}
				h, err := hex.Parse(l[0])
				if err != nil {
					return bad("12.13", "%v", err)
				}
				us, err := unitIDs(l[1:])
				if err != nil {
					return bad("2.6", "%v", err)
				}
				beyond = append(beyond, Leg{Hex: h, Units: us})
			}
		}
		readTail := unitIDs
		if kw == "BOMBARD" {
			readTail = lossIDs
		}
		tailIDs, err := readTail(tail)
		if err != nil {
			return bad("2.6", "%v", err)
		}
		if hasTail && tailIDs == nil {
			tailIDs = []string{}
		}
		it.kind = "combat"
		if kw == "BOMBARD" {
			it.bombard = Bombard{Target: h, Guns: ids, Losses: tailIDs}
			it.text = it.bombard.String()
		} else {
			it.melee = Melee{Target: h, Attackers: ids, Advance: tailIDs, Beyond: beyond}
			it.text = it.melee.String()
		}
	case "COMBAT":
		if len(f) != 2 || !orders.EqualFold(f[1], "NONE") {
			return bad(form.Rule, "%v", form.Want())
		}
		it.kind, it.text, it.rule = "none-combat", "COMBAT NONE", "10.0"
	case "PASS":
		it.kind, it.text, it.rule = "pass", "PASS", "5.1"
	case "SEQUENCE":
		if len(f) != 2 {
			return bad(form.Rule, "%v", form.Want())
		}
		s := strings.ToLower(f[1])
		ok := false
		for _, q := range Sequences {
			ok = ok || q == s
		}
		if !ok {
			return bad(form.Rule, "%v", form.Want())
		}
		it.kind, it.seq, it.text, it.rule = "sequence", s, "SEQUENCE "+s, "5.3"
	case "THEN":
		it.kind, it.text, it.rule = "then", "THEN", "5.3"
	case "TOP":
		if len(f) != 3 {
			return bad(form.Rule, "%v", form.Want())
		}
		h, err := hex.Parse(f[1])
		if err != nil {
			return bad("6.6", "%v", err)
		}
		ids, err := unitIDs(f[2:])
		if err != nil {
			return bad("2.6", "%v", err)
		}
		it.kind, it.text, it.rule = "top", "TOP "+h.String()+" "+ids[0], "6.6"
	case "DEFFIRE":
		want := form.Want().Error()
		if len(f) == 2 && (orders.EqualFold(f[1], "STRONGEST") || orders.EqualFold(f[1], "SPREAD")) {
			it.kind, it.text, it.rule = "deffire", "DEFFIRE "+orders.Upper(f[1]), "11.2"
			return it
		}
		// Unit by unit (11.1, 11.2): the units, then AT <hex>, HOLD or DEFAULT.
		if len(f) < 3 {
			return bad("11.2", "%s", want)
		}
		var units []string
		what := ""
		switch last := orders.Upper(f[len(f)-1]); {
		case last == "HOLD" || last == "DEFAULT":
			units, what = f[1:len(f)-1], last
		case len(f) >= 4 && orders.EqualFold(f[len(f)-2], "AT"):
			h, err := hex.Parse(f[len(f)-1])
			if err != nil {
				return bad("11.2", "%v", err)
			}
			units, what = f[1:len(f)-2], "AT "+h.String()
		default:
			return bad("11.2", "%s", want)
		}
		ids, err := unitIDs(units)
		if err != nil {
			return bad("2.6", "%v", err)
		}
		if len(ids) == 0 {
			return bad("11.2", "%s", want)
		}
		it.kind, it.rule = "deffire-unit", "11.2"
		it.text = "DEFFIRE " + strings.Join(ids, " ") + " " + what
	case "HIT":
		ids, err := lossIDs(f[1:])
		if err != nil || len(ids) == 0 {
			return bad(form.Rule, "%v", form.Want())
		}
		it.kind, it.text, it.rule = "hit", "HIT "+strings.Join(ids, " "), "11.5"
	case "LOSSES":
		ids, err := lossIDs(f[1:])
		if err != nil && len(f) > 1 {
			return bad("12.12", "%v", err)
		}
		if len(ids) == 0 {
			return bad(form.Rule, "%v", form.Want())
		}
		it.kind, it.text, it.rule = "losses", "LOSSES "+strings.Join(ids, " "), "12.12"
	}
	return it
}

func parsePath(s string) ([]hex.Hex, error) {
	if !strings.Contains(s, "-") {
		h, err := hex.Parse(s)
		if err != nil {
			return nil, err
		}
		return []hex.Hex{h}, nil
	}
	return orders.ParsePath(s)
}
