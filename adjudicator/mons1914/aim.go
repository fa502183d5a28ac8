package mons1914

import "github.com/adjutant-pbem/adjutant/adjudicator/hex"

// unitHexes are the hexes units stand in, for rules.Aim: where fire or a melee came
// from.
func unitHexes(units []*Unit) []hex.Hex {
	var out []hex.Hex
	for _, u := range units {
		if h, err := hex.Parse(u.Hex); err == nil {
			out = append(out, h)
		}
	}
	return out
}

// hexesOf are the hexes of the counters cs in st, for rules.Aim.
func hexesOf(st *State, cs []*Counter) []hex.Hex {
	var units []*Unit
	for _, c := range cs {
		if u := st.unit(c.ID); u != nil {
			units = append(units, u)
		}
	}
	return unitHexes(units)
}
