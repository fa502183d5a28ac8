// Package record builds the record of a game for one reader: one .zip (which every
// system opens without extra software) holding
//
//	README.txt     what is inside and how to check it offline
//	mails.mbox     every mail of the game as the reader received it (mboxrd)
//	audit.json     the audit export: `adjutant audit verify --export audit.json`
//	revealed.txt   the dice seeds and sealed orders revealed
//	record.html    one self-contained page that steps through the game, advance by
//	               advance, as the reader saw it: the results mail and its map picture
//
// The reader is a side (a player's record), an address (an observer's, whose mails
// show only what both sides may see), or the host (every side). Nothing goes into a
// side's record that the side was not mailed: its own mails, the audit chain (which
// ROLLS gives any player), and the seeds and sealed orders once revealed to both.
package record

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
	"github.com/adjutant-pbem/adjutant/templates"
)

// Reader is whose record it is.
type Reader struct {
	// Side is the reader's side: its mails and its view of the map.
	Side string
	// Address, when set, picks the mails sent to this address instead of a side's (an
	// observer's: lobby24's neutral view); no picture is drawn for it.
	Address string
	// Host makes the host's record: every mail of the game, and each side's view.
	Host bool
}

// Neutral names the reader of an observer's record in its title.
const Neutral = "neutral"

// Input is what a record is built from.
type Input struct {
	// Game is the game's complete record (store.ReadGameRecord, or an archive file);
	// its AuditExport must be set.
	Game store.Archive
	// Title is the ruleset's title; SideNames the name of each side id.
	Title     string
	SideNames map[string]string
	// Pictures are the map pictures after each advance, by journal entry and side
	// (adjudicator's Desk.RecordPictures); nil draws none.
	Pictures map[uint64]map[string][]byte
	// Before, when not 0, keeps only the mails queued before this outbox number: the
	// record mail's own, so that the same record is built each time it is sent.
	Before uint64
	// From is the game mailbox, the From of every mail in the mbox.
	From string
}

// FileName is the name of a reader's record file.
func FileName(game string, r Reader) string {
	who := r.Side
	switch {
	case r.Host:
		who = "host"
	case r.Address != "":
		who = Neutral
	}
	return fmt.Sprintf("%s-record-%s.zip", game, who)
}

// Build returns the record of in for r, as the bytes of a zip file. The same input
// gives the same bytes (every file dated the game's last mail).
func Build(in Input, r Reader) ([]byte, error) {
	if len(in.Game.AuditExport) == 0 {
		return nil, fmt.Errorf("record of %s: no audit export", in.Game.Game.Name)
	}
	mails := readerMails(in, r)
	var date time.Time
	for _, m := range mails {
		if m.Queued.After(date) {
			date = m.Queued
		}
	}
	if date.IsZero() {
		date = in.Game.Game.Created
	}
	html, err := page(in, r, mails)
	if err != nil {
		return nil, err
	}
	files := []struct {
		name string
		data []byte
	}{
		{"README.txt", []byte(readme(in, r))},
		{"record.html", html},
		{"mails.mbox", mbox(in.From, mails)},
		{"audit.json", in.Game.AuditExport},
		{"revealed.txt", []byte(revealed(in))},
	}
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	dir := strings.TrimSuffix(FileName(in.Game.Game.Name, r), ".zip") + "/"
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: dir + f.name, Method: zip.Deflate, Modified: date.UTC()})
		if err != nil {
			return nil, fmt.Errorf("record of %s: %w", in.Game.Game.Name, err)
		}
		if _, err := w.Write(f.data); err != nil {
			return nil, fmt.Errorf("record of %s: %w", in.Game.Game.Name, err)
		}
	}
	if err := zw.Close(); err != nil {
		return nil, fmt.Errorf("record of %s: %w", in.Game.Game.Name, err)
	}
	return b.Bytes(), nil
}

// readerMails are the mails of the game r received, in the order queued, with any
// secret a mail not yet sent still holds masked as the store masks it once sent.
func readerMails(in Input, r Reader) []store.OutMail {
	var out []store.OutMail
	for _, m := range in.Game.Mails {
		if in.Before != 0 && m.Seq >= in.Before {
			continue
		}
		if !r.Host && !sentTo(m, r) {
			continue
		}
		for _, s := range m.Redact {
			if s != "" {
				m.Body = strings.ReplaceAll(m.Body, s, store.Redacted)
			}
		}
		m.Redact = nil
		out = append(out, m)
	}
	return out
}

// sentTo says whether m went to r (not the host).
func sentTo(m store.OutMail, r Reader) bool {
	if r.Address != "" {
		return slices.ContainsFunc(m.To, func(a string) bool { return strings.EqualFold(a, r.Address) })
	}
	return m.Side == r.Side
}

// readerName is how the record names its reader.
func readerName(in Input, r Reader) string {
	switch {
	case r.Host:
		return "the host"
	case r.Address != "":
		return "an observer"
	}
	if n := in.SideNames[r.Side]; n != "" {
		return n
	}
	return r.Side
}

// mbox writes mails in the mboxrd format, each as an RFC 5322 message in UTF-8: the
// text as received (the HTML alternative and its pictures are not kept once sent).
func mbox(from string, mails []store.OutMail) []byte {
	var b bytes.Buffer
	for _, m := range mails {
		fmt.Fprintf(&b, "From %s %s\n", mboxAddr(from), m.Queued.UTC().Format("Mon Jan _2 15:04:05 2006"))
		fmt.Fprintf(&b, "From: %s\nTo: %s\nSubject: %s\nDate: %s\nMessage-ID: <%s>\n", from, strings.Join(m.To, ", "),
			headerText(m.Subject), m.Queued.UTC().Format(time.RFC1123Z), m.MessageID)
		if m.InReplyTo != "" {
			fmt.Fprintf(&b, "In-Reply-To: <%s>\n", m.InReplyTo)
		}
		if len(m.References) > 0 {
			fmt.Fprintf(&b, "References: <%s>\n", strings.Join(m.References, "> <"))
		}
		b.WriteString("MIME-Version: 1.0\nContent-Type: text/plain; charset=utf-8\nContent-Transfer-Encoding: 8bit\n\n")
		for _, line := range strings.Split(strings.ReplaceAll(m.Body, "\r\n", "\n"), "\n") {
			// mboxrd: a line that reads "From " after any number of ">" gets one more.
			if strings.HasPrefix(strings.TrimLeft(line, ">"), "From ") {
				b.WriteByte('>')
			}
			b.WriteString(line)
			b.WriteByte('\n')
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

func mboxAddr(a string) string {
	if a == "" || strings.ContainsAny(a, " \t") {
		return "MAILER-DAEMON"
	}
	return a
}

// headerText keeps a header on one line.
func headerText(s string) string { return strings.NewReplacer("\r", " ", "\n", " ").Replace(s) }

// revealed lists the dice seeds and the sealed orders revealed, for checking by hand.
func revealed(in Input) string {
	var b strings.Builder
	g := in.Game
	fmt.Fprintf(&b, "Game %s: the dice seeds and sealed orders revealed.\n\n", g.Game.Name)
	b.WriteString("Dice seeds. SHA-256 of the seed's 32 bytes (the hex decoded) is the commitment mailed\nbefore the turn's orders were due; every roll of the turn is derived from the seed\n(adjudicator/dice/doc.go, docs/checkdice.py).\n\n")
	for _, s := range g.Seeds {
		if !s.Revealed {
			continue
		}
		turn := fmt.Sprintf("turn %d", s.Turn)
		if s.Turn == store.DeckSeedTurn {
			turn = "deck seed"
		}
		fmt.Fprintf(&b, "%s\n  seed       %s\n  commitment %s\n", turn, s.Secret, s.Commitment)
	}
	b.WriteString("\nSealed orders. The commitment is SHA-256 of the text, a \"|\" and the salt, as each\nreceipt and notice gave it.\n\n")
	// In the order the results mails revealed them (the journal's), each once.
	seen := map[string]bool{}
	for _, j := range g.Journal {
		for _, o := range j.Revealed {
			if seen[o.Commitment] {
				continue
			}
			seen[o.Commitment] = true
			fmt.Fprintf(&b, "%s, phase %s, %s (revealed %s)\n  text       %s\n  salt       %s\n  commitment %s\n",
				sideName(in, o.Side), o.Phase, o.Kind, stepLabel(j), strings.ReplaceAll(o.Text, "\n", "\n             "), o.Salt, o.Commitment)
		}
	}
	return b.String()
}

func readme(in Input, r Reader) string {
	g := in.Game.Game
	return fmt.Sprintf(`The record of game %s (%s), as %s saw it.

record.html   open it in any web browser: it steps through the game, each results
              mail as it was received with the picture of the map that went with it,
              and the verdict. It needs no network and runs no script.
mails.mbox    every mail of the game as it was received (the text; the pictures are
              drawn again in record.html): open it in Thunderbird, mutt -f, or any
              mail program that reads mbox.
audit.json    the audit chain of every roll, the host's public key and the signed
              chain heads: check it offline with
                  adjutant audit verify --export audit.json
              docs/checkdice.py (in Adjutant's source) checks every roll of a results
              mail from the mail alone.
revealed.txt  the dice seeds and the sealed orders, revealed: check each against the
              commitment your mails gave before it was revealed.
`, g.Name, in.Title, readerName(in, r))
}

// pageStep and pageView are record.html's data.
type pageStep struct {
	ID, Prev, Next  string
	N, PrevN, NextN int
	Label           string
	Views           []pageView
}

type pageView struct {
	Side    string
	Picture template.URL
	Alt     string
	Text    string
}

// page renders record.html: a step for each advance the reader was mailed results of.
func page(in Input, r Reader, mails []store.OutMail) ([]byte, error) {
	byID := map[string]store.OutMail{}
	for _, m := range mails {
		byID[m.MessageID] = m
	}
	var steps []pageStep
	for _, j := range in.Game.Journal {
		var views []pageView
		for _, id := range j.MailIDs {
			m, ok := byID[id]
			if !ok {
				continue
			}
			v := pageView{Text: m.Body}
			if r.Host {
				v.Side = in.SideNames[m.Side]
			}
			if png := in.Pictures[j.Seq][m.Side]; len(png) > 0 && r.Address == "" {
				v.Picture = template.URL("data:image/png;base64," + base64.StdEncoding.EncodeToString(png))
				v.Alt = fmt.Sprintf("The map as %s saw it after this step.", sideName(in, m.Side))
			}
			views = append(views, v)
		}
		if r.Address != "" {
			// An observer's results are not the players' mails: his own, of this advance.
			for _, m := range mails {
				if m.Kind == "results" && m.Queued.Equal(j.Now) {
					views = append(views, pageView{Text: m.Body})
				}
			}
		}
		if len(views) == 0 {
			continue
		}
		steps = append(steps, pageStep{Label: stepLabel(j), Views: views})
	}
	for i := range steps {
		steps[i].N, steps[i].ID = i+1, fmt.Sprintf("step-%d", i+1)
		if i > 0 {
			steps[i].Prev, steps[i].PrevN = fmt.Sprintf("step-%d", i), i
		}
		if i+1 < len(steps) {
			steps[i].Next, steps[i].NextN = fmt.Sprintf("step-%d", i+2), i+2
		}
	}
	return templates.RenderRecordHTML(map[string]any{
		"Game":    in.Game.Game.Name,
		"Title":   in.Title,
		"Reader":  readerName(in, r),
		"Verdict": verdict(mails),
		"Steps":   steps,
		"Count":   len(steps),
	})
}

func sideName(in Input, side string) string {
	if n := in.SideNames[side]; n != "" {
		return n
	}
	return side
}

// verdict is the headline of the last mail that gives the end of the game: its first
// line and the lines it wraps onto, up to a blank line or the line that says how to
// answer (adjudicator's headline: "Send ROLLS ...").
func verdict(mails []store.OutMail) string {
	for i := len(mails) - 1; i >= 0; i-- {
		if !strings.HasPrefix(mails[i].Body, "Game over") {
			continue
		}
		var head []string
		for _, l := range strings.Split(mails[i].Body, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || strings.HasPrefix(l, "Send ROLLS") {
				break
			}
			head = append(head, l)
		}
		return strings.Join(head, " ")
	}
	return ""
}

// Open reads the files of a record (for tests and for a host who wants to look).
func Open(zipBytes []byte) (map[string][]byte, error) {
	zr, err := zip.NewReader(bytes.NewReader(zipBytes), int64(len(zipBytes)))
	if err != nil {
		return nil, fmt.Errorf("open record: %w", err)
	}
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("open record: %s: %w", f.Name, err)
		}
		data, err := io.ReadAll(io.LimitReader(rc, 64<<20))
		rc.Close()
		if err != nil {
			return nil, fmt.Errorf("open record: %s: %w", f.Name, err)
		}
		_, base, _ := strings.Cut(f.Name, "/")
		out[base] = data
	}
	return out, nil
}

// stepLabel names the phases an advance resolved.
func stepLabel(j store.JournalEntry) string {
	n := len(j.Steps)
	if n == 0 {
		return "no phase"
	}
	first, last := j.Steps[0], j.Steps[n-1]
	if n == 1 {
		return fmt.Sprintf("turn %d, phase %s", last.Turn, last.Phase)
	}
	return fmt.Sprintf("turn %d, phase %s to turn %d, phase %s", first.Turn, first.Phase, last.Turn, last.Phase)
}
