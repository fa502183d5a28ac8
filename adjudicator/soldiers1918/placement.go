package soldiers1918

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Set-up placement (3.5, 3.6, 6.3, 6.4, 6.6): the order check reports every wrong PLACE
// line with its own reason and every total of the counter mix that does not add up, so
// that one reply lists everything to fix.

// checkPlacement checks a side's whole deployment: every unit of the counter mix placed,
// in legal hexes, within the stacking limits (3.5, 3.6, 6.3, 6.4, 6.6). Each PLACE line
// gets its own verdict; each wrong total is one more refused entry on the last PLACE
// line, which says so when unread PLACE lines (refused on their own) are not counted.
func (r *Rules) checkPlacement(st *State, side rules.Side, blocks []block, unread int) []rules.Checked {
	rule := "3.6, 6.4"
	if side == DE {
		rule = "3.5, 6.3"
	}
	verdict := func(ok bool, reason string) []rules.Checked {
		var out []rules.Checked
		for _, b := range blocks {
			out = append(out, rules.Checked{Line: b.line, OK: ok, Reason: reason, Rule: rule})
		}
		return out
	}
	if st.T != 0 || (side == DE && st.P == PhaseUSSetup) {
		return verdict(false, "set-up is over for your side: units are placed only during set-up (3.5, 3.6)")
	}
	var items []Placement
	var owner []int // the block of each item
	isDefault := false
	for n, b := range blocks {
		if b.kind == "setup-default" {
			isDefault = true
		}
		for _, p := range b.place {
			items, owner = append(items, p), append(owner, n)
		}
	}
	var out []rules.Checked
	if isDefault {
		if len(blocks) > 1 {
			return verdict(false, "SETUP DEFAULT replaces every PLACE line: send one or the other")
		}
		items = r.defaultPlacement(side)
		if err := r.legalPlacement(st, side, items); err != nil {
			return verdict(false, "the scenario's deployment does not fit this game: "+err.Error())
		}
		out = verdict(true, "")
	} else {
		perItem, totals := r.placementProblems(st, side, items)
		out = verdict(true, "this line is right; the placement is filed once every line and total is")
		refused := len(totals) > 0
		for k, probs := range perItem {
			if len(probs) == 0 {
				continue
			}
			c := &out[owner[k]]
			if c.OK {
				c.OK, c.Reason = false, ""
			}
			for _, p := range probs {
				if !strings.Contains(c.Reason, p) {
					c.Reason = strings.TrimPrefix(c.Reason+"; "+p, "; ")
				}
			}
			refused = true
		}
		last := blocks[0].line
		for _, b := range blocks {
			if b.line.No > last.No {
				last = b.line
			}
		}
		note := ""
		if unread > 0 {
			note = fmt.Sprintf(" (not counting the %d PLACE line(s) that could not be read)", unread)
		}
		for _, t := range totals {
			out = append(out, rules.Checked{Line: last, Reason: "the placement as a whole: " + t.text + note, Rule: t.rule})
		}
		if refused || unread > 0 {
			return out
		}
		for i := range out {
			out[i].Reason = "part of your placement"
		}
	}
	text := placementText(withYork(items))
	if isDefault {
		text = "SETUP DEFAULT"
	}
	name := sides.Name(side)
	out[0].Reason = fmt.Sprintf("%s placement of all units, held until the %s set-up step", name, name)
	out[0].Orders = []rules.Order{{Phase: phaseSetup, Side: side, Key: keyPlacement, Kind: "placement", Sealed: true, Text: text,
		Summary: name + " placement (3.5, 3.6)", Notice: name + " placement (3.5, 3.6)"}}
	return out
}

func (r *Rules) defaultPlacement(side rules.Side) []Placement {
	src := r.sc.DefaultUS
	if side == DE {
		src = r.sc.DefaultGerman
	}
	return slices.Clone(src)
}

// withYork makes the Sergeant York counter explicit: without a YORK item, one ARMY
// platoon of the first Army hex is him (12.5: he is one of the 144 Army platoons).
func withYork(items []Placement) []Placement {
	for _, it := range items {
		if it.Kind == KindYork {
			return items
		}
	}
	out := append([]Placement(nil), items...)
	for i, it := range out {
		if it.Kind == KindUSArmy {
			out[i].Count--
			out = append(out, Placement{Hex: it.Hex, Kind: KindYork, Count: 1})
			if out[i].Count == 0 {
				out = append(out[:i], out[i+1:]...)
			}
			return out
		}
	}
	return out
}

// legalPlacement reports every problem of a placement at once, or nil.
func (r *Rules) legalPlacement(st *State, side rules.Side, items []Placement) error {
	perItem, totals := r.placementProblems(st, side, items)
	var errs []error
	var seen []string
	for _, probs := range perItem {
		for _, p := range probs {
			if !slices.Contains(seen, p) {
				seen = append(seen, p)
				errs = append(errs, errors.New(p))
			}
		}
	}
	for _, t := range totals {
		errs = append(errs, fmt.Errorf("%s (%s)", t.text, t.rule))
	}
	return errors.Join(errs...)
}

// placementTotal is a total of the counter mix that does not add up, and its rule.
type placementTotal struct{ text, rule string }

// placementProblems finds what is wrong with a placement: for each item, its own
// problems (a hex off the map or outside the side's set-up area, another side's units,
// a hex over the stacking limit: said on every item of that hex); and each total of the
// counter mix that does not add up. Sergeant York's platoon counts among the 144 Army
// platoons (3.6, 12.5), as HELP says.
func (r *Rules) placementProblems(st *State, side rules.Side, items []Placement) (perItem [][]string, totals []placementTotal) {
	perItem = make([][]string, len(items))
	counts := map[string]int{}
	perHex := map[hex.Hex]map[string]int{}
	for k, it := range items {
		switch {
		case sideOf(it.Kind) != side:
			perItem[k] = append(perItem[k], fmt.Sprintf("%s units are not yours to place", kindWord[it.Kind]))
			continue
		case !r.sc.OnMap(it.Hex):
			perItem[k] = append(perItem[k], fmt.Sprintf("hex %s is not on the map", it.Hex))
			continue
		case side == DE && !r.sc.GermanSetupHex(it.Hex):
			perItem[k] = append(perItem[k], fmt.Sprintf("hex %s is outside the German position: on or behind the Main Trench line, or an outpost such as 3801 (3.5)", it.Hex))
		case side == US && it.Hex.Row != 0:
			perItem[k] = append(perItem[k], fmt.Sprintf("hex %s is not in the No Man's Land row xx00 where the US sets up (3.6)", it.Hex))
		}
		counts[it.Kind] += it.Count
		if perHex[it.Hex] == nil {
			perHex[it.Hex] = map[string]int{}
		}
		perHex[it.Hex][it.Kind] += it.Count
	}
	limit := st.stackLimit(DE)
	for k, it := range items {
		n := perHex[it.Hex]
		if n == nil || sideOf(it.Kind) != side {
			continue
		}
		var p string
		if side == DE {
			switch total := n[KindDeInf] + n[KindDeHMG]; {
			case total > limit && st.Quality == 0:
				p = fmt.Sprintf("hex %s holds %d units; the limit is 3 per hex, 4 only with a shock troop division, which the division-quality roll (3.4) has not yet shown (6.3)", it.Hex, total)
			case total > limit:
				p = fmt.Sprintf("hex %s holds %d units; the German limit is %d per hex (6.3)", it.Hex, total, limit)
			}
		} else {
			army, usmc := n[KindUSArmy]+n[KindYork], n[KindUSMC]
			switch {
			case army > 0 && usmc > 0:
				p = fmt.Sprintf("hex %s mixes US Army and USMC units, which may never stack together (6.4)", it.Hex)
			case army > 4 || usmc > 4:
				p = fmt.Sprintf("hex %s holds %d units; the US limit is 4 per hex (6.4)", it.Hex, army+usmc)
			}
		}
		if p != "" {
			perItem[k] = append(perItem[k], p)
		}
	}
	total := func(placed, want int, what, note, rule string) {
		if placed != want {
			totals = append(totals, placementTotal{fmt.Sprintf("%d %s placed; the counter mix has exactly %d%s, and all of them set up", placed, what, want, note), rule})
		}
	}
	c := r.sc.Counters
	if side == DE {
		total(counts[KindDeInf], c[KindDeInf], "INF", "", "3.5")
		total(counts[KindDeHMG], c[KindDeHMG], "HMG", "", "3.5")
		return perItem, totals
	}
	total(counts[KindUSArmy]+counts[KindYork], c[KindUSArmy]+c[KindYork], "Army platoons (ARMY and YORK together)", ", Sergeant York's among them", "3.6, 12.5")
	if counts[KindYork] > c[KindYork] {
		totals = append(totals, placementTotal{fmt.Sprintf("%d YORK placed; there is %d Sergeant York platoon", counts[KindYork], c[KindYork]), "12.5"})
	}
	total(counts[KindUSMC], c[KindUSMC], "USMC", "", "3.6")
	return perItem, totals
}
