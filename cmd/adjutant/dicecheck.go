package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// gameTag finds the game a mail is about in its subject, "[game] ...".
var gameTag = regexp.MustCompile(`^(?:Re: )?\[([^\]]+)\]`)

// checkFromMails verifies every roll, seed, revealed sealed order and signed chain head
// of game from the text of the mails one player received, in order, as a player would
// (adjudicator.CheckMails), and says what it checked in one line.
func checkFromMails(game, who string, subjects, bodies []string) (string, error) {
	var mine []string
	for i, s := range subjects {
		if m := gameTag.FindStringSubmatch(s); m != nil && m[1] == game {
			mine = append(mine, bodies[i])
		}
	}
	got, err := adjudicator.CheckMails(game, mine)
	if err != nil {
		return "", fmt.Errorf("checking %s from the mails %s received: %w", game, who, err)
	}
	if got.Unrevealed > 0 {
		return "", fmt.Errorf("checking %s from the mails %s received: %d rolls of turns whose seed no mail revealed", game, who, got.Unrevealed)
	}
	if got.CardsSealed > 0 {
		return "", fmt.Errorf("checking %s from the mails %s received: %d cards of decks whose seed no mail revealed", game, who, got.CardsSealed)
	}
	cards := ""
	if got.Cards > 0 {
		cards = fmt.Sprintf(", %d cards", got.CardsVerified)
	}
	if got.Beacons > 0 {
		cards += fmt.Sprintf(", the beacon rounds of %d phases", got.Beacons)
	}
	return fmt.Sprintf("%s from the %d mails to %s alone: %d rolls%s, %d seeds, %d sealed orders, %d signed heads verified\n",
		game, len(mine), who, got.Verified, cards, got.Seeds, got.Sealed, got.Signatures), nil
}

// checkPlayersMails runs checkFromMails for each game and each player's mails.
func checkPlayersMails(games []string, mails map[string][]received) (string, error) {
	var b strings.Builder
	for _, g := range games {
		for _, who := range []string{sampleUS, sampleDE} {
			var subjects, bodies []string
			for _, m := range mails[who] {
				subjects, bodies = append(subjects, m.Env.Subject), append(bodies, m.Env.Text)
			}
			line, err := checkFromMails(g, who, subjects, bodies)
			if err != nil {
				return b.String(), err
			}
			b.WriteString(line)
		}
	}
	return b.String(), nil
}
