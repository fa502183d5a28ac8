package adjudicator_test

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestOldGamesReplay replays, with today's code, whole games that the binary of commit
// e577e70 played (each ruleset's demo, before issue 21's rule fixes and the 6.6 and
// narration changes): every state and every results mail must come out as it was
// stored and sent (invariant 4). The stores are kept in testdata/oldgames (see its
// README for how they were made).
func TestOldGamesReplay(t *testing.T) {
	all, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		file, game      string
		advances, mails int
	}{
		{"mons1914-e577e70.db.gz", "mons", 14, 28},
		{"teaching-e577e70.db.gz", "sample", 31, 62},
		{"soissons1918-e577e70.db.gz", "soissons", 51, 102},
	} {
		t.Run(tc.game, func(t *testing.T) {
			db, err := store.Open(gunzipStore(t, filepath.Join("testdata", "oldgames", tc.file)))
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			desk := &adjudicator.Desk{Store: db, Rulesets: all, Address: "adjutant@localhost"}
			rep, err := desk.Replay(context.Background(), tc.game)
			if err != nil {
				t.Fatalf("Replay: %v", err)
			}
			if rep.Advances != tc.advances || rep.Mails != tc.mails {
				t.Errorf("replayed %d advances and %d results mails, want %d and %d", rep.Advances, rep.Mails, tc.advances, tc.mails)
			}
		})
	}
}

// gunzipStore writes the gzipped store at path into a fresh temporary file, so that
// opening it (which may index or migrate) never changes the testdata.
func gunzipStore(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	out := filepath.Join(t.TempDir(), "games.db")
	w, err := os.OpenFile(out, os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(w, zr); err != nil {
		t.Fatalf("gunzip %s: %v", path, err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}
