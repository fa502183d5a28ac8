package adjudicator

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"strings"
	"testing"
)

// strip is a map strip as the renderers cut it: a title, column numbers and the top
// edge, two lines a row, the bottom edge, column numbers and a blank line.
func strip(rows int, marks map[int]string) string {
	var b strings.Builder
	b.WriteString("Strip 1 of 2: columns 01-04\n     01    02\n    _____\n")
	for r := range rows {
		mark := marks[r]
		if mark == "" {
			mark = " "
		}
		fmt.Fprintf(&b, "%02d /.%s   \\_____/\n%02d \\_____/.    \\\n", r, mark, r)
	}
	b.WriteString("   \\_____/\n     01    02\n\n")
	return b.String()
}

func TestCropStrip(t *testing.T) {
	was := strip(20, nil)
	for _, tc := range []struct {
		name      string
		now       string
		whole     bool
		want, not []string
	}{
		{"nothing changed", was, true, nil, nil},
		{"one row in the middle", strip(20, map[int]string{10: "G"}), false,
			[]string{"10 /.G", "Strip 1 of 2", "     01    02\n    _____\n", "   ...\n", "   \\_____/\n     01    02\n"}, []string{"01 /.", "19 /."}},
		{"the first row", strip(20, map[int]string{0: "G"}), false, []string{"00 /.G", "02 /."}, []string{"05 /."}},
		{"a row at each end", strip(20, map[int]string{0: "G", 19: "B"}), true, nil, nil},
		{"another shape", strip(21, map[int]string{3: "G"}), true, nil, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := cropStrip(was, tc.now, stripMargin(LayoutGlance))
			if tc.whole != (got == tc.now) {
				t.Fatalf("cropStrip shows the strip whole: %v, want %v:\n%s", got == tc.now, tc.whole, got)
			}
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("cropStrip lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tc.not {
				if strings.Contains(got, w) {
					t.Errorf("cropStrip shows %q, which is far from the change:\n%s", w, got)
				}
			}
		})
	}
}

func TestCompactTail(t *testing.T) {
	legend := "Legend\nTerrain: \".\" clear.\nUnits (yours in full):\n"
	was := legend + "1709 B: 1/DC\n1713 B: 4/H\nStill to enter (8.2), 3: A B\n  C\n"
	now := legend + "1709 B: 1/DC\n1714 B: 4/H\nStill to enter (8.2), 3: A B\n  C\n"
	got := compactTail(was, now)
	want := legend + "1714 B: 4/H\n(2 more lines of the key as in the last results: send MAP for them all)\n"
	if got != want {
		t.Errorf("compactTail =\n%s\nwant\n%s", got, want)
	}
	now = strings.Replace(now, "3: A B", "2: A", 1)
	if got := compactTail(was, now); !strings.Contains(got, "2: A\n  C\n") || !strings.Contains(got, "(1 more lines") {
		t.Errorf("a changed line of the key that names no hex is not shown:\n%s", got)
	}
	if plain := "Legend\nno key at all\n"; compactTail(plain, plain) != plain {
		t.Errorf("a tail without a key is not shown whole")
	}
}

func TestStatusSection(t *testing.T) {
	long := strings.Repeat("a unit, in command\n", 40)
	got := statusSection(long, LayoutGlance)
	if n := strings.Count(got, "\n") + 1; n != statusLines+1 || !strings.HasSuffix(got, "(30 more lines: send STATUS for them all)") {
		t.Errorf("a 40-line status at a glance is %d lines:\n%s", n, got)
	}
	if statusSection(long, LayoutOriginal) != long {
		t.Errorf("the original layout cut the status")
	}
	short := strings.Repeat("x\n", statusLines+1)
	if statusSection(short, LayoutGlance) != short {
		t.Errorf("a status of %d lines was cut", statusLines+1)
	}
}

// TestHandlingDigestOnce: a handling hashes a state it knows once, however many maps
// and statuses of it its mails look up, the state given as the same bytes or a copy;
// an advance's digest, given with the state, is the one used; a state it does not know
// is hashed each time, and every digest is SHA-256 of the stored form.
func TestHandlingDigestOnce(t *testing.T) {
	raw := []byte(`{"turn":3,"units":[]}`)
	want := sha256.Sum256(raw)
	h := &handling{}
	h.knowState(raw, nil, nil)
	first := h.digestOf(raw)
	if *first != want {
		t.Fatalf("digestOf = %x, want SHA-256 %x", *first, want)
	}
	if again := h.digestOf(bytes.Clone(raw)); again != first {
		t.Error("a known state was hashed again")
	}
	other := []byte(`{"turn":4}`)
	if d := h.digestOf(other); *d != sha256.Sum256(other) || d == h.digestOf(other) {
		t.Error("a state the handling does not know: want its SHA-256, made each time")
	}
	given := sha256.Sum256(other)
	h.knowState(other, nil, &given)
	if h.digestOf(other) != &given {
		t.Error("the digest given with a state (an advance's) was not the one used")
	}
}
