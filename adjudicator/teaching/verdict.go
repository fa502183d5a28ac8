package teaching

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

// Verdict implements rules.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s rules.State) string { return s.(*State).End }
