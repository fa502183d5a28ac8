package teaching

// Rulebook implements adjudicator.Describer.
func (r *Rules) Rulebook() string {
	return "Soldiers: Assault through No Man's Land in WWI, a teaching game (rulebook 003)"
}

// DefaultOrders implements adjudicator.Describer: Defaults sends SETUP DEFAULT in the
// set-up and PASS after it.
func (r *Rules) DefaultOrders() string {
	return "the default set-up (SETUP DEFAULT), then PASS for the turn: nothing that turn (no artillery, no move, no fire)"
}
