package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestArchive (issue 23) archives and compacts stores of the demo match, played once
// and copied for each part.
func TestArchive(t *testing.T) {
	demo := filepath.Join(t.TempDir(), "demo.db")
	mustCLI(t, nil, "demo", "--pipe", "--quiet", "--db", demo)
	t.Run("compact", func(t *testing.T) { testArchiveAndCompact(t, demo) })
	t.Run("due", func(t *testing.T) { testArchiveDue(t, demo) })
	t.Run("compact-at-start", func(t *testing.T) { testCompactAtStart(t, demo) })
	t.Run("space", func(t *testing.T) { testStoreSpace(t, demo) })
}

// copyStore copies the store at path and its key file into dir.
func copyStore(t *testing.T, path, dir string) string {
	t.Helper()
	to := filepath.Join(dir, "games.db")
	for _, ext := range []string{"", ".key"} {
		b, err := os.ReadFile(path + ext)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(to+ext, b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return to
}

// markAllSent marks every mail of the store at path sent, as the daemon's sender would
// once the SMTP server took them.
func markAllSent(t *testing.T, path string) {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.Write(t.Context(), func(tx store.Tx) error {
		heads, err := tx.PendingHeads()
		if err != nil {
			return err
		}
		for _, h := range heads {
			if _, err := tx.MarkSent(h.Seq, h.Queued.Add(time.Minute)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// playScript feeds mails of the sample script for game to `handle`, numbered from
// first, their message ids unique to the game.
func playScript(t *testing.T, db, game string, mails []scripted, first int) {
	t.Helper()
	start := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	for i, m := range mails {
		n := first + i
		raw := eml(m, sampleAddress, fmt.Sprintf("%s-%d@players.example", game, n), start.Add(time.Duration(n)*time.Hour))
		mustCLI(t, raw, "handle", "--db", db, "--address", sampleAddress)
	}
}

// testArchiveAndCompact (issue 23): a finished game archived with `game archive` is
// written to a file that `audit verify --archive` and `replay --archive` check on their
// own, and leaves the live store; a game whose mails are not all sent, or that is not
// over, stays. A damaged archive fails the checks. The store compacted afterwards is
// smaller, and serves the game left in it: that game plays on to its end, and its audit
// and replay pass.
func testArchiveAndCompact(t *testing.T, demo string) {
	dir := t.TempDir()
	db := copyStore(t, demo, dir)
	live := "live"
	mustCLI(t, nil, "game", "new", "--db", db, "--address", sampleAddress, "--name", live, "--ruleset", "soldiers1918",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+samplePassUS, "--password", "de="+samplePassDE)
	liveMails := script(live, sampleUS, samplePassUS, sampleDE, samplePassDE)
	half := len(liveMails) / 2
	playScript(t, db, live, liveMails[:half], 0)

	// Mails still to send keep the game in the store.
	code, _, errs := cli(t, nil, "game", "archive", sampleGame, "--db", db)
	if code == 0 || !strings.Contains(errs, "still to be sent") {
		t.Fatalf("archive with mails unsent: exit %d, %q; want a refusal naming the mails", code, errs)
	}
	markAllSent(t, db)
	before := fileSize(t, db)

	archives := filepath.Join(dir, "archive")
	for _, g := range []string{sampleGame, sampleReturn} {
		out := mustCLI(t, nil, "game", "archive", g, "--db", db)
		if !strings.Contains(out, "has left the live store") {
			t.Errorf("game archive %s said: %s", g, out)
		}
	}
	if code, _, errs := cli(t, nil, "game", "archive", live, "--db", db); code == 0 || !strings.Contains(errs, "not over") {
		t.Errorf("archive of a game not over: exit %d, %q", code, errs)
	}
	games := mustCLI(t, nil, "games", "--db", db)
	if strings.Contains(games, sampleGame+" ") || strings.Contains(games, sampleReturn) || !strings.Contains(games, live) {
		t.Errorf("after archiving, games lists:\n%s", games)
	}
	for _, m := range outbox(t, db) {
		if m.Game == sampleGame || m.Game == sampleReturn {
			t.Fatalf("mail %s of archived game %s still in the outbox", m.MessageID, m.Game)
		}
	}
	if code, _, _ := cli(t, nil, "replay", "--db", db, "--game", sampleGame); code == 0 {
		t.Error("replay of an archived game from the live store succeeded")
	}

	for _, g := range []string{sampleGame, sampleReturn} {
		file := filepath.Join(archives, g+archiveSuffix)
		t.Logf("archive of %s: %d bytes", g, fileSize(t, file))
		out := mustCLI(t, nil, "audit", "verify", "--archive", file)
		if !strings.Contains(out, "audit of "+g) || !strings.Contains(out, "16 signed chain heads") {
			t.Errorf("audit verify --archive %s: %s", file, out)
		}
		out = mustCLI(t, nil, "replay", "--archive", file)
		if !strings.Contains(out, "replay of "+g+" from") || !strings.Contains(out, "8 advances") {
			t.Errorf("replay --archive %s: %s", file, out)
		}
	}

	// A roll changed in the file, or a results mail's text, fails the checks.
	a, err := readArchiveFile(filepath.Join(archives, sampleGame+archiveSuffix))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		damage func(*store.Archive)
		want   string
	}{
		{"a roll", func(a *store.Archive) {
			for i, e := range a.Audit {
				if e.Kind == "roll" {
					a.Audit[i].Result++
					return
				}
			}
		}, "hash does not match"},
		{"a results mail", func(a *store.Archive) {
			for i, m := range a.Mails {
				if m.Kind == "results" {
					a.Mails[i].Body = strings.Replace(m.Body, "turn", "tun", 1)
					return
				}
			}
		}, "differs"},
	} {
		bad := a
		bad.Audit = append([]store.AuditEntry(nil), a.Audit...)
		bad.Mails = append([]store.OutMail(nil), a.Mails...)
		c.damage(&bad)
		var buf bytes.Buffer
		if err := store.WriteArchive(&buf, bad); err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "damaged-"+strings.ReplaceAll(c.name, " ", "-")+archiveSuffix)
		if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		code, _, errs := cli(t, nil, "replay", "--archive", file)
		if code == 0 || !strings.Contains(errs, c.want) {
			t.Errorf("replay of an archive with %s changed: exit %d, %q; want %q", c.name, code, errs, c.want)
		}
	}

	out := mustCLI(t, nil, "store", "compact", "--db", db)
	after := fileSize(t, db)
	t.Logf("store: %d bytes with three games, %d after archiving two and compacting (%s)", before, after, strings.TrimSpace(out))
	if after >= before {
		t.Errorf("compacted store %d bytes, %d before archiving", after, before)
	}

	// The game left plays on to its end on the compacted store.
	playScript(t, db, live, liveMails[half:], half)
	games = mustCLI(t, nil, "games", "--db", db)
	if !strings.Contains(games, live+" (soldiers1918): over") {
		t.Errorf("the live game did not play to its end after compaction:\n%s", games)
	}
	mustCLI(t, nil, "audit", "verify", "--db", db, "--game", live)
	if out := mustCLI(t, nil, "replay", "--db", db, "--game", live); !strings.Contains(out, "matches") {
		t.Errorf("replay of %s after compaction: %s", live, out)
	}
}

func fileSize(t *testing.T, path string) int64 {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// testArchiveDue: serve's daily pass archives a finished game once archive_after_days
// have passed since its end (its audit chain's last entry), not before, and leaves a
// game that is not over.
func testArchiveDue(t *testing.T, demo string) {
	dir := t.TempDir()
	path := copyStore(t, demo, dir)
	markAllSent(t, path)
	mustCLI(t, nil, "game", "new", "--db", path, "--address", sampleAddress, "--name", "live", "--ruleset", "soldiers1918",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE)
	e := &env{ctx: t.Context(), stdout: new(bytes.Buffer), stderr: new(bytes.Buffer), cost: 4}
	c := common{db: path, address: sampleAddress, resolved: true}
	desk, db, err := c.open(e)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var ended time.Time
	db.Read(t.Context(), func(tx store.Tx) error {
		h, err := tx.AuditHead(sampleReturn)
		ended = h.Time
		return err
	})
	after := 30 * 24 * time.Hour
	if got := archiveDue(t.Context(), desk, db, filepath.Join(dir, "a"), after, ended.Add(after-time.Hour)); len(got) != 0 {
		t.Errorf("a day before it is due: %q", got)
	}
	got := archiveDue(t.Context(), desk, db, filepath.Join(dir, "a"), after, ended.Add(after+time.Hour))
	if len(got) != 2 || !strings.Contains(strings.Join(got, "\n"), sampleReturn+" archived to") {
		t.Errorf("once due: %q", got)
	}
	var names []string
	db.Read(t.Context(), func(tx store.Tx) error { names, err = tx.GameNames(); return err })
	if strings.Join(names, ",") != "live" {
		t.Errorf("games left in the store: %v", names)
	}
}

// TestArchiveWhileServing: with serve holding the store, the host ends a game and
// archives it through the control socket, with the archive folder beside the store
// named from the host's side; each player receives the record mail with his zip
// attached, sent over SMTP; the game leaves the store, and the file checks.
func TestArchiveWhileServing(t *testing.T) {
	r := newRig(t)
	cfgPath := filepath.Join(t.TempDir(), "adjutant.toml")
	writeConfig(t, cfgPath, r.cfg)
	r.start(nil)
	mustCLI(t, nil, "game", "end", "--config", cfgPath, "--game", sampleGame)
	for _, p := range []*player{r.us, r.de} {
		file := `filename="` + sampleGame + `-record-`
		if _, err := p.waitFor(r.ctx, nil, func(m received) bool {
			return bytes.Contains(m.Raw, []byte(file)) && bytes.Contains(m.Raw, []byte("application/zip"))
		}); err != nil {
			t.Fatalf("%s never received the record: %v", p.addr, err)
		}
	}
	// The marks of the last sends are committed at the end of the sender's pass.
	var out, errs string
	waitUntil(t, "the game archived", func() bool {
		var code int
		code, out, errs = cli(t, nil, "game", "archive", sampleGame, "--config", cfgPath)
		return code == 0 || !strings.Contains(errs, "still to be sent")
	})
	file := filepath.Join(filepath.Dir(r.db), "archive", sampleGame+archiveSuffix)
	if !strings.Contains(out, "archived to "+file) {
		t.Fatalf("game archive through the socket: %q %q; want it archived to %s", out, errs, file)
	}
	if games := mustCLI(t, nil, "games", "--config", cfgPath); strings.Contains(games, sampleGame) {
		t.Errorf("the daemon still lists the game:\n%s", games)
	}
	if out := mustCLI(t, nil, "replay", "--archive", file); !strings.Contains(out, "matches") {
		t.Errorf("replay --archive: %s", out)
	}
}

// testCompactAtStart: serve with compact_at_start compacts the store before it opens
// it (smaller once games are archived) and serves it.
func testCompactAtStart(t *testing.T, demo string) {
	dir := t.TempDir()
	db := copyStore(t, demo, dir)
	markAllSent(t, db)
	mustCLI(t, nil, "game", "new", "--db", db, "--address", sampleAddress, "--name", "live", "--ruleset", "soldiers1918",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE)
	for _, g := range []string{sampleGame, sampleReturn} {
		mustCLI(t, nil, "game", "archive", g, "--db", db)
	}
	before := fileSize(t, db)
	srv, err := demoServers()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	cfg := demoConfig(srv, db)
	cfg.CompactAtStart = true
	logs := &syncBuffer{}
	e := &env{ctx: t.Context(), stdin: strings.NewReader(""), stdout: new(bytes.Buffer), stderr: logs, cost: 4}
	_, stop, err := startDaemon(e, cfg, logs)
	if err != nil {
		t.Fatal(err)
	}
	games := mustCLI(t, nil, "games", "--db", db) // through the daemon's socket
	if err := stop(); err != nil {
		t.Fatal(err)
	}
	if after := fileSize(t, db); after >= before {
		t.Errorf("serve with compact_at_start: %d bytes, %d before; log:\n%s", after, before, logs)
	}
	if !strings.Contains(games, "live (soldiers1918)") {
		t.Errorf("the daemon on the compacted store lists:\n%s", games)
	}
}
