package rules

// Winner is a ruleset that says who won a finished game, for the club's ladder (the
// desk's RATINGS): a game it calls decided moves both players' ratings.
type Winner interface {
	// Winner is the side that won st, a finished game; "" with decided true is a
	// draw; decided false: the game alone decides nothing (the first game of a
	// match, a game stopped at a turn limit that no rule scores).
	Winner(st State) (side Side, decided bool)
}
