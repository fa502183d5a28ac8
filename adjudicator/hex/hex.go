package hex

import (
	"cmp"
	"fmt"
	"strings"
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
	// Written without fmt: rulesets spell hex ids in every event and look units up
	// by them.
	b := [4]byte{byte('0' + h.Col/10), byte('0' + h.Col%10), byte('0' + h.Row/10), byte('0' + h.Row%10)}
	return string(b[:])
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
