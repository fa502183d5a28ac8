package adjudicator

import "github.com/adjutant-pbem/adjutant/adjudicator/rules"

// The contract with the rulesets lives in package rules, on the ground floor; the desk
// still names its types as its own while branches that change the desk land. These
// aliases go when they have.
type (
	Side       = rules.Side
	SideInfo   = rules.SideInfo
	State      = rules.State
	Order      = rules.Order
	Checked    = rules.Checked
	Reviser    = rules.Reviser
	Event      = rules.Event
	Outcome    = rules.Outcome
	Options    = rules.Options
	Ruleset    = rules.Ruleset
	Viewer     = rules.Viewer
	Mover      = rules.Mover
	OpenMap    = rules.OpenMap
	MapLayerer = rules.MapLayerer
	Verdicter  = rules.Verdicter
	Matcher    = rules.Matcher
	Dealer     = rules.Dealer
	Describer  = rules.Describer
)

// Commitment is [rules.Commitment].
func Commitment(text, salt string) string { return rules.Commitment(text, salt) }

// OrdersDigest is [rules.OrdersDigest].
func OrdersDigest(inputs []Order) string { return rules.OrdersDigest(inputs) }

// DefaultOrdersOf is [rules.DefaultOrdersOf].
func DefaultOrdersOf(rs Ruleset) string { return rules.DefaultOrdersOf(rs) }
