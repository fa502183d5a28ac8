package mapimage

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// scene is everything a picture draws, taken from a [mapview.View]: the map's geometry
// (the exported fields of a board.Map, which is all its layout methods use), its
// terrain, features and hexsides, and what the view puts on it. Unlike a View it
// survives JSON (see [Encode]), so that a mail can carry the view and the sender draw
// it later, outside the transaction that queued the mail.
type scene struct {
	title, legendTitle string
	key                []string
	rowsUp             bool
	geo                *board.Map // geometry only: Grid, Cols, rows, Default, Places
	terrain            map[hex.Hex]string
	features           map[hex.Hex][]string
	sides              map[hex.Hexside][]string
	legend             mapview.Legend
	counters           map[hex.Hex]string // each hex's counter text, "" for none
	forces             map[hex.Hex][]string
	arrows             []mapview.Arrow
}

// sceneOf takes what the picture draws from v.
func sceneOf(v mapview.View) (*scene, error) {
	m := v.Map
	if m == nil {
		return nil, fmt.Errorf("map picture: the view has no map")
	}
	s := &scene{
		title: v.Title, legendTitle: v.LegendTitle, key: v.Key, rowsUp: v.RowsUp,
		geo:     &board.Map{Grid: m.Grid, Cols: m.Cols, OddRows: m.OddRows, EvenRows: m.EvenRows, Default: m.Default, Places: m.Places},
		terrain: map[hex.Hex]string{}, features: map[hex.Hex][]string{}, sides: map[hex.Hexside][]string{},
		legend: v.Legend, counters: map[hex.Hex]string{}, forces: v.Forces, arrows: v.Arrows,
	}
	for _, h := range m.Hexes() {
		s.terrain[h] = m.Terrain(h)
		if f := m.Features(h); len(f) > 0 {
			s.features[h] = f
		}
		for _, n := range m.Grid.Neighbours(h) {
			if f := m.Side(h, n); len(f) > 0 {
				if side, ok := m.Grid.Hexside(h, n); ok {
					s.sides[side] = f
				}
			}
		}
		text := v.Cell(h)
		if v.Counters != nil {
			text = v.Counters[h]
		}
		if text = strings.TrimSpace(text); text != "" {
			s.counters[h] = text
		}
	}
	return s, nil
}

func (s *scene) hexes() []hex.Hex { return s.geo.Hexes() }

func (s *scene) onMap(h hex.Hex) bool { return s.geo.OnMap(h) }

func (s *scene) side(a, b hex.Hex) []string {
	side, ok := s.geo.Grid.Hexside(a, b)
	if !ok {
		return nil
	}
	return s.sides[side]
}

// halfLower is [mapview.View.HalfLower] for the scene's geometry.
func (s *scene) halfLower(col int) bool {
	return mapview.View{Map: s.geo, RowsUp: s.rowsUp}.HalfLower(col)
}

// wireVersion is the version of Encode's format; RenderEncoded refuses any other.
const wireVersion = 1

// wire is a scene as JSON: hexes as their ids, the terrain and features as lists of
// hexes by name, hexsides as "a/b". encoding/json writes maps in key order, so the same
// view always gives the same bytes.
type wire struct {
	V           int                 `json:"v"`
	Title       string              `json:"title"`
	LegendTitle string              `json:"legend_title,omitempty"`
	Key         []string            `json:"key,omitempty"`
	RowsUp      bool                `json:"rows_up,omitempty"`
	Map         board.Map           `json:"map"` // the exported geometry only
	Terrain     map[string][]string `json:"terrain,omitempty"`
	Features    map[string][]string `json:"features,omitempty"`
	Sides       map[string][]string `json:"sides,omitempty"`
	Legend      mapview.Legend      `json:"legend"`
	Counters    map[string]string   `json:"counters,omitempty"`
	Forces      map[string][]string `json:"forces,omitempty"`
	Arrows      []mapview.Arrow     `json:"arrows,omitempty"`
}

// Encode is v as the picture needs it, in bytes a mail can store (JSON, about 2 KB
// once deflated): [RenderEncoded] draws from them the picture [Render] draws of v.
// The same view gives the same bytes.
func Encode(v mapview.View) ([]byte, error) {
	s, err := sceneOf(v)
	if err != nil {
		return nil, err
	}
	w := wire{V: wireVersion, Title: s.title, LegendTitle: s.legendTitle, Key: s.key, RowsUp: s.rowsUp,
		Map: *s.geo, Terrain: map[string][]string{}, Features: map[string][]string{}, Sides: map[string][]string{},
		Legend: s.legend, Counters: map[string]string{}, Forces: map[string][]string{}, Arrows: s.arrows}
	for _, h := range s.hexes() {
		if t := s.terrain[h]; t != s.geo.Default {
			w.Terrain[t] = append(w.Terrain[t], h.String())
		}
		for _, f := range s.features[h] {
			w.Features[f] = append(w.Features[f], h.String())
		}
		for _, n := range s.geo.Grid.Neighbours(h) {
			if hex.Compare(n, h) > 0 {
				for _, f := range s.side(h, n) {
					w.Sides[f] = append(w.Sides[f], h.String()+"/"+n.String())
				}
			}
		}
		if c, ok := s.counters[h]; ok {
			w.Counters[h.String()] = c
		}
	}
	for h, f := range s.forces {
		w.Forces[h.String()] = f
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(w); err != nil {
		return nil, fmt.Errorf("map picture: encode the view: %w", err)
	}
	return b.Bytes(), nil
}

// decode reads Encode's bytes back into a scene.
func decode(b []byte) (*scene, error) {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("map picture: decode the view: %w", err)
	}
	if w.V != wireVersion {
		return nil, fmt.Errorf("map picture: a view of format %d, want %d", w.V, wireVersion)
	}
	geo := w.Map
	s := &scene{title: w.Title, legendTitle: w.LegendTitle, key: w.Key, rowsUp: w.RowsUp, geo: &geo,
		terrain: map[hex.Hex]string{}, features: map[hex.Hex][]string{}, sides: map[hex.Hexside][]string{},
		legend: w.Legend, counters: map[hex.Hex]string{}, forces: map[hex.Hex][]string{}, arrows: w.Arrows}
	for _, h := range s.hexes() {
		s.terrain[h] = geo.Default
	}
	err := errors.Join(
		readLists("terrain", w.Terrain, hex.Parse, func(h hex.Hex, t string) { s.terrain[h] = t }),
		readLists("feature", w.Features, hex.Parse, func(h hex.Hex, f string) { s.features[h] = append(s.features[h], f) }),
		readLists("hexside", w.Sides, hex.ParseHexside, func(h hex.Hexside, f string) { s.sides[h] = append(s.sides[h], f) }),
		readLists("counter", byValue(w.Counters), hex.Parse, func(h hex.Hex, c string) { s.counters[h] = c }),
	)
	for id, f := range w.Forces {
		h, perr := hex.Parse(id)
		if perr != nil {
			err = errors.Join(err, fmt.Errorf("map picture: decode the view: forces %q: %w", id, perr))
		}
		s.forces[h] = f
	}
	if err != nil {
		return nil, err
	}
	for _, fs := range s.features {
		slices.Sort(fs)
	}
	for _, fs := range s.sides {
		slices.Sort(fs)
	}
	return s, nil
}

// readLists calls put for each id listed under each name, parsed; an id that does not
// parse is an error that names it.
func readLists[K any](what string, lists map[string][]string, parse func(string) (K, error), put func(K, string)) error {
	for name, ids := range lists {
		for _, id := range ids {
			k, err := parse(id)
			if err != nil {
				return fmt.Errorf("map picture: decode the view: %s %q: %w", what, id, err)
			}
			put(k, name)
		}
	}
	return nil
}

// byValue turns a map of id to value into lists of ids by value, for readLists.
func byValue(m map[string]string) map[string][]string {
	out := map[string][]string{}
	for id, v := range m {
		out[v] = append(out[v], id)
	}
	return out
}
