package mapimage

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"sync"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	ahex "github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// A scene's map (geometry, terrain, works, hexsides, places) is most of its bytes, the
// same in every mail of a game, and reading it back was most of what the sender spent
// on a picture before drawing it (issue 23). A map compiled into the binary (a
// ruleset's scenario, listed by the function RegisterMaps was given) is named in a
// scene by its digest and taken from that list when the scene is read; any other map
// (one a ruleset makes for a state, a test's) is written out in the scene as before
// (format 2).

// staticMap is what a picture draws of a map, whoever's view it is: read once a map.
type staticMap struct {
	digest   string     // of its wire form: the hex of a SHA-256
	geo      *board.Map // geometry only: Grid, Cols, rows, Default, Places
	hexes    []ahex.Hex
	terrain  map[ahex.Hex]string
	features map[ahex.Hex][]string
	sides    map[ahex.Hexside][]string
	// wire is its part of a scene of format 2: the geometry, and the hexes by terrain,
	// feature and hexside feature.
	wire staticWire
}

// staticWire is the map's part of a scene of format 2.
type staticWire struct {
	Map      board.Map           `json:"map"`
	Terrain  map[string][]string `json:"terrain,omitempty"`
	Features map[string][]string `json:"features,omitempty"`
	Sides    map[string][]string `json:"sides,omitempty"`
}

// newStaticMap reads what a picture draws of m.
func newStaticMap(m *board.Map) (*staticMap, error) {
	geo := &board.Map{Grid: m.Grid, Cols: m.Cols, OddRows: m.OddRows, EvenRows: m.EvenRows, Default: m.Default, Places: m.Places}
	st := &staticMap{geo: geo, hexes: geo.Hexes(), terrain: map[ahex.Hex]string{}, features: map[ahex.Hex][]string{}, sides: map[ahex.Hexside][]string{},
		wire: staticWire{Map: *geo, Terrain: map[string][]string{}, Features: map[string][]string{}, Sides: map[string][]string{}}}
	for _, h := range st.hexes {
		t := m.Terrain(h)
		st.terrain[h] = t
		if t != geo.Default {
			st.wire.Terrain[t] = append(st.wire.Terrain[t], h.String())
		}
		if f := m.Features(h); len(f) > 0 {
			// Drawn in name order, as a scene read back draws them.
			st.features[h] = slices.Sorted(slices.Values(f))
			for _, name := range f {
				st.wire.Features[name] = append(st.wire.Features[name], h.String())
			}
		}
		for _, n := range m.Grid.Neighbours(h) {
			f := m.Side(h, n)
			if len(f) == 0 {
				continue
			}
			if side, ok := m.Grid.Hexside(h, n); ok {
				st.sides[side] = slices.Sorted(slices.Values(f))
			}
			if ahex.Compare(n, h) > 0 {
				for _, name := range f {
					st.wire.Sides[name] = append(st.wire.Sides[name], h.String()+"/"+n.String())
				}
			}
		}
	}
	b, err := json.Marshal(st.wire)
	if err != nil {
		return nil, fmt.Errorf("map picture: the map's digest: %w", err)
	}
	sum := sha256.Sum256(b)
	st.digest = hex.EncodeToString(sum[:])
	return st, nil
}

// staticMaps are the maps read lately, by the map they were read from (a map never
// changes once made): the few maps of the rulesets, and those a ruleset makes for a
// state.
var staticMaps = struct {
	sync.Mutex
	by    map[*board.Map]*staticMap
	order []*board.Map
}{by: map[*board.Map]*staticMap{}}

// maxStaticMaps is the most maps kept read.
const maxStaticMaps = 32

// staticOf is m read (newStaticMap), once.
func staticOf(m *board.Map) (*staticMap, error) {
	staticMaps.Lock()
	st, ok := staticMaps.by[m]
	staticMaps.Unlock()
	if ok {
		return st, nil
	}
	st, err := newStaticMap(m)
	if err != nil {
		return nil, err
	}
	staticMaps.Lock()
	defer staticMaps.Unlock()
	if _, ok := staticMaps.by[m]; !ok {
		if len(staticMaps.order) == maxStaticMaps {
			delete(staticMaps.by, staticMaps.order[0])
			staticMaps.order = staticMaps.order[1:]
		}
		staticMaps.by[m], staticMaps.order = st, append(staticMaps.order, m)
	}
	return st, nil
}

// compiled are the maps compiled into the binary, by digest, listed once from the
// function RegisterMaps was given.
var compiled = struct {
	sync.Mutex
	list func() ([]*board.Map, error)
	once *sync.Once
	by   map[string]*staticMap
}{once: new(sync.Once)}

// RegisterMaps gives the function that lists the maps compiled into the binary (the
// rulesets' scenarios, adjudicator/rulesets): a scene of one of them names it by its
// digest, and a scene that names one is drawn from the list. It is called once, when
// a scene is first written or read. Maps it does not list are written out in each
// scene.
func RegisterMaps(list func() ([]*board.Map, error)) {
	compiled.Lock()
	defer compiled.Unlock()
	compiled.list, compiled.once, compiled.by = list, new(sync.Once), nil
}

// compiledMap is the map compiled into the binary of digest, if any.
func compiledMap(digest string) (*staticMap, bool) {
	compiled.Lock()
	once, list := compiled.once, compiled.list
	compiled.Unlock()
	once.Do(func() {
		by := map[string]*staticMap{}
		if list != nil {
			maps, err := list()
			if err != nil {
				// Every map is then written out in its scenes: pictures are drawn.
				slog.Warn("map pictures: the maps compiled in could not be listed", "err", err)
			}
			for _, m := range maps {
				if st, err := newStaticMap(m); err == nil {
					by[st.digest] = st
				}
			}
		}
		compiled.Lock()
		compiled.by = by
		compiled.Unlock()
	})
	compiled.Lock()
	defer compiled.Unlock()
	st, ok := compiled.by[digest]
	return st, ok
}
