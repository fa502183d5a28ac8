// Package rulesets lists every ruleset Adjutant adjudicates. It is the one place that
// imports all four: the contract (package rules) cannot, since the rulesets import it.
package rulesets

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// All loads every ruleset (each reads its embedded scenario and charts) into a registry.
func All() (rules.Registry, error) {
	var all []rules.Ruleset
	for _, load := range []func() (rules.Ruleset, error){
		func() (rules.Ruleset, error) { return soldiers1918.New() },
		func() (rules.Ruleset, error) { return mons1914.New() },
		func() (rules.Ruleset, error) { return teaching.New() },
		func() (rules.Ruleset, error) { return soissons1918.New() },
	} {
		rs, err := load()
		if err != nil {
			return nil, fmt.Errorf("load ruleset: %w", err)
		}
		all = append(all, rs)
	}
	return rules.NewRegistry(all...)
}
