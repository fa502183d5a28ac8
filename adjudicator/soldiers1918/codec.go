package soldiers1918

import (
	"encoding/json"
	"maps"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

// The desk decodes a game's state for every mail, and encoding/json took a fifth of
// the desk's time for it (an 8 KB state of some 200 units). decodeState reads the
// state as Encode writes it (json.Marshal: no white space, no escapes in its words,
// each field once) without reflection; anything else (white space, an escape, a field
// it does not know, a field twice, null, a number it cannot hold) it leaves to
// encoding/json, so that every state json.Unmarshal reads is read as before
// (FuzzDecodeState holds the two to the same result).

// stateFields are State's JSON fields, each with its bit in decodeState's set of
// fields seen.
var stateFields = map[string]uint32{
	"turn": 1 << 0, "phase": 1 << 1, "options": 1 << 2, "quality": 1 << 3, "fixed_quality": 1 << 4,
	"german_fs": 1 << 5, "units": 1 << 6, "us_cancelled": 1 << 7, "visibility": 1 << 8,
	"cowed_units": 1 << 9, "cowed": 1 << 10, "cow_to_place": 1 << 11, "fired": 1 << 12,
	"targets": 1 << 13, "winner": 1 << 14, "penetration": 1 << 15, "result": 1 << 16, "revision": 1 << 17,
}

// decodeState reads raw into st; ok is false when raw is not in Encode's form, and st
// is then to be read by encoding/json.
func decodeState(raw []byte, st *State) (ok bool) {
	d := stateReader{b: raw}
	if !d.byte('{') {
		return false
	}
	if d.byte('}') {
		return d.end()
	}
	var seen uint32
	for {
		key, ok := d.str()
		if !ok || !d.byte(':') {
			return false
		}
		bit := stateFields[key]
		if bit == 0 || seen&bit != 0 {
			return false
		}
		seen |= bit
		switch key {
		case "turn":
			st.T, ok = d.int()
		case "phase":
			st.P, ok = d.str()
		case "options":
			st.Options, ok = d.options()
		case "quality":
			st.Quality, ok = d.int()
		case "fixed_quality":
			st.FixedQuality, ok = d.int()
		case "german_fs":
			st.GermanFS, ok = d.int()
		case "units":
			st.Units, ok = d.units()
		case "us_cancelled":
			st.USCancelled, ok = d.bool()
		case "visibility":
			st.Visibility, ok = d.int()
		case "cowed_units":
			st.COWed, ok = d.ints()
		case "cowed":
			st.LegacyCOWed, ok = d.strs()
		case "cow_to_place":
			st.COWToPlace, ok = d.int()
		case "fired":
			st.Fired, ok = d.ints()
		case "targets":
			st.Targets, ok = d.strs()
		case "winner":
			st.Winner, ok = d.str()
		case "penetration":
			st.Penetration, ok = d.int()
		case "result":
			st.Result, ok = d.str()
		case "revision":
			st.Revision, ok = d.int()
		}
		if !ok {
			return false
		}
		if d.byte('}') {
			return d.end()
		}
		if !d.byte(',') {
			return false
		}
	}
}

// stateReader reads Encode's JSON from b at i.
type stateReader struct {
	b []byte
	i int
}

// end reports whether all of b was read.
func (d *stateReader) end() bool { return d.i == len(d.b) }

// byte reads c if it is next.
func (d *stateReader) byte(c byte) bool {
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// str reads a string without escapes, of valid UTF-8 and no control character.
func (d *stateReader) str() (string, bool) {
	b, ok := d.strBytes()
	return string(b), ok
}

// strBytes is str, the string's bytes in b.
func (d *stateReader) strBytes() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start, ascii := d.i, true
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !ascii && !utf8.Valid(s) {
				return nil, false // encoding/json puts U+FFFD for what is not UTF-8
			}
			return s, true
		case c == '\\' || c < 0x20:
			return nil, false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return nil, false
}

// int reads a number of at most 18 digits, perhaps negative, without a fraction or an
// exponent, as JSON writes it (no leading zero).
func (d *stateReader) int() (int, bool) {
	start := d.i
	d.byte('-')
	digits := d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		d.i++
	}
	n := d.i - digits
	if n == 0 || n > 18 || (n > 1 && d.b[digits] == '0') {
		return 0, false
	}
	if d.i < len(d.b) && (d.b[d.i] == '.' || d.b[d.i] == 'e' || d.b[d.i] == 'E') {
		return 0, false
	}
	v, err := strconv.Atoi(string(d.b[start:d.i]))
	return v, err == nil
}

// bool reads true or false.
func (d *stateReader) bool() (bool, bool) {
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, true
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, true
	}
	return false, false
}

// list reads a JSON array, each element with elem.
func (d *stateReader) list(elem func() bool) bool {
	if !d.byte('[') {
		return false
	}
	if d.byte(']') {
		return true
	}
	for {
		if !elem() {
			return false
		}
		if d.byte(']') {
			return true
		}
		if !d.byte(',') {
			return false
		}
	}
}

func (d *stateReader) ints() ([]int, bool) {
	out := []int{}
	ok := d.list(func() bool {
		v, ok := d.int()
		out = append(out, v)
		return ok
	})
	return out, ok
}

func (d *stateReader) strs() ([]string, bool) {
	out := []string{}
	ok := d.list(func() bool {
		v, ok := d.str()
		out = append(out, v)
		return ok
	})
	return out, ok
}

// options reads the options object: words to true or false, each once.
func (d *stateReader) options() (map[string]bool, bool) {
	out := map[string]bool{}
	if !d.byte('{') {
		return nil, false
	}
	if d.byte('}') {
		return out, true
	}
	for {
		k, ok := d.str()
		if !ok || !d.byte(':') {
			return nil, false
		}
		if _, twice := out[k]; twice {
			return nil, false
		}
		if out[k], ok = d.bool(); !ok {
			return nil, false
		}
		if d.byte('}') {
			return out, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

// units reads the units, each an object of id, kind, hex and carnage, each once.
func (d *stateReader) units() ([]Unit, bool) {
	out := make([]Unit, 0, 256)
	ok := d.list(func() bool {
		var u Unit
		if !d.byte('{') {
			return false
		}
		if d.byte('}') {
			out = append(out, u)
			return true
		}
		var seen uint8
		for {
			k, ok := d.str()
			if !ok || !d.byte(':') {
				return false
			}
			var bit uint8
			switch k {
			case "id":
				bit = 1
				u.ID, ok = d.int()
			case "kind":
				bit = 2
				var b []byte
				b, ok = d.strBytes()
				u.Kind = internKind(b)
			case "hex":
				bit = 4
				var b []byte
				b, ok = d.strBytes()
				u.Hex = hex.Interned(b) // two hundred units share their ids' strings
			case "carnage":
				bit = 8
				u.Carnage, ok = d.bool()
			default:
				return false
			}
			if !ok || seen&bit != 0 {
				return false
			}
			seen |= bit
			if d.byte('}') {
				out = append(out, u)
				return true
			}
			if !d.byte(',') {
				return false
			}
		}
	})
	return out, ok
}

// unitKinds are the kinds of unit, so that two hundred units share five strings.
var unitKinds = map[string]string{KindDeInf: KindDeInf, KindDeHMG: KindDeHMG, KindUSArmy: KindUSArmy, KindYork: KindYork, KindUSMC: KindUSMC}

// internKind is kind as unitKinds holds it, if it does.
func internKind(kind []byte) string {
	if k, ok := unitKinds[string(kind)]; ok {
		return k
	}
	return string(kind)
}

// encodeState writes st exactly as json.Marshal does (Encode's form, which the journal
// hashes and replay compares), without reflection: its fields in order, the empty
// ones of omitempty left out, the options sorted, each word escaped as encoding/json
// escapes it (by encoding/json, for a word that needs it).
func encodeState(st *State) ([]byte, error) {
	b := make([]byte, 0, 64+len(st.Units)*48)
	var err error
	str := func(s string) {
		if err == nil {
			b, err = appendJSONString(b, s)
		}
	}
	num := func(key string, n int, always bool) {
		if n != 0 || always {
			b = append(b, key...)
			b = strconv.AppendInt(b, int64(n), 10)
		}
	}
	ints := func(key string, ns []int) {
		if len(ns) == 0 {
			return
		}
		b = append(b, key...)
		for i, n := range ns {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(n), 10)
		}
		b = append(b, ']')
	}
	strs := func(key string, ss []string) {
		if len(ss) == 0 {
			return
		}
		b = append(b, key...)
		for i, s := range ss {
			if i > 0 {
				b = append(b, ',')
			}
			str(s)
		}
		b = append(b, ']')
	}
	word := func(key, s string, always bool) {
		if s != "" || always {
			b = append(b, key...)
			str(s)
		}
	}
	num(`{"turn":`, st.T, true)
	word(`,"phase":`, st.P, true)
	if len(st.Options) > 0 {
		b = append(b, `,"options":{`...)
		for i, k := range slices.Sorted(maps.Keys(st.Options)) {
			if i > 0 {
				b = append(b, ',')
			}
			str(k)
			b = append(b, ':')
			b = strconv.AppendBool(b, st.Options[k])
		}
		b = append(b, '}')
	}
	num(`,"quality":`, st.Quality, false)
	num(`,"fixed_quality":`, st.FixedQuality, false)
	num(`,"german_fs":`, st.GermanFS, false)
	if len(st.Units) > 0 {
		b = append(b, `,"units":[`...)
		for i, u := range st.Units {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"id":`...)
			b = strconv.AppendInt(b, int64(u.ID), 10)
			b = append(b, `,"kind":`...)
			str(u.Kind)
			b = append(b, `,"hex":`...)
			str(u.Hex)
			if u.Carnage {
				b = append(b, `,"carnage":true`...)
			}
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	if st.USCancelled {
		b = append(b, `,"us_cancelled":true`...)
	}
	num(`,"visibility":`, st.Visibility, false)
	ints(`,"cowed_units":[`, st.COWed)
	strs(`,"cowed":[`, st.LegacyCOWed)
	num(`,"cow_to_place":`, st.COWToPlace, false)
	ints(`,"fired":[`, st.Fired)
	strs(`,"targets":[`, st.Targets)
	word(`,"winner":`, st.Winner, false)
	num(`,"penetration":`, st.Penetration, false)
	word(`,"result":`, st.Result, false)
	num(`,"revision":`, st.Revision, false)
	b = append(b, '}')
	return b, err
}

// appendJSONString appends s as encoding/json writes it: as it is when it holds
// nothing JSON escapes (a quote, a backslash, a control character, "<", ">", "&", a
// byte of no ASCII character), else as json.Marshal writes it.
func appendJSONString(b []byte, s string) ([]byte, error) {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= utf8.RuneSelf || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, err := json.Marshal(s)
			return append(b, q...), err
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"'), nil
}
