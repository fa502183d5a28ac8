package adjudicator

import (
	"context"
	"fmt"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/record"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

// When a game ends, each player gets one more mail (kind "record") that carries the
// record of the game (adjudicator/record) as an attachment. The mail is queued with
// the game's last mails, in the same transaction; the record itself is built by the
// sender when the mail leaves (Desk.RecordFor), outside any transaction, because it
// replays the game to draw its pictures. It is built from the mails queued before the
// record mail, so a mail sent again carries the same record.

// KindRecord is the kind of the mail that carries a player's record of the game.
const KindRecord = "record"

// recordBody is the text of a record mail to side, or to the observer at address when
// side is "".
func recordBody(g store.Game, side, address string) (string, error) {
	r := record.Reader{Side: side}
	if side == "" {
		r = record.Reader{Address: address}
	}
	return render("record.txt", map[string]any{
		"Game": g.Name, "Side": side, "File": record.FileName(g.Name, r),
	})
}

// queueObserverRecords queues the record mail of each observer of g (observe.go) whom
// a player let in: the record of the mails he received, after the last of them.
func (d *Desk) queueObserverRecords(tx store.Tx, g store.Game, rs rules.Ruleset, head string, now time.Time, cause string) error {
	observers, err := tx.Observers(g.Name)
	if err != nil {
		return fmt.Errorf("observers of %s: %w", g.Name, err)
	}
	for _, o := range observers {
		if o.Pending {
			continue
		}
		body, err := recordBody(g, "", o.Address)
		if err != nil {
			return err
		}
		if head != "" {
			body = head + "\n\n" + body
		}
		_, err = tx.Enqueue(store.OutMail{
			MessageID: d.messageID(cause, KindRecord, "", []string{o.Address}),
			To:        []string{o.Address}, Subject: fmt.Sprintf("[%s] Observing %s", g.Name, rs.Title()),
			Body: body, Game: g.Name, Kind: KindRecord, Queued: now,
		})
		if err != nil {
			return fmt.Errorf("queue the record of %s for an observer: %w", g.Name, err)
		}
	}
	return nil
}

// queueRecords queues the record mail of each player of a game the rules just ended,
// after the results mails of the advance that ended it.
func (d *Desk) queueRecords(tx store.Tx, g store.Game, rs rules.Ruleset, st rules.State, now time.Time, cause string) error {
	first, answer := headline(rs, st, "", nil, time.Time{})
	head := templates.Wrap(78, 0, first+"\n"+answer) // as playerHead's
	for _, p := range g.Players {
		body, err := recordBody(g, p.Side, "")
		if err != nil {
			return err
		}
		_, err = tx.Enqueue(store.OutMail{
			MessageID: d.messageID(cause, KindRecord, p.Side, []string{p.Address}),
			To:        []string{p.Address}, Subject: PlayerSubject(g.Name, rs, rules.Side(p.Side)),
			Body: head + "\n\n" + body,
			Game: g.Name, Side: p.Side, Kind: KindRecord, Queued: now, References: threadRefs(p.Thread),
		})
		if err != nil {
			return fmt.Errorf("queue the record of %s: %w", g.Name, err)
		}
	}
	return d.queueObserverRecords(tx, g, rs, head, now, cause)
}

// queueRecords queues the record mail of each player of a game ended by the host or a
// resignation, and of each observer.
func (h *handling) queueRecords(g store.Game) error {
	for _, p := range g.Players {
		body, err := recordBody(g, p.Side, "")
		if err != nil {
			return err
		}
		if _, err := h.enqueue([]string{p.Address}, g.Name, p.Side, KindRecord, "", body, false); err != nil {
			return fmt.Errorf("queue the record of %s: %w", g.Name, err)
		}
	}
	rs, err := h.desk.ruleset(g.Ruleset)
	if err != nil {
		return err
	}
	return h.desk.queueObserverRecords(h.tx, g, rs, "", h.now, h.msg.ID)
}

// RecordFor builds the record a record mail carries: its game's record for its side,
// from the mails queued before it; a record mail to no side (an observer's) carries
// the record of the mails to its address.
func (d *Desk) RecordFor(ctx context.Context, m store.OutMail) (name string, zip []byte, err error) {
	r := record.Reader{Side: m.Side}
	if m.Side == "" && len(m.To) == 1 {
		r = record.Reader{Address: m.To[0]}
	}
	zip, err = d.Record(ctx, m.Game, r, m.Seq)
	return record.FileName(m.Game, r), zip, err
}

// Record builds the record of a game in the live store for r (adjudicator/record),
// from the mails queued before the outbox number before (0: all of them).
func (d *Desk) Record(ctx context.Context, game string, r record.Reader, before uint64) ([]byte, error) {
	a, err := d.liveRecord(ctx, game, store.ReadGameRecord)
	if err != nil {
		return nil, fmt.Errorf("record of %s: %w", game, err)
	}
	return d.BuildRecord(ctx, a, r, before)
}

// BuildRecord builds the record of an archived game (or one read from the live store)
// for r. The pictures come from a replay of the archive; a game that no longer replays
// (one played under older rules) gets its record without them.
func (d *Desk) BuildRecord(ctx context.Context, a store.Archive, r record.Reader, before uint64) ([]byte, error) {
	rs, err := d.ruleset(a.Game.Ruleset)
	if err != nil {
		return nil, fmt.Errorf("record of %s: %w", a.Game.Name, err)
	}
	names := map[string]string{}
	var sides []rules.Side
	for _, s := range rs.Sides() {
		names[string(s.ID)] = s.Name
		if r.Host || r.Address == "" && string(s.ID) == r.Side {
			sides = append(sides, s.ID)
		}
	}
	in := record.Input{Game: a, Title: rs.Title(), SideNames: names, Before: before, From: d.Address}
	if len(sides) > 0 {
		ad := &Desk{Store: store.ArchiveStore{A: a}, Rulesets: d.Rulesets, Address: d.Address}
		pics, err := ad.RecordPictures(ctx, a.Game.Name, sides)
		if err != nil {
			d.log().Warn("record without pictures: the game does not replay", "game", a.Game.Name, "err", err)
		} else {
			in.Pictures = map[uint64]map[string][]byte{}
			for seq, bySide := range pics {
				in.Pictures[seq] = map[string][]byte{}
				for s, png := range bySide {
					in.Pictures[seq][string(s)] = png
				}
			}
		}
	}
	return record.Build(in, r)
}
