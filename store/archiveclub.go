package store

import (
	"slices"
	"time"
)

// An archive keeps one finished game's record, not the club's: its transaction reads
// no open game, observer or rating, and refuses to write one, as it refuses every
// write ([ErrArchiveReadOnly]).

func (archiveTx) PutOpenGame(OpenGame) error             { return ErrArchiveReadOnly }
func (archiveTx) OpenGame(string) (OpenGame, error)      { return OpenGame{}, ErrNotFound }
func (archiveTx) DeleteOpenGame(string) error            { return ErrArchiveReadOnly }
func (archiveTx) OpenGames() ([]OpenGame, error)         { return nil, nil }
func (archiveTx) NextClubNumber() (uint64, error)        { return 0, ErrArchiveReadOnly }
func (archiveTx) PutObserver(string, Observer) error     { return ErrArchiveReadOnly }
func (archiveTx) DeleteObserver(string, string) error    { return ErrArchiveReadOnly }
func (archiveTx) Observers(string) ([]Observer, error)   { return nil, nil }
func (archiveTx) Observing(string) ([]string, error)     { return nil, nil }
func (archiveTx) PutObserverPolicy(string, string) error { return ErrArchiveReadOnly }
func (archiveTx) ObserverPolicy(string) (string, error)  { return "", nil }
func (archiveTx) Rating(string, string) (Rating, error)  { return Rating{}, nil }
func (archiveTx) PutRating(string, Rating) error         { return ErrArchiveReadOnly }
func (archiveTx) Ratings(string) ([]Rating, error)       { return nil, nil }
func (t archiveTx) GamesOf(address string) ([]string, error) {
	for _, p := range t.a.Game.Players {
		if p.Address == address {
			return []string{t.a.Game.Name}, nil
		}
	}
	return nil, nil
}

// An archived game is over: nothing of it is due, and it has no mail to send.

func (archiveTx) DueGames(time.Time) ([]string, error)        { return nil, nil }
func (archiveTx) PendingHeadsAfter(uint64) ([]OutMail, error) { return nil, nil }
func (t archiveTx) GameOutbox(game string) ([]OutMail, error) {
	if !t.has(game) {
		return nil, nil
	}
	return slices.Clone(t.a.Mails), nil
}
