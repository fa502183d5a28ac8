package mons1914

// Keywords lists the first words of Mons 1914 orders (parseLine), so that the desk can
// tell an order, even a mistyped one after a keyword, from a mail's closing text.
func (r *Rules) Keywords() []string {
	return []string{"MOVE", "MARCH", "BOMBARD", "MELEE", "COMBAT", "PASS", "SEQUENCE", "THEN", "TOP", "LOSSES", "BOMBARDMENT", "FIRE", "ATTACK"}
}
