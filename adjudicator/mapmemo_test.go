package adjudicator

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"sync"
	"testing"
	"time"
)

// countingMaps is a ruleset whose maps are counted and tell their state and side apart.
type countingMaps struct {
	tallyRules
	calls int
}

func (c *countingMaps) Map(st rules.State, side rules.Side) string {
	c.calls++
	return "map of " + string(side)
}

// TestMapMemo: a map is drawn once per state and side; another state, side or ruleset
// draws again; nothing without stored bytes is remembered.
func TestMapMemo(t *testing.T) {
	var m mapMemo
	rs := &countingMaps{}
	for range 3 {
		if got := m.render(rs, tallyState{}, digestOf([]byte(`{"t":1}`)), "a"); got != "map of a" {
			t.Fatalf("render = %q", got)
		}
	}
	if rs.calls != 1 {
		t.Errorf("the same map was drawn %d times, want once", rs.calls)
	}
	m.render(rs, tallyState{}, digestOf([]byte(`{"t":2}`)), "a")
	m.render(rs, tallyState{}, digestOf([]byte(`{"t":1}`)), "b")
	m.render(rs, tallyState{}, nil, "a")
	m.render(rs, tallyState{}, nil, "a")
	if rs.calls != 5 {
		t.Errorf("%d maps drawn, want 5 (another state, another side, twice without bytes)", rs.calls)
	}
	for i := range 2*mapMemoSize + 10 {
		m.render(rs, tallyState{}, digestOf([]byte{byte(i), byte(i >> 8)}), "a")
	}
	if n := len(m.maps) + len(m.old); n > mapMemoSize {
		t.Errorf("the memo holds %d maps, more than %d", n, mapMemoSize)
	}
	// The latest maps outlive a turnover: the last mapMemoSize/2 drawn are all kept.
	calls := rs.calls
	for i := 2*mapMemoSize + 10 - mapMemoSize/2; i < 2*mapMemoSize+10; i++ {
		m.render(rs, tallyState{}, digestOf([]byte{byte(i), byte(i >> 8)}), "a")
	}
	if rs.calls != calls {
		t.Errorf("%d of the last %d maps drawn were drawn again", rs.calls-calls, mapMemoSize/2)
	}
}

// openMaps is a ruleset whose map is the same for every side (OpenMap).
type openMaps struct{ countingMaps }

func (o *openMaps) OpenMap() bool { return true }

func (o *openMaps) Map(st rules.State, side rules.Side) string {
	o.calls++
	return "the map"
}

// TestMapMemoOpenMap: an OpenMap ruleset's map is drawn once per state for all sides.
func TestMapMemoOpenMap(t *testing.T) {
	var m mapMemo
	rs := &openMaps{}
	for _, side := range []rules.Side{"a", "b", "a"} {
		if got := m.render(rs, tallyState{}, digestOf([]byte(`{"t":1}`)), side); got != "the map" {
			t.Fatalf("render = %q", got)
		}
	}
	m.render(rs, tallyState{}, digestOf([]byte(`{"t":2}`)), "b")
	if rs.calls != 2 {
		t.Errorf("%d maps drawn for two states and two sides, want 2", rs.calls)
	}
}

// slowOpenMaps is an open map whose drawing says when it starts and waits to be
// released.
type slowOpenMaps struct {
	openMaps
	started, release chan struct{}
}

func (o *slowOpenMaps) Map(rules.State, rules.Side) string {
	o.started <- struct{}{}
	<-o.release
	return "the map"
}

// TestMapMemoDrawsAnOpenMapOnce: the sides' results mails are rendered at once
// (flushResults); a side asking for an open map while another side's drawing of it goes
// on waits for that drawing instead of drawing the map again.
func TestMapMemoDrawsAnOpenMapOnce(t *testing.T) {
	var m mapMemo
	rs := &slowOpenMaps{started: make(chan struct{}, 2), release: make(chan struct{})}
	raw := []byte(`{"t":1}`)
	var wg sync.WaitGroup
	got := make([]string, 2)
	wg.Go(func() { got[0] = m.render(rs, tallyState{}, digestOf(raw), "a") })
	<-rs.started // a is drawing
	asked := make(chan struct{})
	wg.Go(func() { close(asked); got[1] = m.render(rs, tallyState{}, digestOf(raw), "b") })
	<-asked
	// b has the time to reach the memo and, were it not waiting, to start drawing: the
	// test fails on a second drawing, never on how long anything took.
	select {
	case <-rs.started:
		t.Error("the open map was drawn a second time while its first drawing went on")
	case <-time.After(50 * time.Millisecond):
	}
	close(rs.release)
	wg.Wait()
	if got[0] != "the map" || got[1] != "the map" {
		t.Errorf("renders = %q", got)
	}
}

// countingStatus is a ruleset whose statuses are counted and tell their side apart.
type countingStatus struct {
	tallyRules
	calls int
}

func (c *countingStatus) Status(st rules.State, side rules.Side) string {
	c.calls++
	return "status of " + string(side)
}

// TestStatusMemo: a status is worked out once per state and side (the order check and
// the results mail of one state show the same), another state or side works it out
// again, nothing without stored bytes is remembered, and the memo stays within
// statusMemoSize.
func TestStatusMemo(t *testing.T) {
	var m mapMemo
	rs := &countingStatus{}
	for range 3 {
		if got := m.status(rs, tallyState{}, digestOf([]byte(`{"t":1}`)), "a"); got != "status of a" {
			t.Fatalf("status = %q", got)
		}
	}
	if rs.calls != 1 {
		t.Errorf("the same status was worked out %d times, want once", rs.calls)
	}
	if got := m.status(rs, tallyState{}, digestOf([]byte(`{"t":1}`)), "b"); got != "status of b" || rs.calls != 2 {
		t.Errorf("the other side's status = %q after %d calls, want %q after 2", got, rs.calls, "status of b")
	}
	m.status(rs, tallyState{}, digestOf([]byte(`{"t":2}`)), "a")
	m.status(rs, tallyState{}, nil, "a")
	m.status(rs, tallyState{}, nil, "a")
	if rs.calls != 5 {
		t.Errorf("%d statuses worked out, want 5 (another state, twice without bytes)", rs.calls)
	}
	for i := range 2*statusMemoSize + 10 {
		m.status(rs, tallyState{}, digestOf([]byte{byte(i), byte(i >> 8)}), "a")
	}
	if n := len(m.maps) + len(m.old); n > statusMemoSize {
		t.Errorf("the memo holds %d statuses, more than %d", n, statusMemoSize)
	}
}
