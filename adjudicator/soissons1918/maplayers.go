package soissons1918

import (
	"maps"
	"slices"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Map layers a player may ask for (rules.MapLayerer): MAP ZOC, MAP TZ, or both.
// They mark hexes relative to the player who asks, since what he needs to know is
// where his units must stop (13.1) and where the enemy threatens (14).
const (
	markEnemyZOC = '!'
	markOwnZOC   = '+'
	markEnemyTZ  = '?'
)

// MapLayers implements rules.MapLayerer.
func (r *Rules) MapLayers() map[string]string {
	return map[string]string{
		"ZOC": "zones of control (13): ! the enemy's, + your own",
		"TZ":  "the enemy's threat zones beyond its ZOC (14): ?",
	}
}

// MapWith implements rules.MapLayerer: the map of MapView with each hex of the
// asked zones marked, and the marks in the legend. 13: ZOC are never negated; 14: threat
// zones are negated by units and ZOC of the side they threaten.
func (r *Rules) MapWith(s rules.State, side rules.Side, layers []string) string {
	return mapview.Render(r.layerView(s, side, layers))
}

// layerView is MapView with the layers drawn in.
func (r *Rules) layerView(s rules.State, side rules.Side, layers []string) mapview.View {
	v := r.MapView(s, side)
	g := newGame(r.sc, s.(*State))
	me := side
	enemy := sides.Other(me)
	cells := maps.Clone(v.Cells)
	if cells == nil {
		cells = map[hex.Hex]string{}
	}
	legend := v.Legend
	legend.Marks = slices.Clone(legend.Marks)
	mark := func(zone map[hex.Hex]bool, c rune) {
		for h := range zone {
			if r.sc.Map.OnMap(h) {
				cells[h] += string(c)
			}
		}
	}
	for _, l := range layers {
		switch l {
		case "ZOC":
			mark(g.zoc(enemy), markEnemyZOC)
			mark(g.zoc(me), markOwnZOC)
			legend.Marks = append(legend.Marks,
				mapview.Symbol{Char: markEnemyZOC, Text: "in the enemy's zone of control (13)"},
				mapview.Symbol{Char: markOwnZOC, Text: "in your zone of control (13)"})
		case "TZ":
			ez := g.zoc(enemy)
			tz := map[hex.Hex]bool{}
			for h := range g.tz(enemy) {
				if !ez[h] {
					tz[h] = true
				}
			}
			mark(tz, markEnemyTZ)
			legend.Marks = append(legend.Marks,
				mapview.Symbol{Char: markEnemyTZ, Text: "in the enemy's threat zone, beyond its ZOC (14)"})
		}
	}
	v.Cells, v.Legend = cells, legend
	return v
}
