package teaching

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

var _ rules.Reviser = (*Rules)(nil)

// AtRevisionOf implements rules.Reviser: st at the revision initial was created under.
func (r *Rules) AtRevisionOf(st, initial rules.State) rules.State {
	s := *st.(*State)
	s.Revision = initial.(*State).Revision
	return &s
}
