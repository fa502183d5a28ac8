package rules

import (
	"fmt"
	"sort"
	"strings"
)

// Registry is the rulesets a binary adjudicates, by [Ruleset.Name].
type Registry map[string]Ruleset

// NewRegistry registers rs by name; a name given twice is an error, since a game stores
// only its ruleset's name.
func NewRegistry(rs ...Ruleset) (Registry, error) {
	r := make(Registry, len(rs))
	for _, x := range rs {
		if _, dup := r[x.Name()]; dup {
			return nil, fmt.Errorf("two rulesets are named %q", x.Name())
		}
		r[x.Name()] = x
	}
	return r, nil
}

// Names lists the registered rulesets' names, sorted.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Lookup returns the ruleset named name, or an error that names every registered one.
func (r Registry) Lookup(name string) (Ruleset, error) {
	if rs, ok := r[name]; ok {
		return rs, nil
	}
	return nil, fmt.Errorf("unknown ruleset %q (the rulesets are %s)", name, strings.Join(r.Names(), ", "))
}
