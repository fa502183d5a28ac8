package adjudicator

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/store"
)

// AuditReport summarises a verified audit chain.
type AuditReport struct {
	Entries    int // links in the chain
	Rolls      int // rolls and shuffles
	Verified   int // rolls re-derived from a revealed seed
	Unrevealed int // rolls of turns whose seed is still secret: only their hashes are checked
}

// VerifyAudit checks a game's audit chain from what is public: every hash link, every
// revealed seed against its commitment, and every roll of a revealed turn re-derived.
func (d *Desk) VerifyAudit(ctx context.Context, game string) (AuditReport, error) {
	var entries []store.AuditEntry
	err := d.Store.Read(ctx, func(tx store.Tx) error {
		if _, err := tx.Game(game); err != nil {
			return err
		}
		var err error
		entries, err = tx.Audit(game)
		return err
	})
	if err != nil {
		return AuditReport{}, fmt.Errorf("read audit of %s: %w", game, err)
	}
	return VerifyChain(game, entries)
}

// VerifyChain verifies an exported audit chain; it needs nothing else, so that a player can
// run it on the archive. The error names the first bad entry.
func VerifyChain(game string, entries []store.AuditEntry) (AuditReport, error) {
	rep := AuditReport{Entries: len(entries)}
	commits := map[int]string{}
	seeds := map[int]*dice.Verifier{}
	prev := ""
	for i, e := range entries {
		bad := func(format string, args ...any) error {
			return fmt.Errorf("audit entry #%d (%s, turn %d): %s", e.Seq, e.Kind, e.Turn, fmt.Sprintf(format, args...))
		}
		if e.Seq != uint64(i+1) {
			return rep, bad("sequence %d where %d was expected", e.Seq, i+1)
		}
		if e.Prev != prev {
			return rep, bad("does not link to the entry before it")
		}
		if e.ComputeHash() != e.Hash {
			return rep, bad("its hash does not match its contents")
		}
		prev = e.Hash
		switch e.Kind {
		case "commit":
			commits[e.Turn] = e.Value
		case "reveal":
			s, err := dice.ParseSeed(e.Value)
			if err != nil {
				return rep, bad("revealed seed unreadable: %v", err)
			}
			c, ok := commits[e.Turn]
			if !ok {
				return rep, bad("seed revealed without an earlier commitment")
			}
			if err := dice.CheckSeed(s, c); err != nil {
				return rep, bad("revealed seed does not match the commitment %s", c)
			}
			seeds[e.Turn] = dice.NewVerifier(s)
		case dice.KindRoll, dice.KindShuffle:
			rep.Rolls++
			if _, ok := commits[e.Turn]; !ok {
				return rep, bad("roll made before its turn's seed was committed")
			}
		default:
			return rep, bad("unknown kind")
		}
	}
	for _, e := range entries {
		if e.Kind != dice.KindRoll && e.Kind != dice.KindShuffle {
			continue
		}
		v, ok := seeds[e.Turn]
		if !ok {
			rep.Unrevealed++
			continue
		}
		r := dice.Roll{Index: e.Index, Kind: e.Kind, Purpose: e.Purpose, Rule: e.Rule, Count: e.Count, Sides: e.Sides, Values: e.Values, Modifier: e.Modifier, Result: e.Result}
		ctx := dice.Context{Game: game, Turn: e.Turn, Phase: e.Phase, OrdersDigest: e.OrdersDigest}
		if err := v.Verify(ctx, r); err != nil {
			return rep, fmt.Errorf("audit entry #%d (%s, turn %d): the revealed seed does not give this roll: %v", e.Seq, e.Kind, e.Turn, err)
		}
		rep.Verified++
	}
	return rep, nil
}

// ExportAudit writes a game's audit chain as "json" (an array of entries) or "csv".
func (d *Desk) ExportAudit(ctx context.Context, game, format string, w io.Writer) error {
	var entries []store.AuditEntry
	if err := d.Store.Read(ctx, func(tx store.Tx) error {
		if _, err := tx.Game(game); err != nil {
			return err
		}
		var err error
		entries, err = tx.Audit(game)
		return err
	}); err != nil {
		return fmt.Errorf("export audit of %s: %w", game, err)
	}
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		if entries == nil {
			entries = []store.AuditEntry{}
		}
		return enc.Encode(entries)
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write([]string{"seq", "time", "kind", "turn", "phase", "index", "purpose", "rule", "count", "sides", "values", "modifier", "result", "orders_digest", "value", "prev", "hash"})
		for _, e := range entries {
			vals := make([]string, len(e.Values))
			for i, v := range e.Values {
				vals[i] = strconv.Itoa(v)
			}
			_ = cw.Write([]string{strconv.FormatUint(e.Seq, 10), e.Time.Format("2006-01-02T15:04:05.000000000Z07:00"), e.Kind, strconv.Itoa(e.Turn), e.Phase,
				strconv.Itoa(e.Index), e.Purpose, e.Rule, strconv.Itoa(e.Count), strconv.Itoa(e.Sides), strings.Join(vals, " "),
				strconv.Itoa(e.Modifier), strconv.Itoa(e.Result), e.OrdersDigest, e.Value, e.Prev, e.Hash})
		}
		cw.Flush()
		return cw.Error()
	}
	return fmt.Errorf("export audit: format %q: expected csv or json", format)
}
