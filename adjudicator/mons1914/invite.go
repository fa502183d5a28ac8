package mons1914

// Rulebook implements rules.Describer.
func (r *Rules) Rulebook() string {
	return "The Old Contemptibles: The Battle of Mons, 1914 (rulebook 004)"
}

// DefaultOrders implements rules.Describer: Defaults sends PASS.
func (r *Rules) DefaultOrders() string {
	return "PASS for the phase: no move, no bombardment, no melee; German units due to enter still enter and stop in their entry hex (8.3), the British sequence is move/fight (5.3), and your standing orders (DEFFIRE, LOSSES, HIT) still apply"
}
