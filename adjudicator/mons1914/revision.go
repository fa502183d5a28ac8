package mons1914

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

var _ rules.Reviser = (*Rules)(nil)

// AtRevisionOf implements rules.Reviser: st at the revision initial was created under.
func (r *Rules) AtRevisionOf(st, initial rules.State) rules.State {
	s := *st.(*State)
	s.Revision = initial.(*State).Revision
	return &s
}

// revised reports whether the game is played under revision n of these rules or a later one.
func (s *State) revised(n int) bool { return s.Revision >= n }
