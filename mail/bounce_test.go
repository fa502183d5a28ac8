package mail_test

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// verpTo is a tagged VERP address, as the sender makes them.
const verpTo = "orders+b-42-0123456789abcdef@adjutant.example"

// dsnMail is a Postfix-shaped bounce (RFC 3464: multipart/report with a
// message/delivery-status part) to the VERP address to, whose report is status (the
// per-recipient blocks after the per-message one).
func dsnMail(to, status string) string {
	return "Return-Path: <>\r\nDelivered-To: " + to + "\r\n" +
		"From: MAILER-DAEMON@mx.example.net (Mail Delivery System)\r\n" +
		"To: " + to + "\r\nSubject: Undelivered Mail Returned to Sender\r\n" +
		"Message-Id: <dsn.1@mx.example.net>\r\nAuto-Submitted: auto-replied\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B1\"\r\n\r\n" +
		"--B1\r\nContent-Type: text/plain\r\n\r\nYour message could not be delivered.\r\n" +
		"--B1\r\nContent-Type: message/delivery-status\r\n\r\n" +
		"Reporting-MTA: dns; mx.example.net\r\nArrival-Date: Sat, 28 Nov 2026 05:00:00 +0000\r\n\r\n" +
		status +
		"\r\n--B1\r\nContent-Type: text/rfc822-headers\r\n\r\nFrom: Adjutant <orders@adjutant.example>\r\nTo: de@example.org\r\n" +
		"--B1--\r\n"
}

// TestBounceFailedRecipients (issue 19): the recipients a bounce's delivery status
// report says failed, which the desk matches with the address the mail went to; an
// auto-reply or a delay warning names none.
func TestBounceFailedRecipients(t *testing.T) {
	failedDE := "Final-Recipient: rfc822; de@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n"
	b64 := base64.StdEncoding.EncodeToString([]byte("Reporting-MTA: dns; ex.example\r\n\r\nFinal-Recipient: rfc822;DE@Example.org\r\nAction: Failed\r\nStatus: 5.1.10\r\n"))
	for _, tc := range []struct {
		name string
		raw  string
		want []string
	}{
		{"postfix", dsnMail(verpTo, failedDE), []string{"de@example.org"}},
		{"brackets and original recipient", dsnMail(verpTo, "Original-Recipient: rfc822;<De@Example.org>\r\nFinal-Recipient: rfc822; <de.forward@example.com>\r\nAction: failed (bad mailbox)\r\n"),
			[]string{"de.forward@example.com", "de@example.org"}},
		{"global report", strings.Replace(dsnMail(verpTo, "Final-Recipient: utf-8; jürgen@example.de\r\nAction: failed\r\n"),
			"message/delivery-status", "message/global-delivery-status", 1), []string{"jürgen@example.de"}},
		{"one of two failed", dsnMail(verpTo, "Final-Recipient: rfc822; us@example.org\r\nAction: delivered\r\n\r\n"+failedDE),
			[]string{"de@example.org"}},
		{"delay warning", dsnMail(verpTo, "Final-Recipient: rfc822; de@example.org\r\nAction: delayed\r\nStatus: 4.4.1\r\n"), nil},
		{"no action", dsnMail(verpTo, "Final-Recipient: rfc822; de@example.org\r\nStatus: 5.1.1\r\n"), nil},
		{"x400 address", dsnMail(verpTo, "Final-Recipient: x400; /C=FR/O=x/\r\nAction: failed\r\n"), nil},
		{"no address", dsnMail(verpTo, "Final-Recipient: rfc822; nobody\r\nAction: failed\r\n"), nil},
		{"not to a VERP address", dsnMail("orders@adjutant.example", failedDE), nil},
		{"base64 report in multipart/mixed", "From: gw@relay.example\r\nTo: " + verpTo + "\r\nMessage-Id: <gw.1@relay.example>\r\n" +
			"Content-Type: multipart/mixed; boundary=M\r\n\r\n--M\r\nContent-Type: text/plain\r\n\r\nfailed\r\n" +
			"--M\r\nContent-Type: message/delivery-status\r\nContent-Transfer-Encoding: base64\r\n\r\n" + b64 + "\r\n--M--\r\n",
			[]string{"de@example.org"}},
		{"report inside the returned mail", "From: MAILER-DAEMON@mx.example.net\r\nTo: " + verpTo + "\r\nMessage-Id: <r.1@mx>\r\n" +
			"Content-Type: multipart/report; report-type=delivery-status; boundary=R\r\n\r\n--R\r\nContent-Type: text/plain\r\n\r\nx\r\n" +
			"--R\r\nContent-Type: message/rfc822\r\n\r\nFrom: a@b\r\nContent-Type: message/delivery-status\r\n\r\n\r\n" + failedDE + "\r\n--R--\r\n", nil},
		{"vacation auto-reply", "Return-Path: <k.weber@example.de>\r\nFrom: Klaus Weber <k.weber@example.de>\r\nTo: " + verpTo + "\r\n" +
			"Subject: Abwesenheitsnotiz\r\nMessage-ID: <vac.1@example.de>\r\nAuto-Submitted: auto-replied\r\n\r\n" +
			"Ich bin bis zum 2. April nicht im Buero.\r\nFinal-Recipient: rfc822; de@example.org\r\nAction: failed\r\n", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := read(t, []byte(tc.raw))
			if got := env.BounceFailed; !slices.Equal(got, tc.want) {
				t.Errorf("BounceFailed = %q, want %q", got, tc.want)
			}
			if !env.Automated {
				t.Errorf("not automated")
			}
		})
	}
}

// FuzzBounce: no bounce makes ReadEnvelope panic, and what it reports of a bounce is
// bounded and usable as it is: a tag of 16 hex digits or none, failed recipients bare,
// lower-cased addresses.
func FuzzBounce(f *testing.F) {
	f.Add([]byte(dsnMail(verpTo, "Final-Recipient: rfc822; de@example.org\r\nAction: failed\r\n")))
	f.Add([]byte(dsnMail("orders+b-7@adjutant.example", "Original-Recipient: rfc822;<De@x>\r\nAction: failed\r\n\r\nFinal-Recipient: rfc822; a@b\r\nAction: delayed\r\n")))
	f.Add([]byte(dsnMail(verpTo, strings.Repeat("Final-Recipient: rfc822; x@y\r\nAction: failed\r\n\r\n", 200))))
	f.Fuzz(func(t *testing.T, raw []byte) {
		env, _ := mail.ReadEnvelope(bytes.NewReader(raw), 0)
		if env == nil {
			t.Fatal("nil Envelope from an in-memory reader")
		}
		if env.BounceTag != "" && (len(env.BounceTag) != 16 || strings.Trim(env.BounceTag, "0123456789abcdef") != "") {
			t.Fatalf("BounceTag %q", env.BounceTag)
		}
		if env.BounceOf == 0 && (env.BounceTag != "" || env.BounceFailed != nil) {
			t.Fatalf("no VERP address, yet tag %q and failed %q", env.BounceTag, env.BounceFailed)
		}
		if len(env.BounceFailed) > 100 {
			t.Fatalf("%d failed recipients", len(env.BounceFailed))
		}
		for _, a := range env.BounceFailed {
			if a != strings.ToLower(a) || strings.ContainsAny(a, " \t\r\n<>,") || !strings.Contains(a, "@") {
				t.Fatalf("failed recipient %q is no bare address", a)
			}
		}
	})
}

// TestSenderVERPSigned (issue 19): over real SMTP, each mail's envelope sender carries
// its outbox number and the store's tag of it; the same mail from another store carries
// another tag; a bounce to that address reads back as the mail with a tag its store
// believes, and the other store does not; with NoVERP the envelope sender is From.
func TestSenderVERPSigned(t *testing.T) {
	k := newSMTPSink(t, nil)
	clock := newSendClock()
	var senders []string
	var dbs []*store.DB
	for _, noVERP := range []bool{false, false, true} {
		db := sendOpenStore(t)
		dbs = append(dbs, db)
		sendEnqueue(t, db, sendMail("adjutant-verdun@adjutant.example", "de@example.org", "verdun", "Your move.\n"))
		s := newTestSender(t, k, db, clock, nil)
		s.Config.NoVERP = noVERP
		if sent, _, err := s.DrainOnce(t.Context()); err != nil || sent != 1 {
			t.Fatalf("DrainOnce = %d, %v", sent, err)
		}
		got := k.received()
		senders = append(senders, got[len(got)-1].From)
	}
	if senders[2] != "game@adjutant.example" {
		t.Errorf("NoVERP envelope sender %q, want the plain From", senders[2])
	}
	if senders[0] == senders[1] {
		t.Errorf("two stores sent their mail 1 with the same envelope sender %q", senders[0])
	}
	for i, from := range senders[:2] {
		env := read(t, []byte(dsnMail(from, "Final-Recipient: rfc822; de@example.org\r\nAction: failed\r\n")))
		if env.BounceOf != 1 || len(env.BounceTag) != store.BounceTagLen {
			t.Fatalf("bounce to %s: BounceOf %d, BounceTag %q", from, env.BounceOf, env.BounceTag)
		}
		for j, db := range dbs[:2] {
			if got := db.Identity().ValidBounceTag(env.BounceOf, "adjutant-verdun@adjutant.example", env.BounceTag); got != (i == j) {
				t.Errorf("store %d believes the tag of store %d's mail: %v, want %v", j, i, got, i == j)
			}
		}
	}
}
