package rules

import "fmt"

// BotMail is one mail of a ruleset's scripted players: the side that sends it, its
// subject, and its lines after GAME and PASSWORD, which the sender writes for whoever
// plays that side (Text), so that one script serves any game name, address and
// password, and a match's second game with the sides switched.
type BotMail struct {
	Side    Side
	Subject string
	Body    string
}

// Text is the whole body of m as the player of its side mails it to game.
func (m BotMail) Text(game, password string) string {
	return fmt.Sprintf("GAME %s\nPASSWORD %s\n%s", game, password, m.Body)
}

// Bot is the scripted players of both sides of one game, for the demo and for tests
// that play whole games. A bot is pure: what it writes depends only on the arguments
// of its calls and what it wrote before.
type Bot interface {
	// Next is the i-th mail of the game (i counting from 0, one call for each i in
	// order), st being the game as it stands after the mails before it; ok is false
	// when the players have nothing more to send.
	Next(i int, st State) (m BotMail, ok bool, err error)
}

// Botter is a ruleset that comes with scripted players: every ruleset of Adjutant does,
// beside its rules, so that the demo and the tests play the same games.
type Botter interface {
	// Bot is the scripted players of a new game named game.
	Bot(game string) Bot
}

// Script is a [Bot] whose mails are written in advance: the i-th mail whatever the
// state.
type Script []BotMail

// Next is s[i], and ok false after the last mail.
func (s Script) Next(i int, _ State) (BotMail, bool, error) {
	if i < 0 || i >= len(s) {
		return BotMail{}, false, nil
	}
	return s[i], true, nil
}
