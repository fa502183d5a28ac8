package dice

import "fmt"

// Script is a Source that replays fixed values instead of deriving them, for
// conformance cases ("DICE 4 2 6": the rolls of a rulebook example, in order)
// and for tests of rulesets.
//
// Each die of each Roll consumes the next value, in order. A Shuffle
// consumes no value and returns the identity permutation 0..n-1, so a case
// that needs a particular deck order states the deck in that order. Script
// records its rolls exactly as a Stream does (Index, Kind, Values, Result),
// so the rest of the desk cannot tell the two apart.
//
// Problems do not panic, so that a case runner can report them with the case
// name: asking for more dice than remain reads every missing die as 1, a
// value outside 1..Sides reads as the nearest face (1 or Sides) so that a
// ruleset indexing a table by the face cannot go out of range, an invalid
// request is recorded with no values and Result 0 as on a Stream; in each
// case Err reports the first problem.
type Script struct {
	values []int
	next   int
	rolls  []Roll
	err    error
}

// NewScript returns a Script that will hand out values in order. The slice
// is copied.
func NewScript(values ...int) *Script {
	return &Script{values: append([]int(nil), values...)}
}

// Roll takes req.Count values from the script as the dice of the roll,
// records it and returns it (see Script for exhaustion and range).
func (s *Script) Roll(req Request) Roll {
	r := Roll{
		Index:    len(s.rolls),
		Kind:     KindRoll,
		Purpose:  req.Purpose,
		Rule:     req.Rule,
		Count:    req.Count,
		Sides:    req.Sides,
		Modifier: req.Modifier,
	}
	if err := checkShape(r.Kind, r.Count, r.Sides); err != nil {
		s.fail(r, err)
		s.rolls = append(s.rolls, r)
		return clone(r)
	}
	r.Values = make([]int, r.Count)
	for i := range r.Values {
		if s.next >= len(s.values) {
			s.fail(r, fmt.Errorf("script exhausted after %d values; die %d of %d reads as 1", len(s.values), i+1, r.Count))
			r.Values[i] = 1
			continue
		}
		v := s.values[s.next]
		s.next++
		switch {
		case v < 1:
			s.fail(r, fmt.Errorf("script value %d (number %d) is not a face of a d%d; reads as 1", v, s.next, r.Sides))
			v = 1
		case v > r.Sides:
			s.fail(r, fmt.Errorf("script value %d (number %d) is not a face of a d%d; reads as %d", v, s.next, r.Sides, r.Sides))
			v = r.Sides
		}
		r.Values[i] = v
	}
	r.Result = sum(r.Values) + r.Modifier
	s.rolls = append(s.rolls, r)
	return clone(r)
}

// Shuffle records and returns the identity permutation of n cards, consuming
// no value. n outside 0..MaxCards is recorded with no Values and reported by
// Err.
func (s *Script) Shuffle(purpose, rule string, n int) Roll {
	r := Roll{
		Index:   len(s.rolls),
		Kind:    KindShuffle,
		Purpose: purpose,
		Rule:    rule,
		Count:   n,
	}
	if err := checkShape(r.Kind, r.Count, r.Sides); err != nil {
		s.fail(r, err)
	} else {
		r.Values = make([]int, n)
		for i := range r.Values {
			r.Values[i] = i
		}
	}
	s.rolls = append(s.rolls, r)
	return clone(r)
}

// Rolls returns copies of every roll made so far, in order.
func (s *Script) Rolls() []Roll {
	out := make([]Roll, len(s.rolls))
	for i, r := range s.rolls {
		out[i] = clone(r)
	}
	return out
}

// Err returns the first problem met, or nil: more dice asked for than the
// script held (the missing dice read as 1), a value outside 1..Sides of the
// die it was used for (it read as the nearest face), or an invalid request.
// A conformance case whose Script has an Err is wrong, whatever its result.
func (s *Script) Err() error {
	return s.err
}

// Remaining returns how many values have not been used yet. A case that
// leaves values unused probably expected a roll the ruleset did not make.
func (s *Script) Remaining() int {
	return len(s.values) - s.next
}

func (s *Script) fail(r Roll, err error) {
	if s.err == nil {
		s.err = fmt.Errorf("dice: %s %d (%q): %w", r.Kind, r.Index, r.Purpose, err)
	}
}
