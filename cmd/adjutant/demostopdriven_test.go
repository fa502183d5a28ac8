package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestMonsStopPace plays the Mons game of the stopping style (issue 21's pace of play)
// and reads its journal: in every turn but the last, each of the four steps HELP lists
// as ones the game waits at (I.A, I.B, II phase 1 and 2) was a wait of its own, the
// game ended, and the demo prints the journal's figure.
func TestMonsStopPace(t *testing.T) {
	g, err := monsDemo()
	if err != nil {
		t.Fatal(err)
	}
	steps := func(int) []string {
		return []string{mons1914.PhaseGermanMove, mons1914.PhaseGermanCombat, mons1914.PhaseBritish1, mons1914.PhaseBritish2}
	}
	checkStopPace(t, stopStyleOf(g), 1, 13, steps)
}

// TestSoissonsStopPace: the same for Soissons: every step of turns 2 to 16 that waits
// for a player (soissonsSteps: six a day turn, four a night) was a wait of its own.
func TestSoissonsStopPace(t *testing.T) {
	g, err := soissonsDemo()
	if err != nil {
		t.Fatal(err)
	}
	checkStopPace(t, stopStyleOf(g), 2, 16, soissonsSteps)
}

// checkStopPace plays g and checks its pace (checkPace).
func checkStopPace(t *testing.T, g *drivenDemo, first, last int, steps func(turn int) []string) {
	t.Helper()
	if g == nil {
		t.Fatal("no stopping-style game for this demo")
	}
	checkPace(t, g.game, func(e *env, path string) (string, error) { return playDrivenStop(e, g, path) }, "", first, last, steps)
}

// checkPace plays game into a store with play and checks that each step steps gives for
// the turns first to last was the first step of an advance (the one that waited for the
// mail completing it), that the game ended, and that the figure play printed is the
// journal's (its turns counted with the words turnsNote after them, if any).
func checkPace(t *testing.T, game string, play func(e *env, path string) (string, error), turnsNote string, first, last int, steps func(turn int) []string) {
	t.Helper()
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	path := filepath.Join(t.TempDir(), "stop.db")
	line, err := play(e, path)
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var journal []store.JournalEntry
	var over bool
	db.Read(e.ctx, func(tx store.Tx) error {
		sg, err := tx.Game(game)
		over = err == nil && sg.Over
		journal, _ = tx.Journal(game)
		return nil
	})
	if !over {
		t.Fatalf("%s did not end", game)
	}
	// An advance's first step is the step that waited for the mail that completed it.
	waitedAt, turns := map[string]bool{}, map[int]bool{}
	advances := 0
	for _, j := range journal {
		if len(j.Steps) == 0 {
			continue
		}
		advances++
		waitedAt[fmt.Sprintf("%d.%s", j.Steps[0].Turn, j.Steps[0].Phase)] = true
		for _, s := range j.Steps {
			turns[s.Turn] = true
		}
	}
	for turn := first; turn <= last; turn++ {
		for _, p := range steps(turn) {
			if !waitedAt[fmt.Sprintf("%d.%s", turn, p)] {
				t.Errorf("turn %d step %s was resolved with an earlier step: no player stopped to see the results before it", turn, p)
			}
		}
	}
	want := fmt.Sprintf("(%d turns%s): %.1f,", len(turns), turnsNote, float64(advances)/float64(len(turns)))
	if !strings.Contains(line, want) {
		t.Errorf("the demo prints %q, want the journal's figure %q", line, want)
	}
}

// soissonsSteps lists the steps of Soissons turn t that wait for a player (4.1, 4.2):
// two bombardment steps and the fall back of each side by day, the night step and the
// fall back of each at night (every third turn), the Entente's alone on 18 July AM and
// 23 July PM (3.2).
func soissonsSteps(t int) []string {
	if (t-1)%3 == 2 {
		return []string{"enn", "enfb", "den", "defb"}
	}
	s := []string{"en1", "en2", "enfb", "de1", "de2", "defb"}
	if t == 1 || t == 17 {
		s = s[:3]
	}
	return s
}
