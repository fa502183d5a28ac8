package mons1914

import (
	"fmt"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// seenMoves tells the other side, in words, what it may see of side's movement in the
// phase that began in before (6.6: of an enemy stack only the top unit is seen): each
// unit of side on top of its stack now whose hex changed or that entered the map, and
// where it came from when it was on top of its stack then too. The map shows the same
// (the key's top units); the results mail tells it as news (issue 20).
func (g *game) seenMoves(before *State, side rules.Side) {
	was := newGame(g.sc, before)
	onTop := func(gm *game, u *Unit) bool {
		h, err := hex.Parse(u.Hex)
		return u.Status == OnMap && err == nil && gm.top(h, gm.at(h, side)).ID == u.ID
	}
	var seen []string
	for i := range g.st.Units {
		u := &g.st.Units[i]
		c := g.counter(u)
		if c == nil || c.Side != side || u.Status != OnMap || !onTop(g, u) {
			continue
		}
		w := before.unit(u.ID)
		switch {
		case w == nil:
		case w.Status == Waiting:
			seen = append(seen, fmt.Sprintf("%s entered, now in %s", u.ID, u.Hex))
		case w.Status == OnMap && w.Hex != u.Hex && onTop(was, w):
			seen = append(seen, fmt.Sprintf("%s %s to %s", u.ID, w.Hex, u.Hex))
		case w.Status == OnMap && w.Hex != u.Hex:
			seen = append(seen, fmt.Sprintf("%s, now in %s", u.ID, u.Hex))
		}
	}
	if len(seen) == 0 {
		return
	}
	sort.Strings(seen)
	who := map[rules.Side]string{DE: "German", BEF: "British"}[side]
	g.EventTo("6.6", []rules.Side{sides.Other(side)}, "%s units seen moving (the top unit of each stack, 6.6): %s", who, strings.Join(seen, "; "))
}
