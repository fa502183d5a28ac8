package main

import (
	"testing"
)

// TestSoldiersStopPace plays the Soldiers game of the stopping style (issue 21's pace of
// play) and reads its journal: the players stopped at every phase HELP lists as one the
// game waits at (in each of turns 2 to 5: II the German plot, VII, VIII, IX and X, each
// a wait of its own), the game ended, and the figure the demo prints is the journal's.
func TestSoldiersStopPace(t *testing.T) {
	phases := func(int) []string { return []string{"II", "VII", "VIII", "IX", "X"} }
	checkPace(t, stopGame, playStopGame, ", the set-up one", 2, 5, phases)
}
