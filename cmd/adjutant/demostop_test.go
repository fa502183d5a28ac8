package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestSoldiersStopPace plays the Soldiers game of the stopping style (issue 21's pace of
// play) and reads its journal: the players stopped at every phase HELP lists as one the
// game waits at (in each of turns 2 to 5: II the German plot, VII, VIII, IX and X, each
// a wait of its own), the game ended, and the figure the demo prints is the journal's.
func TestSoldiersStopPace(t *testing.T) {
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	path := filepath.Join(t.TempDir(), "stop.db")
	line, err := playStopGame(e, path)
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
		g, err := tx.Game(stopGame)
		over = err == nil && g.Over
		journal, _ = tx.Journal(stopGame)
		return nil
	})
	if !over {
		t.Fatalf("%s did not end", stopGame)
	}
	// An advance's first step is the phase that waited for the mail that completed it.
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
	for turn := 2; turn <= 5; turn++ {
		for _, p := range []string{"II", "VII", "VIII", "IX", "X"} {
			if !waitedAt[fmt.Sprintf("%d.%s", turn, p)] {
				t.Errorf("turn %d phase %s was resolved with an earlier phase: no player stopped to see the results before it", turn, p)
			}
		}
	}
	want := fmt.Sprintf("(%d turns, the set-up one): %.1f,", len(turns), float64(advances)/float64(len(turns)))
	if !strings.Contains(line, want) {
		t.Errorf("the demo prints %q, want the journal's figure %q", line, want)
	}
}
