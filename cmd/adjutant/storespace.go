package main

import (
	"context"
	"fmt"
	"io"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// spacer is a store that can say where its file's bytes go (*store.DB).
type spacer interface {
	Space(ctx context.Context) (store.Space, error)
}

// compactHint is the share of free pages in the file from which `store space` advises
// compaction: below it, bbolt reuses the free pages as the games grow.
const compactHint = 0.25

// cmdStoreSpace is `adjutant store space`: where the store file's bytes go, bucket by
// bucket, and whether compaction would give space back (issue 23). It runs against a
// store serve holds open too, through the control socket.
func cmdStoreSpace(e *env, args []string) error {
	return hostCommand(e, "store space", args, nil, nil, func(_ *adjudicator.Desk, db store.Store) error {
		sp, ok := db.(spacer)
		if !ok {
			return fmt.Errorf("store space: this store (%T) cannot report its space", db)
		}
		s, err := sp.Space(e.ctx)
		if err != nil {
			return err
		}
		writeSpace(e.stdout, s)
		return nil
	})
}

// writeSpace prints s for a host: the file, the free share, then a bucket a line.
func writeSpace(w io.Writer, s store.Space) {
	free := int64(s.FreePages) * int64(s.PageSize)
	share := 0.0
	if s.FileSize > 0 {
		share = float64(free) / float64(s.FileSize)
	}
	fmt.Fprintf(w, "file %s, of which free pages %s (%.0f %%)\n", sizeText(s.FileSize), sizeText(free), 100*share)
	if share >= compactHint {
		fmt.Fprintf(w, "compaction would give about %s back: adjutant store compact (serve stopped), or compact_at_start = true\n", sizeText(free))
	}
	fmt.Fprintln(w)
	fmt.Fprint(w, s.String())
}

// sizeText is n bytes in the largest unit that keeps it at least 1.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}
