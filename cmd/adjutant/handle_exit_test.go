package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestHandlePoisonMailExitsZero: pipe mode answers issue 19's poison mail (ABSENT UNTIL
// 9999-12-31 from a player who has used some absence) and exits 0, where it used to
// exit 75 for ever, and the next mail is handled.
func TestHandlePoisonMailExitsZero(t *testing.T) {
	db := filepath.Join(t.TempDir(), "games.db")
	mustCLI(t, nil, "game", "new", "--db", db, "--address", sampleAddress, "--name", "g", "--player", "us="+sampleUS, "--player", "de="+sampleDE,
		"--password", "us=pu", "--password", "de=pd", "--deadline", "48h")
	soon := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02")
	for i, tc := range []struct{ body, out string }{
		{"ABSENT UNTIL " + soon, adjudicator.Handled},
		{"ABSENT UNTIL 9999-12-31", adjudicator.Refused + ": orders"},
		{"STATUS", adjudicator.Handled},
	} {
		raw := fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: [g] orders\r\nMessage-ID: <exit%d@players.example>\r\n\r\nGAME g\r\nPASSWORD pd\r\n%s\r\n", sampleDE, sampleAddress, i, tc.body)
		code, out, errs := cli(t, []byte(raw), "handle", "--db", db, "--address", sampleAddress)
		if code != 0 || strings.TrimSpace(out) != tc.out {
			t.Errorf("%s: exit %d, %q (%s); want exit 0, %q", tc.body, code, out, errs, tc.out)
		}
	}
}

// brokenStore fails every write with fault (every put of a game with game: the desk
// can still set a mail aside).
type brokenStore struct {
	store.Store
	fault error
	all   bool
}

func (s brokenStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	if s.all {
		return fmt.Errorf("write: %w", s.fault)
	}
	return s.Store.Write(ctx, func(tx store.Tx) error { return fn(brokenTx{tx, s.fault}) })
}

type brokenTx struct {
	store.Tx
	fault error
}

func (t brokenTx) PutGame(g store.Game) error { return fmt.Errorf("put game %s: %w", g.Name, t.fault) }

// TestHandleExitCodes: `adjutant handle` (here as the daemon runs it for the control
// socket) exits 0 for a mail the desk sets aside after an error no retry mends, 75
// (the mail system retries) for a failure that may pass, and 70 (the mail system
// returns the mail) when even setting it aside failed for good.
func TestHandleExitCodes(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault error
		all   bool
		code  int
		out   string
	}{
		{"set aside", errors.New("json: unsupported value"), false, 0, "failed: internal error: "},
		{"full disk", &fs.PathError{Op: "write", Path: "games.db", Err: syscall.ENOSPC}, false, exitTempFail, ""},
		{"full disk, every write", &fs.PathError{Op: "write", Path: "games.db", Err: syscall.ENOSPC}, true, exitTempFail, ""},
		{"cannot even set aside", errors.New("json: unsupported value"), true, exitSoftware, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "games.db")
			mustCLI(t, nil, "game", "new", "--db", path, "--address", sampleAddress, "--name", "g", "--player", "us="+sampleUS, "--player", "de="+sampleDE,
				"--password", "us=pu", "--password", "de=pd", "--deadline", "48h")
			db, err := store.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			rulesets, err := rulesets.All()
			if err != nil {
				t.Fatal(err)
			}
			desk := &adjudicator.Desk{Store: brokenStore{db, tc.fault, tc.all}, Rulesets: rulesets, Address: sampleAddress, PasswordCost: 4}
			raw := "From: " + sampleDE + "\r\nTo: " + sampleAddress + "\r\nSubject: [g] orders\r\nMessage-ID: <exit@players.example>\r\n\r\nGAME g\r\nPASSWORD pd\r\nABSENT UNTIL " +
				time.Now().UTC().Add(24*time.Hour).Format("2006-01-02") + "\r\n"
			var out, errb bytes.Buffer
			e := &env{ctx: context.Background(), stdin: strings.NewReader(raw), stdout: &out, stderr: &errb, cost: 4, served: &served{desk: desk, db: db}}
			code := runEnv(e, []string{"handle", "--config", filepath.Join(dir, "unused.toml")})
			if code != tc.code || !strings.HasPrefix(out.String(), tc.out) {
				t.Errorf("exit %d, %q (%s); want exit %d, %q", code, out.String(), errb.String(), tc.code, tc.out)
			}
		})
	}
}
