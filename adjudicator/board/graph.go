package board

import (
	"container/heap"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// Zones returns the hexes of the map into which units at the given hexes exert a zone of
// control: every on-map neighbour of each for which into(from, to) holds (nil into: all
// of them). A ruleset says where a zone does not reach (Mons 7.2: not into built-up
// hexes); several units' zones in one hex are one zone (Mons 7.1).
func Zones(m *Map, at []hex.Hex, into func(from, to hex.Hex) bool) map[hex.Hex]bool {
	out := map[hex.Hex]bool{}
	for _, h := range at {
		for _, n := range m.Grid.Neighbours(h) {
			if m.OnMap(n) && (into == nil || into(h, n)) {
				out[n] = true
			}
		}
	}
	return out
}

// Surrounded reports whether every on-map neighbour of h satisfies closed (Mons 4.5:
// "immediately surrounded by German units and/or their zones of control").
func Surrounded(m *Map, h hex.Hex, closed func(hex.Hex) bool) bool {
	for _, n := range m.Grid.Neighbours(h) {
		if m.OnMap(n) && !closed(n) {
			return false
		}
	}
	return true
}

// Trace finds a shortest path of contiguous on-map hexes (fewest steps, ties broken by
// the order of [hex.Grid.Neighbours]) from start to a hex where goal holds, taking only
// steps for which step(from, to) holds (nil step: every step). It serves Mons 4.5's
// cut-off test and Soissons 15.1's supply lines. The path includes start; ok is false
// when no hex satisfying goal can be reached. start itself counts when goal holds there.
func Trace(m *Map, start hex.Hex, goal func(hex.Hex) bool, step func(from, to hex.Hex) bool) (path []hex.Hex, ok bool) {
	prev := map[hex.Hex]hex.Hex{start: start}
	queue := []hex.Hex{start}
	for len(queue) > 0 {
		h := queue[0]
		queue = queue[1:]
		if goal(h) {
			for ; h != start; h = prev[h] {
				path = append(path, h)
			}
			path = append(path, start)
			for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
				path[i], path[j] = path[j], path[i]
			}
			return path, true
		}
		for _, n := range m.Grid.Neighbours(h) {
			if _, seen := prev[n]; seen || !m.OnMap(n) || (step != nil && !step(h, n)) {
				continue
			}
			prev[n] = h
			queue = append(queue, n)
		}
	}
	return nil, false
}

// Reach returns the cheapest cost of reaching every hex within budget from start, where
// cost(from, to) gives a step's cost and whether it may be taken at all, and stop(h)
// says that a move must end on entering h (Mons 7.3: the first enemy zone of control).
// start costs 0. It serves legal-move listings and default orders.
func Reach(m *Map, start hex.Hex, budget int, cost func(from, to hex.Hex) (int, bool), stop func(hex.Hex) bool) map[hex.Hex]int {
	best := map[hex.Hex]int{start: 0}
	pq := &costQueue{{start, 0}}
	for pq.Len() > 0 {
		it := heap.Pop(pq).(costItem)
		if it.cost > best[it.h] || (it.h != start && stop != nil && stop(it.h)) {
			continue
		}
		for _, n := range m.Grid.Neighbours(it.h) {
			if !m.OnMap(n) {
				continue
			}
			c, ok := cost(it.h, n)
			if !ok || it.cost+c > budget {
				continue
			}
			if old, seen := best[n]; seen && old <= it.cost+c {
				continue
			}
			best[n] = it.cost + c
			heap.Push(pq, costItem{n, it.cost + c})
		}
	}
	return best
}

type costItem struct {
	h    hex.Hex
	cost int
}

type costQueue []costItem

func (q costQueue) Len() int { return len(q) }
func (q costQueue) Less(i, j int) bool {
	if q[i].cost != q[j].cost {
		return q[i].cost < q[j].cost
	}
	return hex.Compare(q[i].h, q[j].h) < 0
}
func (q costQueue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *costQueue) Push(x any)   { *q = append(*q, x.(costItem)) }
func (q *costQueue) Pop() any {
	old := *q
	it := old[len(old)-1]
	*q = old[:len(old)-1]
	return it
}
