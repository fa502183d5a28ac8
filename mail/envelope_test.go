package mail_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/mail"
)

// fixture returns the bytes of testdata/envelope/name.
func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "envelope", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// read runs ReadEnvelope on raw with the default limit and fails the test
// on error.
func read(t testing.TB, raw []byte) *mail.Envelope {
	t.Helper()
	env, err := mail.ReadEnvelope(bytes.NewReader(raw), 0)
	if err != nil {
		t.Fatalf("ReadEnvelope: %v", err)
	}
	if env == nil {
		t.Fatal("ReadEnvelope returned a nil Envelope without error")
	}
	return env
}

// rawHash is the MessageID ReadEnvelope gives a message without one: the hash of its
// bytes without the trace fields that relays add (Received, Return-Path, ...).
func rawHash(raw []byte) string {
	head, body, found := bytes.Cut(raw, []byte("\r\n\r\n"))
	sep := "\r\n\r\n"
	if !found {
		if head, body, found = bytes.Cut(raw, []byte("\n\n")); found {
			sep = "\n\n"
		}
	}
	var kept []string
	trace := false
	lines := strings.SplitAfter(string(head), "\n")
	for _, l := range lines {
		if l == "" {
			continue
		}
		if l[0] != ' ' && l[0] != '\t' {
			lower := strings.ToLower(l)
			trace = false
			for _, f := range []string{"received:", "return-path:", "delivered-to:", "x-original-to:", "authentication-results:", "received-spf:", "arc-", "x-spam-", "x-virus-scanned:", "envelope-to:"} {
				trace = trace || strings.HasPrefix(lower, f)
			}
		}
		if !trace {
			kept = append(kept, l)
		}
	}
	content := strings.Join(kept, "")
	if found {
		content += sep + string(body)
	}
	sum := sha256.Sum256([]byte(content))
	return "sha256-" + hex.EncodeToString(sum[:])
}

func TestReadEnvelopeFixtures(t *testing.T) {
	tests := []struct {
		file      string
		messageID string // "hash" means rawHash of the file
		from      string
		fromName  string
		subject   string
		automated string // expected AutomatedReason; "" means not automated
		text      string
		check     func(t *testing.T, env *mail.Envelope)
	}{
		{
			file:      "plain.eml",
			messageID: "20240314091240.GA4711@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Alice Martin",
			subject:   "Orders soissons-7 turn 3",
			text: "GAME soissons-7 SIDE french PASSWORD poilu\nORDERS\nMOVE 3 from 2301 along 2302-2402\n" +
				"FIRE 2305 at 2406\nEND\n\n> Your previous orders were accepted.\n\n-- \nAlice\n",
			check: func(t *testing.T, env *mail.Envelope) {
				if want := time.Date(2024, 3, 14, 9, 12, 40, 0, time.UTC); !env.Date.Equal(want) {
					t.Errorf("Date = %v, want %v", env.Date, want)
				}
				if !reflect.DeepEqual(env.To, []string{"orders@adjutant.example"}) {
					t.Errorf("To = %q", env.To)
				}
				if env.Size != 800 {
					t.Errorf("Size = %d, want 800", env.Size)
				}
				if env.ReplyTo != "" || env.InReplyTo != "" || len(env.References) != 0 || env.XAdjutant != "" {
					t.Errorf("unexpected fields: %+v", env)
				}
			},
		},
		{
			file:      "alternative.eml",
			messageID: "CAF3k9dE1xQ7oZK4mN2pR8sT0uV6wX3yZ5aB1cD9eF7gH2iJ4kL@mail.gmail.com",
			from:      "bob.hartley@gmail.com",
			fromName:  "Bob Hartley",
			subject:   "Re: Soissons-7: turn 3 results",
			// The text/plain alternative, not the HTML one.
			text: "GAME soissons-7 SIDE us PASSWORD doughboy\nPLOT 4300x3, 4400x3, 4500x2, 4600x4\n\n" +
				"On Fri, 15 Mar 2024 at 09:00, Adjutant <orders@adjutant.example> wrote:\n" +
				"> Turn 3 resolved. Fire at 2305: 3:1, rolled 5 — retreat.\n>\n",
			check: func(t *testing.T, env *mail.Envelope) {
				if env.InReplyTo != "adjutant.soissons-7.t3.results.us@adjutant.example" {
					t.Errorf("InReplyTo = %q", env.InReplyTo)
				}
				wantRefs := []string{
					"adjutant.soissons-7.t2.results.us@adjutant.example",
					"adjutant.soissons-7.t3.results.us@adjutant.example",
				}
				if !reflect.DeepEqual(env.References, wantRefs) {
					t.Errorf("References = %q, want %q", env.References, wantRefs)
				}
				if want := []string{"orders@adjutant.example", "carol@example.net"}; !reflect.DeepEqual(env.To, want) {
					t.Errorf("To = %q, want %q", env.To, want)
				}
			},
		},
		{
			file:      "html-outlook.eml",
			messageID: "AM0PR07MB4417E2C1D0F3B5A6C7D8E9F0A1B2C3D4@AM0PR07MB4417.eurprd07.prod.outlook.com",
			from:      "jean.dupont@contoso.com",
			fromName:  "Dupont, Jean",
			subject:   "Orders Mons-2 turn 5",
			// windows-1252 =96 is an en dash; &nbsp; lines are blank lines,
			// two of them in a row become one.
			text: "GAME mons-2 SIDE british PASSWORD \"tommy\"\n\nMOVE 2 from 3506 along 3407\n" +
				"FIRE 3505 at 3606 & 3607\nNote: the bridge at 1824 – is it blown? “Yes”, says HQ.\n\nRegards,\nJean\n",
		},
		{
			file:      "quoted-printable.eml",
			messageID: "5e7f1c2a-9b0d-4e3f-8a6b-1c2d3e4f5a6b@example.fr",
			from:      "francois.levesque@example.fr",
			fromName:  "François Lévesque",
			subject:   "Ordres tour 4",
			text: "Bonjour, voici mes ordres pour le tour 4 de la partie soissons-7. Le général Pétain approuve.\n" +
				"GAME soissons-7 SIDE french PASSWORD poilu\nMOVE 3 from 2310 along 2209-2208 = toute l'infanterie \n",
		},
		{
			file:      "base64.eml",
			messageID: "3A1B9C7E-5D2F-4E8A-B6C0-9F1E2D3C4B5A@example.de",
			from:      "k.weber@example.de",
			fromName:  "Klaus Weber",
			subject:   "Befehle",
			text:      "GAME mons-2 SIDE german PASSWORD feldgrau\nMOVE 4 from 1824 along 1923-1924\n\nGesendet von meinem iPhone – Grüße\n",
		},
		{
			file:      "iso-8859-1.eml",
			messageID: "87h6k2m4xq.fsf@example.de",
			from:      "k.weber@example.de",
			fromName:  "Klaus Weber",
			subject:   "Befehle Runde 2",
			text:      "Grüße aus Köln. Die Straße bei 1824 ist blockiert, ça va? 30 °C.\n",
		},
		{
			file:      "windows-1252.eml",
			messageID: "000001da7901$2b3c4d50$81e6e7f0$@contoso.com",
			from:      "jean.dupont@contoso.com",
			fromName:  "Dupont, Jean",
			subject:   "Note",
			text:      "“Fire at will” – costs € 5…\n",
		},
		{
			// windows-1252 bytes 0x93/0x94/0x96 under an ISO-8859-1 label.
			file:      "iso-8859-1-mislabelled.eml",
			messageID: "000001da7901$2b3c4d51$81e6e7f0$@contoso.com",
			from:      "jean.dupont@contoso.com",
			fromName:  "Dupont, Jean",
			subject:   "Note 2",
			text:      "“Hold 2305” – café\n",
		},
		{
			file:      "unknown-charset.eml",
			messageID: "unknown-charset@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Alice Martin",
			subject:   "Orders",
			text:      "Café “noir” à 2301\n",
		},
		{
			file:      "encoded-subject.eml",
			messageID: "a1b2c3d4@example.ch",
			from:      "elodie@example.ch",
			fromName:  "Élodie Müller",
			subject:   "Ordres – tour 4 (été) à Verdun",
			text:      "STATUS\n",
		},
		{
			file:      "flowed.eml",
			messageID: "f10e2d3c-4b5a-6978-8a9b-0c1d2e3f4a5b@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Alice Martin",
			subject:   "Re: Orders soissons-7 turn 6",
			// Soft breaks joined keeping the space, space-stuffing undone,
			// quoted lines joined within their depth, "-- " intact, and a
			// flowed line followed by another depth left unjoined.
			text: "Here are my orders for turn 6. The long paragraph wraps because my mail client breaks lines " +
				"at 72 characters when it sends format=flowed text.\n" +
				"GAME soissons-7 SIDE french PASSWORD poilu\nMOVE 3 from 2301 along 2302-2402\n" +
				"From 2305: FIRE at 2406\n indented by one space\n\n" +
				">> Your orders for turn 5 were accepted. Fire at 2305: 3:1, rolled 5, retreat.\n" +
				"> Thanks, see below. \n\n-- \nAlice\n",
			check: func(t *testing.T, env *mail.Envelope) {
				if env.InReplyTo != "adjutant.soissons-7.t5.check.fr@adjutant.example" {
					t.Errorf("InReplyTo = %q", env.InReplyTo)
				}
			},
		},
		{
			file:      "flowed-delsp.eml",
			messageID: "B7C6D5E4-F3A2-4B1C-9D8E-7F6A5B4C3D2E@example.de",
			from:      "k.weber@example.de",
			fromName:  "Klaus Weber",
			subject:   "Befehle Runde 3",
			// delsp=yes: the space before each soft break is removed, so a
			// word broken in the middle joins up again.
			text: "GAME mons-2 SIDE german PASSWORD feldgrau\n" +
				"Orders for this turn: the 5th Cavalry Division screens the canal from 3506 to 3607.\n" +
				"Ein sehr langes Wort: Donaudampfschifffahrtsgesellschaftskapitän\n",
		},
		{
			file:      "no-message-id.eml",
			messageID: "hash",
			from:      "carol@example.net",
			subject:   "STATUS soissons-7",
			text:      "STATUS soissons-7\n",
		},
		{
			file:      "attachment.eml",
			messageID: "CAF3k9dE2yR8pAL5nO3qS9tU1vW7xY4zA6bC2dE0fG8hI3jK5lM@mail.gmail.com",
			from:      "bob.hartley@gmail.com",
			fromName:  "Bob Hartley",
			subject:   "Orders with map",
			text:      "GAME soissons-7 SIDE us PASSWORD doughboy\nMOVE 2 from 4300 along 4301\n",
		},
		{
			// The text/plain attachment comes after an HTML body and must
			// not be taken for the text.
			file:      "html-with-text-attachment.eml",
			messageID: "AM0PR07MB4417F3D2E1C0B9A8@AM0PR07MB4417.eurprd07.prod.outlook.com",
			from:      "jean.dupont@contoso.com",
			fromName:  "Dupont, Jean",
			subject:   "Orders Mons-2 turn 6",
			text:      "HOLD 3506\n",
		},
		{
			file:      "nested.eml",
			messageID: "C8D7E6F5-A4B3-4C2D-8E1F-0A9B8C7D6E5F@example.de",
			from:      "k.weber@example.de",
			fromName:  "Klaus Weber",
			subject:   "Befehle mit Karte",
			text:      "GAME mons-2 SIDE german PASSWORD feldgrau\nMOVE 1 from 1824 along 1923 – siehe Karte\n",
		},
		{
			// The forwarded message/rfc822 part holds orders that are not
			// the sender's text.
			file:      "forwarded.eml",
			messageID: "9a8b7c6d-5e4f-4a3b-2c1d-0e9f8a7b6c5d@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Alice Martin",
			subject:   "Fwd: Orders soissons-7 turn 2",
			text:      "HISTORY soissons-7 2\n",
		},
		{
			file:      "vacation.eml",
			messageID: "vacation.1711184405.12345@example.de",
			from:      "k.weber@example.de",
			fromName:  "Klaus Weber",
			subject:   "Abwesenheitsnotiz: Soissons-7: turn 4 results",
			automated: "Auto-Submitted: auto-replied",
			text:      "Ich bin bis zum 2. April nicht im Büro.\n",
		},
		{
			file:      "bounce-dsn.eml",
			messageID: "20240323100009.4Tq2Xk0Z3mz9sW2@mx.adjutant.example",
			from:      "mailer-daemon@mx.adjutant.example",
			fromName:  "Mail Delivery System",
			subject:   "Undelivered Mail Returned to Sender",
			automated: "Auto-Submitted: auto-replied",
			text: "This is the mail system at host mx.adjutant.example.\n\n" +
				"I'm sorry to have to inform you that your message could not\n" +
				"be delivered to one or more recipients.\n\n" +
				"<nobody@example.invalid>: Host or domain name not found.\n",
		},
		{
			file:      "ndr-exchange.eml",
			messageID: "5d1c2b3a-9e8f-7a6b-5c4d-3e2f1a0b9c8d@AM0PR07MB4417.eurprd07.prod.outlook.com",
			from:      "microsoftexchange329e71ec88ae4615bbc36ab6ce41109e@contoso.com",
			fromName:  "Microsoft Outlook",
			subject:   "Undeliverable: Mons-2: order check turn 6",
			automated: "delivery status report",
			text:      "Your message to jean.dupont@contoso.com couldn't be delivered.\n",
		},
		{
			file:      "mdn.eml",
			messageID: "mdn.CAF3k9dE3zS9@mail.gmail.com",
			from:      "bob.hartley@gmail.com",
			fromName:  "Bob Hartley",
			subject:   "Read: Soissons-7: turn 4 results",
			automated: "disposition notification",
			text:      "The message sent on 23/03/2024 10:00 to bob.hartley@gmail.com was displayed.\n",
		},
		{
			file:      "list-post.eml",
			messageID: "digest.2024-03-24@lists.example.org",
			from:      "digest@lists.example.org",
			fromName:  "Wargames Digest",
			subject:   "[pbem-players] New game open: Soissons 1918",
			automated: "Precedence: list",
			text:      "A new game of Soissons 1918 is open for players.\n",
		},
		{
			// No header gives it away; the message/delivery-status part
			// inside a multipart/mixed does.
			file:      "bounce-mixed.eml",
			messageID: "gw.20240324070000.1@relay.example.net",
			from:      "bounces@relay.example.net",
			fromName:  "Mail Gateway",
			subject:   "Delivery failure",
			automated: "delivery status report",
			text:      "Delivery to the following recipient failed permanently: x@example.invalid\n",
		},
		{
			file:      "own-mail.eml",
			messageID: "adjutant.soissons-7.t4.results.fr@adjutant.example",
			from:      "orders@adjutant.example",
			fromName:  "Adjutant",
			subject:   "Soissons-7: turn 4 results",
			automated: "X-Adjutant header (own mail)",
			text:      "Turn 4 resolved.\n",
			check: func(t *testing.T, env *mail.Envelope) {
				if env.XAdjutant != "soissons-7" {
					t.Errorf("XAdjutant = %q, want soissons-7", env.XAdjutant)
				}
			},
		},
		{
			// LF line endings and an mbox "From " line, as procmail or a
			// Postfix pipe delivers; a stray non-header line is skipped.
			file:      "mbox-from-line.eml",
			messageID: "20240314091240.GB4711@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Alice Martin",
			subject:   "Orders via procmail",
			text:      "HOLD 2301\n",
		},
		{
			// Unquoted comma in the name, unterminated brackets, a
			// Message-ID without brackets, a bad date.
			file:      "bad-from.eml",
			messageID: "4711.no-brackets@example.org",
			from:      "alice.martin@example.org",
			fromName:  "Martin, Alice",
			subject:   "Orders",
			text:      "HOLD 2301\n",
			check: func(t *testing.T, env *mail.Envelope) {
				if env.ReplyTo != "alice@home.example" {
					t.Errorf("ReplyTo = %q", env.ReplyTo)
				}
				if want := []string{"orders@adjutant.example", "bob.hartley@gmail.com"}; !reflect.DeepEqual(env.To, want) {
					t.Errorf("To = %q, want %q", env.To, want)
				}
				if !env.Date.IsZero() {
					t.Errorf("Date = %v, want zero", env.Date)
				}
			},
		},
		{
			// The closing boundary never comes: the text before it counts.
			file:      "broken-multipart.eml",
			messageID: "truncated@mail.gmail.com",
			from:      "bob.hartley@gmail.com",
			fromName:  "Bob Hartley",
			subject:   "Orders (truncated by a relay)",
			text:      "HOLD 4300",
		},
	}

	seen := map[string]bool{}
	for _, tt := range tests {
		seen[tt.file] = true
		t.Run(strings.TrimSuffix(tt.file, ".eml"), func(t *testing.T) {
			raw := fixture(t, tt.file)
			env := read(t, raw)
			wantID := tt.messageID
			if wantID == "hash" {
				wantID = rawHash(raw)
			}
			if env.MessageID != wantID {
				t.Errorf("MessageID = %q, want %q", env.MessageID, wantID)
			}
			if env.From != tt.from {
				t.Errorf("From = %q, want %q", env.From, tt.from)
			}
			if env.FromName != tt.fromName {
				t.Errorf("FromName = %q, want %q", env.FromName, tt.fromName)
			}
			if env.Subject != tt.subject {
				t.Errorf("Subject = %q, want %q", env.Subject, tt.subject)
			}
			if env.Automated != (tt.automated != "") || env.AutomatedReason != tt.automated {
				t.Errorf("Automated = %v %q, want %q", env.Automated, env.AutomatedReason, tt.automated)
			}
			if env.Text != tt.text {
				t.Errorf("Text =\n%q\nwant\n%q", env.Text, tt.text)
			}
			if env.Size != len(raw) {
				t.Errorf("Size = %d, want %d", env.Size, len(raw))
			}
			if tt.check != nil {
				tt.check(t, env)
			}
		})
	}

	// Every fixture is covered by a case (they also seed the fuzzer).
	files, err := filepath.Glob(filepath.Join("testdata", "envelope", "*.eml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if !seen[filepath.Base(f)] {
			t.Errorf("fixture %s has no test case", f)
		}
	}
}

// setHeader returns raw with the header field name set to value: the
// first line starting with "name:" is replaced, or the field is added at
// the top.
func setHeader(raw []byte, name, value string) []byte {
	lines := strings.SplitAfter(string(raw), "\r\n")
	for i, l := range lines {
		if l == "\r\n" {
			break
		}
		if strings.HasPrefix(strings.ToLower(l), strings.ToLower(name)+":") {
			lines[i] = name + ": " + value + "\r\n"
			return []byte(strings.Join(lines, ""))
		}
	}
	return []byte(name + ": " + value + "\r\n" + string(raw))
}

// TestReadEnvelopeAutomated checks each loop-protection rule on its own, by
// adding one header field to an ordinary message.
func TestReadEnvelopeAutomated(t *testing.T) {
	plain := fixture(t, "plain.eml")
	tests := []struct {
		name, header, value string
		want                string // AutomatedReason, "" for not automated
	}{
		{"normal mail", "", "", ""},
		{"auto-generated", "Auto-Submitted", "auto-generated", "Auto-Submitted: auto-generated"},
		{"auto-replied with parameter", "Auto-Submitted", `auto-replied; owner-email="k.weber@example.de"`, "Auto-Submitted: auto-replied"},
		{"auto-notified upper case", "Auto-Submitted", "Auto-Notified", "Auto-Submitted: auto-notified"},
		{"auto-submitted empty", "Auto-Submitted", "", "Auto-Submitted header"},
		{"auto-submitted with comment", "Auto-Submitted", "auto-replied (vacation)", "Auto-Submitted: auto-replied"},
		{"auto-submitted no", "Auto-Submitted", "no", ""},
		{"auto-submitted No", "Auto-Submitted", "No", ""},
		{"precedence bulk", "Precedence", "bulk", "Precedence: bulk"},
		{"precedence junk", "Precedence", "junk", "Precedence: junk"},
		{"precedence list", "Precedence", "List", "Precedence: list"},
		{"precedence auto_reply", "Precedence", "auto_reply", "Precedence: auto_reply"},
		{"precedence with comment", "Precedence", "bulk (mass mail)", "Precedence: bulk"},
		{"precedence first-class", "Precedence", "first-class", ""},
		{"list-id", "List-Id", "PBEM players <pbem-players.lists.example.org>", "List-Id header"},
		{"list-unsubscribe", "List-Unsubscribe", "<mailto:leave@lists.example.org>", "List-Unsubscribe header"},
		{"x-autoreply", "X-Autoreply", "yes", "X-Autoreply header"},
		{"x-autorespond", "X-Autorespond", "Vacation", "X-Autorespond header"},
		// Deliberately not a rule: people's mail carries it too.
		{"x-auto-response-suppress", "X-Auto-Response-Suppress", "All", ""},
		{"return-path null", "Return-Path", "<>", "Return-Path: <>"},
		{"return-path null spaced", "Return-Path", "< >", "Return-Path: <>"},
		{"return-path normal", "Return-Path", "<alice@example.org>", ""},
		{"mailer-daemon", "From", "Mail Delivery Subsystem <MAILER-DAEMON@googlemail.com>", "sender MAILER-DAEMON"},
		{"mailer-daemon mixed case", "From", "Mailer-Daemon@mx.example.net", "sender MAILER-DAEMON"},
		{"mailer-daemon without domain", "From", "MAILER-DAEMON", "sender MAILER-DAEMON"},
		{"postmaster", "From", "Postmaster <postmaster@example.net>", "sender postmaster"},
		{"postmaster in domain only", "From", "Alice <alice@postmaster.example.org>", ""},
		{"multipart/report delivery-status", "Content-Type", `multipart/report; report-type=delivery-status; boundary="x"`, "delivery status report"},
		{"multipart/report mdn", "Content-Type", `multipart/report; report-type="disposition-notification"; boundary="x"`, "disposition notification"},
		{"multipart/report other", "Content-Type", `multipart/report; report-type=feedback-report; boundary="x"`, "feedback report"},
		{"own mail", "X-Adjutant", "soissons-7", "X-Adjutant header (own mail)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			raw := plain
			if tt.header != "" {
				raw = setHeader(plain, tt.header, tt.value)
			}
			env := read(t, raw)
			if env.Automated != (tt.want != "") || env.AutomatedReason != tt.want {
				t.Errorf("Automated = %v %q, want %q", env.Automated, env.AutomatedReason, tt.want)
			}
		})
	}
}

func TestReadEnvelopeMessageIDHash(t *testing.T) {
	raw := fixture(t, "no-message-id.eml")
	a := read(t, raw)
	b := read(t, bytes.Clone(raw))
	if a.MessageID != rawHash(raw) {
		t.Errorf("MessageID = %q, want %q", a.MessageID, rawHash(raw))
	}
	if a.MessageID != b.MessageID {
		t.Errorf("same input, different ids: %q and %q", a.MessageID, b.MessageID)
	}
	other := bytes.Replace(raw, []byte("STATUS soissons-7\r\n\r\n"), []byte("STATUS soissons-8\r\n\r\n"), 1)
	other = bytes.Replace(other, []byte("\r\n\r\nSTATUS soissons-7"), []byte("\r\n\r\nSTATUS soissons-8"), 1)
	if bytes.Equal(other, raw) {
		t.Fatal("test input not changed")
	}
	if c := read(t, other); c.MessageID == a.MessageID || !strings.HasPrefix(c.MessageID, "sha256-") {
		t.Errorf("different input: MessageID %q, first was %q", c.MessageID, a.MessageID)
	}
}

func TestReadEnvelopeMessageIDLenient(t *testing.T) {
	plain := fixture(t, "plain.eml")
	tests := []struct {
		value string
		want  string // "hash" for the raw hash
	}{
		{"<a1@example.org>", "a1@example.org"},
		{"  <a1@example.org>  (sent by Mutt)", "a1@example.org"},
		{"<no-at-sign>", "no-at-sign"},
		{"bare@example.org", "bare@example.org"},
		{"(sent by a script) bare@example.org", "bare@example.org"},
		{"<>", "hash"},
		{"", "hash"},
		{"<has space@example.org>", "hash"},
		{"<" + strings.Repeat("x", 999) + "@example.org>", "hash"},
	}
	for _, tt := range tests {
		raw := setHeader(plain, "Message-ID", tt.value)
		env := read(t, raw)
		want := tt.want
		if want == "hash" {
			want = rawHash(raw)
		}
		if env.MessageID != want {
			t.Errorf("Message-ID %.40q: MessageID = %.60q, want %.60q", tt.value, env.MessageID, want)
		}
	}
}

func TestReadEnvelopeSizeLimit(t *testing.T) {
	raw := fixture(t, "plain.eml")
	n := int64(len(raw))

	env, err := mail.ReadEnvelope(bytes.NewReader(raw), n)
	if err != nil {
		t.Fatalf("message of exactly the limit: %v", err)
	}
	if env.Text == "" || env.Size != len(raw) {
		t.Errorf("message of exactly the limit: Size %d, Text %q", env.Size, env.Text)
	}

	// One byte over: refused, yet addressable.
	env, err = mail.ReadEnvelope(bytes.NewReader(raw), n-1)
	if !errors.Is(err, mail.ErrTooLarge) {
		t.Fatalf("limit+1: err = %v, want ErrTooLarge", err)
	}
	if env == nil {
		t.Fatal("limit+1: nil Envelope")
	}
	if env.From != "alice.martin@example.org" || env.Subject != "Orders soissons-7 turn 3" ||
		env.MessageID != "20240314091240.GA4711@example.org" || env.Automated {
		t.Errorf("limit+1: partial envelope %+v", env)
	}
	if env.Text != "" || env.Size != len(raw) {
		t.Errorf("limit+1: Text %q, Size %d (want empty, %d)", env.Text, env.Size, len(raw))
	}

	// Automated is still known, so that no refusal goes to a bounce.
	bounce := fixture(t, "bounce-dsn.eml")
	env, err = mail.ReadEnvelope(bytes.NewReader(bounce), 1000)
	if !errors.Is(err, mail.ErrTooLarge) || env == nil || !env.Automated {
		t.Errorf("too large bounce: err %v, env %+v", err, env)
	}

	// The limit cuts the header itself: whole lines are kept, and with no
	// Message-ID read the id is the hash of the bytes read.
	env, err = mail.ReadEnvelope(bytes.NewReader(raw), 100)
	if !errors.Is(err, mail.ErrTooLarge) || env == nil {
		t.Fatalf("header cut: err %v, env %+v", err, env)
	}
	if want := rawHash(raw[:101]); env.MessageID != want {
		t.Errorf("header cut: MessageID = %q, want %q", env.MessageID, want)
	}
	if env.From != "" || env.Size != 101 {
		t.Errorf("header cut: From %q, Size %d", env.From, env.Size)
	}

	// The default limit is 1 MiB.
	big := append(bytes.Clone(raw), bytes.Repeat([]byte("x"), int(mail.DefaultMaxSize))...)
	if _, err := mail.ReadEnvelope(bytes.NewReader(big), 0); !errors.Is(err, mail.ErrTooLarge) {
		t.Errorf("default limit: err = %v, want ErrTooLarge", err)
	}
	r := &countingReader{r: bytes.NewReader(big)}
	_, _ = mail.ReadEnvelope(r, 0)
	if r.n > mail.DefaultMaxSize+1 {
		t.Errorf("read %d bytes, want at most %d", r.n, mail.DefaultMaxSize+1)
	}
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

type failingReader struct{ err error }

func (f failingReader) Read([]byte) (int, error) { return 0, f.err }

func TestReadEnvelopeReadError(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(fixture(t, "plain.eml")[:300]), failingReader{boom})
	env, err := mail.ReadEnvelope(r, 0)
	if !errors.Is(err, boom) {
		t.Errorf("err = %v, want it to wrap %v", err, boom)
	}
	if env != nil {
		t.Errorf("env = %+v, want nil so that the caller retries", env)
	}
	if _, err := mail.ReadEnvelope(nil, 0); err == nil {
		t.Error("nil reader: no error")
	}
}

// TestReadEnvelopeMalformed feeds broken input: no panic, valid text, and an
// error only when there is no header at all.
func TestReadEnvelopeMalformed(t *testing.T) {
	const hdr = "From: a@example.org\r\nSubject: x\r\n"
	tests := []struct {
		name    string
		raw     string
		wantErr bool
		text    string
	}{
		{"empty", "", true, ""},
		{"blank lines only", "\r\n\r\n\r\n", true, ""},
		{"binary garbage", "\x00\xff\xfe\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", true, ""},
		{"text without header", "MOVE 3 from 2301\nFIRE 2305\n", true, ""},
		{"leading continuation line", " folded: x\r\n" + hdr + "\r\nhi\r\n", false, "hi\r\n"},
		{"header only", hdr, false, ""},
		{"no blank line after header", hdr + "Content-Type: text/plain", false, ""},
		{"LF only", "From: a@example.org\nSubject: x\n\nline 1\nline 2\n", false, "line 1\nline 2\n"},
		{"lone CR", hdr + "\r\nline 1\rline 2\r", false, "line 1\nline 2\n"},
		{"C1 controls", hdr + "Content-Type: text/plain; charset=utf-8\r\n\r\nHOLD\u0085 2301\u009b\r\n", false, "HOLD\uFFFD 2301\uFFFD\n"},
		{"BOM and NUL", hdr + "\r\n\uFEFFHOLD\x00 2301\x1b[2J\r\n", false, "HOLD\uFFFD 2301\uFFFD[2J\n"},
		{"invalid UTF-8 declared utf-8", hdr + "Content-Type: text/plain; charset=utf-8\r\n\r\nbad \xff\xfe byte\r\n", false, "bad \uFFFD byte\n"},
		{"8bit under us-ascii", hdr + "Content-Type: text/plain; charset=us-ascii\r\n\r\ncaf\xe9\r\n", false, "café\n"},
		{"8bit without charset, valid UTF-8", hdr + "\r\ncafé\r\n", false, "café\n"},
		{"8bit without charset, latin-1", hdr + "\r\ncaf\xe9\r\n", false, "café\n"},
		{"charset parameter garbage", hdr + "Content-Type: text/plain; charset=iso-8859-1; format=flowed; foo bar\r\n\r\ncaf\xe9\r\n", false, "café\n"},
		{"unknown encoding", hdr + "Content-Transfer-Encoding: x-uuencode\r\n\r\nHOLD\r\n", false, "HOLD\n"},
		{"bad base64", hdr + "Content-Transfer-Encoding: base64\r\n\r\nSE9MRCAyMzAx!!!!\r\n", false, ""}, // unreadable: see TestDamagedText,
		{"bad quoted-printable", hdr + "Content-Transfer-Encoding: quoted-printable\r\n\r\nHOLD =ZZ 2301\r\n", false, "HOLD =ZZ 2301\n"},
		{"multipart without boundary", hdr + "Content-Type: multipart/mixed\r\n\r\n--x\r\n\r\nhi\r\n--x--\r\n", false, ""},
		{"multipart boundary never seen", hdr + "Content-Type: multipart/mixed; boundary=x\r\n\r\nhi\r\n", false, ""},
		{"multipart bad param still walked", hdr + "Content-Type: multipart/mixed; boundary=x; name=a b\r\n\r\n--x\r\n\r\nhi\r\n--x--\r\n", false, "hi"},
		{"only attachments", hdr + "Content-Type: multipart/mixed; boundary=x\r\n\r\n--x\r\nContent-Type: application/pdf\r\n\r\n%PDF\r\n--x--\r\n", false, ""},
		{"blank plain, real html", hdr + "Content-Type: multipart/alternative; boundary=x\r\n\r\n--x\r\nContent-Type: text/plain\r\n\r\n \r\n--x\r\nContent-Type: text/html\r\n\r\n<p>HOLD</p>\r\n--x--\r\n", false, "HOLD\n"},
		{"very long header line", "Subject: " + strings.Repeat("a", 200000) + "\r\nFrom: a@example.org\r\n\r\nhi", false, "hi"},
		{"encoded word with unknown charset", "From: a@example.org\r\nSubject: =?x-klingon?Q?abc?=\r\n\r\nhi", false, "hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := mail.ReadEnvelope(strings.NewReader(tt.raw), 0)
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if env == nil {
				t.Fatal("nil Envelope")
			}
			if !strings.HasPrefix(env.MessageID, "sha256-") && tt.wantErr {
				t.Errorf("MessageID = %q, want the raw hash", env.MessageID)
			}
			if !utf8.ValidString(env.Text) {
				t.Errorf("Text not valid UTF-8: %q", env.Text)
			}
			want := strings.ReplaceAll(tt.text, "\r\n", "\n")
			if env.Text != want {
				t.Errorf("Text = %q, want %q", env.Text, want)
			}
		})
	}
}

// TestReadEnvelopeDeepNesting checks that nesting is followed as deep as real
// mail goes, and that a crafted depth costs nothing.
func TestReadEnvelopeDeepNesting(t *testing.T) {
	nest := func(depth int) []byte {
		var b strings.Builder
		b.WriteString("From: a@example.org\r\nContent-Type: multipart/mixed; boundary=b0\r\n\r\n")
		for i := 1; i <= depth; i++ {
			b.WriteString("--b" + strconv.Itoa(i-1) + "\r\nContent-Type: multipart/mixed; boundary=b" + strconv.Itoa(i) + "\r\n\r\n")
		}
		b.WriteString("--b" + strconv.Itoa(depth) + "\r\nContent-Type: text/plain\r\n\r\nDEEP\r\n--b" + strconv.Itoa(depth) + "--\r\n")
		for i := depth - 1; i >= 0; i-- {
			b.WriteString("--b" + strconv.Itoa(i) + "--\r\n")
		}
		return []byte(b.String())
	}
	if env := read(t, nest(8)); env.Text != "DEEP" {
		t.Errorf("depth 8: Text = %q, want DEEP", env.Text)
	}
	start := time.Now()
	env := read(t, nest(10000))
	if env.Text != "" {
		t.Errorf("depth 10000: Text = %q, want nothing (beyond the depth bound)", env.Text)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("depth 10000 took %v", d)
	}
}

// TestReadEnvelopeBoundedOutput feeds crafted messages of about the size
// limit whose text could blow up (nested quotes repeated on every line, many
// parts, long flowed paragraphs) and checks that Text stays within a small
// multiple of the input.
func TestReadEnvelopeBoundedOutput(t *testing.T) {
	const m = 1 << 19
	h := "From: a@example.org\r\n"
	tests := map[string]string{
		"nested blockquotes": h + "Content-Type: text/html\r\n\r\n" +
			strings.Repeat("<blockquote>", m/24) + strings.Repeat("a<br>", m/10),
		"flowed deep quotes": h + "Content-Type: text/plain; format=flowed\r\n\r\n" +
			strings.Repeat(strings.Repeat(">", 1000)+" a \r\n", m/1010),
		"flowed one paragraph": h + "Content-Type: text/plain; format=flowed\r\n\r\n" + strings.Repeat("a \r\n", m/4),
		"many html parts": h + "Content-Type: multipart/mixed; boundary=x\r\n\r\n" +
			strings.Repeat("--x\r\nContent-Type: text/html\r\n\r\n<p>a\r\n", m/40),
		"many references": h + "References: " + strings.Repeat("<a@b> ", m/7) + "\r\n\r\nhi",
	}
	for name, raw := range tests {
		t.Run(name, func(t *testing.T) {
			env := read(t, []byte(raw))
			if len(env.Text) > 4*len(raw) {
				t.Errorf("Text is %d bytes from %d bytes of input", len(env.Text), len(raw))
			}
		})
	}
}

func BenchmarkReadEnvelope(b *testing.B) {
	for _, name := range []string{"plain.eml", "nested.eml", "html-outlook.eml", "flowed.eml"} {
		raw := fixture(b, name)
		b.Run(strings.TrimSuffix(name, ".eml"), func(b *testing.B) {
			b.SetBytes(int64(len(raw)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := mail.ReadEnvelope(bytes.NewReader(raw), 0); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestContentIDIgnoresTraceFields (issue 9): a mail without a Message-ID relayed once
// more, with another Received line and a Delivered-To, is the same message; any change
// to what the sender wrote is another message.
func TestContentIDIgnoresTraceFields(t *testing.T) {
	base := "From: alice@example.org\r\nTo: game@example.org\r\nSubject: orders\r\n\r\nGAME g\r\nSTATUS\r\n"
	relayed := "Received: from mx2.example.net by mx.example.org; Sun, 22 Nov 2026 10:00:00 +0000\r\n" +
		"Received: from laptop\r\n\tby mx2.example.net; Sun, 22 Nov 2026 09:59:59 +0000\r\n" +
		"Return-Path: <alice@example.org>\r\nDelivered-To: game@example.org\r\n" + base
	a, b := read(t, []byte(base)), read(t, []byte(relayed))
	if a.MessageID != b.MessageID || a.MessageID != rawHash([]byte(base)) {
		t.Errorf("relayed copy has id %s, the original %s (want both %s)", b.MessageID, a.MessageID, rawHash([]byte(base)))
	}
	for _, changed := range []string{
		strings.Replace(base, "STATUS", "MAP", 1),
		strings.Replace(base, "Subject: orders", "Subject: orders!", 1),
		"X-Mailer: Thunderbird\r\n" + base,
	} {
		if c := read(t, []byte(changed)); c.MessageID == a.MessageID {
			t.Errorf("a changed mail kept the id %s:\n%s", a.MessageID, changed)
		}
	}
}

// TestBounceOfVERP (issues 9, 19): a bounce to a VERP address names the outbox mail it
// is about and carries its tag, from the delivery headers or To; an address of the old
// form names the mail without a tag; other mail names none.
func TestBounceOfVERP(t *testing.T) {
	const tag = "0123456789abcdef"
	for _, tc := range []struct {
		hdr  string
		want uint64
		tag  string
	}{
		{"Delivered-To: adjutant+b-42-" + tag + "@example.org\r\nTo: adjutant+b-42-" + tag + "@example.org\r\n", 42, tag},
		{"X-Original-To: adjutant+B-7-0123456789ABCDEF@example.org\r\nTo: someone@example.org\r\n", 7, tag},
		{"To: <adjutant+b-123-" + tag + "@example.org>\r\n", 123, tag},
		{"To: adjutant+b-42@example.org\r\n", 42, ""},
		{"To: adjutant+b-42-0123@example.org\r\n", 0, ""},
		{"To: adjutant@example.org\r\n", 0, ""},
		{"To: adjutant+b-x@example.org\r\n", 0, ""},
	} {
		raw := "From: MAILER-DAEMON@mx.example.org\r\nSubject: Undelivered Mail\r\n" + tc.hdr + "\r\nbody\r\n"
		if env := read(t, []byte(raw)); env.BounceOf != tc.want || env.BounceTag != tc.tag {
			t.Errorf("%q: BounceOf, BounceTag = %d, %q, want %d, %q", tc.hdr, env.BounceOf, env.BounceTag, tc.want, tc.tag)
		}
	}
	if got := mail.VERP("Adjutant <adjutant@example.org>", 42, tag); got != "adjutant+b-42-"+tag+"@example.org" {
		t.Errorf("VERP = %q", got)
	}
	if got := mail.VERP("adjutant@example.org", 42, ""); got != "" {
		t.Errorf("VERP without a tag = %q, want none", got)
	}
}
