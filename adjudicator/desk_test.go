package adjudicator_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"log/slog"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// detRand is a deterministic entropy source for tests: SHA-256 in counter mode.
type detRand struct {
	n   uint64
	buf []byte
}

func (r *detRand) Read(p []byte) (int, error) {
	for len(r.buf) < len(p) {
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], r.n)
		r.n++
		sum := sha256.Sum256(b[:])
		r.buf = append(r.buf, sum[:]...)
	}
	copy(p, r.buf)
	r.buf = r.buf[len(p):]
	return len(p), nil
}

const (
	home  = "adjutant@game.example"
	us    = "us@players.example"
	de    = "de@players.example"
	passU = "pw-us-1"
	passD = "pw-de-1"
)

// fixture is a desk over a fresh store with one game of Soldiers 1918.
type fixture struct {
	t    *testing.T
	desk *adjudicator.Desk
	db   *store.DB
	now  time.Time
	logs *bytes.Buffer
	n    int
}

// soldiersDesk is a desk of Soldiers 1918 over a fresh store, on the clock now returns,
// with deterministic entropy and bcrypt at its lowest cost.
func soldiersDesk(tb testing.TB, now func() time.Time) (*adjudicator.Desk, *store.DB) {
	tb.Helper()
	db, err := store.Open(filepath.Join(tb.TempDir(), "games.db"))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { db.Close() })
	theRules, err := soldiers1918.New()
	if err != nil {
		tb.Fatal(err)
	}
	return &adjudicator.Desk{
		Store: db, Rulesets: map[string]rules.Ruleset{theRules.Name(): theRules}, Address: home,
		Now: now, Rand: &detRand{}, PasswordCost: 4,
	}, db
}

func newFixture(t *testing.T, ng adjudicator.NewGame) *fixture {
	t.Helper()
	f := &fixture{t: t, now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), logs: &bytes.Buffer{}}
	f.desk, f.db = soldiersDesk(t, func() time.Time { return f.now })
	f.desk.Log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	if ng.Name == "" {
		ng.Name = "g1"
	}
	ng.Ruleset = soldiers1918.Name
	ng.Players = map[rules.Side]string{"us": us, "de": de}
	ng.Passwords = map[rules.Side]string{"us": passU, "de": passD}
	if _, err := f.desk.CreateGame(context.Background(), ng); err != nil {
		t.Fatal(err)
	}
	return f
}

// send hands one message to the desk and returns the outcome and the mails it queued.
func (f *fixture) send(from, subject, text string) (string, []store.OutMail) {
	f.t.Helper()
	f.n++
	return f.sendID(fmt.Sprintf("m%d@players.example", f.n), from, subject, text)
}

func (f *fixture) sendMsg(m adjudicator.Message) (string, []store.OutMail) {
	f.t.Helper()
	before := len(f.outbox())
	out, err := f.desk.Handle(context.Background(), m)
	if err != nil {
		f.t.Fatalf("Handle: %v", err)
	}
	return out, f.outbox()[before:]
}

func (f *fixture) sendID(id, from, subject, text string) (string, []store.OutMail) {
	f.t.Helper()
	return f.sendMsg(adjudicator.Message{ID: id, From: from, Subject: subject, Text: text})
}

func (f *fixture) orders(side, pass, body string) (string, []store.OutMail) {
	f.t.Helper()
	addr := us
	if side == "de" {
		addr = de
	}
	return f.send(addr, "orders", "GAME g1\nPASSWORD "+pass+"\n"+body)
}

func (f *fixture) outbox() []store.OutMail {
	f.t.Helper()
	var out []store.OutMail
	if err := f.db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		out, err = tx.Outbox()
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return out
}

// snapshot is everything of a game that orders could change.
func (f *fixture) snapshot() string {
	f.t.Helper()
	var b strings.Builder
	f.db.Read(context.Background(), func(tx store.Tx) error {
		g, _ := tx.Game("g1")
		os, _ := tx.Orders("g1")
		au, _ := tx.Audit("g1")
		js, _ := tx.Journal("g1")
		seeds, _ := tx.Seeds("g1")
		for _, v := range []any{g, os, au, js, seeds} {
			raw, _ := json.Marshal(v)
			b.Write(raw)
			b.WriteByte('\n')
		}
		return nil
	})
	return b.String()
}

func to(mails []store.OutMail, addr string) []store.OutMail {
	var out []store.OutMail
	for _, m := range mails {
		if len(m.To) == 1 && m.To[0] == addr {
			out = append(out, m)
		}
	}
	return out
}

const usSetup = "PLOT TURN 1 1911x3, 3603x3\nPLOT TURN 2 NONE\nPLOT TURN 3 NONE\nPLOT TURN 4 NONE\nPLOT TURN 5 NONE\nPLOT TURN 6 NONE\nSETUP DEFAULT\n"
const deSetup = "PLOT TURN 1 2000x4, 2100x4\nSETUP DEFAULT\n"

// TestDuplicateMessage is invariant 1: a message seen again is a no-op.
func TestDuplicateMessage(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	out, mails := f.sendID("same@players.example", us, "x", "GAME g1\nPASSWORD "+passU+"\n"+usSetup)
	if out != adjudicator.Handled || len(mails) == 0 {
		t.Fatalf("first delivery: %q, %d mails", out, len(mails))
	}
	snap := f.snapshot()
	out, mails = f.sendID("same@players.example", us, "x", "GAME g1\nPASSWORD "+passU+"\nPLOT TURN 1 NONE\n")
	if out != adjudicator.Duplicate || len(mails) != 0 || f.snapshot() != snap {
		t.Errorf("second delivery: %q, %d mails, changed: %v; want a no-op", out, len(mails), f.snapshot() != snap)
	}
}

// TestSealedPlotCommitment is invariant 5 at the desk: the receipt and the opponent's
// notice carry the same commitment, and the notice shows no hex of the plot.
func TestSealedPlotCommitment(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.orders("us", passU, "PLOT TURN 1 1911x3, 3603x3\n")
	receipt, notice := to(mails, us), to(mails, de)
	if len(receipt) != 1 || len(notice) != 1 {
		t.Fatalf("mails: %d to the US, %d to the German; want one each", len(receipt), len(notice))
	}
	c := commitmentIn(t, notice[0].Body)
	if !strings.Contains(receipt[0].Body, c) {
		t.Errorf("receipt does not carry the notice's commitment %s:\n%s", c, receipt[0].Body)
	}
	// A hash is random hex: "1911" inside one is chance, not the plot.
	words := hash64.ReplaceAllString(notice[0].Body, "")
	for _, h := range []string{"1911", "3603", "x3"} {
		if strings.Contains(words, h) || strings.Contains(notice[0].Subject, h) {
			t.Errorf("notice to the German shows %q:\n%s", h, notice[0].Body)
		}
	}
	// Replacing the plot gives a new commitment.
	_, mails = f.orders("us", passU, "PLOT TURN 1 1911x4\n")
	if c2 := commitmentIn(t, to(mails, de)[0].Body); c2 == c {
		t.Errorf("replaced plot kept the commitment %s", c)
	}
	// Nothing sealed reaches the logs.
	if strings.Contains(f.logs.String(), "1911") || strings.Contains(f.logs.String(), passU) {
		t.Errorf("logs show a sealed order or a password:\n%s", f.logs)
	}
	// CANCEL BOMBARDMENT: the German learns of the attempt at Phase I (5.2 I), so he
	// gets no notice of it at all (TestCancelAttemptUnannounced): a notice, however
	// bare, would give it away.
	_, mails = f.orders("us", passU, "CANCEL BOMBARDMENT\n")
	if notice = to(mails, de); len(notice) != 0 {
		t.Fatalf("mails to the German after CANCEL BOMBARDMENT: %d, want none", len(notice))
	}
	if !strings.Contains(to(mails, us)[0].Body, "US standing order for turn") {
		t.Errorf("the US receipt does not name what was sealed:\n%s", to(mails, us)[0].Body)
	}
}

var hash64 = regexp.MustCompile(`\b[0-9a-f]{64}\b`)

func commitmentIn(t *testing.T, body string) string {
	t.Helper()
	m := hash64.FindString(body)
	if m == "" {
		t.Fatalf("no commitment in:\n%s", body)
	}
	return m
}

// TestBadInputChangesNothing is invariant 6: a refused submission leaves the game as it
// was, and the reply quotes the line, says what was expected and cites the rule.
func TestBadInputChangesNothing(t *testing.T) {
	tests := []struct {
		name, side, body string
		wantLine, want   string
	}{
		{"off-map hex", "us", "PLOT TURN 1 5500x3", "PLOT TURN 1 5500x3", "not on the map"},
		{"too many markers", "de", "PLOT TURN 1 2000x7, 2100x6", "2000x7", "at most 12"},
		{"bad item", "us", "PLOT TURN 2 43x3", "43x3", "4-digit hex"},
		{"unknown order", "de", "ATTACK 2000\nPLOT TURN 1 NONE", "ATTACK 2000", "unknown order"},
		{"mistyped last order", "de", "PLOT TURN 1 NONE\nPOLT TURN 2 NONE", "POLT TURN 2", "unknown order"},
		{"bad fire target", "us", "FIRE 12 FROM 1000", "FIRE 12 FROM 1000", "target"},
		{"cancel by the German", "de", "CANCEL BOMBARDMENT", "CANCEL BOMBARDMENT", "only the US"},
		{"German 4-stack before 3.4", "de", placeAll("PLACE 3802 4 INF"), "PLACE 3802 4 INF", "3.4"},
		{"US out of row 00", "us", "PLACE 1001 4 ARMY", "PLACE 1001", "xx00"},
		{"good line with a bad one", "us", "PLOT TURN 1 NONE\nPLOT TURN 9 NONE", "PLOT TURN 9", "1 to 6"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, adjudicator.NewGame{})
			snap := f.snapshot()
			pass := passU
			if tt.side == "de" {
				pass = passD
			}
			out, mails := f.orders(tt.side, pass, tt.body)
			if !strings.HasPrefix(out, adjudicator.Refused) || len(mails) != 1 {
				t.Fatalf("outcome %q with %d mails, want one refusal", out, len(mails))
			}
			body := mails[0].Body
			if !strings.Contains(body, tt.wantLine) || !strings.Contains(body, "REFUSED") || !strings.Contains(body, tt.want) || !strings.Contains(body, "[rule ") {
				t.Errorf("reply does not quote %q, say REFUSED and %q with a rule:\n%s", tt.wantLine, tt.want, body)
			}
			if !strings.Contains(body, "Nothing was changed") {
				t.Errorf("reply does not say nothing was changed:\n%s", body)
			}
			if got := f.snapshot(); got != snap {
				t.Errorf("the game changed:\nbefore %s\nafter  %s", snap, got)
			}
		})
	}
}

// placeAll is a German placement of the whole counter mix beginning with the given line.
func placeAll(first string) string {
	return first + "\nPLACE 1911 2 HMG 1 INF\nPLACE 2808 2 HMG 1 INF\nPLACE 3603 2 HMG 1 INF\nPLACE 1602 1 HMG\nPLACE 2303 1 HMG\nPLACE 4403 1 HMG\n" +
		"PLACE 1102 1 INF\nPLACE 1802 1 INF\nPLACE 2103 1 INF\nPLACE 2502 1 INF\nPLACE 3202 1 INF\nPLACE 3502 1 INF\nPLACE 4002 1 INF\nPLACE 4303 1 INF\n" +
		"PLACE 4802 1 INF\nPLACE 1401 1 INF\nPLACE 2901 1 INF\nPLACE 3801 1 INF\nPLACE 4701 1 INF\nPLACE 1402 1 INF\nPLACE 2902 1 INF\n"
}

// TestNoMailLoops is invariant 7, and the refusal that tells a stranger nothing.
func TestNoMailLoops(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	for _, m := range []adjudicator.Message{
		{ID: "a1", From: "mailer-daemon@x.example", Text: "GAME g1", Automated: true, AutomatedReason: "sender MAILER-DAEMON"},
		{ID: "a2", From: us, Text: "GAME g1\nPASSWORD " + passU + "\nSTATUS", Automated: true, AutomatedReason: "Auto-Submitted: auto-replied"},
		{ID: "a3", From: home, Text: "GAME g1"},
		{ID: "a4", From: "someone@else.example", Text: "GAME g1", OwnMail: true},
	} {
		if out, mails := f.sendMsg(m); !strings.HasPrefix(out, adjudicator.Ignored) || len(mails) != 0 {
			t.Errorf("message %s from %s: %q with %d mails, want ignored without a reply", m.ID, m.From, out, len(mails))
		}
	}

	// The same refusal for every failure, so that it reveals nothing.
	var bodies []string
	for _, c := range []struct{ from, text string }{
		{us, "GAME g1\nPASSWORD wrong\nSTATUS"},
		{"player-elsewhere@x.example", "GAME nosuch\nPASSWORD " + passU},
		{"stranger@x.example", "GAME g1\nPASSWORD " + passU},
		{us, "GAME g1\nSIDE de\nPASSWORD " + passU},
	} {
		out, mails := f.send(c.from, "hello", c.text)
		if !strings.HasPrefix(out, adjudicator.Refused) || len(mails) != 1 {
			t.Fatalf("%q from %s: %q, %d mails", c.text, c.from, out, len(mails))
		}
		bodies = append(bodies, mails[0].Body)
	}
	for _, b := range bodies[1:] {
		if b != bodies[0] {
			t.Errorf("refusals differ, so they tell something:\n%s\n---\n%s", bodies[0], b)
		}
	}
	if strings.Contains(bodies[0], "Set-up") || strings.Contains(bodies[0], "German") {
		t.Errorf("refusal tells about the game:\n%s", bodies[0])
	}

	// A player who mistypes his password is answered 3 times an hour, then told once
	// that his address's refusals stop (issue 19), no more.
	var kinds []string
	for i := 0; i < 10; i++ {
		_, mails := f.send(de, "x", "GAME g1\nPASSWORD guess")
		for _, m := range mails {
			kinds = append(kinds, m.Kind)
		}
	}
	if got := strings.Join(kinds, " "); got != "refused refused refused throttled" {
		t.Errorf("10 bad mails from a player got replies %q, want 3 refusals and one notice", got)
	}
	f.now = f.now.Add(61 * time.Minute)
	if _, mails := f.send(de, "x", "GAME g1\nPASSWORD guess"); len(mails) != 1 {
		t.Errorf("after the window: %d replies, want 1", len(mails))
	}
	// A stranger gets one refusal a day (issue 9: no backscatter to forged senders).
	replies := 0
	for i := 0; i < 10; i++ {
		_, mails := f.send("flood@x.example", "x", "GAME g1\nPASSWORD guess")
		replies += len(mails)
	}
	if replies != 1 {
		t.Errorf("10 bad mails from a stranger got %d replies, want 1", replies)
	}
	f.now = f.now.Add(23 * time.Hour)
	if _, mails := f.send("flood@x.example", "x", "GAME g1"); len(mails) != 0 {
		t.Errorf("a stranger was answered twice in a day")
	}
	f.now = f.now.Add(2 * time.Hour)
	if _, mails := f.send("flood@x.example", "x", "GAME g1"); len(mails) != 1 {
		t.Errorf("a day later: %d replies to the stranger, want 1", len(mails))
	}
}

// TestRefusalCap (issue 9): 50 forged senders get at most the hourly cap of refusals in
// all, and throttle records expire.
func TestRefusalCap(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.desk.RefusalCap = 20
	replies := 0
	for i := 0; i < 50; i++ {
		_, mails := f.send(fmt.Sprintf("forged%d@x.example", i), "x", "GAME g1\nPASSWORD guess")
		replies += len(mails)
	}
	if replies != 20 {
		t.Errorf("50 forged senders got %d refusals, want the cap of 20", replies)
	}
	f.now = f.now.Add(61 * time.Minute)
	if _, mails := f.send("forged-late@x.example", "x", "GAME g1"); len(mails) != 1 {
		t.Errorf("an hour later a new stranger got %d replies, want 1", len(mails))
	}
	throttles := func() int {
		n := 0
		f.db.Read(t.Context(), func(tx store.Tx) error {
			for i := 0; i < 50; i++ {
				if th, _ := tx.Throttle(fmt.Sprintf("forged%d@x.example", i)); th.Count > 0 {
					n++
				}
			}
			return nil
		})
		return n
	}
	if n := throttles(); n != 50 {
		t.Fatalf("%d throttle records, want 50", n)
	}
	f.now = f.now.Add(25 * time.Hour)
	if _, err := f.desk.Tick(t.Context(), f.now); err != nil {
		t.Fatal(err)
	}
	if n := throttles(); n != 0 {
		t.Errorf("%d throttle records a day later, want none", n)
	}
}

// TestLongSubjectCut (issue 9): a stranger's 100,000-character subject is not copied
// into a reply's header.
func TestLongSubjectCut(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, mails := f.send("someone@x.example", strings.Repeat("x", 100000), "HELP")
	if len(mails) != 1 {
		t.Fatalf("%d replies, want 1", len(mails))
	}
	if n := len(mails[0].Subject); n > 200 || !strings.HasPrefix(mails[0].Subject, "Re: xxx") {
		t.Errorf("reply subject has %d characters, want at most 200", n)
	}
}

// TestHeldOrdersAndDeadlines plays set-up and two turns: early orders are held until their
// phase, and the deadline policy resolves a silent German with the default orders.
func TestHeldOrdersAndDeadlines(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: 48 * time.Hour, NoOrders: "default"})
	f.orders("us", passU, usSetup)
	// The German sends his turn-3 plot early, before his turn-1 plot.
	f.orders("de", passD, "PLOT TURN 3 1200x4\n"+deSetup)
	status := func() string {
		_, mails := f.orders("de", passD, "STATUS")
		return mails[0].Body
	}
	if s := status(); !strings.HasPrefix(s, "Your move: Turn 1, Phase II") {
		t.Fatalf("after set-up, status:\n%s", s)
	}
	// STATUS lists a player's own orders on file, never the other side's.
	if s := strings.Join(strings.Fields(status()), " "); !strings.Contains(s, "Your orders on file: - German bombardment plot for turn 3") || strings.Contains(s, "US bombardment plot") {
		t.Errorf("the German's status does not list his own orders alone:\n%s", s)
	}
	// Turn 1 Phase II: the German says nothing. The reminder comes at 3/4 of the deadline.
	f.now = f.now.Add(37 * time.Hour)
	report, err := f.desk.Tick(context.Background(), f.now)
	if err != nil || len(report) != 1 || !strings.Contains(report[0], "reminded de") {
		t.Fatalf("Tick at 37h = %v, %v; want a reminder to the German", report, err)
	}
	if report, _ := f.desk.Tick(context.Background(), f.now); len(report) != 0 {
		t.Errorf("second Tick reminded again: %v", report)
	}
	// The daemon was down at the deadline: it resolves with the defaults and says so.
	f.now = f.now.Add(20 * time.Hour)
	before := len(f.outbox())
	report, err = f.desk.Tick(context.Background(), f.now)
	if err != nil || len(report) != 1 || !strings.Contains(report[0], "default orders for de") {
		t.Fatalf("Tick after the deadline = %v, %v", report, err)
	}
	res := to(f.outbox()[before:], us)
	if len(res) != 1 || !strings.Contains(res[0].Body, "sent no orders by the deadline") || !strings.Contains(res[0].Body, "was not running") {
		t.Fatalf("results after the deadline:\n%v", res)
	}
	// From here nobody writes: every waiting phase passes with its default orders at its
	// deadline (no COWed markers, no move, no fire, no plot), until turn 3 Phase II, which
	// waits for nothing because the German sent his turn-3 plot early; the game runs on to
	// turn 3 Phase II... which waits for the turn-4 plot.
	for i := 0; !strings.Contains(status(), "Turn 3, Phase II:"); i++ {
		if i > 40 {
			t.Fatalf("never reached turn 3 Phase II; status:\n%s", status())
		}
		f.now = f.now.Add(49 * time.Hour)
		if _, err := f.desk.Tick(context.Background(), f.now); err != nil {
			t.Fatal(err)
		}
	}
	// Turn 3 Phase III comes after the German plots turn 4.
	f.orders("de", passD, "PLOT NONE")
	var found bool
	for _, m := range to(f.outbox(), us) {
		if strings.Contains(m.Body, "The German plot for turn 3 is revealed: 1200x4") {
			found = true
		}
	}
	if !found {
		t.Error("the early German turn-3 plot was never executed")
	}
	if _, err := f.desk.Replay(context.Background(), "g1"); err != nil {
		t.Errorf("Replay: %v", err)
	}
	// Each player checks every roll and every revealed order from his own mails, the
	// turns played on default orders included: a default filed at the deadline had
	// no commitment mailed, so it is filed open and never "revealed" as sealed.
	for _, side := range []string{us, de} {
		var bodies []string
		for _, m := range to(f.outbox(), side) {
			bodies = append(bodies, m.Body)
		}
		if _, err := adjudicator.CheckMails("g1", bodies); err != nil {
			t.Errorf("CheckMails of the mails to %s: %v", side, err)
		}
	}
}

// TestWaitPolicy tells the players once that the deadline passed and keeps waiting.
func TestWaitPolicy(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{PhaseLength: time.Hour})
	f.now = f.now.Add(2 * time.Hour)
	report, err := f.desk.Tick(context.Background(), f.now)
	if err != nil || len(report) != 1 || !strings.Contains(report[0], "waiting") {
		t.Fatalf("Tick = %v, %v", report, err)
	}
	late := to(f.outbox(), de)
	if m := late[len(late)-1]; m.Kind != "late" || !strings.HasPrefix(m.Body, "Your move: ") || !strings.Contains(strings.Split(m.Body, "\n\n")[0], "(passed)") {
		t.Errorf("no late notice, or one that does not say on its first line that the deadline passed: %s %q", m.Kind, m.Body)
	}
	if report, _ := f.desk.Tick(context.Background(), f.now.Add(time.Hour)); len(report) != 0 {
		t.Errorf("late notice sent twice: %v", report)
	}
}

// TestReplayDetectsDifferences is invariant 4: replay reproduces the game and notices a
// changed result mail or a changed order.
func TestReplayDetectsDifferences(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	rep, err := f.desk.Replay(context.Background(), "g1")
	if err != nil || rep.Phases < 4 || rep.Mails < 2 {
		t.Fatalf("Replay = %+v, %v", rep, err)
	}
	// A results mail that says something else than the adjudication gave.
	f.db.Write(context.Background(), func(tx store.Tx) error {
		mails, _ := tx.Outbox()
		for _, m := range mails {
			if m.Kind == "results" {
				m.Body = strings.Replace(m.Body, "rolled", "rolled, it is said,", 1)
				return tx.PutOutMail(m)
			}
		}
		return nil
	})
	if _, err := f.desk.Replay(context.Background(), "g1"); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("Replay after changing a results mail = %v, want a difference", err)
	}
}

// TestEveryRollAudited is invariant 3: every roll a results mail shows is in the audit
// chain, verifiable once the seed is revealed, and the chain notices any change.
func TestEveryRollAudited(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	var entries []store.AuditEntry
	f.db.Read(context.Background(), func(tx store.Tx) error { entries, _ = tx.Audit("g1"); return nil })
	rolls := 0
	for _, e := range entries {
		if e.Kind == "roll" {
			rolls++
		}
	}
	shown := 0
	record := regexp.MustCompile(`(?m)^  \d+ \[`) // a roll in a results mail's dice section
	for _, m := range to(f.outbox(), us) {
		shown += len(record.FindAllString(m.Body, -1))
	}
	if rolls == 0 || shown != rolls {
		t.Fatalf("results show %d rolls, audit holds %d", shown, rolls)
	}
	rep, err := adjudicator.VerifyChain("g1", entries)
	if err != nil || rep.Verified+rep.Unrevealed != rolls || rep.Verified == 0 {
		t.Fatalf("VerifyChain = %+v, %v", rep, err)
	}
	mutations := map[string]func(*store.AuditEntry){
		"value":    func(e *store.AuditEntry) { e.Values = []int{7 - e.Values[0]} },
		"purpose":  func(e *store.AuditEntry) { e.Purpose += " " },
		"result":   func(e *store.AuditEntry) { e.Result++ },
		"turn":     func(e *store.AuditEntry) { e.Turn++ },
		"prevlink": func(e *store.AuditEntry) { e.Prev = strings.Repeat("0", 64) },
	}
	for name, mutate := range mutations {
		for i, e := range entries {
			if e.Kind != "roll" {
				continue
			}
			bad := append([]store.AuditEntry(nil), entries...)
			mutate(&bad[i])
			if _, err := adjudicator.VerifyChain("g1", bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("#%d", e.Seq)) {
				t.Errorf("changing the %s of entry #%d: VerifyChain = %v, want it named", name, e.Seq, err)
			}
			// Re-hashing the changed entry does not help: the next link or the seed catch it.
			bad[i].Hash = bad[i].ComputeHash()
			if _, err := adjudicator.VerifyChain("g1", bad); err == nil {
				t.Errorf("changing the %s of entry #%d and re-hashing it passed verification", name, e.Seq)
			}
			break
		}
	}
	if _, err := adjudicator.VerifyChain("g1", append(entries[:2:2], entries[3:]...)); err == nil {
		t.Error("a removed entry passed verification")
	}
}

// brokenRules is Soldiers 1918 with a bug: it panics when it resolves Phase I.
type brokenRules struct{ *soldiers1918.Rules }

func (b brokenRules) Resolve(st rules.State, in []rules.Order, d dice.Source) (rules.Outcome, error) {
	if st.Phase() == soldiers1918.PhaseI {
		panic("index out of range")
	}
	return b.Rules.Resolve(st, in, d)
}

// brokenMap is Soldiers 1918 with a bug in its map: the results mails panic, the US
// one on a goroutine of its own while the German's is rendered on the desk's. (Both
// panic: the map is one for both sides, 6.5, and a map of one side's drawn first would
// be remembered for the other.)
type brokenMap struct{ *soldiers1918.Rules }

func (b brokenMap) Map(rules.State, rules.Side) string {
	panic("index out of range")
}

// TestBrokenRulesetSetAside: a ruleset that panics changes nothing, the mail that set it
// off is answered and set aside, the mailbox goes on (no message is retried for ever),
// and the log names neither the orders nor the panic's text.
func TestBrokenRulesetSetAside(t *testing.T) {
	for _, broken := range []struct {
		name string
		rs   func(*soldiers1918.Rules) rules.Ruleset
	}{
		{"Resolve", func(r *soldiers1918.Rules) rules.Ruleset { return brokenRules{r} }},
		{"Map", func(r *soldiers1918.Rules) rules.Ruleset { return brokenMap{r} }},
	} {
		t.Run(broken.name, func(t *testing.T) { testBrokenRulesetSetAside(t, broken.rs) })
	}
}

func testBrokenRulesetSetAside(t *testing.T, broken func(*soldiers1918.Rules) rules.Ruleset) {
	f := newFixture(t, adjudicator.NewGame{})
	theRules := f.desk.Rulesets[soldiers1918.Name].(*soldiers1918.Rules)
	f.desk.Rulesets[soldiers1918.Name] = broken(theRules)
	f.orders("us", passU, usSetup)
	snap := f.snapshot()
	out, mails := f.orders("de", passD, deSetup) // set-up resolves, then Phase I panics
	if !strings.HasPrefix(out, "failed") || len(mails) != 1 || !strings.Contains(mails[0].Body, "internal error") {
		t.Fatalf("outcome %q, %d mails; want the mail set aside with one reply", out, len(mails))
	}
	if f.snapshot() != snap {
		t.Error("the failed adjudication changed the game")
	}
	if out, _ := f.orders("us", passU, "STATUS"); out != adjudicator.Handled {
		t.Errorf("the next mail: %q, want handled", out)
	}
	if logs := f.logs.String(); !strings.Contains(logs, "set aside") || strings.Contains(logs, "2000x4") || strings.Contains(logs, "index out of range") {
		t.Errorf("log:\n%s", logs)
	}
	// Deadlines go on for the other games.
	f.desk.Rulesets[soldiers1918.Name] = theRules
	if _, err := f.desk.Tick(context.Background(), f.now.Add(time.Hour)); err != nil {
		t.Errorf("Tick: %v", err)
	}
}
