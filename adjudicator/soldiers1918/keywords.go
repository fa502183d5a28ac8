package soldiers1918

// Keywords lists the first words of Soldiers 1918 orders (parseBlocks), so that the desk
// can tell an order, even a mistyped one after a keyword, from a mail's closing text.
func (r *Rules) Keywords() []string {
	return grammar.Keywords()
}
