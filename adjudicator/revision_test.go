package adjudicator_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestRevisionKeepsOldGamesReplaying: Soldiers 1918's revision 1 tells an order not
// carried out to its owner alone (invariant 5; the conformance cases pin what each
// revision tells whom). A game is played under the revision it was created under, read
// from its stored state: a game created before revision 1 (its states without one) is
// played and replayed as revision 0 (invariant 4), and a new game as the current one.
func TestRevisionKeepsOldGamesReplaying(t *testing.T) {
	current := fmt.Sprintf(`"revision":%d`, soldiers1918.Revision) // as the stored state says it
	for _, old := range []bool{false, true} {
		t.Run(map[bool]string{false: "new game", true: "game created before revision 1"}[old], func(t *testing.T) {
			ctx := context.Background()
			desk, db, mails := benchDesk(t, 1)
			if old {
				// As a game created before revision 1 was stored: no revision in its states.
				err := db.Write(ctx, func(tx store.Tx) error {
					g, err := tx.Game("bench0000")
					if err != nil {
						return err
					}
					for _, raw := range []*json.RawMessage{&g.State, &g.Initial} {
						before := string(*raw)
						*raw = json.RawMessage(strings.Replace(before, `,`+current, "", 1))
						if string(*raw) == before {
							t.Fatalf("no revision in the stored state %s", before)
						}
					}
					return tx.PutGame(g)
				})
				if err != nil {
					t.Fatal(err)
				}
			}
			handleAll(t, desk, mails)
			db.Read(ctx, func(tx store.Tx) error {
				g, err := tx.Game("bench0000")
				if err != nil {
					t.Fatal(err)
				}
				if got := strings.Contains(string(g.State), current); got == old || !g.Over {
					t.Errorf("the game ended %v with state %s: want it played to its end under revision %d", g.Over, g.State, map[bool]int{false: soldiers1918.Revision, true: 0}[old])
				}
				return nil
			})
			if _, err := desk.Replay(ctx, "bench0000"); err != nil {
				t.Errorf("Replay: %v", err)
			}
		})
	}
}
