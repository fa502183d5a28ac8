package mons1914

import (
	"fmt"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

var _ rules.Reviser = (*Rules)(nil)

// AtRevisionOf implements rules.Reviser: st at the revision initial was created under.
func (r *Rules) AtRevisionOf(st, initial rules.State) rules.State {
	s := *st.(*State)
	s.Revision = initial.(*State).Revision
	return &s
}

// revised reports whether the game is played under revision n of these rules or a later one.
func (s *State) revised(n int) bool { return s.Revision >= n }

// laterForm says why an order line of a form revision 1 brought is refused in a game
// created before it, or "".
func (s *State) laterForm(it item) string {
	form := ""
	switch {
	case s.revised(1):
	case it.kind == "deffire-unit":
		form = "DEFFIRE <units> AT <hex>, HOLD or DEFAULT"
	case it.kind == "combat" && len(it.melee.Beyond) > 1:
		form = "more than one BEYOND"
	case (it.kind == "losses" || it.kind == "hit" || it.kind == "combat") && strings.Contains(it.text, ":"):
		form = "a loss entry with its most steps (ID:N)"
	}
	if form == "" {
		return ""
	}
	return fmt.Sprintf("%s came with a later revision of these rules; this game keeps the rules it was created under (HELP)", form)
}
