package soldiers1918

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

// Verdict implements rules.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s rules.State) string { return s.(*State).Result }

// Winner implements rules.Winner: only a sudden-death exit (4.1) decides one game;
// otherwise the US penetration is judged against the second game of the match (4.2).
func (r *Rules) Winner(s rules.State) (rules.Side, bool) {
	if st := s.(*State); st.Winner == string(US) {
		return US, true
	}
	return "", false
}
