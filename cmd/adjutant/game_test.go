package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// cli runs adjutant in-process and returns its exit code and output.
func cli(t *testing.T, stdin []byte, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	e := &env{ctx: context.Background(), stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, cost: 4}
	code := runEnv(e, args)
	return code, out.String(), errb.String()
}

func mustCLI(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	code, out, errs := cli(t, stdin, args...)
	if code != 0 {
		t.Fatalf("adjutant %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), code, out, errs)
	}
	return out
}

func outbox(t *testing.T, db string) []outMailJSON {
	t.Helper()
	return outboxBy(t, "--db", db)
}

// outboxBy is `adjutant outbox --json` with the given way to the store.
func outboxBy(t *testing.T, store ...string) []outMailJSON {
	t.Helper()
	var mails []outMailJSON
	if err := json.Unmarshal([]byte(mustCLI(t, nil, append([]string{"outbox", "--json"}, store...)...)), &mails); err != nil {
		t.Fatal(err)
	}
	return mails
}

var (
	commitmentLine = regexp.MustCompile(`commitment ([0-9a-f]{64})`)
	revealedBlock  = regexp.MustCompile(`(?m)^(.*), text:\n    (PLOT TURN (\d) [^\n]*)\n  salt \(hashed as these 32 characters\): ([0-9a-f]+)\n  commitment, SHA-256 of the text, "\|" and the salt:\n  ([0-9a-f]{64})`)
	seedLine       = regexp.MustCompile(`Turn (\d+): seed \(32 bytes, written in hex\)\n  ([0-9a-f]{64})\n  SHA-256 of the 32 bytes \(not of their hex\), its commitment:\n  ([0-9a-f]{64})`)
	seedCommit     = regexp.MustCompile(`Turn (\d+): seed drawn; SHA-256 of its 32 bytes:\n  ([0-9a-f]{64})`)
	hexToken       = regexp.MustCompile(`\b\d{4}\b`)
	plotItemHex    = regexp.MustCompile(`(\d{4})x\d+`)
	longHash       = regexp.MustCompile(`[0-9a-f]{64}`)
)

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestSixTurnGameByPipe plays the complete six-turn bombardment game by piping .eml files
// into `adjutant handle`, then checks every mail, the audit and the replay (issue: core).
func TestSixTurnGameByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "game.db")
	flags := []string{"--db", db, "--address", sampleAddress}
	out := mustCLI(t, nil, append([]string{"game", "new", "--name", sampleGame, "--ruleset", "soldiers1918",
		"--player", "us=" + sampleUS, "--player", "de=" + sampleDE, "--password", "us=" + samplePassUS}, flags...)...)
	// The host sees one line per side; the German password was generated.
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "us\t"+sampleUS+"\t"+samplePassUS) || !strings.HasPrefix(lines[1], "de\t"+sampleDE+"\t") {
		t.Fatalf("game new printed %q, want one line per side with address and password", out)
	}
	passDE := strings.Split(lines[1], "\t")[2]
	if len(passDE) < 10 {
		t.Fatalf("generated password %q is too short", passDE)
	}

	script := sampleScript()
	for i, m := range script {
		m.Body = strings.ReplaceAll(m.Body, samplePassDE, passDE)
		raw := eml(m, sampleAddress, fmt.Sprintf("game-%d@players.example", i), time.Date(2026, 11, 22, 12, i, 0, 0, time.UTC))
		got := mustCLI(t, raw, append([]string{"handle"}, flags...)...)
		if !strings.HasPrefix(got, "handled") {
			t.Fatalf("mail %d: handle = %q, want handled", i, got)
		}
		// Invariant 1: the same message again is a no-op.
		before := len(outbox(t, db))
		if got := mustCLI(t, raw, append([]string{"handle"}, flags...)...); strings.TrimSpace(got) != "duplicate" {
			t.Fatalf("mail %d handled twice: %q, want duplicate", i, got)
		}
		if after := len(outbox(t, db)); after != before {
			t.Fatalf("mail %d handled twice queued %d more mails", i, after-before)
		}
	}

	mails := outbox(t, db)
	to := func(addr string) []outMailJSON {
		var out []outMailJSON
		for _, m := range mails {
			if len(m.To) == 1 && m.To[0] == addr {
				out = append(out, m)
			}
		}
		return out
	}
	us, de := to(sampleUS), to(sampleDE)
	if len(us)+len(de) != len(mails) {
		t.Fatalf("%d mails went to neither player", len(mails)-len(us)-len(de))
	}

	for _, side := range []struct {
		name string
		box  []outMailJSON
	}{{"US", us}, {"German", de}} {
		t.Run(side.name, func(t *testing.T) {
			checkPlayerMails(t, side.box)
		})
	}

	// Secrets (invariant 5): no mail to a side shows a hex of the other side's sealed plot
	// before that plot is executed; and every plot is revealed in the end.
	checkNoLeak(t, "US plot", sampleUSPlots, de)
	checkNoLeak(t, "German plot", sampleDEPlots, us)

	// Both sides saw every roll: the number of rolls shown equals the audited rolls.
	audit := mustCLI(t, nil, append([]string{"audit", "export", "--game", sampleGame, "--format", "json"}, flags...)...)
	var export struct{ Entries []struct{ Kind string } }
	if err := json.Unmarshal([]byte(audit), &export); err != nil {
		t.Fatal(err)
	}
	rolls := 0
	for _, e := range export.Entries {
		if e.Kind == "roll" {
			rolls++
		}
	}
	record := regexp.MustCompile(`(?m)^  \d+ \[`) // a roll in a results mail's dice section
	for _, box := range [][]outMailJSON{us, de} {
		shown := 0
		for _, m := range box {
			if m.Kind == "results" {
				shown += len(record.FindAllString(m.Body, -1))
			}
		}
		if shown != rolls || rolls == 0 {
			t.Errorf("results mails show %d rolls, the audit holds %d", shown, rolls)
		}
	}

	got := mustCLI(t, nil, append([]string{"audit", "verify", "--game", sampleGame}, flags...)...)
	if want := fmt.Sprintf("%d rolls, %d re-derived from revealed seeds, 0 awaiting", rolls, rolls); !strings.Contains(got, want) {
		t.Errorf("audit verify = %q, want it to contain %q", got, want)
	}
	if got := mustCLI(t, nil, append([]string{"replay", "--game", sampleGame}, flags...)...); !strings.Contains(got, "matches") {
		t.Errorf("replay = %q", got)
	}
	// The last results mail says the game is over, with the 4.2 penetration.
	last := us[len(us)-1]
	if !strings.HasPrefix(last.Subject, "[sample] ") || !strings.HasPrefix(last.Body, "Game over: ") || !strings.Contains(last.Body, "penetration") {
		t.Errorf("last mail to the US: %q\n%s", last.Subject, last.Body)
	}

	// Tampering is caught: the audit chain and the replay compare against what was sent.
	tamper(t, db, 'a', func(v []byte) []byte {
		e, err := store.DecodeAuditRecord(v)
		if err != nil || len(e.Values) == 0 {
			return v
		}
		e.Values = append([]int{9}, e.Values...)
		return store.EncodeAuditRecord(e)
	})
	if code, out, errs := cli(t, nil, append([]string{"audit", "verify", "--game", sampleGame}, flags...)...); code != 1 || !strings.Contains(errs, "audit entry #") {
		t.Errorf("audit verify after tampering: exit %d, %q %q; want exit 1 naming the entry", code, out, errs)
	}
}

// checkPlayerMails checks one player's mails: every revealed plot and seed matches the
// commitment that player was sent before.
func checkPlayerMails(t *testing.T, box []outMailJSON) {
	t.Helper()
	commitments := map[string]bool{}
	seedCommits := map[string]string{}
	results := 0
	for _, m := range box {
		if m.MessageID == "" || !strings.Contains(m.MessageID, "@") {
			t.Errorf("mail %q has no stable Message-ID", m.Subject)
		}
		for _, c := range commitmentLine.FindAllStringSubmatch(m.Body, -1) {
			commitments[c[1]] = true
		}
		for _, c := range seedCommit.FindAllStringSubmatch(m.Body, -1) {
			seedCommits[c[1]] = c[2]
		}
		// Prose is wrapped and the map cut into strips for a phone: only a line
		// holding a 64-digit hash may be longer than 78 columns.
		for _, l := range strings.Split(m.Body, "\n") {
			if n := len([]rune(l)); n > 78 && !longHash.MatchString(l) {
				t.Errorf("%s: line of %d columns: %q", m.Subject, n, l)
			}
		}
		if m.Kind != "results" {
			continue
		}
		results++
		for _, r := range revealedBlock.FindAllStringSubmatch(m.Body, -1) {
			text, salt, commitment := r[2], r[4], r[5]
			if sha(text+"|"+salt) != commitment {
				t.Errorf("%s: revealed %q with salt %s does not hash to %s", m.Subject, text, salt, commitment)
			}
		}
		for _, s := range seedLine.FindAllStringSubmatch(m.Body, -1) {
			seed, _ := hex.DecodeString(s[2])
			sum := sha256.Sum256(seed)
			if hex.EncodeToString(sum[:]) != s[3] || seedCommits[s[1]] != s[3] {
				t.Errorf("%s: seed of turn %s does not match the commitment published before (%s)", m.Subject, s[1], seedCommits[s[1]])
			}
		}

	}
	if results < 6 {
		t.Errorf("%d results mails, want at least one per turn", results)
	}
	if len(seedCommits) < 7 {
		t.Errorf("seed commitments for %d turns published, want turn 0 to 6", len(seedCommits))
	}
}

// checkNoLeak fails if a mail to the opponent shows a hex of a sealed plot before the
// mail that reveals that plot, or if a plot is never revealed.
func checkNoLeak(t *testing.T, what string, plots []string, opponent []outMailJSON) {
	t.Helper()
	for i, plot := range plots {
		turn := i + 1
		text := fmt.Sprintf("PLOT TURN %d %s", turn, plot)
		revealedAt := -1
		for j, m := range opponent {
			// The long form, or a short order's one line (LayoutCompact).
			if strings.Contains(m.Body, "    "+text+"\n") || strings.Contains(m.Body, "\n"+text+" (salt ") {
				revealedAt = j
				break
			}
		}
		if revealedAt < 0 {
			t.Errorf("%s for turn %d (%s) was never revealed to the opponent", what, turn, plot)
			continue
		}
		for _, h := range plotItemHex.FindAllStringSubmatch(plot, -1) {
			for _, m := range opponent[:revealedAt] {
				for _, tok := range hexToken.FindAllString(m.Body, -1) {
					if tok == h[1] {
						t.Errorf("%s for turn %d leaked: hex %s in %q before its reveal:\n%s", what, turn, h[1], m.Subject, m.Body)
					}
				}
			}
		}
	}
}

// tamper rewrites the first of the sample game's records of one kind that f changes.
func tamper(t *testing.T, path string, kind byte, f func([]byte) []byte) {
	t.Helper()
	inGameRecords(t, path, kind, func(r gameRecords) error {
		errDone := errors.New("done")
		err := r.each(func(k, v []byte) error {
			if nv := f(bytes.Clone(v)); !bytes.Equal(nv, v) {
				if err := r.put(k, nv); err != nil {
					return err
				}
				return errDone
			}
			return nil
		})
		if err == errDone {
			return nil
		} else if err != nil {
			return err
		}
		return fmt.Errorf("nothing to tamper with in records %c", kind)
	})
}

// TestMatchByPipe plays the two-game match of 4.2: the second game with the sides
// switched, the same passwords and the first game's division quality, and the verdict.
func TestMatchByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "match.db")
	flags := []string{"--db", db, "--address", sampleAddress}
	mustCLI(t, nil, append([]string{"game", "new", "--name", "first", "--player", "us=" + sampleUS, "--player", "de=" + sampleDE,
		"--password", "us=" + samplePassUS, "--password", "de=" + samplePassDE}, flags...)...)
	play := func(game string, mails []scripted) {
		for i, m := range mails {
			raw := eml(m, sampleAddress, fmt.Sprintf("%s-%d@players.example", game, i), time.Date(2026, 11, 22, 12, i, 0, 0, time.UTC))
			if got := mustCLI(t, raw, append([]string{"handle"}, flags...)...); !strings.HasPrefix(got, "handled") {
				t.Fatalf("%s mail %d: %q", game, i, got)
			}
		}
	}
	play("first", script("first", sampleUS, samplePassUS, sampleDE, samplePassDE))
	// A second game before the first is over is refused; after it, sides switch.
	out := mustCLI(t, nil, append([]string{"game", "new", "--name", "second", "--match-of", "first"}, flags...)...)
	if !strings.Contains(out, "us\t"+sampleDE) || !strings.Contains(out, "de\t"+sampleUS) || !strings.Contains(out, "same as in game first") {
		t.Fatalf("game new --match-of printed %q, want the sides switched and the passwords kept", out)
	}
	// Pershing now plays the Germans, with his own password.
	play("second", script("second", sampleDE, samplePassDE, sampleUS, samplePassUS))
	mails := outbox(t, db)
	var first, second, verdict string
	for _, m := range mails {
		switch {
		case m.Game == "first" && m.Kind == "results" && strings.HasPrefix(m.Body, "Game over: ") && m.Side == "us":
			first = m.Body
		case m.Game == "second" && m.Kind == "results" && strings.HasPrefix(m.Body, "Game over: ") && m.Side == "us":
			second = m.Body
		}
		if m.Game == "second" && strings.Contains(strings.Join(strings.Fields(m.Body), " "), "the first game holds") {
			verdict = "quality carried over"
		}
	}
	if first == "" || second == "" {
		t.Fatalf("a game did not end: first %v, second %v", first != "", second != "")
	}
	if verdict == "" {
		t.Error("the second game rolled its own division quality (4.2: the first game's holds)")
	}
	i := strings.Index(second, "Match verdict (4.2)")
	if i < 0 {
		t.Fatalf("no match verdict in the last mail:\n%s", second)
	}
	v := strings.Join(strings.Fields(second[i:strings.Index(second[i:], ".\n")+i]), " ")
	pen := func(body string) string {
		j := strings.Index(body, "US penetration ")
		return body[j+len("US penetration ") : j+len("US penetration ")+2]
	}
	p1, p2 := pen(first), pen(second)
	var want string
	switch {
	case p1 > p2:
		want = sampleUS + " wins the match"
	case p2 > p1:
		want = sampleDE + " wins the match"
	default:
		want = "the match is drawn"
	}
	if !strings.Contains(v, "penetration "+p1) || !strings.Contains(v, "penetration "+p2) || !strings.Contains(v, want) {
		t.Errorf("verdict %q for penetrations %s and %s, want %q", v, p1, p2, want)
	}
	for _, g := range []string{"first", "second"} {
		mustCLI(t, nil, append([]string{"replay", "--game", g}, flags...)...)
		mustCLI(t, nil, append([]string{"audit", "verify", "--game", g}, flags...)...)
	}
	checkRollsFromMails(t, mails, flags, "first", "second")
}

// TestHostCommandsTakeServeConfig: with --config the host commands use the daemon's
// address and bbolt file, and refuse an --address, ADJUTANT_ADDRESS or --db that says
// otherwise, so that the invitations name the mailbox serve sends from.
func TestHostCommandsTakeServeConfig(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "games.db")
	path := filepath.Join(dir, "adjutant.toml")
	// The mail servers are not needed to create a game: no password is set or looked for.
	writeClubConfig(t, path, fmt.Sprintf("address = \"game@club.example\"\ndatabase = %q\n", db))
	newGame := []string{"game", "new", "--config", path, "--name", "verdun", "--player", "us=" + sampleUS, "--player", "de=" + sampleDE}
	t.Setenv("ADJUTANT_ADDRESS", "")
	for _, tc := range []struct {
		name    string
		extra   []string
		env     string
		wantErr string
	}{
		{"--address differs", []string{"--address", "adjutant@localhost"}, "", "--address adjutant@localhost disagrees with address game@club.example in " + path},
		{"ADJUTANT_ADDRESS differs", nil, "other@club.example", "ADJUTANT_ADDRESS other@club.example disagrees with address game@club.example"},
		{"--db differs", []string{"--db", filepath.Join(dir, "other.db")}, "", "--db " + filepath.Join(dir, "other.db") + " disagrees with database " + db},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("ADJUTANT_ADDRESS", tc.env)
			code, _, errs := cli(t, nil, append(newGame, tc.extra...)...)
			if code != 1 || !strings.Contains(errs, tc.wantErr) {
				t.Errorf("exit %d, stderr %q; want 1 and %q", code, errs, tc.wantErr)
			}
			if _, err := os.Stat(db); err == nil {
				t.Errorf("the refused command created %s", db)
			}
		})
	}
	// The same address (in any case) and the same file are no disagreement.
	mustCLI(t, nil, append(newGame, "--address", "Game@Club.example", "--db", db)...)
	mails := outbox(t, db)
	viaConfig := outboxBy(t, "--config", path)
	if len(mails) != 2 || len(viaConfig) != 2 {
		t.Fatalf("outbox --db shows %d mails, outbox --config %d; want the 2 invitations in both", len(mails), len(viaConfig))
	}
	for _, m := range mails {
		if !strings.Contains(m.Body, "game@club.example") || strings.Contains(m.Body, "adjutant@localhost") {
			t.Errorf("the invitation to %v does not send orders to the configured mailbox:\n%s", m.To, m.Body)
		}
	}
	// Without --config: ADJUTANT_ADDRESS, then the default.
	t.Setenv("ADJUTANT_ADDRESS", "pipe@club.example")
	pipeDB := filepath.Join(dir, "pipe.db")
	mustCLI(t, nil, "game", "new", "--db", pipeDB, "--name", "soissons", "--player", "us="+sampleUS, "--player", "de="+sampleDE)
	if m := outbox(t, pipeDB); len(m) == 0 || !strings.Contains(m[0].Body, "pipe@club.example") {
		t.Errorf("ADJUTANT_ADDRESS not used without --config: %+v", m)
	}
	if code, _, errs := cli(t, nil, "outbox"); code != 2 || !strings.Contains(errs, "--db (or --config) is required") {
		t.Errorf("outbox without --db or --config: exit %d, %q", code, errs)
	}
}

// TestDemoPipePlaysTheMatch: `demo --pipe` plays the two games of the 4.2 match, as the
// README says, and verifies and replays both.
func TestDemoPipePlaysTheMatch(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	out := mustCLI(t, nil, "demo", "--pipe", "--quiet", "--db", db)
	for _, g := range []string{sampleGame, sampleReturn} {
		for _, w := range []string{"audit of " + g + " verified", "replay of " + g + " matches"} {
			if !strings.Contains(out, w) {
				t.Errorf("the demo's summary lacks %q:\n%s", w, out)
			}
		}
	}
	verdict := false
	for _, m := range outbox(t, db) {
		verdict = verdict || m.Game == sampleReturn && strings.Contains(m.Body, "Match verdict (4.2)")
	}
	if !verdict {
		t.Error("no mail of the return game gives the match verdict")
	}
}
