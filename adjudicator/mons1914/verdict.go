package mons1914

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

// Verdict implements rules.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s rules.State) string { return s.(*State).Verdict }

// Winner implements rules.Winner: the side 4.2 or 4.3 names.
func (r *Rules) Winner(s rules.State) (rules.Side, bool) {
	st := s.(*State)
	return rules.Side(st.Winner), st.Winner != ""
}
