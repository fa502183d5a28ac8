package soissons1918

import "github.com/adjutant-pbem/adjutant/adjudicator"

// Verdict implements adjudicator.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s adjudicator.State) string { return s.(*State).Verdict }
