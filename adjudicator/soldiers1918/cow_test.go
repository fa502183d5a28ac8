package soldiers1918_test

import (
	"slices"
	"strings"
	"testing"
)

// TestDecodeMigratesCOWMarkers: a state stored when COWed markers were hexes ("cowed")
// decodes with the units of those hexes COWed (7.4), the immune ones not (7.6).
func TestDecodeMigratesCOWMarkers(t *testing.T) {
	a := caseAdapter(t)
	raw := `{"turn":1,"phase":"VII","quality":3,"german_fs":3,"units":[` +
		`{"id":1,"kind":"us-army","hex":"2511"},{"id":2,"kind":"us-army","hex":"2511"},` +
		`{"id":3,"kind":"usmc","hex":"2611"},{"id":4,"kind":"us-army","hex":"2711"}],` +
		`"cowed":["2511","2611"]}`
	st, err := a.Rules.Decode([]byte(raw))
	if err != nil {
		t.Fatalf("Decode() error: %v", err)
	}
	got := a.Describe(st)
	for _, want := range []string{"cowed 2511", "cowed-unit us-army 2511 2"} {
		if !slices.Contains(got, want) {
			t.Errorf("Describe() = %q, want a line %q", got, want)
		}
	}
	for _, not := range []string{"cowed 2611", "cowed 2711", "cowed-unit usmc 2611 1"} {
		if slices.Contains(got, not) {
			t.Errorf("Describe() = %q, want no line %q", got, not)
		}
	}
	// The map shows the marker where the COWed units are, and only there.
	out := a.Rules.Map(st, "us")
	if c := mvCellAt(t, out, scH("2511")); !strings.Contains(c, "!") {
		t.Errorf("map cell of 2511 = %q, want the COWed marker !", c)
	}
	if c := mvCellAt(t, out, scH("2611")); strings.Contains(c, "!") {
		t.Errorf("map cell of 2611 = %q, want no COWed marker (7.6)", c)
	}
	// Encoded again, the markers are stored as units only.
	enc, err := a.Rules.Encode(st)
	if err != nil {
		t.Fatal(err)
	}
	again, err := a.Rules.Decode(enc)
	if err != nil {
		t.Fatal(err)
	}
	if g := a.Describe(again); !slices.Equal(g, got) {
		t.Errorf("after a round trip Describe() = %q, want %q", g, got)
	}
}
