package adjudicator

import (
	"bytes"
	"maps"
	"slices"

	"github.com/adjutant-pbem/adjutant/store"
)

// gameTx is the transaction of one mail's handling, which reads each game record once:
// the first lines of every mail the handling queues need the game as it stands
// (enqueuePictures), and each read decoded the whole record, its state included,
// again. A record is remembered as the store returned it, or as PutGame wrote it (an
// advance writes the game, and the mails after it read it back: the record written
// is the record the store returns, its states byte for byte, TestGameTx); PutGame is
// the one method of [store.Tx] that changes a game record (TestGameTxKnowsTx). Each
// read returns a copy of its own, so that a caller that changes a record it read (its
// players) changes no other caller's.
type gameTx struct {
	store.Tx
	games map[string]store.Game
}

// Game returns the record of game name, read from the store once.
func (t *gameTx) Game(name string) (store.Game, error) {
	if g, ok := t.games[name]; ok {
		return cloneGame(g), nil
	}
	g, err := t.Tx.Game(name)
	if err != nil {
		return g, err
	}
	if t.games == nil {
		t.games = map[string]store.Game{}
	}
	t.games[name] = cloneGame(g)
	return g, nil
}

// PutGame writes g and remembers it as written.
func (t *gameTx) PutGame(g store.Game) error {
	delete(t.games, g.Name)
	if err := t.Tx.PutGame(g); err != nil {
		return err
	}
	if t.games == nil {
		t.games = map[string]store.Game{}
	}
	t.games[g.Name] = cloneGame(g)
	return nil
}

// cloneGame is g with nothing shared: its players, options and states copied.
func cloneGame(g store.Game) store.Game {
	g.Players = slices.Clone(g.Players)
	g.Options = maps.Clone(g.Options)
	g.State = bytes.Clone(g.State)
	g.Initial = bytes.Clone(g.Initial)
	return g
}
