package adjudicator_test

import (
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestOneNoticePerSubmission: a US six-turn plot seals six orders (and the placement)
// and the German hears of it in one notice (issue 8, "Fewer, better mails"), which
// names each plot (which turns the US plots is no secret, 3.2) and carries one
// commitment for them all, SHA-256 of the receipt's commitments one a line: never the
// commitments themselves, whose number would tell how many orders were sealed.
func TestOneNoticePerSubmission(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, usSetup)
	notices := to(mails, de)
	if len(notices) != 1 {
		t.Fatalf("%d mails to the German, want one notice", len(notices))
	}
	receipt := to(mails, us)[0].Body
	body := notices[0].Body
	flat := strings.Join(strings.Fields(body), " ")
	for turn := 1; turn <= 6; turn++ {
		if !strings.Contains(flat, "plot for turn "+string(rune('0'+turn))) {
			t.Errorf("the notice does not name the plot for turn %d:\n%s", turn, body)
		}
	}
	sealed := receipt[strings.Index(receipt, "Sealed ("):]
	all, rest, _ := strings.Cut(sealed, "The other side's commitment for them all:")
	each := hash64.FindAllString(all, -1)
	if len(each) < 7 { // six plots and the placement
		t.Fatalf("the receipt lists %d commitments, want 7:\n%s", len(each), receipt)
	}
	group := adjudicator.GroupCommitment(each)
	if got := hash64.FindAllString(body, -1); len(got) != 1 || got[0] != group {
		t.Errorf("the notice's commitments %v, want the one of the receipt's seven, %s:\n%s", got, group, body)
	}
	if !strings.Contains(rest, group) {
		t.Errorf("the receipt does not give the commitment the German was told, %s:\n%s", group, receipt)
	}
	// A flood of plot lines still gives one notice.
	_, mails = f.orders("us", passU, strings.Repeat("PLOT TURN 1 NONE\n", 300))
	if got := len(to(mails, de)); got != 1 {
		t.Errorf("300 plot lines gave %d notices, want 1", got)
	}
}

// TestThreads: the invitation is the root of each player's thread; every later mail of
// the game refers to it, and a reply also to the player's mail.
func TestThreads(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	roots := map[string]string{}
	for _, m := range f.outbox() {
		if m.Kind == "invite" {
			roots[m.To[0]] = m.MessageID
			if len(m.References) != 0 {
				t.Errorf("the invitation refers to %v; it is the root", m.References)
			}
		}
	}
	if len(roots) != 2 {
		t.Fatalf("invitations to %v, want both players", roots)
	}
	f.orders("us", passU, usSetup)
	f.orders("de", passD, "PLOT TURN 1 NONE\nSETUP DEFAULT\n")
	var kinds = map[string]bool{}
	for _, m := range f.outbox() {
		if m.Kind == "invite" {
			continue
		}
		kinds[m.Kind] = true
		root := roots[m.To[0]]
		if len(m.References) == 0 || m.References[0] != root {
			t.Errorf("%s mail %q to %s: References %v, want the invitation %s first", m.Kind, m.Subject, m.To[0], m.References, root)
		}
		if m.Kind == "reply" && (m.InReplyTo == "" || m.References[len(m.References)-1] != m.InReplyTo) {
			t.Errorf("order check %q: In-Reply-To %q, References %v; want the player's mail last", m.Subject, m.InReplyTo, m.References)
		}
	}
	for _, k := range []string{"reply", "notice", "results"} {
		if !kinds[k] {
			t.Errorf("no %s mail was sent; the test covers nothing of it", k)
		}
	}
}

// TestSetMap: SET MAP is stored per player, shown in STATUS, and decides the map of each
// results mail; replay reproduces every mode.
func TestSetMap(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "SET MAP NONE")
	if body := to(mails, us)[0].Body; !strings.Contains(body, "SET MAP NONE") || strings.Contains(body, "REFUSED") {
		t.Fatalf("SET MAP NONE not confirmed in STATUS:\n%s", body)
	}
	_, mails = f.orders("de", passD, "SET MAP FULL")
	if body := to(mails, de)[0].Body; !strings.Contains(body, "SET MAP FULL") {
		t.Fatalf("SET MAP FULL not confirmed:\n%s", body)
	}
	_, mails = f.orders("de", passD, "SET MAP SOMETIMES")
	if body := to(mails, de)[0].Body; !strings.Contains(body, "REFUSED: expected SET MAP FULL") {
		t.Errorf("a wrong SET MAP is not refused:\n%s", body)
	}
	f.orders("us", passU, usSetup)
	_, mails = f.orders("de", passD, "PLOT TURN 1 NONE\nSETUP DEFAULT\n")
	var usRes, deRes []store.OutMail
	for _, m := range mails {
		if m.Kind == "results" {
			if m.To[0] == us {
				usRes = append(usRes, m)
			} else {
				deRes = append(deRes, m)
			}
		}
	}
	if len(usRes) == 0 || len(deRes) == 0 {
		t.Fatalf("no results mails: %d to the US, %d to the German", len(usRes), len(deRes))
	}
	if b := usRes[0].Body; strings.Contains(b, "Strip 1 of") || !strings.Contains(b, "SET MAP NONE") {
		t.Errorf("the US chose no map, but got one:\n%s", b)
	}
	if b := deRes[0].Body; strings.Count(b, "Strip ") < 3 || !strings.Contains(b, "Legend") {
		t.Errorf("the German chose the full map, but did not get every strip:\n%s", b)
	}
	if _, err := f.desk.Replay(t.Context(), "g1"); err != nil {
		t.Errorf("replay with map modes: %v", err)
	}
	// Back to CHANGES: a results mail shows no more strips than the full map has.
	f.orders("us", passU, "SET MAP CHANGES")
	_, mails = f.orders("us", passU, "COW NONE")
	_, mails2 := f.orders("de", passD, "COW NONE")
	for _, m := range append(mails, mails2...) {
		if m.Kind == "results" && m.To[0] == us && strings.Contains(m.Body, "SET MAP NONE") {
			t.Errorf("SET MAP CHANGES did not replace NONE:\n%s", m.Body)
		}
	}
	if _, err := f.desk.Replay(t.Context(), "g1"); err != nil {
		t.Errorf("replay with map modes: %v", err)
	}
}

// TestReplaceableWording: "replaceable until their phase resolves" only while the phase is
// open.
func TestReplaceableWording(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "PLOT TURN 1 NONE")
	if b := to(mails, us)[0].Body; !strings.Contains(b, "replaceable until their phase resolves") {
		t.Errorf("an open plot is not said to be replaceable:\n%s", b)
	}
	f.orders("us", passU, usSetup)
	_, mails = f.orders("de", passD, "PLOT TURN 1 NONE")
	b := ""
	for _, m := range to(mails, de) {
		if m.Kind == "reply" {
			b = m.Body
		}
	}
	if strings.Contains(b, "replaceable until their phase resolves") || !strings.Contains(b, "has been resolved") {
		t.Errorf("a plot whose step was resolved at once is said to be replaceable:\n%s", b)
	}
}

// TestInvitationPasswordRedactedOnceSent (issue 9): the invitation carries the password
// until an SMTP server has taken it; then the stored copy no longer does.
func TestInvitationPasswordRedactedOnceSent(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	has := func() (pending, sent int) {
		for _, m := range f.outbox() {
			if strings.Contains(m.Body, passU) || strings.Contains(m.Body, passD) {
				if m.Sent {
					sent++
				} else {
					pending++
				}
			}
		}
		return
	}
	if p, s := has(); p != 2 || s != 0 {
		t.Fatalf("before sending: %d pending and %d sent mails with a password, want 2 and 0", p, s)
	}
	if err := f.db.Write(t.Context(), func(tx store.Tx) error {
		pending, err := tx.PendingHeads()
		if err != nil {
			return err
		}
		for _, m := range pending {
			m.Sent = true // as the sender marks them
			if err := tx.PutDelivery(m); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if p, s := has(); p != 0 || s != 0 {
		t.Errorf("after sending: %d pending and %d sent mails still hold a password", p, s)
	}
	for _, m := range f.outbox() {
		if m.Kind == "invite" && !strings.Contains(m.Body, store.Redacted) {
			t.Errorf("the sent invitation does not say its password was removed:\n%s", m.Body)
		}
	}
}

// TestBounceMatchedByVERP (issue 9): a bounce that names an outbox mail through its VERP
// address marks that mail's player as bouncing and tells the opponent; a deadline then
// gives him no default orders; his next mail clears the mark.
func TestBounceMatchedByVERP(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default"})
	f.desk.HostAddress = "host@club.example"
	var invite store.OutMail
	for _, m := range f.outbox() {
		if m.Kind == "invite" && m.To[0] == de {
			invite = m
		}
	}
	tag := f.db.Identity().BounceTag(invite.Seq, invite.MessageID)
	out, mails := f.sendMsg(adjudicator.Message{ID: "bounce1@mx", From: "mailer-daemon@mx.example", Automated: true,
		AutomatedReason: "delivery status report", BounceOf: invite.Seq, BounceTag: tag, BounceFailed: []string{de}, Text: "550 no such user"})
	if !strings.Contains(out, "de marked bouncing") {
		t.Fatalf("bounce: %q", out)
	}
	if len(mails) != 2 || mails[0].To[0] != us || mails[1].To[0] != "host@club.example" || !strings.Contains(mails[0].Body, "German player bounces") {
		t.Fatalf("mails after the bounce: %+v; want one to the US and one to the host saying the German's mail bounces", mails)
	}
	// A second bounce of the same says nothing more.
	if _, mails := f.sendMsg(adjudicator.Message{ID: "bounce2@mx", From: "mailer-daemon@mx.example", Automated: true, BounceOf: invite.Seq, BounceTag: tag, BounceFailed: []string{de}}); len(mails) != 0 {
		t.Errorf("a second bounce sent %d mails", len(mails))
	}
	// The US sends his set-up; the German, bouncing, gets no default at the deadline.
	f.orders("us", passU, usSetup)
	f.now = f.now.Add(49 * time.Hour)
	report, err := f.desk.Tick(t.Context(), f.now)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(strings.Join(report, "\n"), "default orders for de") {
		t.Errorf("a bouncing player got default orders: %v", report)
	}
	late := ""
	for _, m := range f.outbox() {
		if m.Kind == "late" && m.To[0] == us {
			late = m.Body
		}
	}
	if !strings.Contains(late, "bounces") {
		t.Errorf("the late notice does not say why the game waits:\n%s", late)
	}
	// The German writes: the mark is cleared.
	f.orders("de", passD, "STATUS")
	f.db.Read(t.Context(), func(tx store.Tx) error {
		g, _ := tx.Game("g1")
		for _, p := range g.Players {
			if p.Bouncing {
				t.Errorf("%s still bouncing after writing", p.Side)
			}
		}
		return nil
	})
	// A bounce of a mail of no game is ignored, unanswered.
	if out, mails := f.sendMsg(adjudicator.Message{ID: "bounce3@mx", From: "mailer-daemon@mx.example", Automated: true, BounceOf: 99999}); !strings.HasPrefix(out, adjudicator.Ignored) || len(mails) != 0 {
		t.Errorf("an unknown bounce: %q, %d mails", out, len(mails))
	}
}

// TestEveryErrorAtOnce (issue 8): a placement with a wrong line and wrong totals lists
// each wrong line with its own reason and each wrong total once, and a line with two
// verdicts is quoted once.
func TestEveryErrorAtOnce(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "PLACE 1000 4 ARMY\nPLACE 1101 4 ARMY\nPLACE 1200 4 USMC\n")
	body := to(mails, us)[0].Body
	if n := strings.Count(body, "line 5: PLACE 1200 4 USMC"); n != 1 {
		t.Errorf("the last PLACE line is quoted %d times, want once:\n%s", n, body)
	}
	if !strings.Contains(body, "line 4: PLACE 1101 4 ARMY\n      REFUSED") {
		t.Errorf("the wrong line has no reason of its own:\n%s", body)
	}
	if strings.Contains(body, "line 3: PLACE 1000 4 ARMY\n      REFUSED") {
		t.Errorf("a right line is refused:\n%s", body)
	}
	if !strings.Contains(body, "144") {
		t.Errorf("the Army total is not given against the 144 of HELP:\n%s", body)
	}
}

// TestBounceWaitsNoLongerThanTheAbsenceAllowance (issue 19): a game waits for a player
// whose mail bounces only as long as it allows absence in all (14 days by default); then
// the deadline applies to him, so that a bounce, even one a player forged of his own
// mail with the tag he can read in its Return-Path, cannot stall the game for good.
func TestBounceWaitsNoLongerThanTheAbsenceAllowance(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default"})
	var invite store.OutMail
	for _, m := range f.outbox() {
		if m.Kind == "invite" && m.To[0] == de {
			invite = m
		}
	}
	tag := f.db.Identity().BounceTag(invite.Seq, invite.MessageID)
	if out, _ := f.sendMsg(adjudicator.Message{ID: "bounce1@mx", From: "mailer-daemon@mx.example", Automated: true,
		BounceOf: invite.Seq, BounceTag: tag, BounceFailed: []string{de}}); !strings.Contains(out, "de marked bouncing") {
		t.Fatalf("bounce: %q", out)
	}
	f.orders("us", passU, usSetup)
	for _, tc := range []struct {
		after    time.Duration
		defaults bool
	}{{49 * time.Hour, false}, {13 * 24 * time.Hour, false}, {15 * 24 * time.Hour, true}} {
		report, err := f.desk.Tick(t.Context(), f.now.Add(tc.after))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(strings.Join(report, "\n"), "default orders for de"); got != tc.defaults {
			t.Errorf("%v after the bounce: default orders for the bouncing German %v, want %v (report %v)", tc.after, got, tc.defaults, report)
		}
	}
	var said bool
	for _, m := range f.outbox() {
		said = said || (m.Kind == "results" && strings.Contains(strings.Join(strings.Fields(m.Body), " "), "longer than the absence this game allows"))
	}
	if !said {
		t.Error("no results mail says why the bouncing German got default orders")
	}
}
