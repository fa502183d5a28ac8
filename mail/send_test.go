package mail_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"mime"
	"mime/quotedprintable"
	netmail "net/mail"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

func smtpTestLogger(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// sendParse parses a received message: its header and its decoded body with "\n" endings.
func sendParse(t testing.TB, raw []byte) (netmail.Header, string) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("parse received message: %v\n%s", err, raw)
	}
	var body io.Reader = msg.Body
	if strings.EqualFold(msg.Header.Get("Content-Transfer-Encoding"), "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatalf("read body: %v", err)
	}
	return msg.Header, strings.ReplaceAll(string(b), "\r\n", "\n")
}

func sendMessageIDs(t testing.TB, got []smtpGot) []string {
	t.Helper()
	ids := make([]string, len(got))
	for i, g := range got {
		h, _ := sendParse(t, g.Raw)
		ids[i] = h.Get("Message-Id")
	}
	return ids
}

func sendEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// Queued mails go in outbox order with the exact headers, are marked Sent, and a second
// pass sends nothing.
func TestSenderDrainOnceSendsInOrderWithHeaders(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	clock := newSendClock()
	var logs smtpLockedBuffer
	s := newTestSender(t, k, db, clock, &logs)

	body := "Turn 3, bombardment phase.\n" +
		".a line starting with a dot\n" +
		"From the front: Épernay holds; the US plot 4300x3 4400x3 was revealed as sealed. " +
		"This line is longer than seventy-six characters so that it is soft-broken.\n" +
		"END\n"
	reply := store.OutMail{
		MessageID: "adjutant-0001@adjutant.example", To: []string{"Alice Player <alice@example.org>"},
		Subject: "Re: orders für Runde 3", Body: "Orders checked.\n", InReplyTo: "m2@mua.example",
		References: []string{"m1@mua.example", "m2@mua.example"}, AutoReplied: true,
		Game: "g1", Side: "us", Kind: "check", Queued: time.Date(2025, 3, 21, 4, 31, 7, 0, time.UTC),
	}
	queued := sendEnqueue(t, db,
		sendMail("adjutant-0000@adjutant.example", "bob@example.net", "", body),
		reply,
		sendMail("adjutant-0002@adjutant.example", "carol@example.com", "g1", "Third.\n"),
	)

	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 3 || failed != 0 {
		t.Fatalf("DrainOnce = %d, %d, %v; want 3, 0, nil", sent, failed, err)
	}
	got := k.received()
	if len(got) != 3 {
		t.Fatalf("server received %d messages, want 3", len(got))
	}
	if n := k.sessionCount(); n != 1 {
		t.Errorf("the pass used %d SMTP sessions, want 1", n)
	}
	wantIDs := []string{"<adjutant-0000@adjutant.example>", "<adjutant-0001@adjutant.example>", "<adjutant-0002@adjutant.example>"}
	if ids := sendMessageIDs(t, got); !sendEqual(ids, wantIDs) {
		t.Fatalf("received Message-IDs %q, want %q (outbox order)", ids, wantIDs)
	}

	// The first: a mail of the desk (no game), auto-generated.
	h, text := sendParse(t, got[0].Raw)
	// The envelope sender is VERP: the game address with the outbox number (issue 9)
	// and the store's tag of the mail (issue 19).
	id := db.Identity()
	if want := "game+b-1-" + id.BounceTag(1, queued[0].MessageID) + "@adjutant.example"; got[0].From != want || !sendEqual(got[0].To, []string{"bob@example.net"}) {
		t.Errorf("envelope = %q -> %q, want %s", got[0].From, got[0].To, want)
	}
	if want := "game+b-2-" + id.BounceTag(2, queued[1].MessageID) + "@adjutant.example"; got[1].From != want {
		t.Errorf("second envelope sender = %q, want %s", got[1].From, want)
	}
	for name, want := range map[string]string{
		"From":           `"Adjutant" <game@adjutant.example>`,
		"To":             "<bob@example.net>",
		"Subject":        "Soldiers 1918: results of turn 3",
		"Auto-Submitted": "auto-generated",
		"X-Adjutant":     "desk",
		"MIME-Version":   "1.0",
	} {
		if v := h.Get(name); v != want {
			t.Errorf("%s: %q, want %q", name, v, want)
		}
	}
	for _, name := range []string{"In-Reply-To", "References"} {
		if v, ok := h[name]; ok {
			t.Errorf("%s present (%q) on a mail that answers nothing", name, v)
		}
	}
	if ct := h.Get("Content-Type"); !strings.EqualFold(strings.ReplaceAll(ct, " ", ""), "text/plain;charset=utf-8") {
		t.Errorf("Content-Type %q, want text/plain; charset=utf-8", ct)
	}
	if d, err := h.Date(); err != nil || !d.Equal(queued[0].Queued) {
		t.Errorf("Date %q (%v), want the time queued %v", h.Get("Date"), err, queued[0].Queued)
	}
	if text != body {
		t.Errorf("body:\n%q\nwant\n%q", text, body)
	}
	for _, line := range strings.Split(string(got[0].Raw), "\r\n") {
		if len(line) > 78 {
			t.Errorf("line longer than 78 characters on the wire: %q", line)
		}
	}
	if len(h["Message-Id"]) != 1 {
		t.Errorf("Message-ID headers: %q, want exactly one", h["Message-Id"])
	}

	// The second: a reply in a thread.
	h, text = sendParse(t, got[1].Raw)
	subject, err := new(mime.WordDecoder).DecodeHeader(h.Get("Subject"))
	if err != nil || subject != reply.Subject {
		t.Errorf("Subject %q decodes to %q (%v), want %q", h.Get("Subject"), subject, err, reply.Subject)
	}
	for name, want := range map[string]string{
		"To":             `"Alice Player" <alice@example.org>`,
		"In-Reply-To":    "<m2@mua.example>",
		"References":     "<m1@mua.example> <m2@mua.example>",
		"Auto-Submitted": "auto-replied",
		"X-Adjutant":     "g1",
	} {
		if v := h.Get(name); v != want {
			t.Errorf("reply %s: %q, want %q", name, v, want)
		}
	}
	if text != reply.Body {
		t.Errorf("reply body %q, want %q", text, reply.Body)
	}
	if !sendEqual(got[1].To, []string{"alice@example.org"}) {
		t.Errorf("reply RCPT TO %q, want the bare address", got[1].To)
	}

	// The daemon's own intake recognises the mail as its own and never answers it.
	for i, g := range got {
		env, err := mail.ReadEnvelope(bytes.NewReader(g.Raw), 0)
		if err != nil {
			t.Fatalf("ReadEnvelope of sent mail %d: %v", i, err)
		}
		if !env.Automated || env.AutomatedReason != "X-Adjutant header (own mail)" {
			t.Errorf("sent mail %d: Automated %v (%q), want it recognised as own mail", i, env.Automated, env.AutomatedReason)
		}
		if env.MessageID != queued[i].MessageID {
			t.Errorf("sent mail %d: intake reads Message-ID %q, want %q", i, env.MessageID, queued[i].MessageID)
		}
	}

	// Every mail is marked sent, at the injected time.
	box := sendOutbox(t, db)
	for _, q := range queued {
		m := box[q.Seq]
		if !m.Sent || !m.SentAt.Equal(clock.Now()) || m.Attempts != 1 || m.LastError != "" || m.Failed {
			t.Errorf("outbox %d after sending: Sent %v SentAt %v Attempts %d LastError %q Failed %v",
				m.Seq, m.Sent, m.SentAt, m.Attempts, m.LastError, m.Failed)
		}
	}

	// A second pass has nothing to do, and does not even connect.
	sent, failed, err = s.DrainOnce(t.Context())
	if err != nil || sent != 0 || failed != 0 {
		t.Fatalf("second DrainOnce = %d, %d, %v; want 0, 0, nil", sent, failed, err)
	}
	if n := len(k.received()); n != 3 {
		t.Errorf("server has %d messages after the second pass, want still 3", n)
	}
	if n := k.sessionCount(); n != 1 {
		t.Errorf("%d sessions after an empty pass, want still 1", n)
	}

	// Logs name the mail, never its body.
	l := logs.String()
	if !strings.Contains(l, "adjutant-0001@adjutant.example") || !strings.Contains(l, "alice@example.org") {
		t.Errorf("logs do not name the mail sent:\n%s", l)
	}
	for _, secret := range []string{"4300x3", "Orders checked", "Third."} {
		if strings.Contains(l, secret) {
			t.Errorf("logs contain the body (%q):\n%s", secret, l)
		}
	}
}

// The server is down for a while: passes fail and move NextAttempt with back-off; once it
// is up every mail arrives exactly once with its Message-ID.
func TestSenderDrainServerDownThenUp(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	clock := newSendClock()
	s := newTestSender(t, k, db, clock, nil)
	k.stop()

	queued := sendEnqueue(t, db,
		sendMail("down-1@adjutant.example", "a@example.org", "g1", "one\n"),
		sendMail("down-2@adjutant.example", "b@example.org", "g1", "two\n"),
		sendMail("down-3@adjutant.example", "c@example.org", "g2", "three\n"),
	)
	start := clock.Now()
	var wantNext time.Time
	for attempt := 1; attempt <= 3; attempt++ {
		sent, failed, err := s.DrainOnce(t.Context())
		if err == nil || sent != 0 || failed != 3 {
			t.Fatalf("pass %d while down = %d, %d, %v; want 0, 3 and an error", attempt, sent, failed, err)
		}
		if !strings.Contains(err.Error(), "connect to") || !strings.Contains(err.Error(), "down-1@adjutant.example") {
			t.Errorf("error %q does not say what was being done", err)
		}
		wantNext = clock.Now().Add(mail.Backoff(attempt, s.MinBackoff, s.MaxBackoff))
		for _, q := range queued {
			m := sendOutbox(t, db)[q.Seq]
			if m.Sent || m.Failed || m.Attempts != attempt || !m.NextAttempt.Equal(wantNext) || m.LastError == "" {
				t.Fatalf("pass %d: mail %d: Sent %v Failed %v Attempts %d NextAttempt %v LastError %q; want attempt %d, next %v",
					attempt, q.Seq, m.Sent, m.Failed, m.Attempts, m.NextAttempt, m.LastError, attempt, wantNext)
			}
		}
		// Before the back-off has passed, a pass does nothing at all.
		clock.Advance(wantNext.Sub(clock.Now()) - time.Second)
		if sent, failed, err := s.DrainOnce(t.Context()); sent != 0 || failed != 0 || err != nil {
			t.Fatalf("pass before the back-off = %d, %d, %v; want nothing", sent, failed, err)
		}
		clock.Advance(time.Second)
	}
	if d := wantNext.Sub(start); d != (1+2+4)*time.Minute {
		t.Errorf("after three failures the next try is %v after the first, want 7m (1m, 2m, 4m)", d)
	}

	k.restart()
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 3 || failed != 0 {
		t.Fatalf("DrainOnce once up = %d, %d, %v; want 3, 0, nil", sent, failed, err)
	}
	clock.Advance(24 * time.Hour)
	if sent, _, err := s.DrainOnce(t.Context()); sent != 0 || err != nil {
		t.Fatalf("pass after all were sent = %d, %v", sent, err)
	}
	want := []string{"<down-1@adjutant.example>", "<down-2@adjutant.example>", "<down-3@adjutant.example>"}
	if ids := sendMessageIDs(t, k.received()); !sendEqual(ids, want) {
		t.Fatalf("received %q, want each mail exactly once: %q", ids, want)
	}
	for _, q := range queued {
		if m := sendOutbox(t, db)[q.Seq]; !m.Sent || m.Attempts != 4 || m.LastError != "" {
			t.Errorf("mail %d: Sent %v Attempts %d LastError %q", q.Seq, m.Sent, m.Attempts, m.LastError)
		}
	}
}

// A recipient refused with 550 does not hold the other mails back; the refused mail is
// retried with back-off and given up after MaxAttempts, never marked Sent.
func TestSenderDrainRefusedRecipient(t *testing.T) {
	k := newSMTPSink(t, nil)
	k.setRefuse("gone@example.org", 550)
	db := sendOpenStore(t)
	clock := newSendClock()
	var logs smtpLockedBuffer
	s := newTestSender(t, k, db, clock, &logs)

	queued := sendEnqueue(t, db,
		sendMail("r-1@adjutant.example", "a@example.org", "g1", "first\n"),
		sendMail("r-2@adjutant.example", "gone@example.org", "g1", "SECRET-PLOT 4300x3\n"),
		sendMail("r-3@adjutant.example", "c@example.org", "g1", "third\n"),
	)
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 2 || failed != 1 {
		t.Fatalf("DrainOnce = %d, %d, %v; want 2, 1, nil", sent, failed, err)
	}
	want := []string{"<r-1@adjutant.example>", "<r-3@adjutant.example>"}
	if ids := sendMessageIDs(t, k.received()); !sendEqual(ids, want) {
		t.Fatalf("received %q, want %q in the same pass", ids, want)
	}
	if n := k.sessionCount(); n != 1 {
		t.Errorf("%d sessions, want 1: a refused recipient does not cost the connection", n)
	}

	refused := queued[1].Seq
	for attempt := 1; attempt <= s.MaxAttempts; attempt++ {
		if attempt > 1 {
			clock.Advance(mail.Backoff(attempt-1, s.MinBackoff, s.MaxBackoff))
			sent, failed, err := s.DrainOnce(t.Context())
			if err != nil || sent != 0 || failed != 1 {
				t.Fatalf("retry %d = %d, %d, %v; want 0, 1, nil", attempt, sent, failed, err)
			}
		}
		m := sendOutbox(t, db)[refused]
		if m.Sent || m.Attempts != attempt || !strings.Contains(m.LastError, "550") {
			t.Fatalf("after try %d: Sent %v Attempts %d LastError %q", attempt, m.Sent, m.Attempts, m.LastError)
		}
		if last := attempt == s.MaxAttempts; m.Failed != last {
			t.Fatalf("after try %d of %d: Failed %v", attempt, s.MaxAttempts, m.Failed)
		}
		if attempt < s.MaxAttempts {
			if wantNext := clock.Now().Add(mail.Backoff(attempt, s.MinBackoff, s.MaxBackoff)); !m.NextAttempt.Equal(wantNext) {
				t.Errorf("after try %d: NextAttempt %v, want %v", attempt, m.NextAttempt, wantNext)
			}
		}
	}
	clock.Advance(48 * time.Hour)
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 0 || failed != 0 || err != nil {
		t.Fatalf("pass after giving up = %d, %d, %v; want nothing to do", sent, failed, err)
	}
	for _, g := range k.received() {
		for _, to := range g.To {
			if to == "gone@example.org" {
				t.Errorf("the refused mail was delivered")
			}
		}
	}
	if m := sendOutbox(t, db)[refused]; m.Sent || !m.Failed {
		t.Errorf("refused mail: Sent %v Failed %v; want given up, not sent", m.Sent, m.Failed)
	}
	l := logs.String()
	if !strings.Contains(l, "given up") || !strings.Contains(l, "r-2@adjutant.example") {
		t.Errorf("giving up is not logged:\n%s", l)
	}
	if strings.Contains(l, "SECRET-PLOT") {
		t.Errorf("logs contain the body:\n%s", l)
	}
}

// A temporary refusal (450) of one mail is retried for ever, never given up.
func TestSenderDrainTemporaryRefusalNeverGivesUp(t *testing.T) {
	k := newSMTPSink(t, nil)
	k.setRefuse("busy@example.org", 450)
	db := sendOpenStore(t)
	clock := newSendClock()
	s := newTestSender(t, k, db, clock, nil)
	s.MaxAttempts = 2

	q := sendEnqueue(t, db, sendMail("t-1@adjutant.example", "busy@example.org", "g1", "x\n"))[0]
	for attempt := 1; attempt <= 5; attempt++ {
		sent, failed, err := s.DrainOnce(t.Context())
		if err != nil || sent != 0 || failed != 1 {
			t.Fatalf("try %d = %d, %d, %v", attempt, sent, failed, err)
		}
		m := sendOutbox(t, db)[q.Seq]
		if m.Failed || m.Attempts != attempt || !strings.Contains(m.LastError, "450") {
			t.Fatalf("try %d: Failed %v Attempts %d LastError %q", attempt, m.Failed, m.Attempts, m.LastError)
		}
		clock.Advance(mail.Backoff(attempt, s.MinBackoff, s.MaxBackoff))
	}
	k.setRefuse("busy@example.org", 0)
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 1 || failed != 0 || err != nil {
		t.Fatalf("once accepted = %d, %d, %v", sent, failed, err)
	}
	if m := sendOutbox(t, db)[q.Seq]; !m.Sent || m.Failed {
		t.Errorf("Sent %v Failed %v", m.Sent, m.Failed)
	}
}

// Temporary refusals do not count towards MaxAttempts: after five 450s, a 550 is the first
// permanent refusal, and the mail is given up only at the MaxAttempts-th one.
func TestSenderDrainOnlyPermanentRefusalsCount(t *testing.T) {
	k := newSMTPSink(t, nil)
	k.setRefuse("flaky@example.org", 450)
	db := sendOpenStore(t)
	clock := newSendClock()
	s := newTestSender(t, k, db, clock, nil)
	s.MaxAttempts = 2
	q := sendEnqueue(t, db, sendMail("f-1@adjutant.example", "flaky@example.org", "g1", "x\n"))[0]
	try := func(wantFailed bool, refusals int) {
		t.Helper()
		s.DrainOnce(t.Context())
		m := sendOutbox(t, db)[q.Seq]
		if m.Failed != wantFailed || m.Refusals != refusals || m.Sent {
			t.Fatalf("after try %d: Failed %v Refusals %d Sent %v, want Failed %v Refusals %d", m.Attempts, m.Failed, m.Refusals, m.Sent, wantFailed, refusals)
		}
		clock.Advance(mail.Backoff(m.Attempts, s.MinBackoff, s.MaxBackoff))
	}
	for range 5 {
		try(false, 0)
	}
	k.setRefuse("flaky@example.org", 550)
	try(false, 1) // the seventh try, but only the first permanent refusal
	try(true, 2)
}

// A 421 ends the pass: the mail and the ones after it keep their place with the back-off.
// A connection closed without an answer to DATA does the same; the mail is then sent once.
func TestSenderDrain421AndDropEndThePass(t *testing.T) {
	k := newSMTPSink(t, nil)
	k.setRefuse("b@example.org", 421)
	k.dataDrop = func(n int) bool { return n == 3 }
	db := sendOpenStore(t)
	clock := newSendClock()
	s := newTestSender(t, k, db, clock, nil)
	queued := sendEnqueue(t, db,
		sendMail("c-1@adjutant.example", "a@example.org", "g1", "1\n"),
		sendMail("c-2@adjutant.example", "b@example.org", "g1", "2\n"),
		sendMail("c-3@adjutant.example", "c@example.org", "g1", "3\n"),
	)

	// c-1 goes; RCPT of c-2 gets 421: c-2 and c-3 wait.
	sent, failed, err := s.DrainOnce(t.Context())
	if err == nil || !strings.Contains(err.Error(), "421") || sent != 1 || failed != 2 {
		t.Fatalf("pass 1 = %d, %d, %v; want 1, 2 and the 421", sent, failed, err)
	}
	next := clock.Now().Add(s.MinBackoff)
	for _, q := range queued[1:] {
		if m := sendOutbox(t, db)[q.Seq]; m.Sent || m.Failed || m.Attempts != 1 || !m.NextAttempt.Equal(next) {
			t.Fatalf("mail %d after the 421: Sent %v Failed %v Attempts %d NextAttempt %v, want next %v", q.Seq, m.Sent, m.Failed, m.Attempts, m.NextAttempt, next)
		}
	}

	// c-2 goes (DATA 2); the connection is dropped without an answer to DATA 3 (c-3).
	k.setRefuse("b@example.org", 0)
	clock.Advance(s.MinBackoff)
	sent, failed, err = s.DrainOnce(t.Context())
	if err == nil || sent != 1 || failed != 1 {
		t.Fatalf("pass 2 = %d, %d, %v; want 1, 1 and an error", sent, failed, err)
	}
	m := sendOutbox(t, db)[queued[2].Seq]
	if m.Sent || m.Attempts != 2 || !m.NextAttempt.Equal(clock.Now().Add(2*s.MinBackoff)) {
		t.Fatalf("dropped mail: Sent %v Attempts %d NextAttempt %v", m.Sent, m.Attempts, m.NextAttempt)
	}

	clock.Advance(2 * s.MinBackoff)
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 1 || failed != 0 || err != nil {
		t.Fatalf("pass 3 = %d, %d, %v; want 1, 0, nil", sent, failed, err)
	}
	want := []string{"<c-1@adjutant.example>", "<c-2@adjutant.example>", "<c-3@adjutant.example>"}
	if ids := sendMessageIDs(t, k.received()); !sendEqual(ids, want) {
		t.Fatalf("received %q, want %q", ids, want)
	}
}

// A connection the server closed while idle (between two mails) is dialled again within
// the same pass.
func TestSenderDrainReconnectsAfterIdleDrop(t *testing.T) {
	k := newSMTPSink(t, func(k *smtpSink) { k.readTimeout = 250 * time.Millisecond })
	db := sendOpenStore(t)
	flaky := &sendFlakyStore{Store: db}
	flaky.slowWrites.Store(int64(700 * time.Millisecond)) // marking a mail outlasts the idle timeout
	s := newTestSender(t, k, flaky, newSendClock(), nil)
	sendEnqueue(t, db,
		sendMail("i-1@adjutant.example", "a@example.org", "g1", "1\n"),
		sendMail("i-2@adjutant.example", "b@example.org", "g1", "2\n"),
		sendMail("i-3@adjutant.example", "c@example.org", "g1", "3\n"),
	)
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 3 || failed != 0 {
		t.Fatalf("DrainOnce = %d, %d, %v; want 3, 0, nil", sent, failed, err)
	}
	if n := k.sessionCount(); n != 3 {
		t.Errorf("%d sessions, want 3 (one reconnection after each idle drop)", n)
	}
	if n := len(k.received()); n != 3 {
		t.Errorf("received %d, want 3", n)
	}
}

// "none" towards a host that is not loopback is refused before any I/O; "starttls" against
// a server without STARTTLS fails, and the mails wait.
func TestSenderSecurity(t *testing.T) {
	db := sendOpenStore(t)
	clock := newSendClock()
	q := sendEnqueue(t, db, sendMail("s-1@adjutant.example", "a@example.org", "g1", "x\n"))[0]

	s := &mail.Sender{Config: mail.SMTPConfig{Host: "smtp.example.org", Port: 25, Security: "none", From: "game@adjutant.example"}, Store: db, Now: clock.Now}
	_, _, err := s.DrainOnce(t.Context())
	if err == nil || !strings.Contains(err.Error(), "loopback") || !strings.Contains(err.Error(), "smtp.example.org") {
		t.Fatalf("none towards smtp.example.org: %v; want a refusal naming loopback and the host", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if err := s.Run(ctx, nil); err == nil || !strings.Contains(err.Error(), "loopback") {
		t.Fatalf("Run with none towards smtp.example.org: %v", err)
	}
	if m := sendOutbox(t, db)[q.Seq]; m.Attempts != 0 || m.LastError != "" {
		t.Errorf("a refused configuration touched the outbox: %+v", m)
	}
	for _, bad := range []mail.SMTPConfig{
		{Host: "", Security: "tls", From: "game@adjutant.example"},
		{Host: "smtp.example.org", Security: "ssl", From: "game@adjutant.example"},
		{Host: "smtp.example.org", Security: "", From: "game@adjutant.example"},
		{Host: "smtp.example.org", Security: "tls", From: "not an address"},
		{Host: "smtp.example.org", Security: "tls", Port: 70000, From: "game@adjutant.example"},
	} {
		if err := bad.Validate(); err == nil {
			t.Errorf("Validate(%+v) = nil, want an error", bad)
		}
	}
	for _, ok := range []mail.SMTPConfig{
		{Host: "127.0.0.1", Security: "none", From: "game@adjutant.example"},
		{Host: "::1", Security: "none", From: "game@adjutant.example"},
		{Host: "localhost", Security: "none", From: "Adjutant <game@adjutant.example>"},
		{Host: "smtp.example.org", Security: "starttls", From: "game@adjutant.example"},
	} {
		if err := ok.Validate(); err != nil {
			t.Errorf("Validate(%+v) = %v", ok, err)
		}
	}

	// Mandatory STARTTLS towards a server that does not offer it.
	k := newSMTPSink(t, nil)
	s = newTestSender(t, k, db, clock, nil)
	s.Config.Security = "starttls"
	sent, failed, err := s.DrainOnce(t.Context())
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") || sent != 0 || failed != 1 {
		t.Fatalf("starttls without STARTTLS = %d, %d, %v; want a STARTTLS error", sent, failed, err)
	}
	if len(k.received()) != 0 {
		t.Fatal("a mail went out in plain text")
	}
	if m := sendOutbox(t, db)[q.Seq]; m.Sent || m.Failed || m.Attempts != 1 {
		t.Errorf("after the STARTTLS failure: Sent %v Failed %v Attempts %d; want waiting", m.Sent, m.Failed, m.Attempts)
	}
}

// TLS, STARTTLS and AUTH against a server with a self-signed certificate.
func TestSenderTLSAndAuth(t *testing.T) {
	cert := smtpSelfSigned(t)
	users := map[string]string{"game@adjutant.example": "s3cret"}
	for _, tc := range []struct {
		name     string
		security string
		mechs    []string
		password string
		verify   bool // keep certificate verification on
		wantErr  string
	}{
		{name: "implicit TLS, PLAIN", security: "tls", mechs: []string{"PLAIN", "LOGIN"}, password: "s3cret"},
		{name: "STARTTLS, LOGIN only", security: "starttls", mechs: []string{"LOGIN"}, password: "s3cret"},
		{name: "plain loopback, PLAIN", security: "none", mechs: []string{"PLAIN"}, password: "s3cret"},
		{name: "wrong password", security: "tls", mechs: []string{"PLAIN"}, password: "guess", wantErr: "SMTP login refused for user game@adjutant.example at 127.0.0.1:"},
		{name: "unverifiable certificate", security: "tls", mechs: []string{"PLAIN"}, password: "s3cret", verify: true, wantErr: "certificate"},
		{name: "no PLAIN nor LOGIN", security: "starttls", mechs: []string{"CRAM-MD5"}, password: "s3cret", wantErr: "neither PLAIN nor LOGIN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := newSMTPSink(t, func(k *smtpSink) {
				switch tc.security {
				case "tls":
					k.implicitTLS = cert
				case "starttls":
					k.startTLS = cert
				}
				k.users, k.mechs = users, tc.mechs
			})
			db := sendOpenStore(t)
			clock := newSendClock()
			s := newTestSender(t, k, db, clock, nil)
			s.Config.Security = tc.security
			s.Config.Username, s.Config.Password = "game@adjutant.example", tc.password
			s.Config.TLSInsecureSkipVerify = !tc.verify
			q := sendEnqueue(t, db, sendMail("a-1@adjutant.example", "a@example.org", "g1", "x\n"))[0]
			sent, failed, err := s.DrainOnce(t.Context())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || sent != 0 || failed != 1 {
					t.Fatalf("DrainOnce = %d, %d, %v; want an error with %q", sent, failed, err, tc.wantErr)
				}
				if m := sendOutbox(t, db)[q.Seq]; m.Failed || m.Sent {
					t.Errorf("a session failure gave the mail up: %+v", m)
				}
				return
			}
			if err != nil || sent != 1 {
				t.Fatalf("DrainOnce = %d, %d, %v", sent, failed, err)
			}
			g := k.received()[0]
			if g.User != "game@adjutant.example" || g.TLS != (tc.security != "none") {
				t.Errorf("received with user %q, TLS %v", g.User, g.TLS)
			}
		})
	}

	// A server that requires AUTH refuses MAIL FROM (go-smtp says 502 5.7.0): that is about
	// the session, not the mail, so the mail waits instead of being given up.
	k := newSMTPSink(t, func(k *smtpSink) { k.users, k.mechs = users, []string{"PLAIN"} })
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, newSendClock(), nil)
	s.MaxAttempts = 1
	q := sendEnqueue(t, db, sendMail("a-2@adjutant.example", "a@example.org", "g1", "x\n"))[0]
	if _, _, err := s.DrainOnce(t.Context()); err == nil || !strings.Contains(err.Error(), "authenticate") {
		t.Fatalf("DrainOnce without AUTH = %v; want the refusal", err)
	}
	if m := sendOutbox(t, db)[q.Seq]; m.Failed || m.Sent || m.Attempts != 1 {
		t.Errorf("after MAIL FROM was refused: %+v; want waiting", m)
	}
}

// Run drains at start, when woken, and when a back-off ends; it stops with its context.
func TestSenderRunWakesAndStops(t *testing.T) {
	arrived := make(chan string, 10)
	k := newSMTPSink(t, func(k *smtpSink) {
		k.onData = func(_ int, g smtpGot) {
			h, _ := netmail.ReadMessage(bytes.NewReader(g.Raw))
			arrived <- h.Header.Get("Message-Id")
		}
	})
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, nil, nil) // real clock
	s.MinBackoff, s.MaxBackoff = 50*time.Millisecond, time.Second
	sendEnqueue(t, db, sendMail("run-0@adjutant.example", "a@example.org", "g1", "0\n"))

	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	wake := make(chan struct{}, 1)
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, wake) }()

	expect := func(id string, within time.Duration) time.Time {
		t.Helper()
		select {
		case got := <-arrived:
			if got != "<"+id+">" {
				t.Fatalf("arrived %s, want <%s>", got, id)
			}
			return time.Now()
		case err := <-done:
			t.Fatalf("Run returned early: %v", err)
		case <-time.After(within):
			t.Fatalf("%s did not arrive within %v", id, within)
		}
		return time.Time{}
	}
	expect("run-0@adjutant.example", 5*time.Second) // drained at start

	// Once Run is idle, only the wake makes it look at the outbox again.
	for deadline := time.Now().Add(5 * time.Second); !sendOutbox(t, db)[1].Sent; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("run-0 was not marked sent")
		}
	}
	time.Sleep(100 * time.Millisecond)
	sendEnqueue(t, db, sendMail("run-1@adjutant.example", "a@example.org", "g1", "1\n"))
	wake <- struct{}{}
	expect("run-1@adjutant.example", 5*time.Second)

	// A mail due a little later goes when it is due, without another wake.
	due := time.Now().Add(300 * time.Millisecond)
	later := sendMail("run-2@adjutant.example", "a@example.org", "g1", "2\n")
	later.NextAttempt = due
	sendEnqueue(t, db, later)
	wake <- struct{}{}
	if at := expect("run-2@adjutant.example", 5*time.Second); at.Before(due) {
		t.Errorf("run-2 went at %v, before it was due at %v", at, due)
	}

	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Run after cancel = %v, want nil", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop within 5s of cancellation")
	}
}

// Run keeps retrying on its own when the server comes back, and stops while it is down.
func TestSenderRunRetriesWithBackoff(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, nil, nil)
	s.MinBackoff, s.MaxBackoff = 50*time.Millisecond, 200*time.Millisecond
	k.stop()
	sendEnqueue(t, db, sendMail("rr-1@adjutant.example", "a@example.org", "g1", "1\n"))

	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx, nil) }()
	time.Sleep(300 * time.Millisecond)
	k.restart()
	deadline := time.Now().Add(5 * time.Second)
	for len(k.received()) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the mail did not go once the server was back")
		}
		time.Sleep(20 * time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v", err)
	}
	if n := len(k.received()); n != 1 {
		t.Errorf("received %d, want exactly 1", n)
	}
}

// A cancelled context stops the pass and leaves the mails as they were.
func TestSenderDrainCancelled(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, newSendClock(), nil)
	q := sendEnqueue(t, db, sendMail("x-1@adjutant.example", "a@example.org", "g1", "1\n"))[0]
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, _, err := s.DrainOnce(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("DrainOnce(cancelled) = %v, want context.Canceled", err)
	}
	if m := sendOutbox(t, db)[q.Seq]; m.Attempts != 0 || m.Sent || !m.NextAttempt.IsZero() {
		t.Errorf("a cancelled pass changed the mail: %+v", m)
	}
	if len(k.received()) != 0 {
		t.Error("a cancelled pass sent mail")
	}
}

// A mail that cannot be built is given up at once; the others still go.
func TestSenderDrainUnbuildableMail(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, newSendClock(), nil)
	bad := sendMail("b-1@adjutant.example", "not an address", "g1", "1\n")
	noID := sendMail("", "a@example.org", "g1", "1\n")
	queued := sendEnqueue(t, db, bad, noID, sendMail("b-3@adjutant.example", "a@example.org", "g1", "3\n"))
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 1 || failed != 2 {
		t.Fatalf("DrainOnce = %d, %d, %v; want 1, 2, nil", sent, failed, err)
	}
	for _, q := range queued[:2] {
		if m := sendOutbox(t, db)[q.Seq]; !m.Failed || m.Sent || m.LastError == "" {
			t.Errorf("unbuildable mail %d: %+v; want given up with a reason", q.Seq, m)
		}
	}
}

// A mail the server accepted but whose marking failed is sent again, with the same
// Message-ID, so that the duplicate is recognisable (invariant 2: nothing lost).
func TestSenderDrainMarkFailsAfterAcceptance(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	flaky := &sendFlakyStore{Store: db}
	var logs smtpLockedBuffer
	s := newTestSender(t, k, flaky, newSendClock(), &logs)
	queued := sendEnqueue(t, db,
		sendMail("m-1@adjutant.example", "a@example.org", "g1", "1\n"),
		sendMail("m-2@adjutant.example", "b@example.org", "g1", "2\n"),
	)
	flaky.failWrites.Store(true)
	sent, _, err := s.DrainOnce(t.Context())
	if !errors.Is(err, errSendFlaky) || sent != 1 {
		t.Fatalf("DrainOnce with a failing store = %d, %v; want 1 sent and the store error", sent, err)
	}
	if m := sendOutbox(t, db)[queued[0].Seq]; m.Sent {
		t.Fatal("marked sent although the write failed")
	}
	if !strings.Contains(logs.String(), "may be sent again") {
		t.Errorf("the failed marking is not logged:\n%s", logs.String())
	}
	flaky.failWrites.Store(false)
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 2 || failed != 0 || err != nil {
		t.Fatalf("DrainOnce after the store recovered = %d, %d, %v", sent, failed, err)
	}
	want := []string{"<m-1@adjutant.example>", "<m-1@adjutant.example>", "<m-2@adjutant.example>"}
	if ids := sendMessageIDs(t, k.received()); !sendEqual(ids, want) {
		t.Fatalf("received %q, want %q: the duplicate carries the same Message-ID", ids, want)
	}
	box := sendOutbox(t, db)
	for _, q := range queued {
		if !box[q.Seq].Sent {
			t.Errorf("mail %d not marked sent", q.Seq)
		}
	}
}

// Build gives the same bytes for the same OutMail, and they are what the server receives.
func TestSenderBuildDeterministic(t *testing.T) {
	s := &mail.Sender{Config: mail.SMTPConfig{Host: "127.0.0.1", Security: "none", From: "Adjutant <game@adjutant.example>"}}
	m := store.OutMail{
		Seq: 7, MessageID: "<adjutant-abc@adjutant.example>", To: []string{"a@example.org", "b@example.org"},
		Subject: "Résultats: tour 3", Body: "Ligne une.\nLigne deux: Épernay.\n", InReplyTo: "<p@mua.example>",
		References: []string{"bad id with blanks", "p0@mua.example", "<p@mua.example>"}, AutoReplied: true,
		Game: "g1", Kind: "check", Queued: time.Date(2025, 3, 21, 4, 31, 7, 0, time.FixedZone("CET", 3600)),
	}
	a, b := sendBuilt(t, s, m), sendBuilt(t, s, m)
	if !bytes.Equal(a, b) {
		t.Fatalf("Build differs between two calls:\n%s\n---\n%s", a, b)
	}
	msg, _ := s.Build(m)
	var c bytes.Buffer
	msg.WriteTo(&c)
	if !bytes.Equal(a, c.Bytes()) {
		t.Fatal("writing the same built message twice differs")
	}
	h, body := sendParse(t, a)
	if h.Get("Message-Id") != "<adjutant-abc@adjutant.example>" || h.Get("In-Reply-To") != "<p@mua.example>" ||
		h.Get("References") != "<p0@mua.example> <p@mua.example>" || h.Get("Date") != "Fri, 21 Mar 2025 04:31:07 +0100" ||
		h.Get("To") != "<a@example.org>, <b@example.org>" || h.Get("From") != `"Adjutant" <game@adjutant.example>` {
		t.Errorf("headers:\n%s", a)
	}
	if body != m.Body {
		t.Errorf("body %q, want %q", body, m.Body)
	}
	if ua := h.Get("User-Agent"); ua != "" {
		t.Errorf("User-Agent %q: the library version is nobody's business", ua)
	}

	// Sent over SMTP, the bytes are the built ones.
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	snd := newTestSender(t, k, db, newSendClock(), nil)
	snd.Config.From = s.Config.From
	m.Seq = 0
	m = sendEnqueue(t, db, m)[0]
	if sent, _, err := snd.DrainOnce(t.Context()); sent != 1 || err != nil {
		t.Fatalf("DrainOnce = %d, %v", sent, err)
	}
	built, _ := snd.Build(m)
	var want bytes.Buffer
	built.WriteTo(&want)
	if got := k.received()[0].Raw; !bytes.Equal(got, want.Bytes()) {
		t.Errorf("received:\n%s\nbuilt:\n%s", got, want.Bytes())
	}

	for _, bad := range []store.OutMail{
		{MessageID: "", To: []string{"a@example.org"}},
		{MessageID: "a b@c", To: []string{"a@example.org"}},
		{MessageID: "x@y", To: nil},
		{MessageID: "x@y", To: []string{"a@example.org\r\nBcc: evil@example.org"}},
	} {
		if _, err := s.Build(bad); err == nil {
			t.Errorf("Build(%+v) = nil error", bad)
		}
	}
	// Header injection through the subject or the game is encoded away.
	msg, err := s.Build(store.OutMail{MessageID: "x@y", To: []string{"a@example.org"}, Subject: "hi\r\nBcc: evil@example.org", Game: "g\r\nX-Evil: 1"})
	if err != nil {
		t.Fatal(err)
	}
	var inj bytes.Buffer
	msg.WriteTo(&inj)
	hh, _ := sendParse(t, inj.Bytes())
	if hh.Get("Bcc") != "" || hh.Get("X-Evil") != "" {
		t.Errorf("header injection:\n%s", inj.Bytes())
	}
}

// TestSenderPoisonMailGivenUp (issue 9): a mail the server drops the connection for (as
// for a header line over 998 characters) is counted against itself alone: the mails
// after it go out in the same pass, and it is given up after MaxAttempts drops instead of
// delaying every pass forever.
func TestSenderPoisonMailGivenUp(t *testing.T) {
	k := newSMTPSink(t, func(k *smtpSink) { k.dropIf = "POISON" })
	db := sendOpenStore(t)
	clock := newSendClock()
	s := newTestSender(t, k, db, clock, nil)
	s.MaxAttempts = 3
	q := sendEnqueue(t, db,
		sendMail("p-1@adjutant.example", "a@example.org", "g1", "POISON\n"),
		sendMail("p-2@adjutant.example", "b@example.org", "g1", "fine\n"),
		sendMail("p-3@adjutant.example", "c@example.org", "g1", "fine too\n"),
	)
	sent, failed, err := s.DrainOnce(t.Context())
	if sent != 2 || failed != 1 || err == nil {
		t.Fatalf("pass 1 = %d sent, %d failed, %v; want the two good mails sent and the drop reported", sent, failed, err)
	}
	for _, id := range []int{1, 2} {
		if m := sendOutbox(t, db)[q[id].Seq]; !m.Sent {
			t.Errorf("%s was held back by the poison mail", m.MessageID)
		}
	}
	for pass := 2; pass <= 3; pass++ {
		clock.Advance(time.Hour)
		s.DrainOnce(t.Context())
	}
	m := sendOutbox(t, db)[q[0].Seq]
	if !m.Failed || m.Sent || m.Drops != 3 {
		t.Errorf("the poison mail after 3 drops: Failed %v Sent %v Drops %d; want given up after 3", m.Failed, m.Sent, m.Drops)
	}
	if len(k.received()) != 2 {
		t.Errorf("%d mails received, want 2", len(k.received()))
	}
}

// TestSenderKeepsConnectionBetweenPasses: the connection of a pass serves the next one
// (a burst makes many short passes), and one the server closed while kept is dialled
// again without losing or repeating a mail.
func TestSenderKeepsConnectionBetweenPasses(t *testing.T) {
	k := newSMTPSink(t, func(k *smtpSink) { k.readTimeout = 300 * time.Millisecond })
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, newSendClock(), nil)
	for i, id := range []string{"k-1@adjutant.example", "k-2@adjutant.example"} {
		sendEnqueue(t, db, sendMail(id, "a@example.org", "g1", "text\n"))
		if sent, _, err := s.DrainOnce(t.Context()); sent != 1 || err != nil {
			t.Fatalf("pass %d = %d, %v", i+1, sent, err)
		}
	}
	if n := k.sessionCount(); n != 1 {
		t.Errorf("%d sessions for two passes in quick succession, want 1", n)
	}
	time.Sleep(500 * time.Millisecond) // the server drops the kept connection
	sendEnqueue(t, db, sendMail("k-3@adjutant.example", "a@example.org", "g1", "text\n"))
	if sent, failed, err := s.DrainOnce(t.Context()); sent != 1 || failed != 0 || err != nil {
		t.Fatalf("pass after the server dropped the kept connection = %d, %d, %v; want 1, 0, nil", sent, failed, err)
	}
	if n := k.sessionCount(); n != 2 {
		t.Errorf("%d sessions, want 2 (one dial after the drop)", n)
	}
	want := []string{"<k-1@adjutant.example>", "<k-2@adjutant.example>", "<k-3@adjutant.example>"}
	if ids := sendMessageIDs(t, k.received()); !sendEqual(ids, want) {
		t.Errorf("received %q, want %q", ids, want)
	}
}
