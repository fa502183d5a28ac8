package adjudicator

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
)

// The ladder: each finished game between two players moves their ratings at its
// ruleset, by Elo with K = EloK from EloStart (HELP says so). A game the host ended
// counts for nothing, nor one a player resigned before any phase of turn 1 was
// resolved, nor one whose rules name no winner and no draw (Winner).
const (
	EloK     = 32
	EloStart = 1500
)

// Winner is [rules.Winner]: a ruleset that says who won, for the ladder.
type Winner = rules.Winner

// eloExpected is the score a player rated a expects against one rated b.
func eloExpected(a, b float64) float64 { return 1 / (1 + math.Pow(10, (b-a)/400)) }

// rateGame moves the ratings of a finished game's two players. resigned is the side
// that resigned, "" when the rules ended the game.
func rateGame(tx store.Tx, g store.Game, rs rules.Ruleset, st rules.State, resigned rules.Side) error {
	if len(g.Players) != 2 || strings.EqualFold(g.Players[0].Address, g.Players[1].Address) {
		return nil
	}
	var winner rules.Side
	if resigned != "" {
		journal, err := tx.Journal(g.Name)
		if err != nil {
			return err
		}
		played := false
		for _, j := range journal {
			for _, s := range j.Steps {
				played = played || s.Turn >= 1
			}
		}
		if !played {
			return nil // resigned before the first turn: counts for nothing
		}
		winner = otherSide(rs, resigned)
	} else {
		w, ok := rs.(Winner)
		if !ok {
			return nil
		}
		side, decided := w.Winner(st)
		if !decided {
			return nil
		}
		winner = side
	}
	var rs2 [2]store.Rating
	for i, p := range g.Players {
		r, err := tx.Rating(g.Ruleset, p.Address)
		if err != nil {
			return err
		}
		if slices.Contains(r.Rated, g.Name) {
			return nil // counted already
		}
		if r.Games == 0 {
			r.Rating = EloStart
		}
		rs2[i] = r
	}
	a, b := rs2[0].Rating, rs2[1].Rating
	for i, p := range g.Players {
		score := 0.5
		switch winner {
		case "":
		case rules.Side(p.Side):
			score = 1
		default:
			score = 0
		}
		self, other := a, b
		if i == 1 {
			self, other = b, a
		}
		r := &rs2[i]
		r.Rating = self + EloK*(score-eloExpected(self, other))
		r.Games++
		switch score {
		case 1:
			r.Wins++
		case 0:
			r.Losses++
		default:
			r.Draws++
		}
		r.Rated = append(r.Rated, g.Name)
		if err := tx.PutRating(g.Ruleset, *r); err != nil {
			return err
		}
	}
	return nil
}

// maskAddress shows an address on the ladder without giving it away whole: its first
// two characters and its domain.
func maskAddress(a string) string {
	local, domain, ok := strings.Cut(a, "@")
	if !ok {
		return "***"
	}
	r := []rune(local)
	if len(r) > 2 {
		r = r[:2]
	}
	return string(r) + "***@" + domain
}

// ratings is the answer to RATINGS [ruleset].
func (h *handling) ratings(args []string) (string, bool, error) {
	d := h.desk
	names := d.rulesetNames()
	if len(args) > 0 {
		rs, err := d.ruleset(strings.ToLower(args[0]))
		if err != nil {
			return "RATINGS: not done: " + err.Error() + ".", false, nil
		}
		names = []string{rs.Name()}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "RATINGS: Elo, K = %d, every player starts at %d; a game the host ended, or resigned before turn 1, counts for nothing. Addresses are shown in part.", EloK, EloStart)
	any := false
	for _, name := range names {
		list, err := h.tx.Ratings(name)
		if err != nil {
			return "", false, err
		}
		if len(list) == 0 {
			continue
		}
		any = true
		sort.SliceStable(list, func(i, j int) bool { return list[i].Rating > list[j].Rating })
		fmt.Fprintf(&b, "\n\n%s:", d.Rulesets[name].Title())
		for i, r := range list {
			fmt.Fprintf(&b, "\n%d. %.0f %s %d game(s): %d won, %d drawn, %d lost", i+1, r.Rating, maskAddress(r.Address), r.Games, r.Wins, r.Draws, r.Losses)
		}
	}
	if !any {
		b.WriteString("\n\nNo game has been rated yet.")
	}
	return b.String(), true, nil
}
