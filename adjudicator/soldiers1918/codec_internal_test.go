package soldiers1918

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// randomState is a state with every field set, or left empty, at random: words with
// characters JSON escapes or that are not ASCII, numbers of every sign and size.
func randomState(r *rand.Rand) *State {
	words := []string{"", "VII", "de-inf", "usmc", "2301", "é€ ü", "a<b>&c", "quote\"d", "back\\slash", "tab\there", "\u2028", "x\x00y"}
	n := len(words)
	if r.IntN(2) == 0 {
		n = 6 // words JSON writes as they are
	}
	word := func() string { return words[r.IntN(n)] }
	num := func() int { return []int{0, 1, -1, 17, -250, 1 << 40, -(1 << 52)}[r.IntN(7)] }
	st := &State{T: num(), P: word(), Quality: num(), FixedQuality: num(), GermanFS: num(), USCancelled: r.IntN(2) == 0,
		Visibility: num(), COWToPlace: num(), Winner: word(), Penetration: num(), Result: word(), Revision: num()}
	if r.IntN(3) > 0 {
		st.Options = map[string]bool{}
		for range r.IntN(3) {
			st.Options[word()] = r.IntN(2) == 0
		}
	}
	for range r.IntN(250) {
		st.Units = append(st.Units, Unit{ID: num(), Kind: []string{KindDeInf, KindDeHMG, KindUSArmy, KindUSMC, KindYork, word()}[r.IntN(6)], Hex: word(), Carnage: r.IntN(4) == 0})
	}
	for range r.IntN(5) {
		st.COWed, st.Fired = append(st.COWed, num()), append(st.Fired, num())
		st.LegacyCOWed, st.Targets = append(st.LegacyCOWed, word()), append(st.Targets, word())
	}
	return st
}

// TestDecodeStateAsJSON: every state Encode writes whose words JSON need not escape is
// read without encoding/json, and read as encoding/json reads it; the others are left
// to encoding/json.
func TestDecodeStateAsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1918, 23))
	fast := 0
	for range 2000 {
		raw, err := json.Marshal(randomState(r))
		if err != nil {
			t.Fatal(err)
		}
		var want, got State
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		ok := decodeState(raw, &got)
		escaped := strings.Contains(string(raw), `\`)
		switch {
		case ok && !reflect.DeepEqual(got, want):
			t.Fatalf("decodeState(%s) = %+v, want %+v", raw, got, want)
		case !ok && !escaped:
			t.Fatalf("decodeState left %s, which holds no escape, to encoding/json", raw)
		case ok && escaped:
			t.Fatalf("decodeState read %s, which holds an escape", raw)
		}
		if ok {
			fast++
		}
	}
	if fast < 100 {
		t.Errorf("only %d of 2000 states read without encoding/json", fast)
	}
}

// FuzzDecodeState: whatever the bytes, a state decodeState reads is the state
// encoding/json reads from them.
func FuzzDecodeState(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for range 5 {
		raw, _ := json.Marshal(randomState(r))
		f.Add(raw)
	}
	for _, s := range []string{`{}`, `{"turn":1,"turn":2}`, `{"Turn":1}`, `{"units":[{}],"options":{}}`, `{"turn":01}`, `{"turn":-0}`,
		`{"units":null}`, `{"phase":"\xff"}`, `{"turn":1} `, `{"options":{"a":true,"a":false}}`, `{"turn":1e2}`, `{"units":[{"id":1,"id":2}]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		var got State
		if !decodeState(raw, &got) {
			return
		}
		var want State
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatalf("decodeState read %q, which encoding/json refuses: %v", raw, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("decodeState(%q) = %+v, want %+v", raw, got, want)
		}
	})
}

// TestEncodeStateAsJSON: Encode writes every state byte for byte as json.Marshal does,
// words JSON escapes included: the journal hashes the state as Encode writes it, and
// replay compares.
func TestEncodeStateAsJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1918, 24))
	for i := range 2000 {
		st := randomState(r)
		if i == 0 {
			st = &State{} // every field empty
		}
		want, err := json.Marshal(st)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeState(st)
		if err != nil || string(got) != string(want) {
			t.Fatalf("encodeState = %s, %v, want %s", got, err, want)
		}
	}
}

// TestDecodeStateAllocs: the units of a decoded state share their kind's and their hex
// id's string: a state of 200 units decodes in a few allocations, not one or more a
// unit.
func TestDecodeStateAllocs(t *testing.T) {
	st := &State{T: 3, P: "VII"}
	for i := range 200 {
		st.Units = append(st.Units, Unit{ID: i, Kind: []string{KindDeInf, KindUSArmy, KindUSMC}[i%3], Hex: fmt.Sprintf("%02d%02d", 10+i%30, i%12), Carnage: i%7 == 0})
	}
	raw, err := encodeState(st)
	if err != nil {
		t.Fatal(err)
	}
	var got State
	if !decodeState(raw, &got) || !reflect.DeepEqual(&got, st) {
		t.Fatalf("decodeState(%s) = %+v, want %+v", raw, got, st)
	}
	if n := testing.AllocsPerRun(20, func() { decodeState(raw, &got) }); n > 20 {
		t.Errorf("decodeState of 200 units: %.0f allocations, want at most 20", n)
	}
}
