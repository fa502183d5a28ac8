package soissons1918

import (
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Verdict implements rules.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s rules.State) string { return s.(*State).Verdict }

// Winner implements rules.Winner: the level of victory 3.4 names (a Draw is one).
func (r *Rules) Winner(s rules.State) (rules.Side, bool) {
	v := s.(*State).Verdict
	switch {
	case strings.Contains(v, "Entente Outstanding Performance Victory"), strings.Contains(v, "Entente Superior Performance Victory"):
		return EN, true
	case strings.Contains(v, "German Outstanding Performance Victory"), strings.Contains(v, "German Superior Performance Victory"):
		return DE, true
	case strings.HasSuffix(strings.TrimSuffix(v, " (3.4)"), ": Draw"):
		return "", true
	}
	return "", false
}
