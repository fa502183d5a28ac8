package record

import (
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestReaderMails: each reader's record holds the mails it received and no other; a
// mail not yet sent has its secrets masked as the store masks them once sent; the
// record mail's own number and later ones are left out.
func TestReaderMails(t *testing.T) {
	at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	in := Input{Game: store.Archive{Mails: []store.OutMail{
		{Seq: 1, MessageID: "a@x", To: []string{"us@p.example"}, Side: "us", Body: "invitation, password pw-secret-1", Redact: []string{"pw-secret-1"}, Queued: at},
		{Seq: 2, MessageID: "b@x", To: []string{"de@p.example"}, Side: "de", Body: "to the German", Queued: at},
		{Seq: 3, MessageID: "c@x", To: []string{"Watcher@o.example"}, Side: "", Body: "to an observer", Queued: at},
		{Seq: 4, MessageID: "d@x", To: []string{"us@p.example"}, Side: "us", Body: "the record mail", Queued: at},
	}}, Before: 4}
	for _, c := range []struct {
		name   string
		r      Reader
		want   []string // message ids
		masked bool
	}{
		{"US", Reader{Side: "us"}, []string{"a@x"}, true},
		{"German", Reader{Side: "de"}, []string{"b@x"}, false},
		{"observer", Reader{Address: "watcher@o.example"}, []string{"c@x"}, false},
		{"host", Reader{Host: true}, []string{"a@x", "b@x", "c@x"}, true},
	} {
		got := readerMails(in, c.r)
		var ids []string
		for _, m := range got {
			ids = append(ids, m.MessageID)
			if strings.Contains(m.Body, "pw-secret-1") {
				t.Errorf("%s: the password of an unsent mail is in the record", c.name)
			}
		}
		if strings.Join(ids, " ") != strings.Join(c.want, " ") {
			t.Errorf("%s: mails %v, want %v", c.name, ids, c.want)
		}
		box := string(mbox("adjutant@localhost", got))
		if c.masked != strings.Contains(box, store.Redacted) {
			t.Errorf("%s: masked password in the mbox: %v, want %v", c.name, !c.masked, c.masked)
		}
	}
}

// TestMboxFromLines: mboxrd quoting, so that a line of a mail that reads "From ..."
// does not start a new message.
func TestMboxFromLines(t *testing.T) {
	for _, c := range []struct{ body, want string }{
		{"From the front: all quiet", ">From the front: all quiet\n"},
		{">From quoted", ">>From quoted\n"},
		{"From:not a separator", "From:not a separator\n"},
		{"line\r\nFrom x", "line\n>From x\n"},
	} {
		box := string(mbox("adjutant@localhost", []store.OutMail{{MessageID: "a@x", Body: c.body}}))
		_, body, _ := strings.Cut(box, "Content-Transfer-Encoding: 8bit\n\n")
		if body != c.want+"\n" {
			t.Errorf("body %q in the mbox: %q, want %q", c.body, body, c.want+"\n")
		}
		if n := strings.Count(box, "\nFrom ") + 1; n != 1 {
			t.Errorf("body %q: %d messages in the mbox", c.body, n)
		}
	}
}
