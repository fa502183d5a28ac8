package adjudicator

import (
	"crypto/sha256"
	"sync"
)

// mapMemo remembers the maps the desk rendered, by ruleset, side and the state's stored
// bytes. A results mail in SET MAP CHANGES compares the map before an advance with the
// map after it, and the map before is the one the previous advance rendered after: kept
// here, it is not drawn twice (rendering a map costs about as much as resolving a turn).
// A ruleset's Map is a pure function of the state and side, so a remembered map is the
// map; replay renders afresh and compares.
type mapMemo struct {
	mu   sync.Mutex
	maps map[[32]byte]string
	// old is the generation before maps: when maps is full it becomes old, so that the
	// maps drawn last (each game's latest, which its next advance compares against)
	// survive the turnover.
	old map[[32]byte]string
}

// mapMemoSize bounds the memo (its two generations together): two maps a game stay
// useful, a whole host's games fit.
const mapMemoSize = 1024

// render returns rs.Map(st, side), raw being st as the store holds it (nil: not
// remembered). An [OpenMap] ruleset's map is remembered once for every side.
func (m *mapMemo) render(rs Ruleset, st State, raw []byte, side Side) string {
	if raw == nil {
		return rs.Map(st, side)
	}
	h := sha256.New()
	h.Write([]byte(rs.Name()))
	h.Write([]byte{0})
	if om, ok := rs.(OpenMap); !ok || !om.OpenMap() {
		h.Write([]byte(side))
	}
	h.Write([]byte{0})
	h.Write(raw)
	var key [32]byte
	h.Sum(key[:0])
	m.mu.Lock()
	text, ok := m.maps[key]
	if !ok {
		if text, ok = m.old[key]; ok {
			m.put(key, text)
		}
	}
	m.mu.Unlock()
	if ok {
		return text
	}
	text = rs.Map(st, side)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.put(key, text)
	return text
}

// put remembers a map, turning the generations over when the current one is full.
func (m *mapMemo) put(key [32]byte, text string) {
	if m.maps == nil || len(m.maps) >= mapMemoSize/2 {
		m.old, m.maps = m.maps, make(map[[32]byte]string, mapMemoSize/2)
	}
	m.maps[key] = text
}
