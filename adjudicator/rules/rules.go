package rules

import (
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/mapview"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// Side names one side of a game, as the ruleset spells it ("us", "de").
type Side string

// SideInfo describes a side for mails.
type SideInfo struct {
	ID   Side
	Name string // "US", "German"
}

// State is a ruleset's game state. The desk only asks it where the game stands.
type State interface {
	Turn() int     // 0 for set-up
	Phase() string // the current phase's key, e.g. "II"
	// PhaseTitle names the current phase for players, with its rule section.
	PhaseTitle() string
	Over() bool
}

// Order is one accepted order block, as canonical text. The ruleset re-parses Text when it
// resolves, so that a replay from stored orders gives the same results.
type Order struct {
	Phase  string // the phase it is for, as the ruleset names it (e.g. "setup", "3.II")
	Side   Side
	Key    string // orders with the same phase, side and key replace each other
	Kind   string // "plot", "placement", "cancel", ...
	Text   string // canonical text
	Sealed bool   // hidden from the other side until revealed
	Fixed  bool   // may no longer be replaced
	// Commitment is SHA-256(Text | salt), set by the desk for every order it files;
	// only a sealed order's is ever mailed (the orders digest takes the others').
	Commitment string
	// Summary describes the order for its own side's order check, e.g. "US plot, turn 3".
	Summary string
	// Notice is what the other sides are told of a sealed order beside its commitment,
	// e.g. "US bombardment plot for turn 3": nothing they may not know. Empty: only
	// that it is an order ("order 2"). Summary may name what is sealed; Notice never.
	Notice string
}

// ID identifies an order among a game's filed orders.
func (o Order) ID() string { return o.Phase + "|" + string(o.Side) + "|" + o.Key }

// Checked is the verdict on one line of a submission.
type Checked struct {
	Line   orders.Line
	OK     bool
	Reason string // why refused, or what was understood
	Rule   string // the rule section that decided it
	Orders []Order
}

// Reviser is a ruleset whose games keep the revision of its rules they were created under
// (in their state, from New), so that a change to what its results mails say, a leak
// closed, applies to new games while a game in progress replays as it was played
// (invariant 4).
type Reviser interface {
	// AtRevisionOf returns st, a state New made, at the revision of initial, the state
	// a game started from as stored.
	AtRevisionOf(st, initial State) State
}

// Event is one thing that happened, in rule order.
type Event struct {
	Phase string
	Rule  string
	Text  string
	To    []Side // nil: every side
	Roll  *dice.Roll
	// Deal is the card the event turned from a sealed deck, or the reshuffle it made
	// (dice.Deal): the results mail gives its record, never a deck's order.
	Deal *dice.Deal
	// Arrows are what the picture of a results mail draws of the event: fire or
	// combat from the hexes that fired or attacked at the hex they aimed at
	// ([mapview.ArrowAttack]). They reach the sides the event does (To), no others.
	Arrows []mapview.Arrow
}

// VisibleTo reports whether side may see the event.
func (e Event) VisibleTo(side Side) bool {
	if e.To == nil {
		return true
	}
	for _, s := range e.To {
		if s == side {
			return true
		}
	}
	return false
}

// Outcome is what resolving one phase gives.
type Outcome struct {
	State    State
	Events   []Event
	Consumed []string // IDs of orders used up: no longer on file
	Revealed []string // IDs of sealed orders now shown to every side
	Fixed    []string // IDs of orders that may no longer be replaced
}

// Options are a game's optional rules, by name (e.g. "york" for Soldiers 1918 12.5).
type Options map[string]bool

// Ruleset is one rulebook's game, pure: no I/O, no clock, no randomness but the
// [dice.Source] it is given.
type Ruleset interface {
	Name() string // "soldiers1918"
	Title() string
	Sides() []SideInfo
	// Keywords lists the first words of the ruleset's orders in upper-case ASCII ("PLOT",
	// "MOVE"), so that the desk can tell an order, even a wrong one, from closing text.
	Keywords() []string
	// OptionNames lists the optional rules a game may turn on, with their rule sections.
	OptionNames() map[string]string
	New(opts Options) (State, error)
	Decode(raw []byte) (State, error)
	Encode(st State) ([]byte, error)
	// Check reads one side's order lines against the state and the orders on file. A
	// submission is accepted only when every line is OK.
	Check(st State, side Side, lines []orders.Line, filed []Order) []Checked
	// Waiting lists the sides whose decision the current phase still needs.
	Waiting(st State, filed []Order) []Side
	// Inputs returns the filed orders the current phase resolves.
	Inputs(st State, filed []Order) []Order
	// Resolve resolves the current phase with the given orders.
	Resolve(st State, inputs []Order, d dice.Source) (Outcome, error)
	// Defaults returns the orders a side that missed a deadline is taken to have given.
	Defaults(st State, side Side, filed []Order) []Order
	// Map renders what side may see, as text of at most 78 columns.
	Map(st State, side Side) string
	// Status summarises the game for side in a few lines.
	Status(st State, side Side) string
}

// Viewer is a ruleset whose map is the kit's (adjudicator/mapview): its Map is the text
// of the view MapView returns, and the desk can draw the same view as a picture
// (adjudicator/mapimage).
type Viewer interface {
	// MapView is what side may see: nothing the text map hides is in it.
	MapView(st State, side Side) mapview.View
}

// Mover is a [Viewer] that can tell, from the states before and after an advance, what
// side saw happen on the map, for the picture of its results mail to draw: moves
// (arrows named [mapview.ArrowMove], [mapview.ArrowRetreat] or [mapview.ArrowAttack], from the hex a unit left to the hex it is in) and the hexes
// where units were lost. It tells nothing side may not see: an enemy unit's move only
// when side saw the unit where it was and sees it where it is.
type Mover interface {
	Moves(before, after State, side Side) (moves []mapview.Arrow, lost []hex.Hex)
}

// OpenMap is a ruleset whose map hides nothing from any side (Soldiers 1918 6.5: no fog
// of war): its Map gives every side the same text, so that the desk draws a state's map
// once for all sides.
type OpenMap interface {
	// OpenMap reports that Map(st, side) is the same text whatever the side.
	OpenMap() bool
}

// MapLayerer is a ruleset whose map can show more when a player asks: MAP ZOC. The
// desk refuses a word a game's map does not offer.
type MapLayerer interface {
	// MapLayers gives each word MAP accepts (upper case) and what it shows.
	MapLayers() map[string]string
	// MapWith renders what side may see, as Map does, with the named layers.
	MapWith(st State, side Side, layers []string) string
}

// Verdicter is a ruleset that says how a finished game ended ("The British player
// wins."): the first line of every mail of the game once it is over.
type Verdicter interface {
	// Verdict is how the game ended, in a sentence or two; "" while it goes on.
	Verdict(st State) string
}

// Matcher is a ruleset whose games pair into matches, sides switched for the second
// game (Soldiers 1918 4.2). The desk uses it when a host creates a game as the second of
// a match.
type Matcher interface {
	// NewMatchGame sets up the second game of a match from the first game's final state.
	NewMatchGame(first State, opts Options) (State, error)
	// MatchVerdict judges a finished match. players give each side's address in the
	// first and in the second game.
	MatchVerdict(first, second State, firstPlayers, secondPlayers map[Side]string) string
}

// Dealer is a ruleset whose randomness is sealed card decks (the teaching game's poker
// decks). The desk draws a deck seed for the whole game when it creates it, commits to
// it in the audit trail and the invitations, and reveals it when the game ends; each
// deck is shuffled from that seed, its order kept in the state and shown to no side.
// During a game the ruleset reaches the decks through the [dice.DeckSource] its
// Resolve is given: every card turned (and every reshuffle) is a [dice.Deal] the desk
// audits and mails, so that either player can re-derive every card at the end.
type Dealer interface {
	// Deal shuffles the decks of a new game from d, before any side sees the game.
	Deal(st State, d *dice.Dealer) (State, error)
}

// Describer is a ruleset that describes itself in its own words: to a host choosing a
// game (adjutant rulesets) and to the players its invitation goes to.
type Describer interface {
	// Rulebook names the printed rules the ruleset adjudicates, e.g. "Soldiers:
	// Decision in the Trenches, 1918, Strategy & Tactics 280 (rulebook 001)".
	Rulebook() string
	// DefaultOrders says what Defaults gives a side that sent no orders by a deadline
	// (a game created with --no-orders default), in the ruleset's words: a phrase that
	// follows "the game goes on with", e.g. "no plot, the scenario's deployment, no
	// move, no fire".
	DefaultOrders() string
}

// DefaultOrdersOf is rs's DefaultOrders, or the desk's words for them when rs does not
// describe its own.
func DefaultOrdersOf(rs Ruleset) string {
	if d, ok := rs.(Describer); ok {
		return d.DefaultOrders()
	}
	return "the ruleset's default orders (HELP says which)"
}
