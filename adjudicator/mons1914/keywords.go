package mons1914

// Keywords implements rules.Ruleset: the first words of Mons 1914 orders
// (parseLine), so that the desk can tell an order, even a mistyped one after a keyword,
// from a mail's closing text. The last three are words parseLine answers with a hint.
func (r *Rules) Keywords() []string {
	return append(grammar.Keywords(), otherCombatWords...)
}
