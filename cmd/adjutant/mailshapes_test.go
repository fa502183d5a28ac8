package main

import (
	"encoding/base64"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
	"golang.org/x/text/encoding/charmap"
)

// Mail as people write it (issue 8): each test pipes a message shaped as a real mail
// client shapes it into `adjutant handle`, and reads the reply the player gets.

const (
	shapeGame = "shapes"
	shapeUS   = "alice@players.example"
	shapeDE   = "bernd@players.example"
	shapePass = "us-secret-pw"
	shapeDEPw = "de-secret-pw"
)

// shapeDB creates a Soldiers 1918 game for the shape tests and returns its store.
func shapeDB(t *testing.T) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "g.db")
	mustCLI(t, nil, "game", "new", "--db", db, "--address", sampleAddress, "--name", shapeGame, "--ruleset", "soldiers1918",
		"--player", "us="+shapeUS, "--player", "de="+shapeDE, "--password", "us="+shapePass, "--password", "de="+shapeDEPw)
	return db
}

// pipe hands a raw message (header lines and body, "\n" line ends) to handle and returns
// the mails it queued.
func pipe(t *testing.T, db, raw string) (string, []outMailJSON) {
	t.Helper()
	before := len(outbox(t, db))
	out := mustCLI(t, []byte(strings.ReplaceAll(raw, "\n", "\r\n")), "handle", "--db", db, "--address", sampleAddress)
	return strings.TrimSpace(out), outbox(t, db)[before:]
}

// replyTo returns the one mail to addr among mails, failing otherwise.
func replyTo(t *testing.T, mails []outMailJSON, addr string) outMailJSON {
	t.Helper()
	var got []outMailJSON
	for _, m := range mails {
		if len(m.To) == 1 && m.To[0] == addr {
			got = append(got, m)
		}
	}
	if len(got) != 1 {
		t.Fatalf("%d mails to %s, want 1: %+v", len(got), addr, mails)
	}
	return got[0]
}

func header(from, id, ctype string, extra ...string) string {
	h := fmt.Sprintf("From: %s\nTo: %s\nSubject: Re: [%s] You are invited to play US\nDate: Sun, 22 Nov 2026 10:00:00 +0000\nMessage-ID: <%s>\nMIME-Version: 1.0\nContent-Type: %s\n", from, sampleAddress, shapeGame, id, ctype)
	for _, e := range extra {
		h += e + "\n"
	}
	return h + "\n"
}

const shapeOrders = "GAME shapes\nPASSWORD us-secret-pw\nPLOT TURN 1 4300x3, 4400x3, 4500x2, 4600x4\n"

func TestMailShapes(t *testing.T) {
	cp1252, err := charmap.Windows1252.NewEncoder().String(shapeOrders + "\nGrüße aus Köln,\nBernd\n")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		raw  string
		// closing lists lines that must be reported as closing text; never lists words
		// that must not be on file (quoted originals).
		closing []int
		never   string
	}{
		{
			name: "Gmail with a sign-off",
			raw: header(shapeUS, "gmail@x", `multipart/alternative; boundary="000000000000abcd"`) +
				"--000000000000abcd\nContent-Type: text/plain; charset=\"UTF-8\"\nContent-Transfer-Encoding: quoted-printable\n\n" +
				"GAME shapes\nPASSWORD us-secret-pw\nPLOT TURN 1 4300x3, 4400x3, 4500x2, 4600x4\n\nGr=C3=BC=C3=9Fe,\nBernd\n\n" +
				"--000000000000abcd\nContent-Type: text/html; charset=\"UTF-8\"\n\n<div dir=\"ltr\">GAME shapes<br>PLOT TURN 1 9999x9</div>\n--000000000000abcd--\n",
			closing: []int{5, 6},
		},
		{
			name:    "iPhone Mail",
			raw:     header(shapeUS, "iphone@x", "text/plain; charset=us-ascii", "Content-Transfer-Encoding: 7bit") + shapeOrders + "\nSent from my iPhone\n",
			closing: []int{5},
		},
		{
			name: "Outlook with the quoted original below",
			raw: header(shapeUS, "outlook@x", "text/plain; charset=\"us-ascii\"") + shapeOrders + "\nThanks, Bob\n\n" +
				"-----Original Message-----\nFrom: Adjutant <adjutant@localhost>\nSent: Sunday, November 22, 2026 9:00 AM\nTo: alice@players.example\nSubject: [shapes] You are invited to play US\n\n" +
				"PLOT TURN 2 1000x4\nPASSWORD us-secret-pw\n",
			closing: []int{5},
			never:   "plot for turn 2",
		},
		{
			name: "Outlook on the web, header block without a separator line",
			raw: header(shapeUS, "owa@x", "text/plain; charset=\"us-ascii\"") + shapeOrders + "\nRegards\nBob Smith | +1 555 0100\n\n" +
				"________________________________\nFrom: Adjutant <adjutant@localhost>\nSent: Sunday, November 22, 2026 9:00 AM\nTo: Alice\n\nPLOT TURN 2 1000x4\n",
			closing: []int{5, 6},
			never:   "plot for turn 2",
		},
		{
			name: "Thunderbird reply with an attribution line and quoted orders",
			raw: header(shapeUS, "tb@x", "text/plain; charset=UTF-8; format=flowed") +
				"On 22/11/2026 09:00, Adjutant wrote:\n> GAME shapes\n> PLOT TURN 2 1000x4\n\n" + shapeOrders + "\nCheers\n",
			closing: []int{9},
			never:   "plot for turn 2",
		},
		{
			name: "Gmail reply with a two-line attribution",
			raw: header(shapeUS, "gmail2@x", "text/plain; charset=UTF-8") + shapeOrders +
				"\nOn Sun, 22 Nov 2026 at 09:00, Adjutant <\nadjutant@localhost> wrote:\n> PLOT TURN 2 1000x4\n",
			never: "plot for turn 2",
		},
		{
			name: "HTML only",
			raw: header(shapeUS, "html@x", "text/html; charset=UTF-8") +
				"<html><body><div>GAME shapes</div><div>PASSWORD us-secret-pw</div><div>PLOT TURN 1 4300x3, 4400x3, 4500x2, 4600x4</div><div><br></div><div>Thanks, Bob</div></body></html>\n",
		},
		{
			name: "format=flowed with the plot soft-broken",
			raw: header(shapeUS, "flowed@x", "text/plain; charset=UTF-8; format=flowed; delsp=no") +
				"GAME shapes\nPASSWORD us-secret-pw\nPLOT TURN 1 4300x3, 4400x3, \n4500x2, 4600x4\n\n-- \nAlice\n",
		},
		{
			name: "windows-1252 in base64",
			raw: header(shapeUS, "cp1252@x", "text/plain; charset=windows-1252", "Content-Transfer-Encoding: base64") +
				base64.StdEncoding.EncodeToString([]byte(cp1252)) + "\n",
			closing: []int{5, 6},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := shapeDB(t)
			out, mails := pipe(t, db, tt.raw)
			if !strings.HasPrefix(out, "handled") {
				t.Fatalf("handle = %q, want handled", out)
			}
			reply := replyTo(t, mails, shapeUS)
			body := reply.Body
			if strings.Contains(body, "REFUSED") || !strings.Contains(body, "accepted") {
				t.Fatalf("the orders were not accepted:\n%s", body)
			}
			if !strings.Contains(body, "US bombardment plot for turn 1") {
				t.Errorf("the plot of turn 1 is not on file:\n%s", body)
			}
			if tt.never != "" && strings.Contains(body, tt.never) {
				t.Errorf("an order from the quoted original was filed (%q):\n%s", tt.never, body)
			}
			// The closing lines are one run, told once.
			if n := len(tt.closing); n > 0 {
				want := fmt.Sprintf("line %d: not an order (closing text)", tt.closing[0])
				if n > 1 {
					want = fmt.Sprintf("lines %d-%d: not an order (closing text)", tt.closing[0], tt.closing[n-1])
				}
				if !strings.Contains(body, want) {
					t.Errorf("reply does not say %q:\n%s", want, body)
				}
			}
			if strings.Contains(body, shapePass) {
				t.Errorf("the reply quotes the password:\n%s", body)
			}
			// The German hears of the seal once, and sees no hex of it.
			notice := replyTo(t, mails, shapeDE)
			// A hash is random hex: "4300" inside one is chance, not the plot.
			words := regexp.MustCompile(`\b[0-9a-f]{64}\b`).ReplaceAllString(notice.Body, "")
			if strings.Contains(words, "4300") {
				t.Errorf("the notice shows the plot:\n%s", notice.Body)
			}
		})
	}
}

// TestMailShapeRefusals covers what must still be refused, and what must be answered
// without a refusal.
func TestMailShapeRefusals(t *testing.T) {
	plain := func(id, body string) string {
		return header(shapeUS, id, "text/plain; charset=UTF-8") + body
	}
	tests := []struct {
		name    string
		raw     string
		outcome string   // prefix of handle's output
		want    []string // in the reply
		not     []string // never in the reply
	}{
		{
			name: "an unknown word between orders refuses the submission", outcome: "refused",
			raw:  plain("between@x", "GAME shapes\nPASSWORD us-secret-pw\nPLOT TURN 1 NONE\nplease\nPLOT TURN 2 NONE\n"),
			want: []string{"line 4: please", "REFUSED", "correct, not filed"},
			not:  []string{"sealed", "orders are accepted"},
		},
		{
			name: "a long s is no S: ſtatuſ is not STATUS", outcome: "refused",
			raw:  plain("longs@x", "GAME shapes\nPASSWORD us-secret-pw\nſtatuſ\nſetup default\nPLOT TURN 1 NONE\n"),
			want: []string{"line 3: <U+017F>tatu<U+017F>\n      REFUSED: unknown order", "line 4: <U+017F>etup default\n      REFUSED: unknown order"},
		},
		{
			name: "a dotless i is no I: sıde is not SIDE", outcome: "refused",
			raw:  plain("dotless@x", "GAME shapes\nPASSWORD us-secret-pw\nsıde us\nPLOT TURN 1 NONE\n"),
			want: []string{"REFUSED", "unknown order"},
		},
		{
			name: "a Cyrillic PASSWORD line is masked", outcome: "refused",
			raw:  plain("cyrillic@x", "GAME shapes\nPASSWORD us-secret-pw\nРАSSWORD hunter2-secret\nPLOT TURN 1 NONE\n"),
			want: []string{"<U+0420><U+0410>SSWORD ********"}, // Cyrillic Р and А, shown
			not:  []string{"hunter2-secret"},
		},
		{
			name: "a password in closing text is masked", outcome: "handled",
			raw:  plain("pwclose@x", "GAME shapes\nPASSWORD us-secret-pw\nSTATUS\nPasswort: hunter-secret\n"),
			want: []string{"not an order (closing text)"},
			not:  []string{"hunter-secret", "REFUSED"},
		},
		{
			name: "a mistyped password line after the orders is masked and refused", outcome: "refused",
			raw:  plain("pwtypo@x", "GAME shapes\nPASSWORD us-secret-pw\nPLOT TURN 1 NONE\nPASWORD hunter2-secret\n"),
			want: []string{"line 4: PASWORD ********\n      REFUSED"},
			not:  []string{"hunter2-secret"},
		},
		{
			name: "STATUS alone is a reply, not a refusal", outcome: "handled",
			raw:  plain("status@x", "GAME shapes\nPASSWORD us-secret-pw\nSTATUS\nMAP\n\nThanks!\n"),
			want: []string{"== STATUS ==", "== MAP ==", "line 6: not an order (closing text)"},
			not:  []string{"REFUSED"},
		},
		{
			name: "more than 500 lines are refused whole", outcome: "refused",
			raw:  plain("long@x", "GAME shapes\nPASSWORD us-secret-pw\n"+strings.Repeat("PLOT TURN 1 NONE\n", 600)),
			want: []string{"602 command lines", "reads at most", "Nothing was changed"},
			not:  []string{"line 3:"},
		},
		{
			name: "a MIME tree too deep to read says so", outcome: "refused",
			raw: header(shapeUS, "deep@x", `multipart/mixed; boundary="b0"`) + func() string {
				var b strings.Builder
				for i := 0; i < 20; i++ {
					fmt.Fprintf(&b, "--b%d\nContent-Type: multipart/mixed; boundary=\"b%d\"\n\n", i, i+1)
				}
				b.WriteString("--b20\nContent-Type: text/plain\n\n" + shapeOrders)
				return b.String()
			}(),
			want: []string{"Adjutant could not read your mail", "nested more than"},
			not:  []string{"password must match"},
		},
		{
			name: "broken boundaries say so", outcome: "refused",
			raw:  header(shapeUS, "broken@x", `multipart/mixed; boundary="abc"`) + "--abc\nContent-Type: text/plain\n" + shapeOrders,
			want: []string{"Adjutant could not read your mail"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			db := shapeDB(t)
			out, mails := pipe(t, db, tt.raw)
			if !strings.HasPrefix(out, tt.outcome) {
				t.Errorf("handle = %q, want %s", out, tt.outcome)
			}
			body := replyTo(t, mails, shapeUS).Body
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("reply lacks %q:\n%s", w, body)
				}
			}
			for _, n := range tt.not {
				if strings.Contains(body, n) {
					t.Errorf("reply has %q:\n%s", n, body)
				}
			}
		})
	}
}

// TestSideByName: a host's `map --side` and a player's SIDE line take a side by its id or
// its name, and a wrong one is refused with the valid names, never a Go value.
func TestSideByName(t *testing.T) {
	db := shapeDB(t)
	byName := mustCLI(t, nil, "map", "--db", db, "--game", shapeGame, "--side", "german")
	byID := mustCLI(t, nil, "map", "--db", db, "--game", shapeGame, "--side", "de")
	if byName != byID || !strings.Contains(byName, "Strip 1 of") {
		t.Errorf("map --side german differs from --side de, or is no map:\n%s", byName)
	}
	code, _, errs := cli(t, nil, "map", "--db", db, "--game", shapeGame, "--side", "french")
	if code == 0 || !strings.Contains(errs, `us (US) and de (German)`) || strings.Contains(errs, "{") {
		t.Errorf("map --side french: exit %d, %q; want a refusal naming us (US) and de (German)", code, errs)
	}
	out, mails := pipe(t, db, header(shapeUS, "side@x", "text/plain")+"GAME shapes\nSIDE us\nPASSWORD us-secret-pw\nSTATUS\n")
	if !strings.HasPrefix(out, "handled") || !strings.Contains(replyTo(t, mails, shapeUS).Body, "== STATUS ==") {
		t.Errorf("SIDE us: %q", out)
	}
	out, _ = pipe(t, db, header(shapeDE, "side2@x", "text/plain")+"GAME shapes\nSIDE German\nPASSWORD de-secret-pw\nSTATUS\n")
	if !strings.HasPrefix(out, "handled") {
		t.Errorf("SIDE German: %q, want handled", out)
	}
}

// TestHandleTempFail (issue 9): when the message cannot be handled now (here the store is
// held by another process), handle exits 75 so that Postfix and procmail keep the mail
// and retry instead of bouncing the player's orders; a wrong command line is still 2.
func TestHandleTempFail(t *testing.T) {
	db := shapeDB(t)
	held, err := bolt.Open(db, 0o600, nil) // what a running serve does to the file
	if err != nil {
		t.Fatal(err)
	}
	raw := []byte(strings.ReplaceAll(header(shapeUS, "temp@x", "text/plain")+shapeOrders, "\n", "\r\n"))
	code, _, errs := cli(t, raw, "handle", "--db", db, "--address", sampleAddress)
	held.Close()
	if code != exitTempFail || !strings.Contains(errs, "locked") {
		t.Errorf("handle on a held store: exit %d, %q; want %d", code, errs, exitTempFail)
	}
	if code, _, _ := cli(t, raw, "handle", "--no-such-flag"); code != 2 {
		t.Errorf("handle with a wrong flag: exit %d, want 2", code)
	}
	// Retried once the store is free, the same mail is handled, once.
	if out, _ := pipe(t, db, header(shapeUS, "temp@x", "text/plain")+shapeOrders); !strings.HasPrefix(out, "handled") {
		t.Errorf("the retried mail: %q, want handled", out)
	}
}
