// Package rulesets lists every ruleset Adjutant adjudicates. It is the one place that
// imports all four: the contract (package rules) cannot, since the rulesets import it.
package rulesets

import (
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/board"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
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

// A picture's scene names a map compiled in by its digest instead of carrying it.
func init() { mapimage.RegisterMaps(Maps) }

// Maps are the maps of the rulesets that draw their map (rules.Viewer), as a new game
// shows them: the maps compiled into the binary (mapimage.RegisterMaps).
func Maps() ([]*board.Map, error) {
	reg, err := All()
	if err != nil {
		return nil, err
	}
	var out []*board.Map
	for _, name := range reg.Names() {
		rs := reg[name]
		v, ok := rs.(rules.Viewer)
		if !ok {
			continue
		}
		st, err := rs.New(nil)
		if err != nil {
			return nil, fmt.Errorf("the map of %s: %w", name, err)
		}
		if m := v.MapView(st, rs.Sides()[0].ID).Map; m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}
