package teaching

// Rulebook implements rules.Describer.
func (r *Rules) Rulebook() string {
	return "Soldiers: Assault through No Man's Land in WWI, a teaching game (rulebook 003)"
}

// DefaultOrders implements rules.Describer: Defaults sends SETUP DEFAULT in the
// set-up and PASS after it, for a turn or for the steps a player stopped before.
func (r *Rules) DefaultOrders() string {
	return "the default set-up (SETUP DEFAULT), then PASS for the turn: nothing that turn (no artillery, no move, no fire); after a STOP AFTER, PASS for the steps left (no move, no wire, chips as they are; no German fire)"
}
