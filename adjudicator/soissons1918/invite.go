package soissons1918

// Rulebook implements rules.Describer.
func (r *Rules) Rulebook() string {
	return "Soissons 1918 (rulebook 002)"
}

// DefaultOrders implements rules.Describer: Defaults sends SETUP DEFAULT in the
// set-up and PASS after it.
func (r *Rules) DefaultOrders() string {
	return "the shipped set-up (SETUP DEFAULT), then PASS for the step: no bombardment, no move, no attack, no fall back, except that isolated units fall back along their supply line (15.3); HELP lists every default under DEFAULTS"
}
