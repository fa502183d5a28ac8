package adjudicator_test

import (
	"errors"
	"slices"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// TestReadMessage: a raw mail becomes the desk's message with every field the desk
// decides by (threading, loop protection, the size refusal, bounces), by the one path
// pipe mode and the intake share.
func TestReadMessage(t *testing.T) {
	arrived := time.Date(2026, 11, 22, 9, 30, 0, 0, time.UTC)
	const tag = "0123456789abcdef"
	hdr := "From: Pershing <Pershing@AEF.example>\r\nTo: adjutant@game.example\r\nSubject: [g1] orders\r\n"
	for _, c := range []struct {
		name      string
		raw       string
		max       int64
		truncated bool
		check     func(t *testing.T, m adjudicator.Message)
	}{
		{name: "orders", raw: hdr + "Message-ID: <m1@aef.example>\r\nIn-Reply-To: <inv@game.example>\r\nReferences: <a@game.example> <inv@game.example>\r\n" +
			"Date: Sun, 22 Nov 2026 09:00:00 +0000\r\n\r\nGAME g1\r\nPASSWORD x\r\n",
			check: func(t *testing.T, m adjudicator.Message) {
				if m.ID != "m1@aef.example" || m.From != "pershing@aef.example" || m.Subject != "[g1] orders" || m.Text != "GAME g1\nPASSWORD x\n" {
					t.Errorf("ID %q From %q Subject %q Text %q", m.ID, m.From, m.Subject, m.Text)
				}
				if m.InReplyTo != "inv@game.example" || !slices.Equal(m.References, []string{"a@game.example", "inv@game.example"}) {
					t.Errorf("InReplyTo %q References %q", m.InReplyTo, m.References)
				}
				if !m.Date.Equal(time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)) || !m.Arrived.Equal(arrived) {
					t.Errorf("Date %v Arrived %v", m.Date, m.Arrived)
				}
				if m.Automated || m.OwnMail || m.TooLarge || m.Unreadable != "" || m.BounceOf != 0 {
					t.Errorf("a player's mail marked: %+v", m)
				}
			}},
		{name: "no Message-ID", raw: hdr + "\r\nSTATUS\r\n",
			check: func(t *testing.T, m adjudicator.Message) {
				if !strings.HasPrefix(m.ID, "sha256-") {
					t.Errorf("ID %q, want the hash of the mail", m.ID)
				}
			}},
		{name: "too large", raw: hdr + "Message-ID: <big@aef.example>\r\n\r\n" + strings.Repeat("MOVE NONE\r\n", 100), max: 200,
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.TooLarge || m.From != "pershing@aef.example" || m.ID != "big@aef.example" || m.Text != "" {
					t.Errorf("TooLarge %v From %q ID %q Text %q: want refused unread, answerable", m.TooLarge, m.From, m.ID, m.Text)
				}
			}},
		{name: "header only", raw: hdr + "Message-ID: <cut@aef.example>\r\n\r\n", truncated: true,
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.TooLarge {
					t.Error("a mail the intake fetched only the header of is not marked too large")
				}
			}},
		{name: "own mail", raw: hdr + "X-Adjutant: results\r\nMessage-ID: <own@game.example>\r\n\r\nhello\r\n",
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.OwnMail {
					t.Error("the daemon's own mail is not marked")
				}
			}},
		{name: "auto-reply", raw: hdr + "Auto-Submitted: auto-replied\r\nMessage-ID: <ooo@aef.example>\r\n\r\nI am away.\r\n",
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.Automated || !strings.Contains(m.AutomatedReason, "Auto-Submitted") {
					t.Errorf("Automated %v %q", m.Automated, m.AutomatedReason)
				}
			}},
		{name: "bounce", raw: "From: MAILER-DAEMON@mx.example\r\nTo: adjutant+b-42-" + tag + "@game.example\r\nSubject: Undelivered Mail\r\nMessage-ID: <b@mx.example>\r\n" +
			"MIME-Version: 1.0\r\nContent-Type: multipart/report; report-type=delivery-status; boundary=XX\r\n\r\n" +
			"--XX\r\nContent-Type: text/plain\r\n\r\nNot delivered.\r\n--XX\r\nContent-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example\r\n\r\n" +
			"Final-Recipient: rfc822; gone@aef.example\r\nAction: failed\r\nStatus: 5.1.1\r\n--XX--\r\n",
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.Automated || m.BounceOf != 42 || m.BounceTag != tag || !slices.Equal(m.BounceFailed, []string{"gone@aef.example"}) {
					t.Errorf("Automated %v BounceOf %d BounceTag %q BounceFailed %q", m.Automated, m.BounceOf, m.BounceTag, m.BounceFailed)
				}
			}},
		{name: "no header", raw: "\x00\x01 not a mail at all",
			check: func(t *testing.T, m adjudicator.Message) {
				if !m.Automated || m.AutomatedReason != "unreadable" || m.ID == "" {
					t.Errorf("Automated %v %q ID %q: want recorded by its hash, answered by nobody", m.Automated, m.AutomatedReason, m.ID)
				}
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			m, err := adjudicator.ReadMessage(strings.NewReader(c.raw), c.max, c.truncated, arrived)
			if err != nil {
				t.Fatal(err)
			}
			c.check(t, m)
		})
	}
	// A mail that could not be read at all is not consumed: it may be tried again.
	boom := errors.New("connection reset")
	if _, err := adjudicator.ReadMessage(iotest.ErrReader(boom), 0, false, arrived); !errors.Is(err, boom) {
		t.Errorf("a failed read gives %v, want an error wrapping %v", err, boom)
	}
}

// FuzzReadMessage: whatever the bytes, reading them does not panic, and a mail read
// has an id to be recorded by (invariant 1).
func FuzzReadMessage(f *testing.F) {
	f.Add("From: a@b.example\r\nMessage-ID: <x@b.example>\r\n\r\nhello\r\n", int64(0))
	f.Add("no header", int64(5))
	f.Add("From: a@b.example\r\nTo: adjutant+b-7@g.example\r\n\r\n", int64(20))
	f.Fuzz(func(t *testing.T, raw string, max int64) {
		m, err := adjudicator.ReadMessage(strings.NewReader(raw), max, false, time.Time{})
		if err != nil {
			t.Fatalf("a mail from a reader that does not fail: %v", err)
		}
		if m.ID == "" {
			t.Error("a mail read has no id")
		}
	})
}
