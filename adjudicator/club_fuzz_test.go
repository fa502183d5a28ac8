package adjudicator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// FuzzClubMail feeds any text as a club mail from a stranger and from the creator of an
// open game: no mail is set aside or fails, and each is answered at most once.
func FuzzClubMail(f *testing.F) {
	for _, s := range []string{
		"NEW mons1914 SIDE bef OBSERVERS ask\nPASSWORD pw-1\n", "LIST\nRATINGS mons1914\n", "JOIN mons1914-1 SIDE de\nPASSWORD x\n",
		"WITHDRAW mons1914-1\nPASSWORD ann-pw\n", "OBSERVE mons1914-1\nUNOBSERVE mons1914-1\n", "NEW\nNEW soldiers1918 york york SIDE\n",
		"PASSWORD\nJOIN\n", "RATINGS chess\nLIST LIST\n",
	} {
		f.Add(s, false)
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, creator bool) {
		fx := clubFixture(t, adjudicator.Club{MaxOpen: 2})
		fx.open(t, ann, "mons1914 SIDE de", "ann-pw")
		from := bob
		if creator {
			from = ann
		}
		for i := range 2 {
			out, err := fx.desk.Handle(context.Background(), adjudicator.Message{ID: fmt.Sprintf("fz%d@x", i), From: from, Subject: "club", Text: text})
			if err != nil || strings.HasPrefix(out, "failed") {
				t.Fatalf("%q: %q, %v", text, out, err)
			}
			var answers int
			for _, m := range fx.outbox() {
				if m.InReplyTo == fmt.Sprintf("fz%d@x", i) && m.Kind == "club" {
					answers++
				}
			}
			if answers > 1 {
				t.Fatalf("%q: %d answers to one mail", text, answers)
			}
		}
		var open []store.OpenGame
		fx.db.Read(context.Background(), func(tx store.Tx) (err error) { open, err = tx.OpenGames(); return err })
		mine := 0
		for _, g := range open {
			if g.Address == from {
				mine++
			}
		}
		if mine > 2 {
			t.Fatalf("%q: %s holds %d open games, more than 2", text, from, mine)
		}
	})
}
