package mail_test

import (
	"bytes"
	"net"
	"strings"
	"sync/atomic"
	"testing"
)

// pipelineWatch counts the reads of the server that hold a whole envelope, MAIL FROM to
// DATA: a client that waits for each reply before the next command never sends one.
type pipelineWatch struct {
	net.Conn
	envelopes *atomic.Int32
}

func (c *pipelineWatch) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if i := bytes.Index(p[:n], []byte("MAIL FROM:")); i >= 0 && bytes.Contains(p[i:n], []byte("\r\nDATA\r\n")) {
		c.envelopes.Add(1)
	}
	return n, err
}

// TestSenderPipelinesEachMail: towards a server that offers PIPELINING, a mail's MAIL
// FROM, RCPT TO and DATA go in one write (RFC 2920), two round trips a mail instead of
// four; the mails arrive whole, a refused one is refused alone and the next goes on in
// the same session; a mail to two recipients takes go-mail's transaction.
func TestSenderPipelinesEachMail(t *testing.T) {
	var envelopes atomic.Int32
	k := newSMTPSink(t, func(k *smtpSink) {
		k.wrap = func(c net.Conn) net.Conn { return &pipelineWatch{Conn: c, envelopes: &envelopes} }
	})
	k.setRefuse("refused@example.org", 550)
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, nil, nil)
	two := sendMail("p-2@adjutant.example", "b@example.org", "g1", "Both of you.\n")
	two.To = append(two.To, "c@example.org")
	sendEnqueue(t, db,
		sendMail("p-0@adjutant.example", "a@example.org", "g1", "First.\n.a dot line\n"),
		sendMail("p-1@adjutant.example", "refused@example.org", "g1", "Refused.\n"),
		two,
		sendMail("p-3@adjutant.example", "a@example.org", "g1", "Last.\n"),
	)
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != 3 || failed != 1 {
		t.Fatalf("DrainOnce = %d, %d, %v; want 3, 1, nil", sent, failed, err)
	}
	got := k.received()
	if ids := sendMessageIDs(t, got); !sendEqual(ids, []string{"<p-0@adjutant.example>", "<p-2@adjutant.example>", "<p-3@adjutant.example>"}) {
		t.Fatalf("received %q", ids)
	}
	if len(got[1].To) != 2 {
		t.Errorf("the mail to two recipients reached %v", got[1].To)
	}
	if _, text := sendParse(t, got[0].Raw); !strings.Contains(text, "First.") || !strings.Contains(text, "\n.a dot line") {
		t.Errorf("first mail's text %q", text)
	}
	if n := k.sessionCount(); n != 1 {
		t.Errorf("%d SMTP sessions, want 1: a refusal in a pipelined transaction keeps the session", n)
	}
	// The three mails to one recipient each, the refused one included.
	if n := envelopes.Load(); n != 3 {
		t.Errorf("%d envelopes pipelined (MAIL FROM to DATA in one write), want 3", n)
	}
	out := sendOutbox(t, db)
	for _, m := range out {
		want := m.MessageID != "p-1@adjutant.example"
		if m.Sent != want {
			t.Errorf("%s: Sent %v, want %v", m.MessageID, m.Sent, want)
		}
	}
}
