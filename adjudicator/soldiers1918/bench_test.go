package soldiers1918_test

// Benchmarks of adjudication for BENCHMARKS.md (issue 5, item 4): one full game turn with
// every unit of both sides on the map (the default deployments) and both bombardment plots
// aimed at the twelve biggest enemy stacks, through every phase the ruleset implements,
// with dice from dice.NewStream under a fixed seed. The text map has its benchmark in
// mapview_test.go (BenchmarkRenderMap); `adjutant bench` reports both.
//
// The turn is driven through the rules.Ruleset interface only, as the desk drives
// it: a side the ruleset waits for gets its Defaults (no move, no fire, no plot), so the
// benchmark keeps working as phases are added.

import (
	"crypto/sha256"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

var benchSeed = dice.Seed(sha256.Sum256([]byte("adjutant bench seed")))

// benchPlotItems aims MaxMarkers markers, one a hex, at the biggest stacks of a deployment.
func benchPlotItems(ps []soldiers1918.Placement) string {
	count := map[hex.Hex]int{}
	for _, p := range ps {
		count[p.Hex] += p.Count
	}
	hexes := make([]hex.Hex, 0, len(count))
	for h := range count {
		hexes = append(hexes, h)
	}
	slices.SortFunc(hexes, func(a, b hex.Hex) int {
		if d := count[b] - count[a]; d != 0 {
			return d
		}
		return strings.Compare(a.String(), b.String())
	})
	hexes = hexes[:min(len(hexes), soldiers1918.MaxMarkers)]
	items := make([]string, len(hexes))
	for i, h := range hexes {
		items[i] = h.String() + "x1"
	}
	return strings.Join(items, ", ")
}

// benchFile checks text as side's orders and files what it accepts, replacing orders of
// the same id, as the desk does; sealed orders get a commitment.
func benchFile(tb testing.TB, rs rules.Ruleset, st rules.State, filed []rules.Order, side rules.Side, text string) []rules.Order {
	tb.Helper()
	lines, _ := orders.Split(text)
	for _, c := range rs.Check(st, side, lines, filed) {
		if !c.OK {
			tb.Fatalf("%s: line %q refused: %s", side, c.Line.Text, c.Reason)
		}
		for _, o := range c.Orders {
			filed = benchPut(filed, o)
		}
	}
	return filed
}

func benchPut(filed []rules.Order, o rules.Order) []rules.Order {
	if o.Sealed && o.Commitment == "" {
		o.Commitment = rules.Commitment(o.Text, "bench-salt")
	}
	for i, f := range filed {
		if f.ID() == o.ID() {
			filed[i] = o
			return filed
		}
	}
	return append(filed, o)
}

// benchPhase resolves the current phase as the desk does: the ruleset's defaults for any
// side it waits for, its inputs, dice from the turn's seed. filed is not modified.
func benchPhase(rs rules.Ruleset, st rules.State, filed []rules.Order) (rules.State, []rules.Order, int, error) {
	filed = slices.Clone(filed)
	for _, side := range rs.Waiting(st, filed) {
		for _, o := range rs.Defaults(st, side, filed) {
			filed = benchPut(filed, o)
		}
	}
	if w := rs.Waiting(st, filed); len(w) > 0 {
		return nil, nil, 0, fmt.Errorf("turn %d phase %s still waits for %v after their defaults", st.Turn(), st.Phase(), w)
	}
	inputs := rs.Inputs(st, filed)
	src := dice.NewStream(benchSeed, dice.Context{Game: "bench", Turn: st.Turn(), Phase: st.Phase(), OrdersDigest: rules.OrdersDigest(inputs)})
	out, err := rs.Resolve(st, inputs, src)
	if err != nil {
		return nil, nil, 0, err
	}
	if err := src.Err(); err != nil {
		return nil, nil, 0, err
	}
	for _, id := range out.Fixed {
		for i := range filed {
			if filed[i].ID() == id {
				filed[i].Fixed = true
			}
		}
	}
	filed = slices.DeleteFunc(filed, func(o rules.Order) bool { return slices.Contains(out.Consumed, o.ID()) })
	return out.State, filed, len(src.Rolls()), nil
}

// benchTurn resolves every phase of the current turn; it returns the state at the start of
// the next turn (or the end of the game) with the number of phases and rolls.
func benchTurn(rs rules.Ruleset, st rules.State, filed []rules.Order) (rules.State, []rules.Order, int, int, error) {
	turn, phases, rolls := st.Turn(), 0, 0
	for st.Turn() == turn && !st.Over() {
		var n int
		var err error
		if st, filed, n, err = benchPhase(rs, st, filed); err != nil {
			return nil, nil, 0, 0, err
		}
		phases++
		rolls += n
		if phases > 100 {
			return nil, nil, 0, 0, fmt.Errorf("turn %d does not end", turn)
		}
	}
	return st, filed, phases, rolls, nil
}

// benchTurnOne is the game at the start of turn 1: both sides deployed by default, the US
// six-turn plot and the German plots for turns 1 and 2 aimed at the biggest stacks.
func benchTurnOne(tb testing.TB) (*soldiers1918.Rules, rules.State, []rules.Order) {
	tb.Helper()
	rs, err := soldiers1918.New()
	if err != nil {
		tb.Fatal(err)
	}
	sc := rs.Scenario()
	usItems, deItems := benchPlotItems(sc.DefaultGerman), benchPlotItems(sc.DefaultUS)
	st, err := rs.New(nil)
	if err != nil {
		tb.Fatal(err)
	}
	var us strings.Builder
	for n := 1; n <= 6; n++ {
		fmt.Fprintf(&us, "PLOT TURN %d %s\n", n, usItems)
	}
	us.WriteString("PLOT COMPLETE\nSETUP DEFAULT\n")
	filed := benchFile(tb, rs, st, nil, soldiers1918.US, us.String())
	filed = benchFile(tb, rs, st, filed, soldiers1918.DE, "PLOT TURN 1 "+deItems+"\nSETUP DEFAULT\n")
	for st.Turn() < 1 {
		if st, filed, _, err = benchPhase(rs, st, filed); err != nil {
			tb.Fatal(err)
		}
	}
	filed = benchFile(tb, rs, st, filed, soldiers1918.DE, "PLOT TURN 2 "+deItems+"\n")
	deFire, usFire := benchFireLines(sc, st.(*soldiers1918.State), soldiers1918.DE), benchFireLines(sc, st.(*soldiers1918.State), soldiers1918.US)
	if deFire == "" || usFire == "" {
		tb.Fatal("no stack within range of an enemy stack at the start of turn 1")
	}
	filed = benchFile(tb, rs, st, filed, soldiers1918.DE, deFire)
	filed = benchFile(tb, rs, st, filed, soldiers1918.US, usFire)
	return rs, st, filed
}

// benchFireLines has every stack of side fire at the nearest enemy stack within three
// hexes that no other line of its targets (10.2, 10.5), in hex order.
func benchFireLines(sc *soldiers1918.Scenario, st *soldiers1918.State, side rules.Side) string {
	own, enemy := map[hex.Hex]bool{}, map[hex.Hex]bool{}
	for _, u := range st.Units {
		if u.Carnage {
			continue
		}
		h := hex.MustParse(u.Hex)
		if (u.Kind == soldiers1918.KindDeInf || u.Kind == soldiers1918.KindDeHMG) == (side == soldiers1918.DE) {
			own[h] = true
		} else {
			enemy[h] = true
		}
	}
	var b strings.Builder
	targeted := map[hex.Hex]bool{}
	for _, from := range slices.SortedFunc(maps.Keys(own), hex.Compare) {
		best, dist := hex.Hex{}, 4
		for _, to := range slices.SortedFunc(maps.Keys(enemy), hex.Compare) {
			if d := sc.Grid.Distance(from, to); d < dist && !targeted[to] {
				best, dist = to, d
			}
		}
		if dist < 4 {
			targeted[best] = true
			fmt.Fprintf(&b, "FIRE %s FROM %s\n", best, from)
		}
	}
	return b.String()
}

// BenchmarkFullTurn resolves turn 1, every phase, from the same start each time.
func BenchmarkFullTurn(b *testing.B) {
	rs, st, filed := benchTurnOne(b)
	var phases, rolls int
	b.ReportAllocs()
	for b.Loop() {
		var err error
		if _, _, phases, rolls, err = benchTurn(rs, st, filed); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(phases), "phases/turn")
	b.ReportMetric(float64(rolls), "rolls/turn")
}

// BenchmarkFullTurnWithCodec is the same turn with the state decoded from JSON before it
// and encoded after it, as the desk keeps it in the store.
func BenchmarkFullTurnWithCodec(b *testing.B) {
	rs, st, filed := benchTurnOne(b)
	raw, err := rs.Encode(st)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		s, err := rs.Decode(raw)
		if err != nil {
			b.Fatal(err)
		}
		if s, _, _, _, err = benchTurn(rs, s, filed); err != nil {
			b.Fatal(err)
		}
		if _, err := rs.Encode(s); err != nil {
			b.Fatal(err)
		}
	}
}

// TestBenchTurn checks what the benchmark measures: a whole turn with rolls, ending at the
// start of the next one.
func TestBenchTurn(t *testing.T) {
	rs, st, filed := benchTurnOne(t)
	next, _, phases, rolls, err := benchTurn(rs, st, filed)
	if err != nil {
		t.Fatal(err)
	}
	if next.Turn() != 2 || phases < 4 || rolls < 2*soldiers1918.MaxMarkers {
		t.Errorf("turn 1 gave turn %d phase %s after %d phases and %d rolls; want turn 2, at least 4 phases and %d rolls",
			next.Turn(), next.Phase(), phases, rolls, 2*soldiers1918.MaxMarkers)
	}
}

// TestOpenMap: the map shows both sides the same (6.5), which OpenMap promises the desk
// so that it draws the map once for both: checked at the set-up and after every phase of
// a whole turn, with units, carnage and COWed hexes on the map.
func TestOpenMap(t *testing.T) {
	rs, st, filed := benchTurnOne(t)
	if !rs.OpenMap() {
		t.Fatal("OpenMap is false")
	}
	start, err := rs.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	states := []rules.State{start, st}
	for turn := st.Turn(); st.Turn() == turn && !st.Over(); {
		if st, filed, _, err = benchPhase(rs, st, filed); err != nil {
			t.Fatal(err)
		}
		states = append(states, st)
	}
	for _, s := range states {
		if us, de := rs.Map(s, soldiers1918.US), rs.Map(s, soldiers1918.DE); us != de {
			t.Errorf("turn %d phase %s: the US map differs from the German map", s.Turn(), s.Phase())
		}
	}
}
