package adjudicator_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

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

// TestQuotedReplyOrderCheckEveryRuleset is TestQuotedReplyOrderCheck for each ruleset:
// its game is played past its first deadlines with default orders until a side has a
// results mail, which that side's reply quotes whole below three lines (GAME, PASSWORD
// and one order of the ruleset's), in the shapes of Gmail, Outlook and iPhone Mail; the
// order check is at most 40 lines and lists the quote as one line.
func TestQuotedReplyOrderCheckEveryRuleset(t *testing.T) {
	// third is a line of orders the side that got the results may send then.
	for _, tc := range []struct{ ruleset, third string }{
		{"soldiers1918", "MOVE NONE"},
		{"mons1914", "PASS"},
		{"soissons1918", "PASS"},
		{"teaching", "PASS"},
	} {
		t.Run(tc.ruleset, func(t *testing.T) {
			d, db := everyRuleset(t)
			newGameOf(t, d, db, tc.ruleset, "q", "default")
			var res store.OutMail
			at := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
			for tick := 0; tick < 6; tick++ {
				at = at.Add(49 * time.Hour)
				if _, err := d.Tick(context.Background(), at); err != nil {
					t.Fatal(err)
				}
				for _, m := range outbox(t, db) {
					if m.Kind == "results" && strings.Count(m.Body, "\n") > strings.Count(res.Body, "\n") {
						res = m
					}
				}
			}
			if n := strings.Count(res.Body, "\n"); n < 60 {
				t.Fatalf("the longest results mail is %d lines; the test needs a long one", n)
			}
			side := strings.TrimSuffix(res.To[0], "@players.example")
			orders := "GAME q\nPASSWORD pw-" + side + "\n" + tc.third + "\n"
			for _, shape := range []struct{ name, reply, want string }{
				{"Gmail", orders + "\nOn Sat, 28 Nov 2026 at 09:12, Adjutant <" + home + "> wrote:\n\n" + quoteLines(res.Body, "> ") + "\n", "quoted from an earlier mail, not read"},
				{"Outlook", orders + "\n-----Original Message-----\nFrom: Adjutant <" + home + ">\nSent: Saturday, November 28, 2026 9:12 AM\nTo: " + res.To[0] + "\nSubject: " + res.Subject + "\n\n" + res.Body, "quoted original"},
				{"iPhone", orders + "\nSent from my iPhone\n\n> On 28 Nov 2026, at 09:12, Adjutant wrote:\n>\n" + quoteLines(res.Body, "> ") + "\n", "quoted from an earlier mail, not read"},
			} {
				t.Run(shape.name, func(t *testing.T) {
					before := len(outbox(t, db))
					if _, err := d.Handle(context.Background(), adjudicator.Message{ID: tc.ruleset + shape.name + "@players.example", From: res.To[0], Subject: "Re: " + res.Subject, Text: shape.reply}); err != nil {
						t.Fatal(err)
					}
					body := orderCheck(t, outbox(t, db)[before:], res.To[0])
					// At most 40 lines above the signed block, which is 5 (issue 25: the
					// host's signature a player keeps as proof of what he sent).
					above, signed, ok := strings.Cut(body, "\n== Signed ==")
					if n := strings.Count(strings.TrimRight(above, "\n"), "\n") + 1; !ok || n > 40 {
						t.Errorf("the order check is %d lines above its signed block (signed: %v), want at most 40:\n%s", n, ok, body)
					}
					if n := strings.Count(strings.TrimRight(signed, "\n"), "\n") + 1; n > 5+2 { // and the "-- " sign-off's 2
						t.Errorf("the signed block and sign-off are %d lines, want at most 7:\n%s", n, body)
					}
					if strings.Count(body, shape.want) != 1 || !strings.Contains(body, "line 3: "+tc.third) {
						t.Errorf("the order check does not list line 3 and the quote once (%q):\n%s", shape.want, body)
					}
				})
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
