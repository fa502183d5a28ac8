package store

import (
	"encoding/binary"
	"fmt"
)

// PendingPage reads the heads of at most limit pending mails (neither sent nor given
// up, or not yet marked so) queued after the mail after, up to the mail upTo (0: no
// bound), in outbox order, and the sequence number of the last one it read (after when
// none). A sender reads its backlog a page at a time, so that its memory follows a
// round of mail and not the backlog (issue 23: the heads of 20,000 invitations held at
// once, and copied at every round).
func PendingPage(tx Tx, after, upTo uint64, limit int) ([]OutMail, uint64, error) {
	last := after
	bt, ok := tx.(*btx)
	if !ok {
		// Another kind of transaction (an archive's): its whole list, cut to the page.
		all, err := tx.PendingHeadsAfter(after)
		if err != nil {
			return nil, last, err
		}
		var page []OutMail
		for _, m := range all {
			if len(page) == limit || upTo != 0 && m.Seq > upTo {
				break
			}
			page, last = append(page, m), m.Seq
		}
		return page, last, nil
	}
	if err := bt.writeEnqueued(); err != nil {
		return nil, last, err
	}
	out := bt.tx.Bucket(bucketOutbox)
	var page []OutMail
	c := bt.tx.Bucket(bucketPending).Cursor()
	for k, _ := c.Seek(u64(after + 1)); k != nil && len(page) < limit; k, _ = c.Next() {
		seq := binary.BigEndian.Uint64(k)
		if upTo != 0 && seq > upTo {
			break
		}
		raw := out.Get(k)
		if raw == nil {
			return page, last, fmt.Errorf("pending outbox mail %x: %w", k, ErrNotFound)
		}
		m, err := decodeHead(raw)
		if err != nil {
			return page, last, fmt.Errorf("pending outbox mail %x: %w", k, err)
		}
		page, last = append(page, m), seq
	}
	return page, last, nil
}

// LastPending is the sequence number of the newest pending mail, 0 when none is.
func LastPending(tx Tx) (uint64, error) {
	bt, ok := tx.(*btx)
	if !ok {
		all, err := tx.PendingHeadsAfter(0)
		if err != nil || len(all) == 0 {
			return 0, err
		}
		return all[len(all)-1].Seq, nil
	}
	if err := bt.writeEnqueued(); err != nil {
		return 0, err
	}
	k, _ := bt.tx.Bucket(bucketPending).Cursor().Last()
	if k == nil {
		return 0, nil
	}
	return binary.BigEndian.Uint64(k), nil
}
