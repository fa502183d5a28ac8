package adjudicator_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// resultsMail plays the set-up of a Soldiers 1918 game and returns the results mail the
// desk sent the US player: the mail a reply quotes.
func resultsMail(t *testing.T, f *fixture) store.OutMail {
	t.Helper()
	f.orders("us", passU, usSetup)
	_, mails := f.orders("de", passD, deSetup)
	for _, m := range to(mails, us) {
		if m.Kind == "results" {
			return m
		}
	}
	t.Fatalf("no results mail to the US player among %d mails", len(mails))
	return store.OutMail{}
}

// quoteLines prefixes every line of body as a mail client quotes it.
func quoteLines(body, prefix string) string {
	lines := strings.Split(strings.TrimRight(body, "\n"), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(prefix+l, " ")
	}
	return strings.Join(lines, "\n")
}

// orderCheck returns the order check among mails to addr.
func orderCheck(t *testing.T, mails []store.OutMail, addr string) string {
	t.Helper()
	for _, m := range to(mails, addr) {
		if m.Kind == "reply" {
			return m.Body
		}
	}
	t.Fatalf("no order check to %s among %d mails", addr, len(mails))
	return ""
}

// TestQuotedReplyOrderCheck: a reply that quotes a whole results mail below three lines
// of orders gets an order check of at most 40 lines, in the shapes Gmail, Outlook and
// iPhone Mail give a reply; the quote is one line of it.
func TestQuotedReplyOrderCheck(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	res := resultsMail(t, f)
	if n := strings.Count(res.Body, "\n"); n < 100 {
		t.Fatalf("the results mail is %d lines; the test needs a long one", n)
	}
	orders := "GAME g1\nPASSWORD " + passU + "\nMOVE NONE\n"
	tests := []struct {
		name, reply string
		want        []string // lines the order check must have
	}{
		{"Gmail", orders + "\nOn Sat, 28 Nov 2026 at 09:12, Adjutant <" + home + "> wrote:\n\n" + quoteLines(res.Body, "> ") + "\n",
			[]string{"quoted from an earlier mail, not read"}},
		{"Gmail, attribution broken", orders + "\nThanks,\nBob\n\nOn Sat, 28 Nov 2026 at 09:12, Adjutant <\n" + home + "> wrote:\n\n" + quoteLines(res.Body, "> ") + "\n",
			[]string{"closing text", "quoted from an earlier mail, not read"}},
		{"Outlook", orders + "\n-----Original Message-----\nFrom: Adjutant <" + home + ">\nSent: Saturday, November 28, 2026 9:12 AM\nTo: " + us + "\nSubject: " + res.Subject + "\n\n" + res.Body,
			[]string{"quoted original"}},
		{"iPhone", orders + "\nSent from my iPhone\n\n> On 28 Nov 2026, at 09:12, Adjutant wrote:\n>\n" + quoteLines(res.Body, "> ") + "\n",
			[]string{"closing text", "quoted from an earlier mail, not read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, mails := f.send(us, "Re: "+res.Subject, tt.reply)
			body := orderCheck(t, mails, us)
			// The signed block (ordersign.go) is the same few lines under every order
			// check: what is counted is the answer to the mail.
			answer, _, _ := strings.Cut(body, "\n== Signed ==")
			if n := strings.Count(strings.TrimRight(answer, "\n"), "\n") + 1; n > 40 {
				t.Errorf("the order check is %d lines, want at most 40:\n%s", n, body)
			}
			for _, w := range tt.want {
				if strings.Count(body, w) != 1 {
					t.Errorf("the order check says %q %d times, want once:\n%s", w, strings.Count(body, w), body)
				}
			}
			if !strings.Contains(body, "line 3: MOVE NONE") || !strings.Contains(body, "Your orders are accepted") || !strings.Contains(body, "== STATUS ==") {
				t.Errorf("the orders above the quote are not accepted, or STATUS not given:\n%s", body)
			}
		})
	}
}

// TestOrderCheckStaysSmall: however long a line or however many lines a mail has, the
// order check quotes at most about 100 characters of a line and lists at most 20
// refused lines, counting the rest: a 1 MB line or 10,000 unknown lines get a reply of
// a few KB that still says how much was wrong.
func TestOrderCheckStaysSmall(t *testing.T) {
	long := "MOVE 2300" + strings.Repeat("-2301", 200000)
	var unknown, interleaved strings.Builder
	for i := 0; i < 10000; i++ {
		fmt.Fprintf(&unknown, "xyzzy %d\n", i)
	}
	for i := 0; i < 240; i++ {
		fmt.Fprintf(&interleaved, "STATUS\nMVOE %d-2301\n", 2300+i)
	}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"a 1 MB MOVE line", long + "\n", []string{"more characters)"}},
		{"a 1 MB word", "PLOT TURN 1 " + strings.Repeat("4", 1<<20) + "\n", []string{"more characters)"}},
		{"10,000 unknown lines", "MOVE 2300-2301\n" + unknown.String(), []string{"lines 4-10003: not an order (closing text)"}},
		{"10,000 unknown lines among orders", "STATUS\n" + unknown.String() + "STATUS\n", []string{"10,004 command lines"}},
		{"30 quotes between orders", strings.Repeat("STATUS\n> quoted\n", 30), []string{"line 42: quoted", "and 10 more lines not executed, not listed (lines 44-62)"}},
		{"240 refused lines", interleaved.String(), []string{"and 220 more lines refused and 219 more correct, not listed (lines 44-482)"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, adjudicator.NewGame{})
			_, mails := f.orders("us", passU, tt.body)
			body := orderCheck(t, mails, us)
			if len(body) > 8<<10 {
				t.Errorf("the order check is %d bytes, want at most 8 KB:\n%.1500s", len(body), body)
			}
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("the order check does not say %q:\n%.1500s", w, body)
				}
			}
		})
	}
}
