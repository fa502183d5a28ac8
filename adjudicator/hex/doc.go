// Package hex is the map geometry shared by every ruleset: four-digit hex
// ids, neighbours, distance, hexsides and lines of sight. It knows no game:
// a ruleset says which column parity its map uses and which hexes block a
// line of sight, and this package does the geometry.
//
// # Hex ids
//
// Every hex on a map has a four-digit id printed in it, ccrr: two digits of
// column then two of row (Mons 2.2: "the town of Conde is in hex 1708").
// Players write these ids in their orders, so [Parse] accepts exactly four
// ASCII digits and [Hex.String] prints them back the same way.
//
// # Orientation
//
// Columns are vertical files of flat-topped hexes. Column numbers grow to the
// east (right) and row numbers grow to the south (down the printed sheet):
// in Mons the German entry hexes 2100 ... 4700 lie along the map's topmost
// hex file (Mons 3.1) and the British exit hexes 1327, 1628, 1927 and 2228 on
// its south edge (Mons 4.4). So "row+1" is south, and [Grid.Neighbours]
// lists a hex's neighbours clockwise as seen on the sheet starting from the
// one to the south: S, SW, NW, N, NE, SE.
//
// # Column parity
//
// Because the columns of a hex grid are staggered by half a hex, which rows
// of the next column a hex touches depends on whether its own column sits
// half a hex lower ("shifted") than its neighbours. The rulebooks fix this:
//
//   - Mons is [OddColumnsShifted]. A hex in an odd column touches rows rr and
//     rr+1 of the columns either side; a hex in an even column touches rows
//     rr-1 and rr. Mons 7.2: 3506 touches 3407, 3505, 3606 and 3607, and 2707
//     touches 2607, 2706 and 2807; Mons 12.3: 1824 touches 1923 and 1924;
//     Mons 4.5: 3122 touches 3023 and 3222; Mons 9.16: 1523/1624 is a
//     hexside. The exit hexes of Mons 4.4 agree: the south edge ends at row 27
//     in odd columns and row 28 in even ones, a straight edge only if odd
//     columns sit half a hex lower.
//   - Soissons 1918 is [EvenColumnsShifted]: 2310 touches 2209 and 2311
//     (Soissons 19.5), and 0805 touches 0706 (Soissons 14).
//
// A map therefore declares its parity ([Grid]); the zero Grid is the Mons
// geometry. Within one column the neighbours are always rr-1 and rr+1.
//
// # Distance
//
// [Grid.Distance] counts hexes the way Mons 10.2 counts range: the shortest
// path of contiguous hexes, not counting the hex one starts in and counting
// the hex one ends in, so adjacent hexes are 1 apart and 2524 to 2823 is 3.
// Internally ids are converted to cube coordinates (x+y+z = 0), where
// distance is half the sum of the absolute coordinate differences.
//
// # Lines of sight
//
// Mons 10.3 traces a line of sight "from the center of the bombarding unit's
// hex to the center of the targeted unit's hex". It is blocked if it "passes
// through even the slightest portion" of a blocking hex, or "runs along a
// hexside between two hexes, only one of which contains blocking terrain";
// the terrain of the two end hexes never counts. [Grid.Trace] follows the
// straight segment between the two centres with exact integer arithmetic
// (no floating point, so no line is ever judged differently on another
// machine or in the opposite direction) and reports:
//
//   - Crossed: every hex, other than the two ends, that the segment enters,
//     in order from the first hex to the second. This includes a hex the
//     segment touches only at one of its corners, where the segment passes
//     from one hex straight into another through the point where three hexes
//     meet: "even the slightest portion" leaves no room to call a touched
//     corner clear. [Grid.Corners] lists those corner-only hexes for a ruleset
//     that reads its own rule differently.
//   - Along: every hexside the segment runs along for its whole length. That
//     happens exactly when the two ends are "diagonal" to each other, like
//     3514 and 3714, where the segment runs along 3614/3615 (Mons 10.4).
//
// [Grid.LineOfSight] applies Mons 10.3 to a Trace: blocked by a blocking
// crossed hex, or by a hexside run along where either hex blocks. A segment
// between hex centres never passes exactly through a corner of either end
// hex except when running along a hexside, so the end hexes never appear in
// a Trace.
//
// The cube embedding is exact: with cube coordinates taken as points of
// ordinary three-dimensional space, the six unit directions all have the same
// length and meet at 60 degrees, so the plane x+y+z = 0 is a scaled copy of
// the printed map, straight lines stay straight, and each hex is exactly the
// set of points nearer its centre than any other centre. That lets every
// crossing be found by comparing integer fractions.
package hex
