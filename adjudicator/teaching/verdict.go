package teaching

import (
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Verdict implements rules.Verdicter: how the game ended, for the first line of
// the players' mails once it is over.
func (r *Rules) Verdict(s rules.State) string { return s.(*State).End }

// Winner implements rules.Winner: the American wins when every German MG is killed,
// the German when no American unit is left; a game stopped at the turn limit (an
// option, not printed) decides nothing.
func (r *Rules) Winner(s rules.State) (rules.Side, bool) {
	switch end := s.(*State).End; {
	case strings.HasPrefix(end, "every German MG has been killed"):
		return American, true
	case strings.HasPrefix(end, "no live American unit is left"):
		return German, true
	}
	return "", false
}
