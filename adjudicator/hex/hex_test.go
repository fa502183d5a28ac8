package hex_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

const wantParseMsg = "expected a 4-digit hex id such as 2301"

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want hex.Hex
	}{
		{"2301", hex.Hex{Col: 23, Row: 1}},
		{"1708", hex.Hex{Col: 17, Row: 8}},  // Mons 2.2: Conde
		{"3122", hex.Hex{Col: 31, Row: 22}}, // Mons 4.3: Bavai
		{"4700", hex.Hex{Col: 47, Row: 0}},  // Mons 3.1: an entry hex in row 00
		{"1915", hex.Hex{Col: 19, Row: 15}}, // Soissons 3: Hartennes-et-Taux
		{"0805", hex.Hex{Col: 8, Row: 5}},   // Soissons 14: leading zero column
		{"0000", hex.Hex{Col: 0, Row: 0}},
		{"9999", hex.Hex{Col: 99, Row: 99}},
	}
	for _, tt := range tests {
		got, err := hex.Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error %v, want %v", tt.in, err, tt.want)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestParseRejects(t *testing.T) {
	bad := []string{
		"", "1", "230", "23011", " 2301", "2301 ", "23 1", "23-1", "-123",
		"+123", "23a1", "abcd", "2301\n", "２３０１", "23O1", "0x12",
		"1523/1624", "\x00\x00\x00\x00",
	}
	for _, in := range bad {
		got, err := hex.Parse(in)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", in, got)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, fmt.Sprintf("%q", in)) || !strings.Contains(msg, wantParseMsg) {
			t.Errorf("Parse(%q) error %q, want it to quote the input and say %q", in, msg, wantParseMsg)
		}
	}
}

func TestMustParse(t *testing.T) {
	if got, want := hex.MustParse("2524"), (hex.Hex{Col: 25, Row: 24}); got != want {
		t.Errorf("MustParse(2524) = %+v, want %+v", got, want)
	}
	defer func() {
		r := recover()
		if r == nil {
			t.Fatal("MustParse(\"25x4\") did not panic")
		}
		if msg := fmt.Sprint(r); !strings.Contains(msg, "25x4") {
			t.Errorf("MustParse panic %q, want it to name the input", msg)
		}
	}()
	hex.MustParse("25x4")
}

// TestParseStringRoundTrip covers every one of the 10,000 ids.
func TestParseStringRoundTrip(t *testing.T) {
	for col := range 100 {
		for row := range 100 {
			h := hex.Hex{Col: col, Row: row}
			s := h.String()
			if want := fmt.Sprintf("%02d%02d", col, row); s != want {
				t.Fatalf("%+v.String() = %q, want %q", h, s, want)
			}
			if !h.Valid() {
				t.Fatalf("%v.Valid() = false, want true", h)
			}
			back, err := hex.Parse(s)
			if err != nil || back != h {
				t.Fatalf("Parse(%q) = %v, %v; want %v", s, back, err, h)
			}
		}
	}
}

func TestInvalidHexes(t *testing.T) {
	tests := []struct {
		h    hex.Hex
		want string
	}{
		{hex.Hex{Col: 21, Row: -1}, "21-1"}, // north of the Mons entry hex 2100
		{hex.Hex{Col: -1, Row: 5}, "-105"},
		{hex.Hex{Col: 100, Row: 5}, "10005"},
	}
	for _, tt := range tests {
		if tt.h.Valid() {
			t.Errorf("%+v.Valid() = true, want false", tt.h)
		}
		if got := tt.h.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.h, got, tt.want)
		}
		if _, err := hex.Parse(tt.h.String()); err == nil {
			t.Errorf("Parse(%q) of an invalid hex succeeded", tt.h.String())
		}
	}
}

func TestCompare(t *testing.T) {
	ids := []string{"2301", "0000", "0199", "0200", "9999", "2300", "1624", "1523"}
	var hs []hex.Hex
	for _, s := range ids {
		hs = append(hs, hex.MustParse(s))
	}
	slices.SortFunc(hs, hex.Compare)
	var got []string
	for _, h := range hs {
		got = append(got, h.String())
	}
	want := slices.Clone(ids)
	slices.Sort(want) // numeric order of 4-digit ids is their string order
	if !slices.Equal(got, want) {
		t.Errorf("sorted by Compare = %v, want %v", got, want)
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"2301", "1708", "3122", "2524", "2823", "3514", "3714", "3911", "4308",
		"1523", "1624", "2310", "2209", "0805", "0000", "9999",
		"", "230", "23011", "23a1", "１２３４", "1523/1624",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		h, err := hex.Parse(s)
		if err != nil {
			if !strings.Contains(err.Error(), wantParseMsg) {
				t.Errorf("Parse(%q) error %q lacks %q", s, err, wantParseMsg)
			}
			if !strings.Contains(err.Error(), fmt.Sprintf("%q", s)) {
				t.Errorf("Parse(%q) error %q does not quote the input", s, err)
			}
			isID := len(s) == 4 && strings.Trim(s, "0123456789") == ""
			if isID {
				t.Errorf("Parse(%q) rejected a 4-digit id: %v", s, err)
			}
			return
		}
		if !h.Valid() {
			t.Errorf("Parse(%q) = %+v, not Valid", s, h)
		}
		if got := h.String(); got != s {
			t.Errorf("Parse(%q).String() = %q, want the input back", s, got)
		}
	})
}

func TestJoin(t *testing.T) {
	for _, c := range []struct {
		hs   []hex.Hex
		sep  string
		want string
	}{
		{nil, " ", ""},
		{[]hex.Hex{{23, 1}}, ",", "2301"},
		{[]hex.Hex{{23, 1}, {4, 10}}, " or ", "2301 or 0410"},
	} {
		if got := hex.Join(c.hs, c.sep); got != c.want {
			t.Errorf("Join(%v, %q) = %q, want %q", c.hs, c.sep, got, c.want)
		}
	}
}

// TestStringAsFmt: a hex's id is "%02d%02d" of its column and row, for every valid
// hex (one string of all ids, made once: no allocation, BenchmarkString) and for
// hexes off every map (negative, past 99); Interned gives a valid hex's String for its
// id, and any other text as it is.
func TestStringAsFmt(t *testing.T) {
	for col := -12; col <= 112; col++ {
		for row := -12; row <= 112; row++ {
			h := hex.Hex{Col: col, Row: row}
			if got, want := h.String(), fmt.Sprintf("%02d%02d", col, row); got != want {
				t.Fatalf("Hex{%d, %d}.String() = %q, want %q", col, row, got, want)
			}
			if id := h.String(); h.Valid() && hex.Interned([]byte(id)) != id {
				t.Fatalf("Interned(%q) = %q", id, hex.Interned([]byte(id)))
			}
		}
	}
	for _, s := range []string{"", "123", "12345", "12a4", "-123", "é234"} {
		if got := hex.Interned([]byte(s)); got != s {
			t.Errorf("Interned(%q) = %q", s, got)
		}
	}
	h := hex.Hex{Col: 23, Row: 7}
	if n := testing.AllocsPerRun(100, func() { sink = h.String() }); n != 0 {
		t.Errorf("Hex.String: %.0f allocations, want none", n)
	}
	id := []byte("2307")
	if n := testing.AllocsPerRun(100, func() { sink = hex.Interned(id) }); n != 0 {
		t.Errorf("Interned: %.0f allocations, want none", n)
	}
}

var sink string

func BenchmarkString(b *testing.B) {
	h := hex.Hex{Col: 23, Row: 7}
	b.ReportAllocs()
	for b.Loop() {
		sink = h.String()
	}
}
