package adjudicator_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

const (
	hostAddr = "host@club.example"
	hostPass = "host-secret-7"
)

func (f *fixture) game() store.Game {
	f.t.Helper()
	var g store.Game
	if err := f.db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		g, err = tx.Game("g1")
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return g
}

// since returns the mails queued after the first n.
func (f *fixture) since(n int) []store.OutMail { return f.outbox()[n:] }

func TestGamesList(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	f.orders("us", passU, usSetup)
	games, err := f.desk.Games(context.Background())
	if err != nil || len(games) != 1 {
		t.Fatalf("Games = %v, %v", games, err)
	}
	g := games[0]
	if g.Name != "g1" || g.Over || g.Deadline.IsZero() || len(g.Waiting) != 1 || g.Waiting[0] != "German" {
		t.Errorf("Games()[0] = %+v; want g1 awaiting the German, with a deadline", g)
	}
	text := adjudicator.FormatGames(games)
	for _, want := range []string{"g1 (soldiers1918): ", "deadline: Tue 24 Nov 2026", "awaiting: German", "us: " + us, "de: " + de} {
		if !strings.Contains(text, want) {
			t.Errorf("FormatGames lacks %q:\n%s", want, text)
		}
	}
	for _, l := range strings.Split(text, "\n") {
		if len([]rune(l)) > 78 {
			t.Errorf("line longer than 78: %q", l)
		}
	}
}

func TestExtendDeadline(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	ctx := context.Background()
	was := f.game().Deadline
	n := len(f.outbox())
	if _, err := f.desk.ExtendDeadline(ctx, "g1", 24*time.Hour, time.Time{}); err != nil {
		t.Fatal(err)
	}
	g := f.game()
	if want := was.Add(24 * time.Hour); !g.Deadline.Equal(want) || !g.RemindAt.Equal(want.Add(-12*time.Hour)) {
		t.Errorf("deadline %v reminder %v; want %v and 12h before", g.Deadline, g.RemindAt, want)
	}
	told := f.since(n)
	if len(to(told, us)) != 1 || len(to(told, de)) != 1 || !strings.Contains(told[0].Body, "the host has set the deadline to Wed 25 Nov 2026 09:00 UTC") {
		t.Errorf("players told: %+v", told)
	}
	at := f.now.Add(100 * time.Hour)
	if _, err := f.desk.ExtendDeadline(ctx, "g1", 0, at); err != nil || !f.game().Deadline.Equal(at) {
		t.Errorf("set deadline to %v: %v, deadline %v", at, err, f.game().Deadline)
	}
	// The old deadline passes: nothing happens, the new one is still ahead.
	f.now = was.Add(time.Hour)
	if report, err := f.desk.Tick(ctx, f.now); err != nil || len(report) != 0 {
		t.Errorf("Tick past the old deadline = %v, %v; want nothing", report, err)
	}
	for _, tc := range []struct {
		game   string
		by     time.Duration
		at     time.Time
		reason string
	}{
		{"nope", time.Hour, time.Time{}, `no game "nope"`},
		{"g1", 0, f.now.Add(-time.Hour), "it has passed"},
		{"g1", -time.Hour, time.Time{}, "expected a positive duration"},
	} {
		if _, err := f.desk.ExtendDeadline(ctx, tc.game, tc.by, tc.at); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ExtendDeadline(%s, %v, %v) = %v; want %q", tc.game, tc.by, tc.at, err, tc.reason)
		}
	}
}

func TestPauseResume(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default"})
	ctx := context.Background()
	if _, err := f.desk.Pause(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	// Orders are still checked and filed while paused, and STATUS says it is paused.
	out, mails := f.orders("us", passU, usSetup)
	if out != adjudicator.Handled || !strings.Contains(to(mails, us)[0].Body, "The host has paused this game") {
		t.Errorf("orders while paused: %q\n%s", out, to(mails, us)[0].Body)
	}
	// A phase whose orders are all in is still resolved; its deadline counts from the
	// resumption, and the results say so.
	f.now = f.now.Add(time.Hour)
	_, mails = f.orders("de", passD, deSetup)
	if res := to(mails, de); len(res) < 2 || !strings.Contains(strings.Join(strings.Fields(res[len(res)-1].Body), " "), "this phase's deadline runs from when he resumes it") {
		t.Errorf("results while paused: %+v", res)
	}
	// No deadline runs: a week later nothing is defaulted.
	f.now = f.now.Add(7 * 24 * time.Hour)
	if report, err := f.desk.Tick(ctx, f.now); err != nil || len(report) != 0 {
		t.Fatalf("Tick while paused = %v, %v; want nothing", report, err)
	}
	if _, err := f.desk.ExtendDeadline(ctx, "g1", time.Hour, time.Time{}); err == nil || !strings.Contains(err.Error(), "paused") {
		t.Errorf("extending a paused game: %v", err)
	}
	n := len(f.outbox())
	if _, err := f.desk.Resume(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	if g := f.game(); !g.PausedAt.IsZero() || !g.Deadline.Equal(f.now.Add(48*time.Hour)) {
		t.Errorf("after resume: paused at %v, deadline %v; want the phase's whole 48h from the resumption (%v)", g.PausedAt, g.Deadline, f.now.Add(48*time.Hour))
	}
	if told := f.since(n); len(told) != 2 || !strings.Contains(told[0].Body, "resumed") {
		t.Errorf("resume told %d mails", len(told))
	}
	if _, mails := f.orders("us", passU, "STATUS"); strings.Contains(mails[0].Body, "paused") {
		t.Errorf("STATUS still says paused:\n%s", mails[0].Body)
	}
	f.now = f.now.Add(49 * time.Hour)
	if report, err := f.desk.Tick(ctx, f.now); err != nil || len(report) == 0 {
		t.Errorf("Tick after the resumed deadline = %v, %v; want the default orders", report, err)
	}
}

func TestReplaceAddress(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	ctx := context.Background()
	const newDE = "de2@players.example"
	n := len(f.outbox())
	if _, err := f.desk.ReplaceAddress(ctx, "g1", "German", newDE, "fresh-pass-9"); err != nil {
		t.Fatal(err)
	}
	mails := f.since(n)
	welcome := to(mails, newDE)
	if len(welcome) != 1 || !strings.Contains(welcome[0].Body, "You now play German in game g1") || !strings.Contains(welcome[0].Body, "fresh-pass-9") {
		t.Fatalf("mail to the new address: %+v", welcome)
	}
	if len(welcome[0].Redact) != 1 || welcome[0].Redact[0] != "fresh-pass-9" {
		t.Errorf("the new password is not redacted once sent: %v", welcome[0].Redact)
	}
	if told := to(mails, us); len(told) != 1 || strings.Contains(told[0].Body, "fresh-pass-9") {
		t.Errorf("the US player is not told, or sees the password: %+v", told)
	}
	// The old address is a stranger now; the new one plays with the new password.
	if out, _ := f.send(de, "o", "GAME g1\nPASSWORD "+passD+"\nSTATUS"); !strings.HasPrefix(out, adjudicator.Refused) {
		t.Errorf("old address: %q", out)
	}
	if out, _ := f.send(newDE, "o", "GAME g1\nPASSWORD fresh-pass-9\nSTATUS"); out != adjudicator.Handled {
		t.Errorf("new address: %q", out)
	}
	for _, tc := range []struct{ side, addr, reason string }{
		{"us", newDE, "already plays German"},
		{"fr", "x@y.example", "has the sides"},
		{"us", home, "the game mailbox itself"},
		{"us", "nobody", "expected one address"},
	} {
		if _, err := f.desk.ReplaceAddress(ctx, "g1", tc.side, tc.addr, ""); err == nil || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("ReplaceAddress(%s, %s) = %v; want %q", tc.side, tc.addr, err, tc.reason)
		}
	}
}

func TestEndGame(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	ctx := context.Background()
	f.orders("us", passU, usSetup)
	n := len(f.outbox())
	if _, err := f.desk.EndGame(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
	mails, records := withoutRecords(f.since(n))
	if len(to(mails, us)) != 1 || len(to(mails, de)) != 1 || firstLine(mails[0].Body) != "Game over: ended by the host" {
		t.Errorf("end told: %+v", mails)
	}
	if len(to(records, us)) != 1 || len(to(records, de)) != 1 || firstLine(records[0].Body) != "Game over: ended by the host" {
		t.Errorf("the record of the game mailed: %+v", records)
	}
	g := f.game()
	if !g.Over || !g.Deadline.IsZero() {
		t.Errorf("game after END: over %v deadline %v", g.Over, g.Deadline)
	}
	// Orders are refused, STATUS says why, and the audit verifies with every seed shown.
	out, reply := f.orders("de", passD, deSetup)
	if out != adjudicator.Refused+": orders" || !strings.Contains(reply[0].Body, "the game is over") || !strings.Contains(reply[0].Body, "ended by the host") {
		t.Errorf("orders after END: %q\n%s", out, reply[0].Body)
	}
	rep, err := f.desk.VerifyAudit(ctx, "g1")
	if err != nil || rep.Unrevealed != 0 {
		t.Errorf("VerifyAudit after END = %+v, %v; want every seed revealed", rep, err)
	}
	if _, err := f.desk.Replay(ctx, "g1"); err != nil {
		t.Errorf("Replay after END: %v", err)
	}
	if _, err := f.desk.Pause(ctx, "g1"); err == nil || !strings.Contains(err.Error(), "is over") {
		t.Errorf("Pause of a finished game: %v", err)
	}
}

func TestResend(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	ctx := context.Background()
	if _, err := f.desk.Resend(ctx, "g1", "us"); err == nil || !strings.Contains(err.Error(), "no results mail") {
		t.Errorf("Resend before any results: %v", err)
	}
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	var last store.OutMail
	for _, m := range to(f.outbox(), de) {
		if m.Kind == "results" {
			last = m
		}
	}
	n := len(f.outbox())
	if _, err := f.desk.Resend(ctx, "g1", "de"); err != nil {
		t.Fatal(err)
	}
	got := f.since(n)
	if len(got) != 1 || got[0].To[0] != de || got[0].Subject != last.Subject || !strings.HasSuffix(got[0].Body, last.Body) || got[0].MessageID == last.MessageID {
		t.Errorf("resent %+v; want the last results to the German with a new Message-ID", got)
	}
}

func TestAbsentUntil(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default", AbsenceLimit: 10 * 24 * time.Hour})
	// Now is Sun 22 Nov 2026 09:00 UTC; the deadline is Tue 24 Nov 09:00.
	out, mails := f.orders("de", passD, "ABSENT UNTIL 2026-11-28")
	if out != adjudicator.Handled {
		t.Fatalf("ABSENT: %q\n%s", out, mails[0].Body)
	}
	back := time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)
	if g := f.game(); !g.Deadline.Equal(back) {
		t.Errorf("deadline %v; want the end of the absence, %v", g.Deadline, back)
	}
	if told := to(mails, us); len(told) != 1 || !strings.Contains(told[0].Body, "the German player is absent until Sun 29 Nov 2026 00:00 UTC") {
		t.Errorf("the US player is not told: %+v", told)
	}
	if !strings.Contains(to(mails, de)[0].Body, "absent until Sun 29 Nov") {
		t.Errorf("order check:\n%s", to(mails, de)[0].Body)
	}
	// The old deadline passes without defaults.
	f.now = f.now.Add(3 * 24 * time.Hour)
	if report, _ := f.desk.Tick(context.Background(), f.now); len(report) != 0 {
		t.Errorf("Tick during the absence = %v", report)
	}
	// A phase resolved during the absence gets no deadline before it ends either.
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	if g := f.game(); g.Deadline.Before(back) {
		t.Errorf("deadline of the next phase %v falls in the absence", g.Deadline)
	}
	results := to(f.outbox(), us)
	if last := strings.Join(strings.Fields(results[len(results)-1].Body), " "); !strings.Contains(last, "no deadline falls before his return, so the deadline is Sun 29 Nov 2026 00:00 UTC instead") {
		t.Errorf("the results do not say the deadline moved:\n%s", results[len(results)-1].Body)
	}
	if _, err := f.desk.Replay(context.Background(), "g1"); err != nil {
		t.Errorf("Replay: %v", err)
	}
	// 6 days 15 hours used of 10: 4 more days would be too many.
	before := f.snapshot()
	out, mails = f.orders("de", passD, "ABSENT UNTIL 2026-12-03")
	if out != adjudicator.Refused+": orders" || !strings.Contains(strings.Join(strings.Fields(mails[0].Body), " "), "this game allows 10 days of absence in all and you have 3 days 9 hours left") {
		t.Errorf("absence over the limit: %q\n%s", out, mails[0].Body)
	}
	if f.snapshot() != before {
		t.Error("a refused absence changed the game")
	}
	for _, bad := range []string{"ABSENT UNTIL tomorrow", "ABSENT UNTIL 2026-11-01", "ABSENT 2026-12-01"} {
		if out, _ := f.orders("de", passD, bad); out != adjudicator.Refused+": orders" {
			t.Errorf("%q: %q", bad, out)
		}
	}
	f2 := newFixture(t, adjudicator.NewGame{AbsenceLimit: -1})
	if _, mails := f2.orders("us", passU, "ABSENT UNTIL 2026-11-25"); !strings.Contains(mails[0].Body, "the host allows no absence in this game") {
		t.Errorf("absence where none is allowed:\n%s", mails[0].Body)
	}
}

// TestResign: RESIGN alone ends nothing and answers with a code; RESIGN <code> from the
// same player, within ResignCodeDays, ends the game. Another side's code, a wrong one
// or an old one is refused and changes nothing.
func TestResign(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	before := f.snapshot()
	out, mails := f.orders("us", passU, "RESIGN")
	if out != adjudicator.Handled || len(mails) != 1 || f.game().Over || f.snapshot() != before {
		t.Fatalf("RESIGN alone: %q, %d mails, over %v; want an answer and nothing changed", out, len(mails), f.game().Over)
	}
	code := resignCodeIn(t, mails[0].Body)
	if !strings.Contains(mails[0].Body, "NOT DONE YET") {
		t.Errorf("the answer does not say the resignation is not done:\n%s", mails[0].Body)
	}
	// The same code all day; the German's is another.
	f.now = f.now.Add(3 * time.Hour)
	if _, again := f.orders("us", passU, "RESIGN"); resignCodeIn(t, again[0].Body) != code {
		t.Error("the code changed within the day")
	}
	_, deMails := f.orders("de", passD, "RESIGN")
	deCode := resignCodeIn(t, deMails[0].Body)
	if deCode == code {
		t.Fatal("both sides got the same code")
	}
	for _, tc := range []struct{ side, pass, line string }{
		{"de", passD, "RESIGN " + code},   // the other side's code
		{"us", passU, "RESIGN " + deCode}, // the other side's code
		{"us", passU, "RESIGN 7K3Q-M2XD-PW4A-9HTB"},
		{"us", passU, "RESIGN NOW"},
	} {
		if out, m := f.orders(tc.side, tc.pass, tc.line); out != adjudicator.Refused+": orders" || f.game().Over || !strings.Contains(m[0].Body, "not the code") {
			t.Errorf("%s %q: %q, over %v", tc.side, tc.line, out, f.game().Over)
		}
	}
	// Too old: the code was issued a day more than ResignCodeDays ago.
	saved := f.now
	f.now = f.now.Add((adjudicator.ResignCodeDays + 1) * 24 * time.Hour)
	if out, _ := f.orders("us", passU, "RESIGN "+code); out != adjudicator.Refused+": orders" || f.game().Over {
		t.Errorf("a code %d days old: %q", adjudicator.ResignCodeDays+1, out)
	}
	// Within the days (ResignCodeDays to the hour after it was mailed), copied in lower
	// case without dashes, after CONFIRM.
	f.now = saved.Add(adjudicator.ResignCodeDays * 24 * time.Hour)
	out, mails = f.orders("us", passU, "RESIGN CONFIRM "+strings.ToLower(strings.ReplaceAll(code, "-", "")))
	if out != adjudicator.Handled {
		t.Fatalf("RESIGN <code>: %q\n%s", out, mails[0].Body)
	}
	mails, records := withoutRecords(mails)
	if len(to(records, us)) != 1 || len(to(records, de)) != 1 {
		t.Errorf("the record of the game mailed: %+v", records)
	}
	if told := to(mails, de); len(told) != 1 || !strings.Contains(told[0].Body, "the US player has resigned; German wins") {
		t.Errorf("the German is not told: %+v", told)
	}
	if check := to(mails, us); len(check) != 1 || !strings.Contains(check[0].Body, "you have resigned") {
		t.Errorf("the US order check: %+v", check)
	}
	if g := f.game(); !g.Over || g.Ended != "the US player resigned" {
		t.Errorf("game after RESIGN: over %v, %q", g.Over, g.Ended)
	}
	if out, _ := f.orders("de", passD, "RESIGN "+deCode); out != adjudicator.Refused+": orders" {
		t.Errorf("RESIGN of a finished game: %q", out)
	}
}

var resignCode = regexp.MustCompile(`RESIGN\s+([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})`)

// resignCodeIn finds the code an answer to RESIGN gives.
func resignCodeIn(t *testing.T, body string) string {
	t.Helper()
	m := resignCode.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no RESIGN code in:\n%s", body)
	}
	return m[1]
}

// host sends a mail from the host address, dated now.
func (f *fixture) host(subject, text string) (string, []store.OutMail) {
	f.t.Helper()
	f.n++
	return f.sendMsg(adjudicator.Message{ID: fmt.Sprintf("h%d@club.example", f.n), From: hostAddr, Subject: subject, Text: text, Date: f.now})
}

// hostFixture is a fixture whose desk takes host mail.
func hostFixture(t *testing.T) *fixture {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour})
	hash, err := bcrypt.GenerateFromPassword([]byte(hostPass), 4)
	if err != nil {
		t.Fatal(err)
	}
	f.desk.HostAddress, f.desk.HostPassHash = hostAddr, string(hash)
	return f
}

func TestHostByMail(t *testing.T) {
	f := hostFixture(t)
	was := f.game().Deadline
	out, mails := f.host("host", "HOST PASSWORD "+hostPass+"\nGAMES\nEXTEND g1 2d\nPAUSE nope\nADDRESS g1 de de9@players.example\nRESEND g1 de\n")
	if out != adjudicator.Handled+": host, 3 done, 2 refused" {
		t.Fatalf("host mail: %q", out)
	}
	reply := to(mails, hostAddr)
	if len(reply) != 1 {
		t.Fatalf("host got %d replies", len(reply))
	}
	body := reply[0].Body
	for _, want := range []string{"line 1: HOST PASSWORD ********", "line 2: GAMES", "done: 1 games", "== GAMES ==", "g1 (soldiers1918)",
		"line 3: EXTEND g1 2d", `line 4: PAUSE nope`, `REFUSED: no game "nope"`, "line 6: RESEND g1 de", "REFUSED: no results mail"} {
		if !strings.Contains(body, want) {
			t.Errorf("host reply lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, hostPass) || strings.Contains(f.logs.String(), hostPass) {
		t.Error("the host password is shown")
	}
	if g := f.game(); !g.Deadline.Equal(was.Add(48*time.Hour)) || g.Players[1].Address != "de9@players.example" {
		t.Errorf("after the host mail: deadline %v, players %+v", g.Deadline, g.Players)
	}
	for _, l := range strings.Split(body, "\n") {
		if len([]rune(l)) > 78 {
			t.Errorf("line longer than 78: %q", l)
		}
	}
	out, _ = f.host("host", "HOST PASSWORD "+hostPass+"\nPAUSE g1\nRESUME g1\nEND g1\n")
	if out != adjudicator.Handled+": host, 3 done, 0 refused" || !f.game().Over {
		t.Errorf("PAUSE, RESUME, END: %q", out)
	}
}

// TestHostWrongPassword: a wrong host password, or host mail where no host is set, gets
// the refusal any stranger gets, word for word, and changes nothing.
func TestHostWrongPassword(t *testing.T) {
	f := hostFixture(t)
	_, stranger := f.send("who@else.example", "x", "GAME g1\nPASSWORD guess\nSTATUS")
	before := f.snapshot()
	out, mails := f.send(hostAddr, "x", "HOST PASSWORD wrong-one\nEND g1\n")
	if !strings.HasPrefix(out, adjudicator.Refused) || len(mails) != 1 || mails[0].Body != stranger[0].Body {
		t.Fatalf("wrong host password: %q, %d mails\n%s\nwant the stranger's refusal:\n%s", out, len(mails), mails[0].Body, stranger[0].Body)
	}
	if f.snapshot() != before || f.game().Over {
		t.Error("a refused host mail changed the game")
	}
	if strings.Contains(f.logs.String(), "wrong-one") {
		t.Error("the log shows the password tried")
	}
	// The right password from another address is a stranger's mail too.
	if out, _ := f.send("imposter@else.example", "x", "HOST PASSWORD "+hostPass+"\nEND g1\n"); !strings.HasPrefix(out, adjudicator.Refused) && out != adjudicator.Throttled {
		t.Errorf("host password from another address: %q", out)
	}
	if f.game().Over {
		t.Error("the game was ended by a mail from another address")
	}
}

func TestParseSpan(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"24h", 24 * time.Hour, true}, {"90m", 90 * time.Minute, true}, {"2d", 48 * time.Hour, true}, {"2D", 48 * time.Hour, true},
		{"0d", 0, false}, {"-1h", 0, false}, {"soon", 0, false}, {"999d", 0, false}, {"", 0, false},
	} {
		got, err := adjudicator.ParseSpan(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseSpan(%q) = %v, %v; want %v ok=%v", tc.in, got, err, tc.want, tc.ok)
		}
	}
}

// TestHostMailTakesEffectOnce: a host mail sent again under a new Message-ID (the same
// commands, the same Date) is refused and changes nothing, as is one whose Date is more
// than a day from its arrival or missing; the host is told why. The same commands in a
// new mail are carried out.
func TestHostMailTakesEffectOnce(t *testing.T) {
	f := hostFixture(t)
	ctx := context.Background()
	was := f.game().Deadline
	mail := func(id, text string, date, arrived time.Time) (string, []store.OutMail) {
		t.Helper()
		return f.sendMsg(adjudicator.Message{ID: id, From: hostAddr, Subject: "extend", Text: text, Date: date, Arrived: arrived})
	}
	const extend = "HOST PASSWORD " + hostPass + "\nEXTEND g1 24h\n"
	if out, _ := mail("h1@club.example", extend, f.now.Add(-time.Minute), time.Time{}); out != adjudicator.Handled+": host, 1 done, 0 refused" {
		t.Fatalf("first host mail: %q", out)
	}
	once := was.Add(24 * time.Hour)
	for _, tc := range []struct {
		name, id, text string
		date, arrived  time.Time
		why            string
	}{
		{"the same mail, a new Message-ID", "h2@club.example", extend, f.now.Add(-time.Minute), time.Time{}, "were handled already"},
		{"written another way", "h3@club.example", "host password " + hostPass + "\n  extend  G1 24H \n# again\n", f.now.Add(-time.Minute), time.Time{}, "were handled already"},
		{"an old Date", "h4@club.example", extend, f.now.Add(-25 * time.Hour), time.Time{}, "more than a day apart"},
		{"a Date ahead", "h5@club.example", extend, f.now.Add(25 * time.Hour), time.Time{}, "more than a day apart"},
		{"no Date", "h6@club.example", extend, time.Time{}, time.Time{}, "no Date: header"},
		{"arrived long after its Date", "h7@club.example", extend, f.now.Add(-time.Minute), f.now.Add(2 * 24 * time.Hour), "more than a day apart"},
	} {
		before := f.snapshot()
		out, mails := mail(tc.id, tc.text, tc.date, tc.arrived)
		reply := to(mails, hostAddr)
		if out != adjudicator.Refused+": host mail not carried out" || len(mails) != 1 || len(reply) != 1 {
			t.Errorf("%s: %q, %d mails", tc.name, out, len(mails))
			continue
		}
		if body := strings.Join(strings.Fields(reply[0].Body), " "); !strings.Contains(body, "did not carry out your host commands: ") || !strings.Contains(body, tc.why) {
			t.Errorf("%s: the host is not told %q:\n%s", tc.name, tc.why, reply[0].Body)
		}
		if f.snapshot() != before || !f.game().Deadline.Equal(once) {
			t.Errorf("%s changed the game: deadline %v, want %v", tc.name, f.game().Deadline, once)
		}
	}
	// The same commands in a new mail (a new Date) are done again.
	if out, _ := mail("h8@club.example", extend, f.now, time.Time{}); out != adjudicator.Handled+": host, 1 done, 0 refused" || !f.game().Deadline.Equal(once.Add(24*time.Hour)) {
		t.Errorf("the same commands in a new mail: %q, deadline %v", out, f.game().Deadline)
	}
	// Two copies in one batch: one is done.
	copyOf := func(id string) adjudicator.Message {
		return adjudicator.Message{ID: id, From: hostAddr, Subject: "x", Text: "HOST PASSWORD " + hostPass + "\nEXTEND g1 1h\n", Date: f.now.Add(time.Second)}
	}
	outs, err := f.desk.HandleBatch(ctx, []adjudicator.Message{copyOf("b1@club.example"), copyOf("b2@club.example")})
	if err != nil || len(outs) != 2 || outs[0] != adjudicator.Handled+": host, 1 done, 0 refused" || outs[1] != adjudicator.Refused+": host mail not carried out" {
		t.Errorf("two copies in one batch: %q, %v", outs, err)
	}
}

// withoutRecords splits mails into the others and the record mails of a game's end.
func withoutRecords(mails []store.OutMail) (others, records []store.OutMail) {
	for _, m := range mails {
		if m.Kind == adjudicator.KindRecord {
			records = append(records, m)
		} else {
			others = append(others, m)
		}
	}
	return others, records
}
