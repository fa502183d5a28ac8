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

// block is one parsed order block: a keyword line and its continuation lines.
type block struct {
	kind  string // "plot", "complete", "cancel", "setup-default", "place"
	line  orders.Line
	lines []orders.Line // continuation lines, for plots
	turn  int           // plot: 0 means "the next one due"
	none  bool          // plot: no bombardment
	items []orders.PlotItem
	place []placeItem
	err   error // why the block cannot be read
	rule  string
}

// placeItem is Count units of Kind in Hex.
type placeItem struct {
	Hex   hex.Hex
	Kind  string
	Count int
}

// placeKinds maps the words of PLACE to unit kinds.
var placeKinds = map[string]string{
	"INF": KindDeInf, "INFANTRY": KindDeInf, "HMG": KindDeHMG, "MG": KindDeHMG,
	"ARMY": KindUSArmy, "USMC": KindUSMC, "MARINES": KindUSMC, "YORK": KindYork,
}

// notYet names the rules whose orders are not implemented yet, so that such an order is
// answered plainly instead of being ignored.
var notYet = map[string]string{
	"MOVE": "9.0 (movement)", "FIRE": "10.0 (fire)", "COW": "7.0 (Chaos of War)", "COWED": "7.0 (Chaos of War)",
}

// parseBlocks reads order lines into blocks. It knows the grammar, not the legality.
func parseBlocks(lines []orders.Line) []block {
	var out []block
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		b := block{line: l}
		switch kw := l.Keyword(); {
		case kw == "PLOT":
			b.kind, b.rule = "plot", "3.2"
			args := l.Fields[1:]
			switch {
			case len(args) == 1 && strings.EqualFold(args[0], "COMPLETE"):
				b.kind = "complete"
				out = append(out, b)
				continue
			case len(args) >= 2 && strings.EqualFold(args[0], "TURN"):
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
			if strings.EqualFold(strings.TrimSpace(rest), "NONE") {
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
			b.kind, b.rule = "cancel", "5.2 I"
		case l.Is("SETUP", "DEFAULT") && len(l.Fields) == 2:
			b.kind, b.rule = "setup-default", "3.5, 3.6"
		case kw == "PLACE":
			b.kind, b.rule = "place", "3.5, 3.6"
			b.place, b.err = parsePlace(l)
		case notYet[kw] != "":
			b.kind, b.rule = "unknown", notYet[kw]
			b.err = fmt.Errorf("not implemented yet: rule %s; only set-up and bombardment (phases I-III) are adjudicated so far", notYet[kw])
		default:
			b.kind, b.rule = "unknown", "5.2"
			b.err = fmt.Errorf("unknown order %q: expected PLOT, CANCEL BOMBARDMENT, SETUP DEFAULT or PLACE (send HELP for examples)", l.Fields[0])
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
func parsePlace(l orders.Line) ([]placeItem, error) {
	if len(l.Fields) < 4 || len(l.Fields)%2 != 0 {
		return nil, fmt.Errorf("expected PLACE <hex> <count> <kind> [<count> <kind>...], e.g. PLACE 3801 2 INF 1 HMG")
	}
	h, err := hex.Parse(l.Fields[1])
	if err != nil {
		return nil, err
	}
	var items []placeItem
	for i := 2; i < len(l.Fields); i += 2 {
		n, err := orders.ParseCount(l.Fields[i])
		if err != nil {
			return nil, err
		}
		kind, ok := placeKinds[strings.ToUpper(l.Fields[i+1])]
		if !ok {
			return nil, fmt.Errorf("unit kind %q: expected INF or HMG (German), ARMY, USMC or YORK (US)", l.Fields[i+1])
		}
		items = append(items, placeItem{Hex: h, Kind: kind, Count: n})
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
func placementText(items []placeItem) string {
	byHex := map[hex.Hex][]placeItem{}
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
