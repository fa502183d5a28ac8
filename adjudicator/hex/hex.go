package hex

import (
	"cmp"
	"fmt"
	"strings"
	"sync"
)

// Hex is one map hex, printed as ccrr (column, row), e.g. 2301.
//
// Col and Row are plain ints so that geometry can step off the printed map
// without special cases: [Grid.Neighbours] of an edge hex includes ids such as
// column -1 or row 100 that no map has. Only hexes for which [Hex.Valid]
// holds can be written as, and parsed from, a four-digit id. Whether a hex is
// on a particular map is the ruleset's business, not this package's.
type Hex struct{ Col, Row int }

// Parse reads a hex id as players write it: exactly four ASCII digits, the
// column then the row ("2301" is column 23, row 1). Anything else, including
// surrounding spaces, signs and non-ASCII digits, is an error that quotes the
// input, because the error goes back to a player who has to find the typo in
// an email.
func Parse(s string) (Hex, error) {
	if len(s) != 4 {
		return Hex{}, parseError(s)
	}
	var d [4]int
	for i := range 4 {
		c := s[i]
		if c < '0' || c > '9' {
			return Hex{}, parseError(s)
		}
		d[i] = int(c - '0')
	}
	return Hex{Col: d[0]*10 + d[1], Row: d[2]*10 + d[3]}, nil
}

// parseError is the one error Parse returns, kept in one place so that every
// rejected id reads the same to a player.
func parseError(s string) error {
	return fmt.Errorf("hex id %q: expected a 4-digit hex id such as 2301", s)
}

// MustParse is Parse for ids known at compile time, in tests and tables; it
// panics on a malformed id because that is a programming error, not input.
func MustParse(s string) Hex {
	h, err := Parse(s)
	if err != nil {
		panic("hex.MustParse: " + err.Error())
	}
	return h
}

// String prints h as its four-digit id, "%02d%02d". For a hex that is not
// [Hex.Valid] (a neighbour off the edge of every map) the output is still
// that format, e.g. "23-1", and so cannot be parsed back.
func (h Hex) String() string {
	if !h.Valid() {
		return fmt.Sprintf("%02d%02d", h.Col, h.Row)
	}
	// Neither written with fmt nor made anew: rulesets spell hex ids in every event
	// and look units up by them.
	return ids()[100*h.Col+h.Row]
}

// ids are the four-digit ids "0000" to "9999", by 100*column+row, slices of one
// string (40 KB, made at first use): every valid hex's String, and the hex ids of
// a ruleset's decoded state (Interned), share them.
var ids = sync.OnceValue(func() *[10000]string {
	all := make([]byte, 0, 4*10000)
	for i := range 10000 {
		all = append(all, byte('0'+i/1000), byte('0'+i/100%10), byte('0'+i/10%10), byte('0'+i%10))
	}
	s := string(all)
	var out [10000]string
	for i := range out {
		out[i] = s[4*i : 4*i+4]
	}
	return &out
})

// Interned is id as a valid hex's String gives it, sharing its bytes, when id is four
// digits; else id as a string of its own. A ruleset decoding a state of hundreds of
// units spells their hexes with it, so that they share their ids.
func Interned(id []byte) string {
	if len(id) != 4 {
		return string(id)
	}
	n := 0
	for _, c := range id {
		if c < '0' || c > '9' {
			return string(id)
		}
		n = 10*n + int(c-'0')
	}
	return ids()[n]
}

// Valid reports whether h can be written as a four-digit id, i.e. whether
// its column and row are both in 0..99. It says nothing about whether h is on
// any particular map.
func (h Hex) Valid() bool {
	return 0 <= h.Col && h.Col <= 99 && 0 <= h.Row && h.Row <= 99
}

// Compare orders hexes by column then row, which for valid hexes is the
// numeric order of their ids. It returns -1, 0 or +1 like [cmp.Compare], so
// it can be passed to slices.SortFunc; [Hexside] uses it for its canonical
// order.
func Compare(a, b Hex) int {
	if c := cmp.Compare(a.Col, b.Col); c != 0 {
		return c
	}
	return cmp.Compare(a.Row, b.Row)
}

// Join writes hexes as their ids separated by sep ("2301 or 2302"), as an order or a
// results line lists them.
func Join(hs []Hex, sep string) string {
	s := make([]string, len(hs))
	for i, h := range hs {
		s[i] = h.String()
	}
	return strings.Join(s, sep)
}
