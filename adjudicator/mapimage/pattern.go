package mapimage

import (
	"image/color"
	"math"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// namedPatterns are the patterns of common terrain names, used when a legend gives
// none (as named gives colours).
var namedPatterns = map[string]mapview.Pattern{
	"forest":      mapview.PatternTrees,
	"woods":       mapview.PatternTrees,
	"industrial":  mapview.PatternBuilt,
	"residential": mapview.PatternBuilt,
	"village":     mapview.PatternBuilt,
	"town":        mapview.PatternBuilt,
	"city":        mapview.PatternBuilt,
	"ravine":      mapview.PatternRavine,
	"nomansland":  mapview.PatternCraters,
	"marsh":       mapview.PatternMarsh,
}

// patternOf is a symbol's pattern: its own, else that of its name, else none.
func patternOf(s mapview.Symbol) mapview.Pattern {
	if s.Pattern != "" {
		return s.Pattern
	}
	if pt, ok := namedPatterns[s.Name]; ok {
		return pt
	}
	return mapview.PatternNone
}

// darker is c darkened by f (0 to 1), for a pattern over a fill of c.
func darker(c color.RGBA, f float64) color.RGBA {
	d := func(v uint8) uint8 { return uint8(float64(v) * (1 - f)) }
	return color.RGBA{d(c.R), d(c.G), d(c.B), 0xff}
}

func featureColour(s mapview.Symbol) color.RGBA {
	if s.Colour.A != 0 {
		return s.Colour
	}
	if c, ok := named[s.Name]; ok {
		return c
	}
	return ink
}

func arrowColour(s mapview.Symbol, i int) color.RGBA {
	if s.Colour.A != 0 {
		return s.Colour
	}
	// Neither the red of fire and combat nor the blue of a move (newsArrows): a
	// marker is not something that happened.
	return []color.RGBA{{0x10, 0x8a, 0x8a, 0xff}, {0xe0, 0x7a, 0x10, 0xff}}[i%2]
}

// drawTerrainPatterns draws each hex's terrain pattern over its fill, in a darker
// shade of the fill, around the middle of the hex where its counter sits.
func (p *picture) drawTerrainPatterns(hexes []hex.Hex) {
	pats := map[string]mapview.Pattern{}
	for _, s := range p.s.legend.Terrain {
		pats[s.Name] = patternOf(s)
	}
	for _, h := range hexes {
		t := p.s.terrain[h]
		pt := pats[t]
		if pt == "" || pt == mapview.PatternNone {
			continue
		}
		x, y := p.center(h)
		p.areaPattern(pt, x, y, darker(p.terrainColour(t), 0.35), p.k, h.Col*7+h.Row*3)
	}
}

// areaPattern draws an area pattern centred on x, y at scale k (1 in a hex, smaller
// in a legend swatch); seed varies the craters from hex to hex, the same every time.
func (p *picture) areaPattern(pt mapview.Pattern, x, y float64, c color.RGBA, k float64, seed int) {
	dc := p.dc
	dc.SetColor(c)
	switch pt {
	case mapview.PatternTrees:
		// Tree crowns, in the corners left and right of the counter.
		for _, d := range [][2]float64{{-19, -3}, {-12, 9}, {19, -3}, {12, 9}, {-20, 9}, {20, 9}, {0, 15}} {
			dc.DrawCircle(x+d[0]*k, y+d[1]*k, 3.6*k)
			dc.Fill()
		}
	case mapview.PatternBuilt:
		// Blocks of houses.
		for _, d := range [][2]float64{{-20, -4}, {-14, 6}, {15, -5}, {19, 5}, {-6, 13}, {6, 14}, {-21, 6}} {
			dc.DrawRectangle(x+(d[0]-2.5)*k, y+(d[1]-2.5)*k, 5*k, 5*k)
			dc.Fill()
		}
	case mapview.PatternRavine:
		// A gully across the hex with hatched banks.
		dc.SetLineWidth(1.4 * k)
		for _, side := range []float64{-1, 1} {
			yy := y + (12+side*4)*k
			dc.DrawLine(x-22*k, yy, x+22*k, yy)
			dc.Stroke()
			for i := -20.0; i <= 20; i += 5 {
				dc.DrawLine(x+i*k, yy, x+(i+side*2)*k, yy+side*4*k)
				dc.Stroke()
			}
		}
	case mapview.PatternCraters:
		// Shell holes, scattered differently in each hex.
		spots := [][2]float64{{-20, -4}, {-13, 10}, {18, -6}, {13, 11}, {-3, 16}, {21, 6}, {-22, 6}, {4, -17}}
		dc.SetLineWidth(1.2 * k)
		for i, d := range spots {
			if (seed+i)%3 == 0 {
				continue
			}
			r := (2 + float64((seed*5+i*3)%3)) * k
			dc.DrawCircle(x+d[0]*k, y+d[1]*k, r)
			dc.Stroke()
		}
	case mapview.PatternMarsh:
		dc.SetLineWidth(1.2 * k)
		for _, d := range [][2]float64{{-18, -3}, {-12, 9}, {16, -3}, {12, 9}, {0, 15}} {
			dc.DrawLine(x+(d[0]-4)*k, y+d[1]*k, x+(d[0]+4)*k, y+d[1]*k)
			dc.Stroke()
		}
	}
}

// lineFeature is one in-hex feature drawn as a line from hex to hex.
type lineFeature struct {
	name    string
	pattern mapview.Pattern
	colour  color.RGBA
}

// drawFeatures draws the in-hex features the legend names: line patterns (trenches,
// wire) from each hex's centre to the middle of the hexside of every neighbour that
// has a feature of the same pattern and colour, or across the hex when none has;
// bunkers as blockhouses. Later features of the legend are drawn over earlier ones,
// bunkers over everything.
func (p *picture) drawFeatures(hexes []hex.Hex) {
	s := p.s
	shown := map[hex.Hex]bool{}
	for _, h := range hexes {
		shown[h] = true
	}
	sym := map[string]lineFeature{}
	for _, f := range s.legend.Features {
		sym[f.Name] = lineFeature{f.Name, patternOf(f), featureColour(f)}
	}
	if len(sym) == 0 {
		return
	}
	has := func(h hex.Hex, pt mapview.Pattern, c color.RGBA) bool {
		for _, name := range s.features[h] {
			if f, ok := sym[name]; ok && f.pattern == pt && f.colour == c {
				return true
			}
		}
		return false
	}
	for _, f := range s.legend.Features {
		lf := sym[f.Name]
		if lf.pattern == mapview.PatternBunker {
			continue
		}
		for _, h := range hexes {
			if !contains(s.features[h], f.Name) {
				continue
			}
			x, y := p.center(h)
			joined := false
			for _, n := range s.geo.Grid.Neighbours(h) {
				if !shown[n] || !has(n, lf.pattern, lf.colour) {
					continue
				}
				nx, ny := p.center(n)
				p.linePattern(lf.pattern, x, y, (x+nx)/2, (y+ny)/2, lf.colour, p.k)
				joined = true
			}
			if !joined {
				p.linePattern(lf.pattern, x-p.r*0.6, y, x+p.r*0.6, y, lf.colour, p.k)
			}
		}
	}
	for _, f := range s.legend.Features {
		if sym[f.Name].pattern != mapview.PatternBunker {
			continue
		}
		for _, h := range hexes {
			if contains(s.features[h], f.Name) {
				x, y := p.center(h)
				p.bunker(x, y+15*p.k, sym[f.Name].colour, p.k)
			}
		}
	}
}

// linePattern draws a line pattern from (x1, y1) to (x2, y2), its teeth in phase from
// the first end so that two halves drawn from either hex meet at the hexside.
func (p *picture) linePattern(pt mapview.Pattern, x1, y1, x2, y2 float64, c color.RGBA, k float64) {
	dc := p.dc
	l := math.Hypot(x2-x1, y2-y1)
	if l == 0 {
		return
	}
	ux, uy := (x2-x1)/l, (y2-y1)/l
	nx, ny := -uy, ux // the normal
	at := func(t, off float64) (float64, float64) { return x1 + ux*t + nx*off, y1 + uy*t + ny*off }
	dc.SetColor(c)
	switch pt {
	case mapview.PatternTrench:
		// Crenellated: a square wave of teeth 5 pixels long.
		dc.SetLineWidth(3 * k)
		step, amp := 5.0*k, 3.0*k
		dc.MoveTo(at(0, 0))
		for t, up := 0.0, true; t < l; t, up = t+step, !up {
			off := 0.0
			if up {
				off = amp
			}
			end := math.Min(t+step, l)
			dc.LineTo(at(t, off))
			dc.LineTo(at(end, off))
		}
		dc.LineTo(at(l, 0))
		dc.Stroke()
	case mapview.PatternZigzag:
		dc.SetLineWidth(2 * k)
		step, amp := 4.0*k, 3.0*k
		dc.MoveTo(at(0, 0))
		for t, up := step, true; t < l; t, up = t+step, !up {
			off := -amp
			if up {
				off = amp
			}
			dc.LineTo(at(t, off))
		}
		dc.LineTo(at(l, 0))
		dc.Stroke()
	case mapview.PatternWire:
		dc.SetLineWidth(1.2 * k)
		dc.DrawLine(x1, y1, x2, y2)
		dc.Stroke()
		for t := 4 * k; t < l-1; t += 8 * k {
			cx, cy := at(t, 0)
			d := 3 * k
			dc.DrawLine(cx-d, cy-d, cx+d, cy+d)
			dc.DrawLine(cx-d, cy+d, cx+d, cy-d)
			dc.Stroke()
		}
	default:
		dc.SetLineWidth(2 * k)
		dc.DrawLine(x1, y1, x2, y2)
		dc.Stroke()
	}
}

// bunker draws a blockhouse centred on x, y: a dark box with a firing slit.
func (p *picture) bunker(x, y float64, c color.RGBA, k float64) {
	dc := p.dc
	w, h := 14*k, 9*k
	dc.DrawRectangle(x-w/2, y-h/2, w, h)
	dc.SetColor(c)
	dc.Fill()
	dc.DrawRectangle(x-w/2+2*k, y-1*k, w-4*k, 2*k)
	dc.SetColor(paper)
	dc.Fill()
}

// drawPatternSwatch draws an item's pattern on its legend swatch at x, centred on cy.
func (p *picture) drawPatternSwatch(it item, x, cy float64) {
	switch it.pattern {
	case "", mapview.PatternNone:
	case mapview.PatternTrench, mapview.PatternZigzag, mapview.PatternWire:
		p.linePattern(it.pattern, x+2, cy, x+swatch-2, cy, it.colour, 0.8)
	case mapview.PatternBunker:
		p.bunker(x+swatch/2, cy, it.colour, 1)
	default:
		// The area pattern, shrunk to the swatch (no clipping: a clip mask is the size
		// of the whole picture).
		p.areaPattern(it.pattern, x+swatch/2, cy-1, darker(it.colour, 0.35), 0.4, 1)
	}
}

// drawArrows draws each of the scene's arrows that which picks from its hex towards
// its target: an Improvised Attack marker pointing at its target (Soissons 19.4.1), a
// unit's move.
func (p *picture) drawArrows(which func(mapview.Arrow) bool) {
	colours := map[string]color.RGBA{}
	for i, s := range p.s.legend.Arrows {
		colours[s.Name] = arrowColour(s, i)
	}
	for _, a := range p.s.arrows {
		if !which(a) {
			continue
		}
		x1, y1 := p.center(a.From)
		x2, y2 := p.center(a.To)
		c, ok := colours[a.Name]
		if !ok {
			c = arrowColour(mapview.Symbol{}, 0)
		}
		// From the edge of the counter to the edge of the target's counter.
		l := math.Hypot(x2-x1, y2-y1)
		if l == 0 {
			continue
		}
		ux, uy := (x2-x1)/l, (y2-y1)/l
		a0, a1 := p.reach(a.From, ux, uy, 6), p.reach(a.To, ux, uy, 10)
		if a0+a1 > l-12 {
			// Counters too close for a whole arrow between them: from the middle of
			// one to the middle of the other, over them.
			a0, a1 = l*0.3, l*0.22
		}
		p.arrow(x1+ux*a0, y1+uy*a0, x2-ux*a1, y2-uy*a1, c)
	}
}

// arrow draws a bold arrow from (x1, y1) to (x2, y2), on a white outline so that it
// reads over any fill.
func (p *picture) arrow(x1, y1, x2, y2 float64, c color.RGBA) {
	dc := p.dc
	l := math.Hypot(x2-x1, y2-y1)
	if l == 0 {
		return
	}
	ux, uy := (x2-x1)/l, (y2-y1)/l
	head := math.Min(10, l/2)
	bx, by := x2-ux*head, y2-uy*head
	// The outline is 6.5 wide, the head's barbs reach head*0.6+3 from the line and
	// its tip 3 past the end.
	p.touchLine(x1, y1, x2, y2, head*0.6+6)
	for _, pass := range []struct {
		c color.Color
		w float64
	}{{paper, 6.5}, {c, 3.5}} {
		dc.SetColor(pass.c)
		dc.SetLineWidth(pass.w)
		dc.DrawLine(x1, y1, bx, by)
		dc.Stroke()
		dc.MoveTo(x2+ux*(pass.w-3.5), y2+uy*(pass.w-3.5))
		dc.LineTo(bx-uy*(head*0.6+pass.w-3.5), by+ux*(head*0.6+pass.w-3.5))
		dc.LineTo(bx+uy*(head*0.6+pass.w-3.5), by-ux*(head*0.6+pass.w-3.5))
		dc.ClosePath()
		dc.Fill()
	}
}
