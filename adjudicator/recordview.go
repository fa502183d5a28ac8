package adjudicator

import (
	"context"
	"fmt"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
)

// RecordPictures replays a game (as Replay does, checking every phase and state, but
// not re-rendering the results mails) and draws, after each advance, the picture of the map that each of sides saw in its
// results mail: the same view and news. A sent mail keeps no picture, so the record of
// a game (adjudicator/record) draws them again. The pictures are keyed by the journal
// entry's number, then the side; a ruleset that draws no picture gives none.
func (d *Desk) RecordPictures(ctx context.Context, game string, sides []rules.Side) (map[uint64]map[rules.Side][]byte, error) {
	out := map[uint64]map[rules.Side][]byte{}
	_, err := d.replay(ctx, game, func(rs rules.Ruleset, j store.JournalEntry, before, after rules.State) error {
		v, ok := rs.(rules.Viewer)
		if !ok {
			return nil
		}
		for _, side := range sides {
			enc, err := mapimage.Encode(v.MapView(after, side), PictureNews(v, before, after, side))
			if err != nil {
				return fmt.Errorf("picture for %s: %w", side, err)
			}
			png, err := mapimage.RenderEncoded(enc)
			if err != nil {
				return fmt.Errorf("picture for %s: %w", side, err)
			}
			if out[j.Seq] == nil {
				out[j.Seq] = map[rules.Side][]byte{}
			}
			out[j.Seq][side] = png
		}
		return nil
	})
	return out, err
}
