// Package board is the hex-and-counter kit that every classic ruleset shares: the map
// as a data file (hex terrain, in-hex features, hexside features, named places and
// named sets of hexes, each value marked printed or reconstructed), movement costs read
// from a ruleset's terrain effects table, zones of control, path tracing under
// conditions, and results tables kept as data. It knows no game: a ruleset gives the
// words its map may use ([Vocabulary]), its tables and its predicates, and this package
// does the parsing, the validation and the graph work.
//
// # Files
//
// All kit files are plain text, one fact a line. "#" starts a comment; blank lines are
// ignored. Every fact ends with its provenance after a "|":
//
//	terrain forest 3615 | printed 10.4: "the forest in 3615 is blocking terrain"
//	terrain forest 3616 | reconstructed: the Bois de Mons continues south
//
// "printed" must be followed by the rule section it comes from (a number such as 10.4),
// "reconstructed" by why the value was chosen. A line without provenance is an error, so
// that an owner of the printed game can see at a glance which values to correct
// (DESIGN.md, "Reconstructed data"). Errors name the file and the line.
//
// # Map files ([ParseMap])
//
//	columns 12-48                    first and last column
//	rows odd 00-27                   rows of the odd columns ("rows all" for both)
//	rows even 01-28                  rows of the even columns
//	parity odd-columns-shifted       or even-columns-shifted (see package hex)
//	default clear                    the terrain of every hex not given one
//	terrain forest 3615 3714..3716   one natural terrain per hex
//	feature village 1708             in-hex features, any number per hex
//	side canal 1708/1709 1808/1809   hexside features
//	path road 3100-3101-3102         a hexside feature on every hexside along a path
//	place Conde 1708                 a named place (one word; "_" for a space)
//	set entry 2100 2700              a named set of hexes (entry and exit hexes, objectives)
//
// Hex lists take runs: 1002..1902 is every column 10-19 of row 02, 2802..2820 every row
// 02-20 of column 28. The words after terrain, feature, side, path and set must be in
// the ruleset's [Vocabulary].
//
// # Tables ([ParseTEC], [ParseTables])
//
// A terrain effects table gives, per class of unit, the cost to enter each terrain or
// feature and the extra cost to cross each hexside feature, "-" for prohibited; costs may
// be fractions ("1/2", Soissons' road movement), kept in units of [TEC.Scale]. A results
// table gives a result per column (factors, odds written n:1, or odds ratios a-d such as
// Soissons' 3-2, highest first) and die roll; "pin" lines repeat the cells a rulebook
// prints in its worked examples, and the loader checks that the table agrees with them.
package board
