package adjudicator_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

// TestPasswordNeverEchoed: a password, the host's or a player's, written anywhere in a
// mail (the subject, a wrong line, the argument of EXTEND, a quoted line, HOST PASSWORD
// twice, in capitals where a reason quotes it upper-cased) appears in no mail that the
// mail causes (so in no stored mail either) and in no log line: in the host's reply,
// an order check, a refusal, and the answer to a mail set aside.
func TestPasswordNeverEchoed(t *testing.T) {
	const hostPW = "Host-Secret-Pw-42"
	for _, tc := range []struct {
		name, hostPW     string // the host password of the desk ("": no host by mail)
		from, subj, text string
		secret           string
		broken           bool // the ruleset panics: the mail is set aside
		want             string
	}{
		{name: "host reply", hostPW: hostPW, from: hostAddr, subj: "Re: [g1] " + hostPW,
			text:   "HOST PASSWORD " + hostPW + "\nHOST PASSWORD " + hostPW + "\nEXTEND g1 " + hostPW + "\n" + hostPW + "\nDEADLINE g1 " + hostPW + "\n> EXTEND g1 " + hostPW + "\n",
			secret: hostPW, want: "line 3: EXTEND g1 ********"},
		{name: "short host password", hostPW: "x7", from: hostAddr, subj: "x7 for you",
			text: "HOST PASSWORD x7\nHOST PASSWORD x7\nEXTEND g1 x7\nPAUSE x7\n", secret: "x7", want: "line 3: EXTEND g1 ********"},
		{name: "order check", from: us, subj: "[g1] orders pw-us-1",
			text: "GAME g1\nPASSWORD pw-us-1\nFIRE 2305 FROM pw-us-1\npw-us-1\nMAP pw-us-1\n> PASSWORD pw-us-1\n", secret: passU, want: "Order check"},
		{name: "wrong password refused", from: us, subj: "[g1] password: not-his-pw",
			text: "GAME g1\nPASSWORD not-his-pw\nSTATUS\n", secret: "not-his-pw", want: "could not accept your mail"},
		{name: "quoted password in the subject", from: "who@else.example", subj: "pw: Quoted-Secret-9",
			text: "Hello\n> Password: Quoted-Secret-9\n", secret: "Quoted-Secret-9", want: "could not tell which game"},
		{name: "set aside", from: de, subj: "[g1] pw-de-1 orders", text: "GAME g1\nPASSWORD pw-de-1\n" + deSetup,
			secret: passD, broken: true, want: "internal error"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, adjudicator.NewGame{})
			if tc.hostPW != "" {
				hash, err := bcrypt.GenerateFromPassword([]byte(tc.hostPW), 4)
				if err != nil {
					t.Fatal(err)
				}
				f.desk.HostAddress, f.desk.HostPassHash = hostAddr, string(hash)
			}
			if tc.broken {
				f.desk.Rulesets[soldiers1918.Name] = brokenRules{f.desk.Rulesets[soldiers1918.Name].(*soldiers1918.Rules)}
				f.orders("us", passU, usSetup)
			}
			n := len(f.outbox())
			out, mails := f.sendMsg(adjudicator.Message{ID: "secret-1@example", From: tc.from, Subject: tc.subj, Text: tc.text, Date: f.now})
			reply := to(mails, tc.from)
			if len(reply) == 0 || !strings.Contains(reply[0].Subject+reply[0].Body, tc.want) {
				t.Fatalf("outcome %q, reply %+v; want one saying %q", out, reply, tc.want)
			}
			secret := strings.ToLower(tc.secret)
			for _, m := range f.since(n) {
				if strings.Contains(strings.ToLower(m.Subject), secret) || strings.Contains(strings.ToLower(m.Body), secret) {
					t.Errorf("%s mail to %v shows the password:\nSubject: %s\n%s", m.Kind, m.To, m.Subject, m.Body)
				}
			}
			if strings.Contains(strings.ToLower(f.logs.String()), secret) {
				t.Errorf("the log shows the password:\n%s", f.logs.String())
			}
		})
	}
}

// TestPasswordMaskedWhole: a password is masked where a reply cuts it over two lines,
// and a short one only where it stands as a word, so that the rest of the reply reads.
func TestPasswordMaskedWhole(t *testing.T) {
	long := "Long-" + strings.Repeat("q", 65) // bcrypt takes 72 bytes at most
	f := newFixture(t, adjudicator.NewGame{})
	hash, err := bcrypt.GenerateFromPassword([]byte(long), 4)
	if err != nil {
		t.Fatal(err)
	}
	f.desk.HostAddress, f.desk.HostPassHash = hostAddr, string(hash)
	_, mails := f.host("host", "HOST PASSWORD "+long+"\nEXTEND g1 "+long+"\n")
	body := to(mails, hostAddr)[0].Body
	if strings.Contains(body, "qqqqqqqqqq") || !strings.Contains(strings.Join(strings.Fields(body), " "), `EXTEND g1 ******** REFUSED: "********": expected`) {
		t.Errorf("a long password cut over two lines is shown:\n%s", body)
	}
	for _, l := range strings.Split(body, "\n") {
		if n := utf8.RuneCountInString(l); n > 78 {
			t.Errorf("masking joined a wrapped line into %d columns: %q", n, l)
		}
	}
	hash, _ = bcrypt.GenerateFromPassword([]byte("g"), 4)
	f.desk.HostPassHash = string(hash)
	_, mails = f.host("host g", "HOST PASSWORD g\nGAMES\nEXTEND g1 g\n")
	body = to(mails, hostAddr)[0].Body
	if !strings.Contains(body, "g1 (soldiers1918)") || !strings.Contains(body, "EXTEND g1 ********") || strings.Contains(body, `"g"`) {
		t.Errorf("a one-letter password is masked inside words, or shown:\n%s", body)
	}
}

// TestPasswordMaskedBeforeClipped: the order check quotes at most 100 characters of a
// line; a password written across that cut is masked whole first, so that no prefix of
// it is quoted.
func TestPasswordMaskedBeforeClipped(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	line := "MOVE " + strings.Repeat("a", 92) + passU + " and more words to make the line long"
	_, mails := f.orders("us", passU, line)
	body := to(mails, us)[0].Body
	if strings.Contains(body, passU[:3]) || !strings.Contains(body, "aaaa***") {
		t.Errorf("the order check quotes a part of the password cut at 100 characters:\n%s", body)
	}
}
