package soldiers1918

// Rulebook implements rules.Describer.
func (r *Rules) Rulebook() string {
	return "Soldiers: Decision in the Trenches, 1918, Strategy & Tactics 280 (rulebook 001)"
}

// DefaultOrders implements rules.Describer: what Defaults gives, phase by phase.
func (r *Rules) DefaultOrders() string {
	return "its default orders: no bombardment plot for a turn not plotted (PLOT TURN n NONE), the scenario's deployment (SETUP DEFAULT), no Chaos of War marker (COW NONE), no move (MOVE NONE), no fire (FIRE NONE)"
}
