package soldiers1918

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// The order grammar of Soldiers 1918, written out with examples in templates/soldiers1918-help.txt:
//
//	PLOT TURN 3 4300x3, 4400x3      a bombardment plot (3.2, 3.3); items may go on following lines
//	PLOT TURN 3 NONE                no bombardment that turn
//	PLOT 4300x3, 4400x3             German: the next plot due (5.2 II)
//	PLOT COMPLETE                   US: the six-turn plot is complete and fixed (3.2)
//	CANCEL BOMBARDMENT              US: attempt to cancel at the next Phase I (5.2 I)
//	SETUP DEFAULT                   the scenario's deployment (3.5, 3.6)
//	PLACE 3801 2 INF 1 HMG          placement lines (3.5, 3.6)
//	COW 2303 4802                   standing Chaos of War priority list (7.4)
//	MOVE 2 ARMY 2300-2301-EXIT      movement (9.0, 4.1)
//	FIRE 2305 FROM 2304 2 INF 2306  fire (10.0); ADVANCE ARMY|USMC at the end (10.10)
//	OVERSTACK CARNAGE               the offended player's standing choice (6.2); also
//	OVERSTACK 2305 1 ARMY TO 2306   per hex: which units leave, TO a hex, CARNAGE or MOVE

// grammar is the orders of Soldiers 1918, each a keyword and its fields (package orders
// reads the keyword and refuses an unknown one or a line short of a field; PLOT reads
// its items from the lines after it too, the others their fields themselves).
var grammar = orders.Grammar{
	{Keyword: "PLOT", Rule: "3.2"},
	{Keyword: "CANCEL", Fields: 1, Usage: "CANCEL BOMBARDMENT", Rule: "5.2 I"},
	{Keyword: "SETUP", Fields: 1, Usage: "SETUP DEFAULT", Rule: "3.5, 3.6"},
	{Keyword: "PLACE", Rule: "3.5, 3.6"},
	{Keyword: "COW", Also: []string{"COWED"}, Rule: "7.1, 7.2, 7.4"},
	{Keyword: "MOVE", Rule: "9.0"},
	{Keyword: "FIRE", Rule: "10.0"},
	{Keyword: "OVERSTACK", Rule: "6.2"},
}

// block is one parsed order block: a keyword line and its continuation lines.
type block struct {
	kind  string // "plot", "complete", "cancel", "setup-default", "place"
	line  orders.Line
	lines []orders.Line // continuation lines, for plots
	turn  int           // plot: 0 means "the next one due"
	none  bool          // plot: no bombardment
	items []orders.PlotItem
	place []Placement
	hexes []hex.Hex // COW priority list
	move  moveSpec
	fire  fireSpec
	over  overSpec
	err   error // why the block cannot be read
	rule  string
}

// moveSpec is one MOVE line: Count units of Kind (0 and "": every unit of yours that can
// move) from the first hex of Path along it, off the north edge if Exit (4.1).
type moveSpec struct {
	Count int
	Kind  string
	Path  []hex.Hex
	Exit  bool
}

// String is the canonical form, "MOVE 2 ARMY 2301-2302-EXIT".
func (m moveSpec) String() string {
	var b strings.Builder
	b.WriteString("MOVE")
	if m.Count > 0 {
		fmt.Fprintf(&b, " %d", m.Count)
	}
	if m.Kind != "" {
		b.WriteString(" " + kindWord[m.Kind])
	}
	parts := make([]string, len(m.Path))
	for i, h := range m.Path {
		parts[i] = h.String()
	}
	if m.Exit {
		parts = append(parts, "EXIT")
	}
	b.WriteString(" " + strings.Join(parts, "-"))
	return b.String()
}

// upTo is the move as far as its units went: its path to the hex steps hexes on.
func (m moveSpec) upTo(steps int) moveSpec {
	if steps+1 < len(m.Path) || (steps+1 == len(m.Path) && m.Exit) {
		m.Path, m.Exit = m.Path[:steps+1:steps+1], false
	}
	return m
}

// fireSpec is one FIRE line: the target hex and the firing units by hex (10.3), and the
// kind that advances after combat (10.10) when Army and USMC both fired from adjacent
// hexes (KindUSArmy or KindUSMC; "" for the default, the kind that fills the hex most).
type fireSpec struct {
	Target  hex.Hex
	From    []fireSource
	Advance string
}

// fireSource is the units of one hex that fire: all that can (Count 0, Kind ""), all of
// a kind, or a number of a kind.
type fireSource struct {
	Hex   hex.Hex
	Count int
	Kind  string
}

// String is the canonical form, "FIRE 2305 FROM 2304 2 INF 2306".
func (f fireSpec) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "FIRE %s FROM", f.Target)
	for _, s := range f.From {
		fmt.Fprintf(&b, " %s", s.Hex)
		if s.Count > 0 {
			fmt.Fprintf(&b, " %d", s.Count)
		}
		if s.Kind != "" {
			b.WriteString(" " + kindWord[s.Kind])
		}
	}
	if f.Advance != "" {
		b.WriteString(" ADVANCE " + kindWord[f.Advance])
	}
	return b.String()
}

// overSpec is one OVERSTACK line (6.2: "It's always the offended player's choice of
// solution"): the standing choice for every over-stacked hex of the opponent (Hex zero:
// OVERSTACK CARNAGE or OVERSTACK MOVE), or one for a hex: which of the opponent's units
// there leave (Count of Kind; 0 and "" as many as the limit needs, latest arrivals first)
// and how (Carnage, else To, else the nearest legal hex).
type overSpec struct {
	Hex     hex.Hex
	Count   int
	Kind    string
	Carnage bool
	To      hex.Hex
}

func (o overSpec) general() bool { return o.Hex == (hex.Hex{}) }

// String is the canonical form: "OVERSTACK CARNAGE", "OVERSTACK 2305 1 ARMY TO 2306".
func (o overSpec) String() string {
	if o.general() {
		if o.Carnage {
			return "OVERSTACK CARNAGE"
		}
		return "OVERSTACK MOVE"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "OVERSTACK %s", o.Hex)
	if o.Count > 0 {
		fmt.Fprintf(&b, " %d", o.Count)
	}
	if o.Kind != "" {
		b.WriteString(" " + kindWord[o.Kind])
	}
	switch {
	case o.Carnage:
		b.WriteString(" CARNAGE")
	case o.To != (hex.Hex{}):
		fmt.Fprintf(&b, " TO %s", o.To)
	default:
		b.WriteString(" MOVE")
	}
	return b.String()
}

// parseOverstack reads "CARNAGE", "MOVE", or "<hex> [count] [kind] (TO <hex> | CARNAGE |
// MOVE)".
func parseOverstack(fields []string) (overSpec, error) {
	var o overSpec
	usage := fmt.Errorf("expected OVERSTACK CARNAGE, OVERSTACK MOVE, or OVERSTACK <hex> [count] [kind] TO <hex> (or CARNAGE, or MOVE), e.g. OVERSTACK 2305 1 ARMY TO 2306")
	if len(fields) == 1 {
		switch orders.Upper(fields[0]) {
		case "CARNAGE":
			o.Carnage = true
			return o, nil
		case "MOVE":
			return o, nil
		}
	}
	if len(fields) < 2 {
		return o, usage
	}
	h, err := hex.Parse(fields[0])
	if err != nil {
		return o, fmt.Errorf("%v; %v", err, usage)
	}
	o.Hex = h
	rest := fields[1:]
	switch last := orders.Upper(rest[len(rest)-1]); {
	case last == "CARNAGE":
		o.Carnage, rest = true, rest[:len(rest)-1]
	case last == "MOVE":
		rest = rest[:len(rest)-1]
	case len(rest) >= 2 && orders.EqualFold(rest[len(rest)-2], "TO"):
		to, err := hex.Parse(rest[len(rest)-1])
		if err != nil {
			return o, fmt.Errorf("TO %s: %v", rest[len(rest)-1], err)
		}
		if to == h {
			return o, fmt.Errorf("TO %s: the units leave %s, so they go to another hex", to, h)
		}
		o.To, rest = to, rest[:len(rest)-2]
	default:
		return o, usage
	}
	var ok bool
	if o.Count, o.Kind, ok = parseCountKind(rest); !ok {
		return o, usage
	}
	return o, nil
}

// parseCountKind reads the "[count] [kind]" that picks units in MOVE and OVERSTACK
// ("2 ARMY", "USMC", "3", or nothing).
func parseCountKind(fields []string) (count int, kind string, ok bool) {
	for _, f := range fields {
		if n, err := orders.ParseCount(f); err == nil && count == 0 && kind == "" {
			count = n
			continue
		}
		k, known := placeKinds[orders.Upper(f)]
		if !known || kind != "" {
			return 0, "", false
		}
		kind = k
	}
	return count, kind, true
}

// parseHexList reads "2301 2302, 2403" or "NONE".
func parseHexList(fields []string) (none bool, hexes []hex.Hex, err error) {
	if len(fields) == 1 && orders.EqualFold(fields[0], "NONE") {
		return true, nil, nil
	}
	for _, f := range strings.FieldsFunc(strings.Join(fields, " "), func(r rune) bool { return r == ',' || r == ' ' }) {
		h, err := hex.Parse(f)
		if err != nil {
			return false, nil, fmt.Errorf("%v; write COW followed by hexes in order of priority, e.g. COW 2305 2306, or COW NONE", err)
		}
		hexes = append(hexes, h)
	}
	if len(hexes) == 0 {
		return false, nil, fmt.Errorf("expected COW followed by hexes in order of priority, e.g. COW 2305 2306, or COW NONE")
	}
	return false, hexes, nil
}

// parseMove reads "[count] [kind] 2301-2302-2402[-EXIT]".
func parseMove(fields []string) (moveSpec, error) {
	var m moveSpec
	usage := fmt.Errorf("expected MOVE [count] [kind] <path>, e.g. MOVE 2 ARMY 2300-2301-2401, or MOVE NONE")
	if len(fields) == 0 || len(fields) > 3 {
		return m, usage
	}
	path := fields[len(fields)-1]
	var ok bool
	if m.Count, m.Kind, ok = parseCountKind(fields[:len(fields)-1]); !ok {
		return m, usage
	}
	hexes, end, err := orders.ParsePathEnd(path, "EXIT")
	if err != nil {
		return m, err
	}
	m.Path, m.Exit = hexes, end != ""
	if len(m.Path) == 0 || (len(m.Path) < 2 && !m.Exit) {
		return m, fmt.Errorf("path %q: a move names the hex the units are in and at least one hex to enter", path)
	}
	return m, nil
}

// parseFire reads "<target> FROM <hex> [count] [kind] <hex> ...".
func parseFire(fields []string) (fireSpec, error) {
	var f fireSpec
	usage := fmt.Errorf("expected FIRE <target hex> FROM <hex> [count kind] ... [ADVANCE ARMY|USMC], e.g. FIRE 2305 FROM 2304 2306, or FIRE NONE")
	if len(fields) < 3 || !orders.EqualFold(fields[1], "FROM") {
		return f, usage
	}
	t, err := hex.Parse(fields[0])
	if err != nil {
		return f, fmt.Errorf("target: %v", err)
	}
	f.Target = t
	from := fields[2:]
	if n := len(from); n >= 2 && orders.EqualFold(from[n-2], "ADVANCE") {
		switch orders.Upper(from[n-1]) {
		case "ARMY", "YORK":
			f.Advance = KindUSArmy
		case "USMC", "MARINES":
			f.Advance = KindUSMC
		default:
			return f, fmt.Errorf("ADVANCE %s: expected ADVANCE ARMY or ADVANCE USMC, the kind that advances after combat (10.10, 6.4)", from[n-1])
		}
		from = from[:n-2]
	}
	for _, tok := range from {
		if h, err := hex.Parse(tok); err == nil {
			f.From = append(f.From, fireSource{Hex: h})
			continue
		}
		if len(f.From) == 0 {
			return f, usage
		}
		src := &f.From[len(f.From)-1]
		if n, err := orders.ParseCount(tok); err == nil && src.Count == 0 && src.Kind == "" {
			src.Count = n
			continue
		}
		kind, ok := placeKinds[orders.Upper(tok)]
		if !ok || src.Kind != "" {
			return f, fmt.Errorf("%q: after a hex, expected a count and/or a unit kind (INF, HMG, ARMY, USMC, YORK)", tok)
		}
		src.Kind = kind
	}
	if len(f.From) == 0 {
		return f, usage
	}
	return f, nil
}

// placeKinds maps the words of PLACE to unit kinds.
var placeKinds = map[string]string{
	"INF": KindDeInf, "INFANTRY": KindDeInf, "HMG": KindDeHMG, "MG": KindDeHMG,
	"ARMY": KindUSArmy, "USMC": KindUSMC, "MARINES": KindUSMC, "YORK": KindYork,
}

// parseBlocks reads order lines into blocks. It knows the grammar, not the legality.
func parseBlocks(lines []orders.Line) []block {
	var out []block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		b := block{line: l}
		form, _, err := grammar.Read(l)
		if err != nil {
			b.kind, b.rule, b.err = "unknown", form.Rule, err
			if form.Keyword == "" {
				b.rule = "5.2"
			}
			out = append(out, b)
			continue
		}
		switch kw := form.Keyword; {
		case kw == "PLOT":
			b.kind, b.rule = "plot", form.Rule
			args := l.Fields[1:]
			switch {
			case len(args) == 1 && orders.EqualFold(args[0], "COMPLETE"):
				b.kind = "complete"
				out = append(out, b)
				continue
			case len(args) >= 2 && orders.EqualFold(args[0], "TURN"):
				n, err := strconv.Atoi(args[1])
				if err != nil || n < 1 || n > 6 {
					b.err = fmt.Errorf("expected PLOT TURN n with n from 1 to 6, got %q", args[1])
				}
				b.turn, args = n, args[2:]
			}
			rest := strings.Join(args, " ")
			// Continuation lines: plot items on the lines that follow.
			for i+1 < len(lines) && looksLikeItems(lines[i+1]) {
				i++
				b.lines = append(b.lines, lines[i])
				rest += " " + lines[i].Text
			}
			if b.err != nil {
				break
			}
			if orders.EqualFold(strings.TrimSpace(rest), "NONE") {
				b.none = true
				break
			}
			items, err := orders.ParsePlotItems(rest)
			switch {
			case err != nil:
				b.err = fmt.Errorf("%v; write plots as in the rulebook: 4300x3, 4400x3", err)
			case len(items) == 0:
				b.err = fmt.Errorf("no plot items: write PLOT TURN n 4300x3, 4400x3 or PLOT TURN n NONE")
			default:
				b.items = mergeItems(items)
			}
		case l.Is("CANCEL", "BOMBARDMENT") && len(l.Fields) == 2:
			b.kind, b.rule = "cancel", form.Rule
		case l.Is("SETUP", "DEFAULT") && len(l.Fields) == 2:
			b.kind, b.rule = "setup-default", form.Rule
		case kw == "CANCEL" || kw == "SETUP":
			b.kind, b.rule, b.err = "unknown", form.Rule, form.Want()
		case kw == "PLACE":
			b.kind, b.rule = "place", form.Rule
			b.place, b.err = parsePlace(l)
		case kw == "COW":
			b.kind, b.rule = "cow", form.Rule
			b.none, b.hexes, b.err = parseHexList(l.Fields[1:])
		case kw == "MOVE":
			b.kind, b.rule = "move", form.Rule
			if l.Is("MOVE", "NONE") && len(l.Fields) == 2 {
				b.none = true
				break
			}
			b.move, b.err = parseMove(l.Fields[1:])
		case kw == "FIRE":
			b.kind, b.rule = "fire", form.Rule
			if l.Is("FIRE", "NONE") && len(l.Fields) == 2 {
				b.none = true
				break
			}
			b.fire, b.err = parseFire(l.Fields[1:])
		case kw == "OVERSTACK":
			b.kind, b.rule = "overstack", form.Rule
			b.over, b.err = parseOverstack(l.Fields[1:])
		}
		out = append(out, b)
	}
	return out
}

func looksLikeItems(l orders.Line) bool {
	f := l.Fields[0]
	return len(f) >= 4 && f[0] >= '0' && f[0] <= '9'
}

// mergeItems adds up repeated hexes: all markers in one hex make one attack (12.2),
// in the order each hex was first written.
func mergeItems(items []orders.PlotItem) []orders.PlotItem {
	var out []orders.PlotItem
	at := map[hex.Hex]int{}
	for _, it := range items {
		if i, ok := at[it.Hex]; ok {
			out[i].Count += it.Count
			continue
		}
		at[it.Hex] = len(out)
		out = append(out, it)
	}
	return out
}

// parsePlace reads "PLACE 3801 2 INF 1 HMG".
func parsePlace(l orders.Line) ([]Placement, error) {
	if len(l.Fields) < 4 || len(l.Fields)%2 != 0 {
		return nil, fmt.Errorf("expected PLACE <hex> <count> <kind> [<count> <kind>...], e.g. PLACE 3801 2 INF 1 HMG")
	}
	h, err := hex.Parse(l.Fields[1])
	if err != nil {
		return nil, err
	}
	var items []Placement
	for i := 2; i < len(l.Fields); i += 2 {
		n, err := orders.ParseCount(l.Fields[i])
		if err != nil {
			return nil, err
		}
		kind, ok := placeKinds[orders.Upper(l.Fields[i+1])]
		if !ok {
			return nil, fmt.Errorf("unit kind %q: expected INF or HMG (German), ARMY, USMC or YORK (US)", l.Fields[i+1])
		}
		items = append(items, Placement{Hex: h, Kind: kind, Count: n})
	}
	return items, nil
}

// plotText is the canonical text of a plot.
func plotText(turn int, none bool, items []orders.PlotItem) string {
	if none {
		return fmt.Sprintf("PLOT TURN %d NONE", turn)
	}
	return fmt.Sprintf("PLOT TURN %d %s", turn, orders.FormatPlot(items))
}

// placementText is the canonical text of a placement: one PLACE line per hex, sorted.
func placementText(items []Placement) string {
	byHex := map[hex.Hex][]Placement{}
	var hexes []hex.Hex
	for _, it := range items {
		if _, ok := byHex[it.Hex]; !ok {
			hexes = append(hexes, it.Hex)
		}
		byHex[it.Hex] = append(byHex[it.Hex], it)
	}
	sort.Slice(hexes, func(i, j int) bool { return hexes[i].String() < hexes[j].String() })
	var b strings.Builder
	for _, h := range hexes {
		counts := map[string]int{}
		for _, it := range byHex[h] {
			counts[it.Kind] += it.Count
		}
		fmt.Fprintf(&b, "PLACE %s", h)
		for _, k := range kindOrder {
			if counts[k] > 0 {
				fmt.Fprintf(&b, " %d %s", counts[k], kindWord[k])
			}
		}
		b.WriteByte('\n')
	}
	return strings.TrimRight(b.String(), "\n")
}

// parseCanonical re-reads an order's canonical text.
func parseCanonical(text string) []block {
	lines, _ := orders.Split(text)
	return parseBlocks(lines)
}
