package adjudicator

import (
	"crypto/sha256"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
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
	// drawing holds the maps being drawn, each closed when its map is remembered (or
	// its drawing failed): the sides' results mails are rendered at once, and an open
	// map, the same for every side, is then drawn once and waited for.
	drawing map[[32]byte]chan struct{}
	// size bounds the memo, its two generations together (0: mapMemoSize).
	size int
}

// mapMemoSize bounds the memo (its two generations together): two maps a game stay
// useful, a whole host's games fit.
const mapMemoSize = 1024

// statusMemoSize bounds the memo of statuses (Desk.statuses): a status is a few lines,
// two a state (one a side) stay useful.
const statusMemoSize = 4096

// digestOf is the SHA-256 of a state as the store holds it (raw), by which the memos
// know it; nil for nil. An advance hashes its new state once (its journal's StateHash)
// and every map and status of it is looked up by that digest, not by hashing the
// state's kilobytes again.
func digestOf(raw []byte) *[32]byte {
	if raw == nil {
		return nil
	}
	d := sha256.Sum256(raw)
	return &d
}

// render returns rs.Map(st, side), digest being that of st as the store holds it
// (digestOf; nil: not remembered). An [OpenMap] ruleset's map is remembered once for
// every side.
func (m *mapMemo) render(rs rules.Ruleset, st rules.State, digest *[32]byte, side rules.Side) string {
	if digest == nil {
		return rs.Map(st, side)
	}
	keySide := side
	if om, ok := rs.(rules.OpenMap); ok && om.OpenMap() {
		keySide = ""
	}
	return m.remember(memoKey(rs, keySide, digest), func() string { return rs.Map(st, side) })
}

// status returns rs.Status(st, side) as render returns its map: a ruleset's Status is
// as pure as its Map, and Soissons' (supply traced for every unit) cost as much as
// its map; a results mail and the order check of the same state show the same status.
func (m *mapMemo) status(rs rules.Ruleset, st rules.State, digest *[32]byte, side rules.Side) string {
	if digest == nil {
		return rs.Status(st, side)
	}
	m.mu.Lock()
	if m.size == 0 {
		m.size = statusMemoSize // a memo of statuses (Desk.statuses) holds more, smaller texts
	}
	m.mu.Unlock()
	return m.remember(memoKey(rs, side, digest), func() string { return rs.Status(st, side) })
}

// memoKey is the key of what rs shows side ("" for every side) of the state whose
// stored form has digest (digestOf).
func memoKey(rs rules.Ruleset, side rules.Side, digest *[32]byte) [32]byte {
	var b [160]byte
	key := append(append(append(append(b[:0], rs.Name()...), 0), side...), 0)
	return sha256.Sum256(append(key, digest[:]...))
}

// remember returns the text remembered under key, drawing it (once, whoever else
// asks meanwhile) when there is none.
func (m *mapMemo) remember(key [32]byte, draw func() string) string {
	m.mu.Lock()
	if wait, ok := m.drawing[key]; ok {
		m.mu.Unlock()
		<-wait
		m.mu.Lock()
	}
	text, ok := m.get(key)
	if ok {
		m.mu.Unlock()
		return text
	}
	done := make(chan struct{})
	if m.drawing == nil {
		m.drawing = map[[32]byte]chan struct{}{}
	}
	m.drawing[key] = done
	m.mu.Unlock()
	defer func() {
		// Also when draw panics: a side waiting draws the text itself.
		m.mu.Lock()
		delete(m.drawing, key)
		m.mu.Unlock()
		close(done)
	}()
	text = draw()
	m.mu.Lock()
	m.put(key, text)
	m.mu.Unlock()
	return text
}

// get returns a remembered map, bringing it from the old generation to the current one.
func (m *mapMemo) get(key [32]byte) (string, bool) {
	text, ok := m.maps[key]
	if !ok {
		if text, ok = m.old[key]; ok {
			m.put(key, text)
		}
	}
	return text, ok
}

// put remembers a map, turning the generations over when the current one is full.
func (m *mapMemo) put(key [32]byte, text string) {
	size := m.size
	if size == 0 {
		size = mapMemoSize
	}
	if m.maps == nil || len(m.maps) >= size/2 {
		m.old, m.maps = m.maps, make(map[[32]byte]string, size/2)
	}
	m.maps[key] = text
}
