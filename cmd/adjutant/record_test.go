package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/record"
	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestRecord (issue 24) checks the record of the demo match's games: what it holds,
// that it keeps each side's secrets, and that it is mailed at the end. One demo for all.
func TestRecord(t *testing.T) {
	db := filepath.Join(t.TempDir(), "demo.db")
	mustCLI(t, nil, "demo", "--pipe", "--quiet", "--db", db)
	t.Run("contents", func(t *testing.T) { testRecordOfAFinishedGame(t, db) })
	t.Run("secrets", func(t *testing.T) { testRecordKeepsSecrets(t, db) })
	t.Run("mailed", func(t *testing.T) { testRecordMailAtTheEnd(t, db) })
}

// exportRecord runs `game export` and returns the record's files.
func exportRecord(t *testing.T, db, game, side string) map[string][]byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), game+"-"+side+".zip")
	args := []string{"game", "export", game, "--db", db, "--out", out}
	if side != "" {
		args = append(args, "--side", side)
	}
	mustCLI(t, nil, args...)
	raw, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	files, err := record.Open(raw)
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// testRecordOfAFinishedGame (issue 24): the record of each side of the demo game holds
// the mails that side received, an audit export that verifies on its own, the seeds
// and sealed orders revealed, and a record.html with a step per advance, a map picture
// in each and the verdict; the host's record shows every side.
func testRecordOfAFinishedGame(t *testing.T, db string) {
	a := gameRecord(t, db, sampleGame)
	for _, side := range []string{"us", "de", ""} {
		files := exportRecord(t, db, sampleGame, side)
		for _, name := range []string{"README.txt", "record.html", "mails.mbox", "audit.json", "revealed.txt"} {
			if len(files[name]) == 0 {
				t.Errorf("record of %q: %s missing or empty", side, name)
			}
		}
		rep, err := adjudicator.VerifyExport(bytes.NewReader(files["audit.json"]))
		if err != nil || rep.Verified != rep.Rolls || rep.Signatures == 0 {
			t.Errorf("record of %q: audit.json: %+v, %v", side, rep, err)
		}
		// The same through the command line, as the README tells a player.
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "audit.json"), files["audit.json"], 0o600)
		if out := mustCLI(t, nil, "audit", "verify", "--export", filepath.Join(dir, "audit.json")); !strings.Contains(out, "verified") {
			t.Errorf("audit verify --export of the record: %s", out)
		}
		mbox := string(files["mails.mbox"])
		for _, m := range a.Mails {
			in := strings.Contains(mbox, "Message-ID: <"+m.MessageID+">")
			if want := side == "" || m.Side == side; in != want && m.Kind != adjudicator.KindRecord {
				t.Errorf("record of %q: mail %s to %s (%s) in the mbox: %v", side, m.MessageID, m.Side, m.Kind, in)
			}
		}
		html := string(files["record.html"])
		steps := strings.Count(html, `<section class="step"`)
		pictures := strings.Count(html, `src="data:image/png;base64,`)
		perStep := 1
		if side == "" {
			perStep = 2
		}
		if steps != len(a.Journal) || pictures != perStep*steps {
			t.Errorf("record of %q: %d steps with %d pictures; the game had %d advances", side, steps, pictures, len(a.Journal))
		}
		if !regexp.MustCompile(`class="verdict"[^>]*>Game over: `).MatchString(html) {
			t.Errorf("record of %q: no verdict at the top of record.html", side)
		}
		for _, bad := range []string{"<script", "http://", "https://", "src=\"file:", "@import", "url("} {
			if strings.Contains(html, bad) {
				t.Errorf("record of %q: record.html holds %q: not self-contained", side, bad)
			}
		}
		if rev := string(files["revealed.txt"]); !strings.Contains(rev, "1911x3, 3603x3") || !strings.Contains(rev, "seed ") {
			t.Errorf("record of %q: revealed.txt lacks the US plot or the seeds:\n%s", side, rev)
		}
	}
}

// gameRecord reads a game's complete record from the store at path.
func gameRecord(t *testing.T, path, game string) store.Archive {
	t.Helper()
	db, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var a store.Archive
	if err := db.Read(t.Context(), func(tx store.Tx) error {
		a, err = store.ReadGameRecord(tx, game)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	return a
}

// testRecordKeepsSecrets (invariant 5): no side's record tells a sealed order of the
// other side before the step that revealed it, in record.html or in its mails, and an
// order never revealed not at all.
func testRecordKeepsSecrets(t *testing.T, db string) {
	checked := 0
	for _, game := range []string{sampleGame, sampleReturn} {
		a := gameRecord(t, db, game)
		revealedAt := map[string]int{} // commitment -> journal index
		for i, j := range a.Journal {
			for _, o := range j.Revealed {
				if _, ok := revealedAt[o.Commitment]; !ok {
					revealedAt[o.Commitment] = i
				}
			}
		}
		var sealed []store.Order
		for _, j := range a.Journal {
			for _, s := range j.Steps {
				for _, o := range s.Orders {
					if o.Sealed {
						sealed = append(sealed, o)
					}
				}
			}
		}
		for _, o := range a.Orders {
			if o.Sealed {
				sealed = append(sealed, o)
			}
		}
		records := map[string]map[string][]byte{}
		for _, side := range []string{"us", "de"} {
			records[side] = exportRecord(t, db, game, side)
		}
		for _, o := range sealed {
			secret := secretOf(o.Text)
			if secret == "" {
				continue
			}
			other := map[string]string{"us": "de", "de": "us"}[o.Side]
			files := records[other]
			at, revealed := revealedAt[o.Commitment]
			steps := strings.Split(string(files["record.html"]), `<section class="step"`)[1:]
			for i, s := range steps {
				if (!revealed || i < at) && strings.Contains(s, secret) {
					t.Errorf("%s: the %s record's step %d shows the %s order %q, revealed at step %d (%v)", game, other, i+1, o.Side, o.Text, at+1, revealed)
				}
			}
			for _, m := range strings.Split(string(files["mails.mbox"]), "\nFrom ") {
				if !strings.Contains(m, secret) {
					continue
				}
				if !revealed || !mailAfter(m, a, at) {
					t.Errorf("%s: a mail in the %s record shows the %s order %q before its reveal:\n%.300s", game, other, o.Side, o.Text, m)
				}
			}
			if !revealed {
				for name, data := range files {
					if strings.Contains(string(data), secret) {
						t.Errorf("%s: the %s record's %s shows the %s order %q, never revealed", game, other, name, o.Side, o.Text)
					}
				}
			}
			checked++
		}
	}
	if checked < 12 {
		t.Errorf("only %d sealed orders checked", checked)
	}
}

// secretOf is what a sealed order says beyond its keywords (a plot's hexes), or "" when
// it says nothing worth scanning for (NONE).
func secretOf(text string) string {
	f := strings.Fields(text)
	if len(f) < 4 || strings.EqualFold(f[len(f)-1], "NONE") {
		return ""
	}
	return strings.Join(f[3:], " ")
}

// mailAfter says whether the mbox entry m is a mail of a's advance at or after journal
// index at (by its Message-ID), or a later mail.
func mailAfter(m string, a store.Archive, at int) bool {
	id := regexp.MustCompile(`Message-ID: <([^>]+)>`).FindStringSubmatch(m)
	if id == nil {
		return false
	}
	var seq uint64
	for _, om := range a.Mails {
		if om.MessageID == id[1] {
			seq = om.Seq
		}
	}
	for _, j := range a.Journal[at:] {
		for _, mid := range j.MailIDs {
			for _, om := range a.Mails {
				if om.MessageID == mid && om.Seq <= seq {
					return true
				}
			}
		}
	}
	return false
}

// testRecordMailAtTheEnd: when the game ends each player gets one mail that starts
// with the verdict and carries his record as a zip attachment, built by the sender
// as the mail is sent.
func testRecordMailAtTheEnd(t *testing.T, db string) {
	var records []outMailJSON
	for _, m := range outbox(t, db) {
		if m.Game == sampleGame && m.Kind == adjudicator.KindRecord {
			records = append(records, m)
		}
	}
	if len(records) != 2 {
		t.Fatalf("%d record mails for %s, want one per player", len(records), sampleGame)
	}
	for _, m := range records {
		if !strings.HasPrefix(m.Body, "Game over: ") || !strings.Contains(m.Body, "adjutant audit verify --export audit.json") {
			t.Errorf("record mail to %s:\n%s", m.Side, m.Body)
		}
	}
	st, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	sender := &mail.Sender{Config: mail.SMTPConfig{From: sampleAddress}, Store: st, Attach: storeRecordAttach(st, sampleAddress)}
	found := map[string]bool{}
	for _, r := range records {
		m, err := readMail(t, st, r.MessageID)
		if err != nil {
			t.Fatal(err)
		}
		msg, err := sender.Build(m)
		if err != nil {
			t.Fatal(err)
		}
		var raw bytes.Buffer
		if _, err := msg.WriteTo(&raw); err != nil {
			t.Fatal(err)
		}
		file := record.FileName(sampleGame, record.Reader{Side: m.Side})
		if bytes.Contains(raw.Bytes(), []byte(`filename="`+file+`"`)) && bytes.Contains(raw.Bytes(), []byte("Content-Type: application/zip")) {
			found[m.Side] = true
		}
	}
	if !found["us"] || !found["de"] {
		t.Errorf("record attachments in the Maildir: %v, want us and de", found)
	}
}

// readMail reads the outbox mail with the given Message-ID.
func readMail(t *testing.T, st store.Store, id string) (store.OutMail, error) {
	t.Helper()
	var m store.OutMail
	err := st.Read(t.Context(), func(tx store.Tx) error {
		_, found, err := tx.LastOutMail(func(h store.OutMail) bool {
			if h.MessageID == id {
				m = h
				return true
			}
			return false
		})
		if err == nil && !found {
			err = store.ErrNotFound
		}
		return err
	})
	if err == nil {
		err = st.Read(t.Context(), func(tx store.Tx) error { m, err = tx.OutMailAt(m.Seq); return err })
	}
	return m, err
}
