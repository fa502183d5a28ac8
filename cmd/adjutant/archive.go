package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/record"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// The archive of finished games (issue 23: "a live store that holds live games"), the
// host's commands on it, and the compaction of the store.
//
//	adjutant game archive GAME [--out FILE]    the game's complete record to a file, checked, then out of the store
//	adjutant replay --archive FILE             replay a game from its archive
//	adjutant audit verify --archive FILE       verify its audit chain and signed heads
//	adjutant store compact                     bbolt's Compact into a new file, swapped in

// archiveSuffix ends the name of an archive file.
const archiveSuffix = ".archive.json.gz"

// defaultArchiveDir is where archives go when neither --out nor archive_dir says: a
// folder "archive" beside the store.
func defaultArchiveDir(db string) string { return filepath.Join(filepath.Dir(db), "archive") }

// gameArg takes the game's name from the first argument when it is not a flag
// (`game archive verdun --db x`), so that flags may follow it.
func gameArg(args []string) (string, []string) {
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		return args[0], args[1:]
	}
	return "", args
}

// remover is the live store's removal of a game (store.DB's).
type remover interface {
	RemoveGame(ctx context.Context, game string, verifiers []string) error
}

func cmdGameArchive(e *env, args []string) error {
	game, rest := gameArg(args)
	var out, gameFlag *string
	var c common
	fs := newFlags(e, "game archive")
	out = fs.String("out", "", "the archive file (default: archive_dir of the configuration, or a folder archive beside the store, then GAME"+archiveSuffix+")")
	gameFlag = fs.String("game", "", "the game's name (or give it first: game archive GAME)")
	c.register(fs)
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if game == "" {
		game = *gameFlag
	}
	if game == "" {
		return usageError("game archive: name the game (game archive GAME)")
	}
	if e.served != nil {
		// In the daemon: the command line that reached it names the file (below).
		if *out == "" {
			return usageError("game archive: --out is required through the control socket")
		}
		return archiveAndReport(e, e.served.desk, e.served.db, game, *out)
	}
	if err := c.resolve(); err != nil {
		return err
	}
	dir := defaultArchiveDir(c.db)
	if c.config != "" {
		if cfg, err := loadStoreConfig(c.config); err == nil && cfg.ArchiveDir != "" {
			dir = cfg.ArchiveDir
		}
	}
	path := *out
	if path == "" {
		path = filepath.Join(dir, game+archiveSuffix)
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	// A daemon that serves the store writes the file: the path it is given is this
	// one's, absolute.
	args = append(slices.Clone(e.args), "--out", path)
	if *out != "" {
		args = slices.Clone(e.args)
		absFlag(args, "out")
	}
	return c.forwardOrOpen(e, args, func(desk *adjudicator.Desk, db store.Store) error {
		return archiveAndReport(e, desk, db, game, path)
	})
}

// forwardOrOpen sends the command line args to the daemon serving the store, or, when
// none does, opens the store and runs fn on it (hostCommand's way, c resolved).
func (c *common) forwardOrOpen(e *env, args []string, fn func(*adjudicator.Desk, store.Store) error) error {
	if code, ok, err := forward(e, c.socket, args); err != nil {
		return err
	} else if ok {
		return exitCode(code)
	}
	desk, db, err := c.open(e)
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(desk, db)
}

func archiveAndReport(e *env, desk *adjudicator.Desk, db store.Store, game, path string) error {
	chk, err := archiveGame(e.ctx, desk, db, game, path)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s archived to %s: audit verified (%d entries, %d rolls re-derived, %d signed heads), replay matches (%d advances, %d results mails); the game has left the live store\n",
		game, path, chk.Audit.Entries, chk.Audit.Verified, chk.Audit.Signatures, chk.Replay.Advances, chk.Replay.Mails)
	return nil
}

// archiveGame writes a finished game's archive to path, reads it back from the file
// and checks it (audit verify and replay), and only then removes the game from db.
// A failure at any step leaves the game in the store.
func archiveGame(ctx context.Context, desk *adjudicator.Desk, db store.Store, game, path string) (adjudicator.ArchiveCheck, error) {
	var chk adjudicator.ArchiveCheck
	rm, ok := db.(remover)
	if !ok {
		return chk, fmt.Errorf("archive %s: this store cannot remove a game", game)
	}
	if err := desk.CheckArchivable(ctx, game); err != nil {
		return chk, err
	}
	a, err := desk.ArchiveOf(ctx, game)
	if err != nil {
		return chk, err
	}
	if err := writeArchiveFile(path, a); err != nil {
		return chk, fmt.Errorf("archive %s: %w", game, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return chk, fmt.Errorf("archive %s: read it back: %w", game, err)
	}
	back, err := store.ReadArchive(f)
	f.Close()
	if err != nil {
		return chk, fmt.Errorf("archive %s: read it back from %s: %w", game, path, err)
	}
	if chk, err = desk.CheckArchive(ctx, back); err != nil {
		return chk, fmt.Errorf("archive %s: the file %s does not check, so the game stays in the store: %w", game, path, err)
	}
	if err := rm.RemoveGame(ctx, game, adjudicator.VerifierNames(a.Game)); err != nil {
		return chk, fmt.Errorf("archive %s: written and checked in %s, but not removed from the store: %w", game, path, err)
	}
	return chk, nil
}

// writeArchiveFile writes a to path durably (a temporary file beside it, synced, then
// renamed), mode 0600, never over an existing file.
func writeArchiveFile(path string, a store.Archive) error {
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s exists already (a game archived before under this name?): give another --out", path)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".archive-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // a no-op once renamed
	err = store.WriteArchive(tmp, a)
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readArchiveFile reads an archive file.
func readArchiveFile(path string) (store.Archive, error) {
	f, err := os.Open(path)
	if err != nil {
		return store.Archive{}, err
	}
	defer f.Close()
	a, err := store.ReadArchive(f)
	if err != nil {
		return a, fmt.Errorf("%s: %w", path, err)
	}
	return a, nil
}

// absFlag makes the file of the flag name (-name FILE, --name=FILE) in args absolute, in
// place: a command run by the daemon (control socket) runs in the daemon's directory.
func absFlag(args []string, name string) {
	for i, a := range args {
		n, val, eq := strings.Cut(strings.TrimLeft(a, "-"), "=")
		if n != name || !strings.HasPrefix(a, "-") {
			continue
		}
		at := i
		if !eq {
			if at = i + 1; at >= len(args) {
				return
			}
			val = args[at]
		}
		if abs, err := filepath.Abs(val); err == nil && val != "" {
			if eq {
				args[at] = a[:len(a)-len(val)] + abs
			} else {
				args[at] = abs
			}
		}
	}
}

// archiveFlag returns FILE of an --archive FILE among args.
func archiveFlag(args []string) (string, bool) {
	for i, a := range args {
		if v, ok := strings.CutPrefix(a, "--archive="); ok {
			return v, true
		}
		if (a == "--archive" || a == "-archive") && i+1 < len(args) {
			return args[i+1], true
		}
	}
	return "", false
}

// offlineDesk is a desk with the rulesets and no store, to check an archive.
func offlineDesk() (*adjudicator.Desk, error) {
	rs, err := rulesets.All()
	if err != nil {
		return nil, err
	}
	return &adjudicator.Desk{Rulesets: rs}, nil
}

// cmdArchiveCheck is `replay --archive FILE` (replay true) and `audit verify --archive
// FILE`: both check the whole archive, and report what the command names.
func cmdArchiveCheck(e *env, args []string, replay bool) error {
	path, _ := archiveFlag(args)
	if len(args) != 2 && !(len(args) == 1 && strings.HasPrefix(args[0], "--archive=")) {
		return usageError("--archive FILE takes no other flag")
	}
	a, err := readArchiveFile(path)
	if err != nil {
		return err
	}
	desk, err := offlineDesk()
	if err != nil {
		return err
	}
	chk, err := desk.CheckArchive(e.ctx, a)
	if err != nil {
		return err
	}
	game := a.Game.Name
	if replay {
		fmt.Fprintf(e.stdout, "replay of %s from %s matches: %d advances, %d phases, %d results mails identical\n", game, path, chk.Replay.Advances, chk.Replay.Phases, chk.Replay.Mails)
		return nil
	}
	printAuditReport(e, game+" (archive "+path+")", chk.Audit)
	return nil
}

func cmdStore(e *env, args []string) error {
	if len(args) > 0 && args[0] == "space" {
		return cmdStoreSpace(e, args[1:])
	}
	if len(args) == 0 || args[0] != "compact" {
		return usageError("store: expected \"store compact\" or \"store space\"")
	}
	fs := newFlags(e, "store compact")
	var c common
	c.register(fs)
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	if e.served != nil {
		return errors.New("store compact: the daemon holds the store open; set compact_at_start in the configuration (or run serve --compact) and restart it")
	}
	rep, err := store.Compact(c.db)
	if err != nil {
		return err
	}
	fmt.Fprintf(e.stdout, "%s compacted: %d bytes, %d before\n", c.db, rep.After, rep.Before)
	return nil
}

// archiveDue archives every game over for at least after (by the time of the last
// entry of its audit chain, which its end appends: the seeds revealed), into dir; it
// returns a line for each game archived or that failed. Serve runs it once a day.
func archiveDue(ctx context.Context, desk *adjudicator.Desk, db store.Store, dir string, after time.Duration, now time.Time) []string {
	var due []string
	err := desk.EachGame(ctx, func(tx store.Tx, g store.Game) error {
		if !g.Over {
			return nil
		}
		ended := g.Created
		if h, err := tx.AuditHead(g.Name); err == nil && h.Time.After(ended) {
			ended = h.Time
		}
		if now.Sub(ended) >= after {
			due = append(due, g.Name)
		}
		return nil
	})
	if err != nil {
		return []string{fmt.Sprintf("archive: list the finished games: %v", err)}
	}
	var report []string
	for _, n := range due {
		path := filepath.Join(dir, n+archiveSuffix)
		if _, err := archiveGame(ctx, desk, db, n, path); err != nil {
			report = append(report, fmt.Sprintf("archive %s: %v", n, err))
			continue
		}
		report = append(report, fmt.Sprintf("%s archived to %s", n, path))
	}
	return report
}

func cmdGameExport(e *env, args []string) error {
	game, rest := gameArg(args)
	fs := newFlags(e, "game export")
	side := fs.String("side", "", "the side whose record it is (its mails, its view of the map); default: the host's record, every side")
	out := fs.String("out", "", "the zip file to write (required)")
	archive := fs.String("archive", "", "export from this archive file (adjutant game archive) instead of the store")
	gameFlag := fs.String("game", "", "the game's name (or give it first: game export GAME)")
	var c common
	c.register(fs)
	if err := fs.Parse(rest); err != nil {
		return err
	}
	if game == "" {
		game = *gameFlag
	}
	if *out == "" || game == "" && *archive == "" {
		return usageError("game export: name the game and --out FILE (game export GAME [--side S] --out FILE)")
	}
	r := record.Reader{Side: *side, Host: *side == ""}
	write := func(zip []byte) error {
		if err := os.WriteFile(*out, zip, 0o600); err != nil {
			return fmt.Errorf("game export: %w", err)
		}
		fmt.Fprintf(e.stdout, "the record of %s for %s written to %s (%d bytes)\n", game, map[bool]string{true: "the host", false: *side}[r.Host], *out, len(zip))
		return nil
	}
	if *archive != "" {
		a, err := readArchiveFile(*archive)
		if err != nil {
			return err
		}
		if game == "" {
			game = a.Game.Name
		}
		desk, err := offlineDesk()
		if err != nil {
			return err
		}
		zip, err := desk.BuildRecord(e.ctx, a, r, 0)
		if err != nil {
			return err
		}
		return write(zip)
	}
	if err := c.resolve(); err != nil {
		return err
	}
	run := func(desk *adjudicator.Desk) error {
		zip, err := desk.Record(e.ctx, game, r, 0)
		if err != nil {
			return err
		}
		return write(zip)
	}
	if e.served != nil {
		return run(e.served.desk)
	}
	absFlag(e.args, "out") // the daemon writes the file the command names
	return c.forwardOrOpen(e, e.args, func(desk *adjudicator.Desk, _ store.Store) error { return run(desk) })
}

// archiveEvery is how often serve looks for finished games to archive.
const archiveEvery = 24 * time.Hour

// archiveTick archives the games over for archive_after_days, at start and once a day.
func (d *daemon) archiveTick(ctx context.Context) {
	now := d.now()
	if d.cfg.ArchiveAfter < 0 || !d.archivedAt.IsZero() && now.Sub(d.archivedAt) < archiveEvery {
		return
	}
	d.archivedAt = now
	dir := d.cfg.ArchiveDir
	if dir == "" {
		dir = defaultArchiveDir(d.cfg.Database)
	}
	for _, line := range archiveDue(ctx, d.desk, d.db, dir, time.Duration(d.cfg.ArchiveAfter)*24*time.Hour, now) {
		d.log.Info("archive", "action", line)
	}
}

// compactAtStart compacts the store before serve opens it. A compaction that cannot run
// (a `handle` holding the file a moment) is logged and the daemon serves the file as it
// is: compaction only gives space back.
func compactAtStart(path string, log *slog.Logger) {
	rep, err := store.Compact(path)
	if err != nil {
		log.Warn("store not compacted", "path", path, "err", err)
		return
	}
	log.Info("store compacted", "path", path, "bytes", rep.After, "before", rep.Before)
}

// recordAttach is the sender's Attach: a record mail (adjudicator.KindRecord) carries
// its game's record, built by desk from the store when the mail leaves.
func recordAttach(ctx context.Context, desk *adjudicator.Desk) func(store.OutMail) ([]mail.Attachment, error) {
	return func(m store.OutMail) ([]mail.Attachment, error) {
		if m.Kind != adjudicator.KindRecord {
			return nil, nil
		}
		name, zip, err := desk.RecordFor(ctx, m)
		if err != nil {
			return nil, err
		}
		return []mail.Attachment{{Name: name, Type: "application/zip", Data: zip}}, nil
	}
}

// storeRecordAttach is recordAttach for a store without a daemon's desk (the Maildir
// of `outbox --maildir` and of the demo).
func storeRecordAttach(db store.Store, from string) func(store.OutMail) ([]mail.Attachment, error) {
	rs, err := rulesets.All()
	if err != nil {
		return func(store.OutMail) ([]mail.Attachment, error) { return nil, err }
	}
	return recordAttach(context.Background(), &adjudicator.Desk{Store: db, Rulesets: rs, Address: from})
}
