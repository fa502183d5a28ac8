package mons1914

import "github.com/adjutant-pbem/adjutant/adjudicator/hex"

// BuiltUp reports whether h is built-up, industrial or residential (9.15).
func (s *Scenario) BuiltUp(h hex.Hex) bool {
	t := s.Map.Terrain(h)
	return t == "industrial" || t == "residential"
}

// ZOCInto reports whether a unit's zone of control reaches from into to: 7.2, "ZOC don't
// extend into built-up residential or built-up industrial hexes. ZOCs do extend out of
// such hexes"; and across every hexside, whatever its water (7.2).
func (s *Scenario) ZOCInto(from, to hex.Hex) bool { return !s.BuiltUp(to) }

// BlocksLoS reports whether h blocks a line of sight: 10.3, "An LoS is blocked by forest
// and/or built-up residential hexes"; 9.15, industrial hexes do not block.
func (s *Scenario) BlocksLoS(h hex.Hex) bool {
	t := s.Map.Terrain(h)
	return t == "forest" || t == "residential"
}

// LineOfSight applies 10.3 on the map: the end hexes never count (10.4's third example).
func (s *Scenario) LineOfSight(from, to hex.Hex) (bool, hex.Hex) {
	return s.Map.Grid.LineOfSight(from, to, s.BlocksLoS)
}

// Protective reports whether h is forest or built-up: -2 to bombardment (10.8).
func (s *Scenario) Protective(h hex.Hex) bool {
	return s.Map.Terrain(h) == "forest" || s.BuiltUp(h)
}

// WaterSide reports whether the hexside between a and b is a canal or river hexside,
// bridged or not (11.3, 12.6).
func (s *Scenario) WaterSide(a, b hex.Hex) bool {
	return s.Map.SideHas(a, b, "canal") || s.Map.SideHas(a, b, "river")
}

// CanalUnbridged reports whether a and b are separated by a canal hexside without a
// bridge: no move, melee or advance across it (9.13, 12.13).
func (s *Scenario) CanalUnbridged(a, b hex.Hex) bool {
	return s.Map.SideHas(a, b, "canal") && !s.Map.SideHas(a, b, "bridge") && !s.Map.SideHas(a, b, "railbridge")
}
