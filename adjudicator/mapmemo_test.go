package adjudicator

import "testing"

// countingMaps is a ruleset whose maps are counted and tell their state and side apart.
type countingMaps struct {
	tallyRules
	calls int
}

func (c *countingMaps) Map(st State, side Side) string {
	c.calls++
	return "map of " + string(side)
}

// TestMapMemo: a map is drawn once per state and side; another state, side or ruleset
// draws again; nothing without stored bytes is remembered.
func TestMapMemo(t *testing.T) {
	var m mapMemo
	rs := &countingMaps{}
	for range 3 {
		if got := m.render(rs, tallyState{}, []byte(`{"t":1}`), "a"); got != "map of a" {
			t.Fatalf("render = %q", got)
		}
	}
	if rs.calls != 1 {
		t.Errorf("the same map was drawn %d times, want once", rs.calls)
	}
	m.render(rs, tallyState{}, []byte(`{"t":2}`), "a")
	m.render(rs, tallyState{}, []byte(`{"t":1}`), "b")
	m.render(rs, tallyState{}, nil, "a")
	m.render(rs, tallyState{}, nil, "a")
	if rs.calls != 5 {
		t.Errorf("%d maps drawn, want 5 (another state, another side, twice without bytes)", rs.calls)
	}
	for i := range 2*mapMemoSize + 10 {
		m.render(rs, tallyState{}, []byte{byte(i), byte(i >> 8)}, "a")
	}
	if n := len(m.maps) + len(m.old); n > mapMemoSize {
		t.Errorf("the memo holds %d maps, more than %d", n, mapMemoSize)
	}
	// The latest maps outlive a turnover: the last mapMemoSize/2 drawn are all kept.
	calls := rs.calls
	for i := 2*mapMemoSize + 10 - mapMemoSize/2; i < 2*mapMemoSize+10; i++ {
		m.render(rs, tallyState{}, []byte{byte(i), byte(i >> 8)}, "a")
	}
	if rs.calls != calls {
		t.Errorf("%d of the last %d maps drawn were drawn again", rs.calls-calls, mapMemoSize/2)
	}
}

// openMaps is a ruleset whose map is the same for every side (OpenMap).
type openMaps struct{ countingMaps }

func (o *openMaps) OpenMap() bool { return true }

func (o *openMaps) Map(st State, side Side) string {
	o.calls++
	return "the map"
}

// TestMapMemoOpenMap: an OpenMap ruleset's map is drawn once per state for all sides.
func TestMapMemoOpenMap(t *testing.T) {
	var m mapMemo
	rs := &openMaps{}
	for _, side := range []Side{"a", "b", "a"} {
		if got := m.render(rs, tallyState{}, []byte(`{"t":1}`), side); got != "the map" {
			t.Fatalf("render = %q", got)
		}
	}
	m.render(rs, tallyState{}, []byte(`{"t":2}`), "b")
	if rs.calls != 2 {
		t.Errorf("%d maps drawn for two states and two sides, want 2", rs.calls)
	}
}
