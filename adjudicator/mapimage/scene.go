package mapimage

import (
	"bytes"
	"crypto/sha256"
	hex2 "encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"image/color"
	"slices"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
)

// scene is everything a picture draws, taken from a [mapview.View] (not its Key: the
// unit list and notes are the text's): the map's geometry
// (the exported fields of a board.Map, which is all its layout methods use), its
// terrain, features and hexsides, and what the view puts on it. Unlike a View it
// survives JSON (see [Encode]), so that a mail can carry the view and the sender draw
// it later, outside the transaction that queued the mail.
type scene struct {
	title, legendTitle string
	rowsUp             bool
	// The map's part, shared with every scene of the map: never changed.
	digest   string      // the map's (staticMap)
	mapWire  *staticWire // the map written out (format 2)
	hexList  []hex.Hex   // the map's hexes, by column then row
	geo      *board.Map  // geometry only: Grid, Cols, rows, Default, Places
	terrain  map[hex.Hex]string
	features map[hex.Hex][]string
	sides    map[hex.Hexside][]string
	legend   mapview.Legend
	counters map[hex.Hex]string // each hex's counter text, "" for none
	labels   map[hex.Hex]string // the line above a counter's text (View.Labels), "" for none
	forces   map[hex.Hex][]string
	arrows   []mapview.Arrow
	// What happened since the side's previous picture (see [News]): hexes whose
	// content changed, outlined, and hexes where units were lost, crossed.
	changed, lost map[hex.Hex]bool
	// closeUp draws only what happened, not every unit (see [CloseUp]).
	closeUp bool
}

// sceneOf takes what the picture draws from v.
func sceneOf(v mapview.View) (*scene, error) {
	m := v.Map
	if m == nil {
		return nil, fmt.Errorf("map picture: the view has no map")
	}
	st, err := staticOf(m)
	if err != nil {
		return nil, err
	}
	s := &scene{
		title: v.Title, legendTitle: v.LegendTitle, rowsUp: v.RowsUp,
		digest: st.digest, mapWire: &st.wire, hexList: st.hexes, geo: st.geo, terrain: st.terrain, features: st.features, sides: st.sides,
		legend: v.Legend, counters: map[hex.Hex]string{}, labels: map[hex.Hex]string{}, forces: v.Forces, arrows: v.Arrows,
		changed: map[hex.Hex]bool{}, lost: map[hex.Hex]bool{},
	}
	add := func(h hex.Hex, text string) {
		if text = strings.TrimSpace(text); text != "" && s.onMap(h) {
			s.counters[h] = text
			// A label goes on a counter: none is drawn alone.
			if l := strings.TrimSpace(v.Labels[h]); l != "" {
				s.labels[h] = l
			}
		}
	}
	if v.Counters != nil {
		for h, text := range v.Counters {
			add(h, text)
		}
	} else {
		for h := range v.Cells {
			add(h, v.Cell(h))
		}
	}
	return s, nil
}

// News is what happened since the side's previous picture (the previous results),
// drawn over the view: the picture outlines every hex whose content differs from
// Before's, draws Moves as arrows and crosses the Lost hexes. Everything in it must
// be what the side may see: Before is the same side's view, and a ruleset tells
// only moves and losses the side saw happen. The zero News draws the view alone.
type News struct {
	// Before is the side's view the previous results showed; nil compares nothing.
	Before *mapview.View
	// Moves are units' moves this phase, from where they were to where they are.
	Moves []mapview.Arrow
	// Lost are the hexes where the side saw units lost.
	Lost []hex.Hex
}

// The colours of the arrow kinds (mapview.ArrowMove, ...): the picture's legend explains them.
var newsArrows = []mapview.Symbol{
	{Name: mapview.ArrowMove, Text: "moved since the last results", Colour: color.RGBA{0x12, 0x3c, 0xb8, 0xff}},
	{Name: mapview.ArrowRetreat, Text: "retreated", Colour: color.RGBA{0x7a, 0x2a, 0xa8, 0xff}},
	{Name: mapview.ArrowAttack, Text: "fire or attack at", Colour: color.RGBA{0xc0, 0x10, 0x10, 0xff}},
}

// add puts news on the scene: the changed hexes (those whose counter or forces
// differ from Before's), the moves among the arrows, with their legend
// entries, and the lost hexes.
func (s *scene) add(v mapview.View, news News) error {
	if b := news.Before; b != nil {
		if b.Map == nil {
			return fmt.Errorf("map picture: the view before has no map")
		}
		counter := func(w mapview.View, h hex.Hex) string {
			if w.Counters != nil {
				return w.Counters[h]
			}
			return w.Cells[h]
		}
		// Only a hex with something in either view can differ: the hexes of their
		// counters, labels and forces, not every hex of the map.
		check := func(h hex.Hex) {
			// What the picture shows: a mark only the text map shows (Mons's German
			// control of an empty hex) would outline a hex that shows no change.
			if s.onMap(h) && !s.changed[h] && (counter(v, h) != counter(*b, h) || v.Labels[h] != b.Labels[h] || !slices.Equal(v.Forces[h], b.Forces[h])) {
				s.changed[h] = true
			}
		}
		for _, w := range []mapview.View{v, *b} {
			cells := w.Counters
			if cells == nil {
				cells = w.Cells
			}
			for h := range cells {
				check(h)
			}
			for h := range w.Labels {
				check(h)
			}
			for h := range w.Forces {
				check(h)
			}
		}
	}
	for _, h := range news.Lost {
		if s.onMap(h) {
			s.lost[h] = true
		}
	}
	if len(news.Moves) == 0 {
		return nil
	}
	s.arrows = slices.Clone(s.arrows)
	for _, a := range news.Moves {
		// Units that moved together are one arrow.
		if !slices.Contains(s.arrows, a) {
			s.arrows = append(s.arrows, a)
		}
	}
	s.legend.Arrows = slices.Clone(s.legend.Arrows)
	for _, sym := range newsArrows {
		used := slices.ContainsFunc(news.Moves, func(a mapview.Arrow) bool { return a.Name == sym.Name })
		known := slices.ContainsFunc(s.legend.Arrows, func(k mapview.Symbol) bool { return k.Name == sym.Name })
		if used && !known {
			s.legend.Arrows = append(s.legend.Arrows, sym)
		}
	}
	return nil
}

// hexes are the map's hexes, by column then row: the caller does not change them.
func (s *scene) hexes() []hex.Hex { return s.hexList }

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

// wireVersion is the version of Encode's format for a map compiled into the binary;
// RenderEncoded reads it and wireInline.
// 2: what happened (changed, lost hexes; moves among the arrows), and the picture
// shows the part of the map that matters, not the whole sheet. The counters' labels
// came later within 2: a view without them encodes to the same bytes as before, and
// an older mail's view draws as it did. 2 is still written for a map not compiled
// in (wireInline).
// 3: the map named by its digest (map_id), not written out: a map compiled into the
// binary (RegisterMaps).
const (
	wireVersion = 3
	wireInline  = 2
)

// wire is a scene as JSON: hexes as their ids, the terrain and features as lists of
// hexes by name, hexsides as "a/b". encoding/json writes maps in key order, so the same
// view always gives the same bytes.
type wire struct {
	V           int                 `json:"v"`
	MapID       string              `json:"map_id,omitempty"` // 3
	Title       string              `json:"title"`
	LegendTitle string              `json:"legend_title,omitempty"`
	RowsUp      bool                `json:"rows_up,omitempty"`
	Map         board.Map           `json:"map,omitzero"` // 2: the exported geometry only
	Terrain     map[string][]string `json:"terrain,omitempty"`
	Features    map[string][]string `json:"features,omitempty"`
	Sides       map[string][]string `json:"sides,omitempty"`
	Legend      mapview.Legend      `json:"legend"`
	Counters    map[string]string   `json:"counters,omitempty"`
	Labels      map[string]string   `json:"labels,omitempty"`
	Forces      map[string][]string `json:"forces,omitempty"`
	Arrows      []mapview.Arrow     `json:"arrows,omitempty"`
	Changed     []string            `json:"changed,omitempty"`
	CloseUp     bool                `json:"close_up,omitempty"`
	Lost        []string            `json:"lost,omitempty"`
}

// CloseUp is, for a picture of v with news whose hexes are drawn smaller than full
// size to fit the part of the map with units, a second picture at full size of what
// happened alone: the changed hexes, the moves and losses, with one hex of margin;
// worth reports whether there is such a picture (news, and an overview drawn small).
// A phone shows it whole with counters and hex ids a reader reads without zooming.
func CloseUp(v mapview.View, news News) (b []byte, worth bool, err error) {
	s, err := sceneOf(v)
	if err != nil {
		return nil, false, err
	}
	if err := s.add(v, news); err != nil {
		return nil, false, err
	}
	return s.closeUpOf()
}

// Pictures is [Encode] and [CloseUp] of the same view and news, from one scene: a
// results mail carries both, and building the scene twice was a third of the desk's
// picture work a mail (issue 23). The bytes are theirs (TestPicturesAsEncodeAndCloseUp).
func Pictures(v mapview.View, news News) (whole, near []byte, worth bool, err error) {
	s, err := sceneOf(v)
	if err != nil {
		return nil, nil, false, err
	}
	if err := s.add(v, news); err != nil {
		return nil, nil, false, err
	}
	if whole, err = encodeScene(s); err != nil {
		return nil, nil, false, err
	}
	near, worth, err = s.closeUpOf() // after the whole map's bytes: it retitles s
	return whole, near, worth, err
}

// closeUpOf is CloseUp of the scene of a view with its news added. It changes s into
// the close-up's scene.
func (s *scene) closeUpOf() (b []byte, worth bool, err error) {
	all, err := newPicture(s, false, true)
	if err != nil {
		return nil, false, err
	}
	s.closeUp = true
	s.title = strings.TrimRight(s.title, "\n") + "\nWhat changed since the last results, close up"
	if len(focusOf(s)) == 0 || all.couldHaveIDs() {
		return nil, false, nil
	}
	// Only a close-up at (nearly) full size: one as small as the map around the
	// units would show nothing it does not.
	if near, err := newPicture(s, false, true); err != nil || !near.couldHaveIDs() {
		return nil, false, err
	}
	b, err = encodeScene(s)
	return b, err == nil, err
}

// Encode is v as the picture needs it, in bytes a mail can store (JSON, about 2 KB
// once deflated): [RenderEncoded] draws from them the picture [Render] draws of v,
// with what news says happened drawn on it. The same view and news give the same
// bytes.
func Encode(v mapview.View, news News) ([]byte, error) {
	s, err := sceneOf(v)
	if err != nil {
		return nil, err
	}
	if err := s.add(v, news); err != nil {
		return nil, err
	}
	return encodeScene(s)
}

// encodeScene is Encode's bytes of s: the map by its digest when it is compiled into
// the binary, else written out.
func encodeScene(s *scene) ([]byte, error) {
	w := wire{V: wireVersion, MapID: s.digest, Title: s.title, LegendTitle: s.legendTitle, RowsUp: s.rowsUp,
		Legend: s.legend, Counters: map[string]string{}, Labels: map[string]string{}, Forces: map[string][]string{}, Arrows: s.arrows, CloseUp: s.closeUp}
	if _, ok := compiledMap(s.digest); !ok {
		m := s.mapWire
		w.V, w.MapID = wireInline, ""
		w.Map, w.Terrain, w.Features, w.Sides = m.Map, m.Terrain, m.Features, m.Sides
	}
	for h, c := range s.counters {
		w.Counters[h.String()] = c
	}
	for h, l := range s.labels {
		w.Labels[h.String()] = l
	}
	w.Changed, w.Lost = hexIDs(s.changed), hexIDs(s.lost)
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

// hexIDs are the ids of the hexes of set, by column then row; nil for none.
func hexIDs(set map[hex.Hex]bool) []string {
	hs := make([]hex.Hex, 0, len(set))
	for h, ok := range set {
		if ok {
			hs = append(hs, h)
		}
	}
	if len(hs) == 0 {
		return nil
	}
	slices.SortFunc(hs, hex.Compare)
	out := make([]string, len(hs))
	for i, h := range hs {
		out[i] = h.String()
	}
	return out
}

// decode reads Encode's bytes back into a scene: of format 3, with the map compiled
// in that it names; of format 2, with the map it writes out.
func decode(b []byte) (*scene, error) {
	var w wire
	if err := json.Unmarshal(b, &w); err != nil {
		return nil, fmt.Errorf("map picture: decode the view: %w", err)
	}
	s := &scene{title: w.Title, legendTitle: w.LegendTitle, rowsUp: w.RowsUp,
		legend: w.Legend, counters: map[hex.Hex]string{}, labels: map[hex.Hex]string{}, forces: map[hex.Hex][]string{}, arrows: w.Arrows,
		changed: map[hex.Hex]bool{}, lost: map[hex.Hex]bool{}, closeUp: w.CloseUp}
	var err error
	switch w.V {
	case wireVersion:
		st, ok := compiledMap(w.MapID)
		if !ok {
			return nil, fmt.Errorf("map picture: a view of the map %.12s, which is not compiled into this program", w.MapID)
		}
		s.digest, s.mapWire, s.hexList, s.geo, s.terrain, s.features, s.sides = st.digest, &st.wire, st.hexes, st.geo, st.terrain, st.features, st.sides
	case wireInline:
		err = decodeInline(s, &w)
	default:
		return nil, fmt.Errorf("map picture: a view of format %d, want %d or %d", w.V, wireInline, wireVersion)
	}
	if err != nil {
		return nil, err
	}
	err = errors.Join(
		readLists("counter", byValue(w.Counters), hex.Parse, func(h hex.Hex, c string) { s.counters[h] = c }),
		readLists("label", byValue(w.Labels), hex.Parse, func(h hex.Hex, l string) { s.labels[h] = l }),
		readLists("changed hex", map[string][]string{"": w.Changed}, hex.Parse, func(h hex.Hex, _ string) { s.changed[h] = true }),
		readLists("lost hex", map[string][]string{"": w.Lost}, hex.Parse, func(h hex.Hex, _ string) { s.lost[h] = true }),
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
	return s, nil
}

// decodeInline reads the map a scene of format 2 writes out into s.
func decodeInline(s *scene, w *wire) error {
	geo := w.Map
	if geo.Cols == [2]int{} {
		return fmt.Errorf("map picture: decode the view: it has no map")
	}
	s.geo, s.hexList = &geo, geo.Hexes()
	s.terrain, s.features, s.sides = map[hex.Hex]string{}, map[hex.Hex][]string{}, map[hex.Hexside][]string{}
	for _, h := range s.hexList {
		s.terrain[h] = geo.Default
	}
	err := errors.Join(
		readLists("terrain", w.Terrain, hex.Parse, func(h hex.Hex, t string) { s.terrain[h] = t }),
		readLists("feature", w.Features, hex.Parse, func(h hex.Hex, f string) { s.features[h] = append(s.features[h], f) }),
		readLists("hexside", w.Sides, hex.ParseHexside, func(h hex.Hexside, f string) { s.sides[h] = append(s.sides[h], f) }),
	)
	if err != nil {
		return err
	}
	for _, fs := range s.features {
		slices.Sort(fs)
	}
	for _, fs := range s.sides {
		slices.Sort(fs)
	}
	// The digest names the map's base layers (baseKey): that of the map written out.
	s.mapWire = &staticWire{Map: geo, Terrain: w.Terrain, Features: w.Features, Sides: w.Sides}
	b, err := json.Marshal(s.mapWire)
	if err != nil {
		return fmt.Errorf("map picture: decode the view: %w", err)
	}
	sum := sha256.Sum256(b)
	s.digest = hex2.EncodeToString(sum[:])
	return nil
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
