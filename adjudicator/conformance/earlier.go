package conformance

import (
	"slices"
	"testing"
)

// FailEarlier checks that each case named fails once line is added to its STATE (e.g.
// "revision 0": the game created under the rules before a change), so that the case
// is shown to catch the change it was written for: a ruleset that keeps its earlier
// revision for old games (rules.Reviser) plays the rules from before the change there.
// Every name must be a case of cases; each gets a subtest.
func FailEarlier(t *testing.T, a Adapter, cases []Case, line string, names ...string) {
	t.Helper()
	for _, name := range names {
		i := slices.IndexFunc(cases, func(c Case) bool { return c.Name == name })
		if i < 0 {
			t.Errorf("no case %s", name)
			continue
		}
		c := cases[i]
		c.State = append([]string{line}, c.State...)
		t.Run(name, func(t *testing.T) {
			if err := Check(a, c); err == nil {
				t.Errorf("%s: case %s passes with %q: it does not catch the change", c.Pos(), name, line)
			}
		})
	}
}
