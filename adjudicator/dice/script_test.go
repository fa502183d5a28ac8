package dice_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// step is one call made on a Source in a test.
type step struct {
	roll    *dice.Request // nil for a shuffle of n
	n       int
	want    []int
	result  int
	remains int
}

func TestScript(t *testing.T) {
	d6 := func(count, mod int) *dice.Request {
		return &dice.Request{Purpose: "p", Rule: "r", Count: count, Sides: 6, Modifier: mod}
	}
	tests := []struct {
		name    string
		values  []int
		steps   []step
		wantErr string // part of Err(); "" for nil
	}{
		{
			name:   "values in order",
			values: []int{3, 5, 1, 6},
			steps: []step{
				{roll: d6(1, 0), want: []int{3}, result: 3, remains: 3},
				{roll: d6(2, 1), want: []int{5, 1}, result: 7, remains: 1},
				{n: 4, want: []int{0, 1, 2, 3}, remains: 1}, // a shuffle consumes nothing
				{roll: d6(1, -2), want: []int{6}, result: 4, remains: 0},
			},
		},
		{
			name:   "other dice",
			values: []int{10, 1, 52, 2},
			steps: []step{
				{roll: &dice.Request{Count: 2, Sides: 10}, want: []int{10, 1}, result: 11, remains: 2},
				{roll: &dice.Request{Count: 1, Sides: 52}, want: []int{52}, result: 52, remains: 1},
				{roll: &dice.Request{Count: 1, Sides: 2}, want: []int{2}, result: 2, remains: 0},
			},
		},
		{
			name:   "exhausted: missing dice read as 1",
			values: []int{4},
			steps: []step{
				{roll: d6(3, 0), want: []int{4, 1, 1}, result: 6, remains: 0},
				{roll: d6(1, 0), want: []int{1}, result: 1, remains: 0},
			},
			wantErr: "exhausted",
		},
		{
			name:    "empty script",
			steps:   []step{{roll: d6(1, 0), want: []int{1}, result: 1}},
			wantErr: "exhausted",
		},
		{
			name:   "value above Sides reads as Sides",
			values: []int{2, 7, 3},
			steps: []step{
				{roll: d6(3, 0), want: []int{2, 6, 3}, result: 11, remains: 0},
			},
			wantErr: "script value 7",
		},
		{
			name:   "value below 1 reads as 1",
			values: []int{0, -3},
			steps: []step{
				{roll: d6(2, 0), want: []int{1, 1}, result: 2, remains: 0},
			},
			wantErr: "script value 0",
		},
		{
			name:   "valid for a d10, not for a d6",
			values: []int{8, 8},
			steps: []step{
				{roll: &dice.Request{Count: 1, Sides: 10}, want: []int{8}, result: 8, remains: 1},
				{roll: d6(1, 0), want: []int{6}, result: 6, remains: 0},
			},
			wantErr: "d6",
		},
		{
			name:   "invalid request consumes nothing",
			values: []int{5},
			steps: []step{
				{roll: &dice.Request{Count: 0, Sides: 6}, want: nil, result: 0, remains: 1},
				{roll: d6(1, 0), want: []int{5}, result: 5, remains: 0},
			},
			wantErr: "count 0",
		},
		{
			name:    "invalid shuffle",
			values:  []int{5},
			steps:   []step{{n: -1, want: nil, remains: 1}},
			wantErr: "deck of -1",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := dice.NewScript(tt.values...)
			if got := s.Remaining(); got != len(tt.values) {
				t.Errorf("Remaining() = %d before any roll, want %d", got, len(tt.values))
			}
			var src dice.Source = s // a Script is a Source
			var made []dice.Roll
			for i, st := range tt.steps {
				var r dice.Roll
				if st.roll != nil {
					r = src.Roll(*st.roll)
					if r.Kind != dice.KindRoll || r.Count != st.roll.Count || r.Sides != st.roll.Sides || r.Modifier != st.roll.Modifier {
						t.Errorf("step %d: Roll() = %+v, want kind roll and the request's count, sides and modifier", i, r)
					}
				} else {
					r = src.Shuffle("deck", "r", st.n)
					if r.Kind != dice.KindShuffle || r.Count != st.n || r.Sides != 0 {
						t.Errorf("step %d: Shuffle() = %+v, want kind shuffle, Count %d, Sides 0", i, r, st.n)
					}
				}
				if r.Index != i {
					t.Errorf("step %d: Index = %d, want %d", i, r.Index, i)
				}
				if !reflect.DeepEqual(r.Values, st.want) || r.Result != st.result {
					t.Errorf("step %d: Roll() = %v (result %d), want %v (result %d)", i, r.Values, r.Result, st.want, st.result)
				}
				if got := s.Remaining(); got != st.remains {
					t.Errorf("step %d: Remaining() = %d, want %d", i, got, st.remains)
				}
				made = append(made, r)
			}
			if got := src.Rolls(); !reflect.DeepEqual(got, made) {
				t.Errorf("Rolls() = %v, want %v", got, made)
			}
			err := s.Err()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("Err() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("Err() = %v, want an error about %q", err, tt.wantErr)
			}
		})
	}
}

func TestScriptKeepsFirstError(t *testing.T) {
	s := dice.NewScript(9)
	s.Roll(dice.Request{Purpose: "first", Count: 1, Sides: 6})
	s.Roll(dice.Request{Purpose: "second", Count: 1, Sides: 6})
	if err := s.Err(); err == nil || !strings.Contains(err.Error(), `"first"`) || !strings.Contains(err.Error(), "script value 9") {
		t.Errorf("Err() = %v, want the first problem, value 9 of roll \"first\"", err)
	}
}

func TestScriptCopies(t *testing.T) {
	values := []int{1, 2}
	s := dice.NewScript(values...)
	values[0] = 6
	if got := s.Roll(dice.Request{Count: 1, Sides: 6}); got.Values[0] != 1 {
		t.Errorf("Roll() = %v after the caller changed its slice, want [1]", got.Values)
	}
	s.Rolls()[0].Values[0] = 5
	if got := s.Rolls()[0].Values; got[0] != 1 {
		t.Errorf("Rolls()[0].Values = %v after changing a copy, want [1]", got)
	}
}
