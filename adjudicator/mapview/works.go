package mapview

// Works are the trench works of the trench games' maps (Soldiers 1918, the teaching
// game), by the map files' feature word (board.Map.Features): one letter each, the
// same in every ruleset's text map, and a letter no ruleset draws anything else with
// (a unit, a marker, a terrain, a hexside feature), so that a player of two games
// reads a map's "D" as a bunker in both (TestWorksCollideWithNothing in package
// rulesets checks every ruleset's legend). A ruleset takes its symbols from here,
// with its own legend text where its rules add to it (a defence strength); wire is
// an in-hex feature in one game and a hexside feature in the other, drawn with the
// same letter (WireSide).
//
// The letters, and why these: T a (main fire) trench, O an outpost of it, S a support
// trench, Z a communication trench (drawn as a zigzag in the picture), D a bunker (a
// dugout), W wire; M, C, B, "#" and "x", the letters of before, are a German MG, a
// city, a British or Marine unit, a bridge and a dead unit or carnage elsewhere.
var Works = []Symbol{
	{Name: "main", Char: 'T', Text: "main trench", Pattern: PatternTrench},
	{Name: "outpost", Char: 'O', Text: "outpost (a far-forward main trench)", Pattern: PatternTrench},
	{Name: "support", Char: 'S', Text: "support trench", Pattern: PatternTrench},
	{Name: "communication", Char: 'Z', Text: "communication trench", Pattern: PatternZigzag},
	{Name: "bunker", Char: 'D', Text: "bunker", Pattern: PatternBunker},
	{Name: "wire", Char: 'W', Text: "barbed wire", Pattern: PatternWire},
}

// WorkLetters is the letter of each of [Works] by its name, for a ruleset's cells.
func WorkLetters() map[string]byte {
	m := map[string]byte{}
	for _, w := range Works {
		m[w.Name] = w.Char
	}
	return m
}

// WorkSymbols are the legend symbols of the works named, in that order, each with its
// letter in letters (nil: none, as the picture's Legend.Features have) and its text in
// texts (the kit's where texts has none).
func WorkSymbols(letters map[string]byte, texts map[string]string, names ...string) []Symbol {
	var out []Symbol
	for _, n := range names {
		if w, ok := Work(n, texts[n]); ok {
			w.Char = letters[n]
			out = append(out, w)
		}
	}
	return out
}

// CutWire is wire cut on a hexside, drawn as a point in the middle of the hexside.
var CutWire = SideSymbol{Name: "cut", Char: 'o', Point: true, Text: "cut wire"}

// Work returns the trench work called name (a map file's feature word), with text as
// its legend text where text is not "" (the ruleset's own words for it), and whether
// there is one.
func Work(name, text string) (Symbol, bool) {
	for _, w := range Works {
		if w.Name == name {
			if text != "" {
				w.Text = text
			}
			return w, true
		}
	}
	return Symbol{}, false
}

// WireSide is the wire of [Works] as a hexside feature, with text as its legend text
// where it is not "".
func WireSide(text string) SideSymbol {
	w, _ := Work("wire", text)
	return SideSymbol{Name: w.Name, Char: w.Char, Text: w.Text}
}
