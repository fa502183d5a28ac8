package teaching

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// grammar is the game's orders, each a keyword and its fields (package orders reads the
// keyword and refuses an unknown one or a line short of a field).
var grammar = orders.Grammar{
	{Keyword: "SETUP", Fields: 1, Usage: "SETUP DEFAULT"},
	{Keyword: "PLACE", Fields: 2, Usage: "PLACE <MG|INF|ARMY|MARINE> <hex> [<hex> ...] [count], e.g. PLACE ARMY 0306 3 or PLACE INF 0118 0418"},
	{Keyword: "PASS", Usage: "PASS alone on its line"},
	{Keyword: "SHELL", Fields: 1, Usage: "SHELL [HE|SMOKE] <hex>, e.g. SHELL HE 0619"},
	{Keyword: "MOVE", Fields: 1, Usage: "MOVE [count] [ARMY|MARINE] [BLACK|BLUE|PLAIN] <path>, e.g. MOVE 2 ARMY 0306-0307-0308"},
	{Keyword: "CUT", Fields: 1, Usage: "CUT <hexside>, e.g. CUT 0416/0417"},
	{Keyword: "CHIP", Fields: 2, Usage: "CHIP <hex> <BLACK|BLUE|NONE> [count|ALL] [ARMY|MARINE], e.g. CHIP 0308 BLACK"},
	{Keyword: "FIRE", Fields: 3, Usage: "FIRE <hex> [<hex> ...] AT <hex> <BLACK|BLUE> [ARMY|MARINE], e.g. FIRE 0619 0518 AT 0612 BLACK"},
	{Keyword: "STOP", Fields: 2, Usage: "STOP AFTER ARTILLERY or STOP AFTER HAND TO HAND (or STOP AFTER MOVEMENT, the same)"},
}

// The steps a player may stop after (STOP AFTER), to see their results before he
// sends the orders of the steps that follow.
const (
	StopArtillery  = "artillery"
	StopHandToHand = "hand-to-hand"
)

// item is one parsed order line. Which fields are set depends on Verb.
type item struct {
	Verb  string    // SETUP, PLACE, PASS, SHELL, MOVE, CUT, CHIP, FIRE, STOP
	Stop  string    // STOP: StopArtillery or StopHandToHand
	Kind  string    // PLACE: inf, mg, army, marine; MOVE, CHIP: army, marine or ""
	Chip  string    // MOVE: the chip filter ("black", "blue", "plain", ""); CHIP and FIRE: the chip
	Shell string    // SHELL: he or smoke
	N     int       // PLACE (in each hex), MOVE, CHIP: how many (0: CHIP all)
	Hex   hex.Hex   // SHELL, CHIP, FIRE target
	Path  []hex.Hex // MOVE
	Side  hex.Hexside
	From  []hex.Hex // FIRE: the firing units' hexes; PLACE: the hexes
}

// canonical writes the item back as the one way the game spells it.
func (it item) canonical() string {
	switch it.Verb {
	case "SETUP":
		return "SETUP DEFAULT"
	case "PASS":
		return "PASS"
	case "STOP":
		return "STOP AFTER " + map[string]string{StopArtillery: "ARTILLERY", StopHandToHand: "HAND TO HAND"}[it.Stop]
	case "PLACE":
		return fmt.Sprintf("PLACE %s %s %d", orders.Upper(it.Kind), hex.Join(it.From, " "), it.N)
	case "SHELL":
		return fmt.Sprintf("SHELL %s %s", orders.Upper(it.Shell), it.Hex)
	case "MOVE":
		s := "MOVE " + strconv.Itoa(it.N)
		if it.Kind != "" {
			s += " " + orders.Upper(it.Kind)
		}
		if it.Chip != "" {
			s += " " + orders.Upper(it.Chip)
		}
		ps := make([]string, len(it.Path))
		for i, h := range it.Path {
			ps[i] = h.String()
		}
		return s + " " + strings.Join(ps, "-")
	case "CUT":
		return "CUT " + it.Side.String()
	case "CHIP":
		chip := orders.Upper(it.Chip)
		if chip == "" {
			chip = "NONE"
		}
		s := fmt.Sprintf("CHIP %s %s", it.Hex, chip)
		if it.N > 0 {
			s += " " + strconv.Itoa(it.N)
		} else {
			s += " ALL"
		}
		if it.Kind != "" {
			s += " " + orders.Upper(it.Kind)
		}
		return s
	case "FIRE":
		s := fmt.Sprintf("FIRE %s AT %s %s", hex.Join(it.From, " "), it.Hex, orders.Upper(it.Chip))
		if it.Kind != "" {
			s += " " + orders.Upper(it.Kind)
		}
		return s
	}
	return it.Verb
}

// parse reads one order line. Errors say what was expected.
func parse(l orders.Line) (item, error) {
	form, _, err := grammar.Read(l)
	it := item{Verb: form.Keyword}
	if err != nil {
		return it, err
	}
	f := l.Fields
	up := func(i int) string { return orders.Upper(f[i]) }
	switch it.Verb {
	case "SETUP":
		if len(f) != 2 || up(1) != "DEFAULT" {
			return it, form.Want()
		}
	case "PASS":
		if len(f) != 1 {
			return it, form.Want()
		}
	case "STOP":
		switch w := strings.Join(f[1:], " "); {
		case orders.EqualFold(w, "AFTER ARTILLERY"):
			it.Stop = StopArtillery
		case orders.EqualFold(w, "AFTER HAND TO HAND"), orders.EqualFold(w, "AFTER HAND-TO-HAND"), orders.EqualFold(w, "AFTER MOVEMENT"):
			it.Stop = StopHandToHand
		default:
			return it, form.Want()
		}
	case "PLACE":
		it.Kind = strings.ToLower(f[1])
		if kindSide[it.Kind] == "" {
			return it, fmt.Errorf("%q: expected MG, INF, ARMY or MARINE", f[1])
		}
		words := f[2:]
		it.N = 1
		if last := words[len(words)-1]; len(last) < 4 && len(words) > 1 {
			n, err := strconv.Atoi(last)
			if err != nil || n < 1 || n > MaxStack {
				return it, fmt.Errorf("%q: expected a count of 1 to 3 units in each hex (set-up: American units may stack up to 3 high)", last)
			}
			it.N, words = n, words[:len(words)-1]
		}
		for _, w := range words {
			h, err := hex.Parse(w)
			if err != nil {
				return it, err
			}
			it.From = append(it.From, h)
		}
	case "SHELL":
		if len(f) > 3 {
			return it, form.Want()
		}
		it.Shell = "he"
		if len(f) == 3 {
			switch up(1) {
			case "HE", "SMOKE":
				it.Shell = strings.ToLower(f[1])
			default:
				return it, fmt.Errorf("%q: expected HE or SMOKE", f[1])
			}
		}
		h, err := hex.Parse(f[len(f)-1])
		if err != nil {
			return it, err
		}
		it.Hex = h
	case "MOVE":
		rest := f[1:]
		it.N = 1
		if len(rest) > 1 {
			if n, err := strconv.Atoi(rest[0]); err == nil && len(rest[0]) < 4 {
				if n < 1 || n > 3 {
					return it, fmt.Errorf("%q: expected a count of 1 to 3 units", rest[0])
				}
				it.N, rest = n, rest[1:]
			}
		}
		for len(rest) > 1 {
			switch orders.Upper(rest[0]) {
			case "ARMY", "MARINE", "MARINES":
				it.Kind = strings.TrimSuffix(strings.ToLower(rest[0]), "s")
			case "BLACK", "BLUE", "PLAIN":
				it.Chip = strings.ToLower(rest[0])
			default:
				return it, fmt.Errorf("%q: expected ARMY, MARINE, BLACK, BLUE or PLAIN before the path", rest[0])
			}
			rest = rest[1:]
		}
		if len(rest) != 1 {
			return it, form.Want()
		}
		p, err := orders.ParsePath(rest[0])
		if err != nil {
			return it, err
		}
		if len(p) < 2 {
			return it, errors.New("a path names the start hex and at least one more, e.g. 0306-0307")
		}
		it.Path = p
	case "CUT":
		if len(f) != 2 {
			return it, form.Want()
		}
		s, err := hex.ParseHexside(f[1])
		if err != nil {
			return it, err
		}
		it.Side = s
	case "CHIP":
		if len(f) > 5 {
			return it, form.Want()
		}
		h, err := hex.Parse(f[1])
		if err != nil {
			return it, err
		}
		it.Hex = h
		switch up(2) {
		case "BLACK", "BLUE":
			it.Chip = strings.ToLower(f[2])
		case "NONE":
		default:
			return it, fmt.Errorf("%q: expected BLACK, BLUE or NONE", f[2])
		}
		for _, w := range f[3:] {
			switch orders.Upper(w) {
			case "ALL":
			case "ARMY", "MARINE":
				it.Kind = strings.ToLower(w)
			default:
				n, err := strconv.Atoi(w)
				if err != nil || n < 1 || n > 3 {
					return it, fmt.Errorf("%q: expected a count of 1 to 3, ALL, ARMY or MARINE", w)
				}
				it.N = n
			}
		}
	case "FIRE":
		at := -1
		for i, w := range f {
			if orders.EqualFold(w, "AT") {
				at = i
			}
		}
		if at < 2 || len(f) < at+3 || len(f) > at+4 {
			return it, form.Want()
		}
		if len(f) == at+4 {
			switch up(at + 3) {
			case "ARMY", "MARINE":
				it.Kind = strings.ToLower(f[at+3])
			default:
				return it, fmt.Errorf("%q: expected ARMY or MARINE after the chip", f[at+3])
			}
		}
		for _, w := range f[1:at] {
			h, err := hex.Parse(w)
			if err != nil {
				return it, err
			}
			for _, g := range it.From {
				if g == h {
					return it, fmt.Errorf("%s named twice: a unit fires once a turn", h)
				}
			}
			it.From = append(it.From, h)
		}
		h, err := hex.Parse(f[at+1])
		if err != nil {
			return it, err
		}
		it.Hex = h
		switch up(at + 2) {
		case "BLACK", "BLUE":
			it.Chip = strings.ToLower(f[at+2])
		default:
			return it, fmt.Errorf("%q: rule 2: the Germans may fire only at units with a BLACK or BLUE chip", f[at+2])
		}
	}
	return it, nil
}
