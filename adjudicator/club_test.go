package adjudicator_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

const (
	ann  = "ann@club.example"
	bob  = "bob@elsewhere.example"
	cleo = "cleo@watch.example"
)

// clubFixture is a desk of Soldiers 1918 and Mons 1914 with no game: players open them.
func clubFixture(t *testing.T, club adjudicator.Club) *fixture {
	t.Helper()
	f := &fixture{t: t, now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), logs: &bytes.Buffer{}}
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	clubRules.once.Do(func() {
		s, err1 := soldiers1918.New()
		m, err2 := mons1914.New()
		clubRules.err = errors.Join(err1, err2)
		if clubRules.err == nil {
			clubRules.m = map[string]rules.Ruleset{s.Name(): s, m.Name(): m}
		}
	})
	if clubRules.err != nil {
		t.Fatal(clubRules.err)
	}
	f.db = db
	f.desk = &adjudicator.Desk{Store: db, Rulesets: maps.Clone(clubRules.m), Address: home, Now: func() time.Time { return f.now },
		Rand: &detRand{}, PasswordCost: 4, Club: club, Log: slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))}
	return f
}

// clubRules are the rulesets of clubFixture, loaded once (the fuzz target makes a
// fixture an input).
var clubRules struct {
	once sync.Once
	m    map[string]rules.Ruleset
	err  error
}

// only returns the one mail of mails to addr, failing if there is not exactly one.
func only(t *testing.T, mails []store.OutMail, addr string) store.OutMail {
	t.Helper()
	got := to(mails, addr)
	if len(got) != 1 {
		var subjects []string
		for _, m := range mails {
			subjects = append(subjects, strings.Join(m.To, ",")+": "+m.Subject)
		}
		t.Fatalf("%d mails to %s, want 1; the mails: %q", len(got), addr, subjects)
	}
	return got[0]
}

// flat is a mail's body with its line breaks as spaces, for phrases that wrap.
func flat(m store.OutMail) string { return strings.Join(strings.Fields(m.Body), " ") }

var observeCode = regexp.MustCompile(`OBSERVE (\S+) ([0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4}-[0-9A-Z]{4})`)

// observe has from observe game: OBSERVE, then OBSERVE with the code its answer gives.
// It returns the outcome and the mails of the second.
func (f *fixture) observe(t *testing.T, from, game string) (string, []store.OutMail) {
	t.Helper()
	_, mails := f.send(from, "obs", "OBSERVE "+game+"\n")
	m := observeCode.FindStringSubmatch(flat(only(t, mails, from)))
	if m == nil || m[1] != game {
		t.Fatalf("OBSERVE %s gave no code:\n%s", game, mails[0].Body)
	}
	return f.send(from, "obs", "OBSERVE "+game+" "+m[2]+"\n")
}

var openedGame = regexp.MustCompile(`You opened game (\S+) `)

// open has ann open a game with the text after NEW and returns its name.
func (f *fixture) open(t *testing.T, from, args, pass string) string {
	t.Helper()
	out, mails := f.send(from, "new game", "NEW "+args+"\nPASSWORD "+pass+"\n")
	m := openedGame.FindStringSubmatch(flat(only(t, mails, from)))
	if out != adjudicator.Handled+": club" || m == nil {
		t.Fatalf("NEW %s: %q\n%s", args, out, mails[0].Body)
	}
	return m[1]
}

// TestClubOpenListJoin is the heart of issue 24's first point: a stranger's NEW opens
// a game, a second address's LIST shows it and its JOIN starts it, both get their
// invitations and play with the passwords they chose.
func TestClubOpenListJoin(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{})
	name := f.open(t, ann, "mons1914 SIDE German", "ann-pw-1")
	if name != "mons1914-1" {
		t.Errorf("the first game opened is %q", name)
	}
	_, mails := f.send(bob, "list", "LIST\n")
	list := flat(only(t, mails, bob))
	for _, want := range []string{"mons1914-1: The Old Contemptibles: Mons, 1914", "free side British", "observers open", "opened"} {
		if !strings.Contains(list, want) {
			t.Errorf("LIST lacks %q:\n%s", want, list)
		}
	}
	// The wrong side, then no password: refused, nothing changes.
	for _, c := range []struct{ text, want string }{
		{"JOIN mons1914-1 SIDE de\nPASSWORD bob-pw-1\n", "the German seat of game mons1914-1 is taken; the free seat is British"},
		{"JOIN mons1914-1\n", "a line PASSWORD <password> is needed"},
		{"JOIN nope-3\nPASSWORD bob-pw-1\n", "no game nope-3 is open"},
	} {
		out, mails := f.send(bob, "join", c.text)
		if got := flat(only(t, mails, bob)); out != adjudicator.Refused+": club" || !strings.Contains(got, c.want) {
			t.Errorf("%q: %q, want %q in:\n%s", c.text, out, c.want, got)
		}
	}
	out, mails := f.send(bob, "join", "JOIN mons1914-1 SIDE british\nPASSWORD bob-pw-1\n")
	if out != adjudicator.Handled+": club" {
		t.Fatalf("JOIN: %q", out)
	}
	for _, addr := range []string{ann, bob} {
		var invited bool
		for _, m := range to(mails, addr) {
			invited = invited || m.Kind == "invite"
			if strings.Contains(m.Body, "ann-pw-1") || strings.Contains(m.Body, "bob-pw-1") {
				t.Errorf("a mail to %s repeats a password:\n%s", addr, m.Body)
			}
		}
		if !invited {
			t.Errorf("%s got no invitation", addr)
		}
		for _, m := range to(mails, addr) {
			if m.Kind == "invite" && !strings.Contains(m.Body, "PASSWORD <your password>") {
				t.Errorf("the invitation to %s does not say to write his own password:\n%s", addr, m.Body)
			}
		}
	}
	g := f.gameNamed(name)
	if len(g.Players) != 2 || g.PhaseLength != adjudicator.DefaultClubPhase || g.NoOrders != "default" {
		t.Errorf("the game: %+v", g)
	}
	// Each plays with the password he chose.
	for _, p := range []struct{ from, pass string }{{ann, "ann-pw-1"}, {bob, "bob-pw-1"}} {
		if out, _ := f.send(p.from, "status", "GAME "+name+"\nPASSWORD "+p.pass+"\nSTATUS\n"); out != adjudicator.Handled {
			t.Errorf("%s's STATUS with his own password: %q", p.from, out)
		}
	}
	// Full now, and gone from the open games; LIST shows it among each player's games.
	out, mails = f.send(cleo, "join", "JOIN mons1914-1\nPASSWORD cleo-pw\n")
	if !strings.Contains(flat(only(t, mails, cleo)), "game mons1914-1 is full") {
		t.Errorf("JOIN of a full game: %q", out)
	}
	_, mails = f.send(ann, "list", "LIST\n")
	if l := flat(only(t, mails, ann)); !strings.Contains(l, "no game is open") || !strings.Contains(l, "mons1914-1: The Old Contemptibles: Mons, 1914, you play German") {
		t.Errorf("LIST after the game started:\n%s", l)
	}
}

func (f *fixture) gameNamed(name string) store.Game {
	f.t.Helper()
	var g store.Game
	if err := f.db.Read(context.Background(), func(tx store.Tx) (err error) {
		g, err = tx.Game(name)
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return g
}

// TestClubWhoMayOpen: the host's config decides who opens games and how many.
func TestClubWhoMayOpen(t *testing.T) {
	cases := []struct {
		name string
		club adjudicator.Club
		from string
		want string // "" opens
	}{
		{"anyone by default", adjudicator.Club{}, bob, ""},
		{"closed", adjudicator.Club{Closed: true}, ann, "does not let players open games by mail"},
		{"a domain allowed", adjudicator.Club{Allow: []string{"club.example"}}, ann, ""},
		{"an address allowed", adjudicator.Club{Allow: []string{"@x.example", ann}}, ann, ""},
		{"not on the list", adjudicator.Club{Allow: []string{"club.example"}}, bob, "lets only some addresses open games"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := clubFixture(t, c.club)
			f.desk.HostAddress = "host@club.example"
			out, mails := f.send(c.from, "new", "NEW mons1914\nPASSWORD pw-123\n")
			body := flat(only(t, mails, c.from))
			if c.want == "" {
				if out != adjudicator.Handled+": club" {
					t.Errorf("%q:\n%s", out, body)
				}
				return
			}
			if out != adjudicator.Refused+": club" || !strings.Contains(body, c.want) || !strings.Contains(body, "host@club.example") {
				t.Errorf("%q, want %q and the host's address in:\n%s", out, c.want, body)
			}
			var open []store.OpenGame
			f.db.Read(context.Background(), func(tx store.Tx) (err error) { open, err = tx.OpenGames(); return err })
			if len(open) != 0 {
				t.Errorf("a refused NEW left open games: %+v", open)
			}
		})
	}
}

// TestClubLimits: a few open games an address; WITHDRAW only by its creator with his
// password; bad NEW lines answered clearly.
func TestClubLimits(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{MaxOpen: 2})
	f.open(t, ann, "mons1914", "pw-ann")
	second := f.open(t, ann, "soldiers1918 SIDE de OBSERVERS no york", "pw-ann")
	for _, c := range []struct{ from, text, want string }{
		{ann, "NEW mons1914\nPASSWORD pw-ann\n", "you hold 2 open games already"},
		{bob, "NEW chess\nPASSWORD pw-bob\n", `unknown ruleset "chess"`},
		{bob, "NEW mons1914 SIDE french\nPASSWORD pw-bob\n", `side "french"`},
		{bob, "NEW mons1914 fog\nPASSWORD pw-bob\n", `"fog" is no optional rule of The Old Contemptibles: Mons, 1914`},
		{bob, "NEW mons1914\n", "a line PASSWORD <password> is needed"},
		{bob, "WITHDRAW " + second + "\nPASSWORD pw-ann\n", "withdrawn only by the address that opened it"},
		{ann, "WITHDRAW " + second + "\nPASSWORD wrong\n", "withdrawn only by the address that opened it"},
	} {
		out, mails := f.send(c.from, "x", c.text)
		if body := flat(only(t, mails, c.from)); out != adjudicator.Refused+": club" || !strings.Contains(body, c.want) {
			t.Errorf("%q: %q, want %q in:\n%s", c.text, out, c.want, body)
		}
	}
	_, mails := f.send(bob, "list", "LIST\n")
	if l := flat(only(t, mails, bob)); !strings.Contains(l, second+": Soldiers") || !strings.Contains(l, "free side US, optional rules york, observers no") {
		t.Errorf("LIST:\n%s", l)
	}
	if out, mails := f.send(ann, "w", "WITHDRAW "+second+"\nPASSWORD pw-ann\n"); out != adjudicator.Handled+": club" {
		t.Errorf("WITHDRAW by its creator: %q\n%s", out, mails[0].Body)
	}
	_, mails = f.send(bob, "list", "LIST\n")
	if l := flat(only(t, mails, bob)); strings.Contains(l, second) {
		t.Errorf("a withdrawn game is listed:\n%s", l)
	}
}

// TestClubAnswersOncePerMailAndThrottled: a mail of several club commands gets one
// answer, and a stranger's club mails are answered a few times a day, as refusals are.
func TestClubAnswersOncePerMailAndThrottled(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{})
	_, mails := f.send(bob, "x", "LIST\nRATINGS\nLIST\nHello there\n")
	body := flat(only(t, mails, bob))
	for _, want := range []string{"LIST: no game is open", "RATINGS: Elo, K = 32", "LIST: not done: one LIST a mail", "Line 4 not read"} {
		if !strings.Contains(body, want) {
			t.Errorf("the answer lacks %q:\n%s", want, body)
		}
	}
	answered := 1
	for range 12 {
		if _, mails := f.send(bob, "x", "LIST\n"); len(mails) > 0 {
			answered++
		}
	}
	if answered != 10 {
		t.Errorf("a stranger's 13 LIST mails got %d answers, want 10", answered)
	}
	// Beyond them, a club mail is not read at all: it opens no game.
	if out, mails := f.send(bob, "x", "NEW mons1914\nPASSWORD pw-bob\n"); out != adjudicator.Throttled || len(mails) != 0 {
		t.Errorf("NEW beyond the day's answers: %q, %d mails", out, len(mails))
	}
	var open []store.OpenGame
	f.db.Read(context.Background(), func(tx store.Tx) (err error) { open, err = tx.OpenGames(); return err })
	if len(open) != 0 {
		t.Errorf("a NEW beyond the day's answers opened %+v", open)
	}
}

// TestObserverPolicies: OBSERVE on a game that allows none is refused; on an open one
// the sender observes and the players are told who; on one that asks, a player's
// ALLOW lets him.
func TestObserverPolicies(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{})
	start := func(policy, pass string) string {
		name := f.open(t, ann, "mons1914 OBSERVERS "+policy, pass)
		if out, _ := f.send(bob, "join", "JOIN "+name+"\nPASSWORD bob-pw\n"); out != adjudicator.Handled+": club" {
			t.Fatalf("JOIN %s: %q", name, out)
		}
		return name
	}
	none := start("no", "ann-pw")
	out, mails := f.send(cleo, "obs", "OBSERVE "+none+"\n")
	if !strings.Contains(flat(only(t, mails, cleo)), "allows no observers") || out != adjudicator.Refused+": club" {
		t.Errorf("OBSERVE of a game that allows none: %q", out)
	}
	open := start("open", "ann-pw")
	// A code it does not give, then the one it gives.
	if _, mails := f.send(cleo, "obs", "OBSERVE "+open+" 7K3Q-M2XD-PW4A-9HTB\n"); !strings.Contains(flat(only(t, mails, cleo)), "is not the code for observing") {
		t.Errorf("OBSERVE with a wrong code: %s", mails[0].Body)
	}
	out, mails = f.observe(t, cleo, open)
	if out != adjudicator.Handled+": club" || !strings.Contains(flat(only(t, mails, cleo)), "You observe game "+open) {
		t.Errorf("OBSERVE: %q", out)
	}
	for _, p := range []string{ann, bob} {
		if told := flat(only(t, mails, p)); !strings.Contains(told, cleo+" now observes this game") {
			t.Errorf("%s is not told who observes:\n%s", p, told)
		}
	}
	if _, mails := f.send(ann, "s", "GAME "+open+"\nPASSWORD ann-pw\nSTATUS\n"); !strings.Contains(flat(only(t, mails, ann)), "Observers (open: anyone may observe it (OBSERVE)): "+cleo) {
		t.Errorf("STATUS does not list the observer:\n%s", mails[0].Body)
	}
	if _, mails := f.send(bob, "o", "OBSERVE "+open+"\n"); !strings.Contains(flat(only(t, mails, bob)), "you play in game") {
		t.Error("a player may observe his own game")
	}
	// An observer of a game still open: the players are told when it starts.
	early := f.open(t, ann, "mons1914", "ann-pw")
	f.observe(t, cleo, early)
	_, mails = f.send(bob, "join", "JOIN "+early+"\nPASSWORD bob-pw\n")
	told := 0
	for _, m := range mails {
		if strings.Contains(flat(m), early+" is observed by "+cleo) {
			told++
		}
	}
	if told != 2 {
		t.Errorf("%d players of a game observed while open are told when it starts, want 2", told)
	}
	ask := start("ask", "ann-pw")
	_, mails = f.observe(t, cleo, ask)
	if !strings.Contains(flat(only(t, mails, cleo)), "OBSERVE: asked") || !strings.Contains(flat(only(t, mails, ann)), "ALLOW "+cleo) {
		t.Errorf("OBSERVE of a game that asks:\n%s", mails[0].Body)
	}
	_, mails = f.send(ann, "allow", "GAME "+ask+"\nPASSWORD ann-pw\nALLOW "+cleo+"\n")
	if !strings.Contains(flat(only(t, mails, cleo)), "has let you observe it") {
		t.Errorf("ALLOW: cleo is not told")
	}
	var obs []store.Observer
	f.db.Read(context.Background(), func(tx store.Tx) (err error) { obs, err = tx.Observers(ask); return err })
	if len(obs) != 1 || obs[0].Pending {
		t.Errorf("observers after ALLOW: %+v", obs)
	}
	if out, mails := f.send(cleo, "u", "UNOBSERVE "+open+"\n"); out != adjudicator.Handled+": club" || len(to(mails, ann)) != 1 {
		t.Errorf("UNOBSERVE: %q, players told %d", out, len(to(mails, ann)))
	}
}

// TestObserverSeesNoSealedOrder: an observer of a Soldiers 1918 game receives each
// results mail, and none of his mails holds a sealed plot's text before the results
// that reveal it.
func TestObserverSeesNoSealedOrder(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	if out, _ := f.observe(t, cleo, "g1"); out != adjudicator.Handled+": club" {
		t.Fatalf("OBSERVE: %q", out)
	}
	// The plots' texts as sealed (canonical form), with when they are revealed.
	secrets := []string{"1911x3, 3603x3", "2000x4, 2100x4"}
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	var observed, results int
	revealed := map[string]bool{}
	for _, m := range f.outbox() {
		if m.Kind == "results" && m.Side == "us" {
			results++
		}
		if len(m.To) != 1 || m.To[0] != cleo || m.Kind != "observe" {
			continue
		}
		observed++
		if len(m.Pictures) != 1 || len(m.Pictures[0].View) == 0 || m.Pictures[0].Before != "== Map: what every side sees ==" {
			t.Errorf("observer mail %d carries no picture of the map: %+v", observed, m.Pictures)
		}
		// A plot's text may stand in a mail that reveals it (its section of orders
		// revealed), and in any after; in none before.
		rest, section := m.Body, ""
		if i := strings.Index(m.Body, "== Orders revealed =="); i >= 0 {
			end := strings.Index(m.Body[i+2:], "\n== ")
			section, rest = m.Body[i:i+2+end], m.Body[:i]+m.Body[i+2+end:]
		}
		for _, s := range secrets {
			revealed[s] = revealed[s] || strings.Contains(section, s)
			if strings.Contains(rest, s) && !revealed[s] {
				t.Errorf("observer mail %d shows %q before its reveal:\n%s", observed, s, m.Body)
			}
		}
	}
	if len(revealed) != len(secrets) || !revealed[secrets[0]] {
		t.Errorf("the observer was not shown the plots when revealed: %v", revealed)
	}
	if results == 0 || observed != results {
		t.Errorf("the observer got %d results mails, each player %d", observed, results)
	}
}

// TestHostSetsObservers: the host decides who observes a game he created, at game new
// (NewGame.Observers, --observers) or later by mail (OBSERVERS <game> NO); the players
// are told.
func TestHostSetsObservers(t *testing.T) {
	f := hostFixture(t)
	if out, _ := f.observe(t, cleo, "g1"); out != adjudicator.Handled+": club" {
		t.Fatalf("OBSERVE of an open game: %q", out)
	}
	out, mails := f.host("obs", "HOST PASSWORD "+hostPass+"\nOBSERVERS g1 NO\n")
	if out != adjudicator.Handled+": host, 1 done, 0 refused" || len(to(mails, us)) != 1 {
		t.Fatalf("OBSERVERS g1 NO: %q, %d mails to the US", out, len(to(mails, us)))
	}
	if _, mails := f.send(bob, "o", "OBSERVE g1\n"); !strings.Contains(flat(only(t, mails, bob)), "allows no observers") {
		t.Error("OBSERVE after the host's NO is not refused")
	}
	// The host ends the game: the observer is told, as the players are, then gets the
	// record of the game.
	_, mails = f.host("end", "HOST PASSWORD "+hostPass+"\nEND g1\n")
	if told := to(mails, cleo); len(told) != 2 || !strings.Contains(flat(told[0]), "the host has ended the game") || told[1].Kind != adjudicator.KindRecord {
		t.Errorf("the observer is not told the host ended the game, then sent its record: %d mails", len(told))
	}
	g := newFixture(t, adjudicator.NewGame{Observers: "no"})
	if _, mails := g.send(bob, "o", "OBSERVE g1\n"); !strings.Contains(flat(only(t, mails, bob)), "allows no observers") {
		t.Error("OBSERVE of a game created with Observers no is not refused")
	}
}

// TestHelpHasTheClub: HELP shows every club command with an example, and the
// ladder's rating system and K.
func TestHelpHasTheClub(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{})
	_, mails := f.send(bob, "help", "HELP\n")
	body := only(t, mails, bob).Body
	for _, want := range []string{"NEW mons1914 SIDE bef", "LIST ", "JOIN mons1914-3", "WITHDRAW mons1914-3", "OBSERVE mons1914-3",
		"UNOBSERVE mons1914-3", "RATINGS [mons1914]", "Elo (K = 32", "HISTORY 1:", "SUMMARY ", "ALLOW ann@example.org"} {
		if !strings.Contains(body, want) {
			t.Errorf("HELP lacks %q", want)
		}
	}
}

// TestListIsBounded: LIST shows the newest open games, at most a mail's worth, and
// says how many more there are.
func TestListIsBounded(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{MaxOpen: 40})
	for i := range 33 {
		// One game an address, three minutes apart: within each one's answers and the
		// hourly cap of all answers to strangers.
		f.now = f.now.Add(3 * time.Minute)
		f.open(t, fmt.Sprintf("p%d@club.example", i), "mons1914", "pw-1")
	}
	_, mails := f.send(bob, "list", "LIST\n")
	body := flat(only(t, mails, bob))
	if n := strings.Count(body, ": The Old Contemptibles"); n != 30 || !strings.Contains(body, "(3 older open games are not listed.)") ||
		!strings.Contains(body, "mons1914-33:") || strings.Contains(body, "mons1914-1:") {
		t.Errorf("LIST of 33 open games shows %d:\n%s", n, body)
	}
}

// TestClubMailOrGameMail: which mails are club mails. A player's orders under a
// first line that happens to start with a club word stay his game's when his mail
// names the game (GAME, or a reply in the game's thread); a club command as HELP
// writes it is one even in such a thread.
func TestClubMailOrGameMail(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	cases := []struct {
		subject, text string
		club          bool
	}{
		{"Re: [g1] Soldiers", "List of my moves:\nPASSWORD " + passU + "\nSTATUS\n", false},
		{"Re: [g1] Soldiers", "New plan\nPASSWORD " + passU + "\nSTATUS\n", false},
		{"orders", "LIST\nGAME g1\nPASSWORD " + passU + "\nSTATUS\n", false},
		{"Re: [g1] Soldiers", "OBSERVE g1\n", true},
		{"Re: [g1] Soldiers", "LIST\n", true},
		{"a game", "New plan\n", true},
		{"a game", "PASSWORD x\nJOIN soldiers1918-4\n", true},
	}
	for _, c := range cases {
		out, _ := f.send(us, c.subject, c.text)
		if club := strings.HasSuffix(out, ": club"); club != c.club {
			t.Errorf("%q under %q: %q, a club mail %v, want %v", c.text, c.subject, out, club, c.club)
		}
	}
}

// TestClubNewWithBeacon (issue 25: "the open-game and host commands that create games"):
// NEW ... DICE BEACON opens a game whose rolls mix in the beacon, when the host offers
// one; JOIN starts it so, and the invitations say it. Without a beacon NEW is refused.
func TestClubNewWithBeacon(t *testing.T) {
	f := clubFixture(t, adjudicator.Club{})
	out, mails := f.send(ann, "new", "NEW mons1914 DICE BEACON\nPASSWORD ann-pw-1\n")
	if got := flat(only(t, mails, ann)); out != adjudicator.Refused+": club" || !strings.Contains(got, "no beacon is configured") {
		t.Errorf("NEW ... DICE BEACON without a beacon: %q\n%s", out, got)
	}
	relay := &beacon.Recorded{Rounds: beacon.RecordedRounds(), Start: f.now, Period: time.Minute, Now: func() time.Time { return f.now }}
	srv := httptest.NewServer(relay)
	t.Cleanup(srv.Close)
	f.desk.Beacon = beacon.Source{Schedule: relay, Client: &beacon.Client{URL: srv.URL, Chain: beacon.Quicknet, HTTP: srv.Client()}}
	name := f.open(t, ann, "mons1914 DICE BEACON", "ann-pw-1")
	if out, _ := f.send(bob, "join", "JOIN "+name+"\nPASSWORD bob-pw-1\n"); out != adjudicator.Handled+": club" {
		t.Fatalf("JOIN: %q", out)
	}
	f.db.Read(context.Background(), func(tx store.Tx) error {
		g, err := tx.Game(name)
		if err != nil || g.Dice != adjudicator.DiceBeacon {
			t.Errorf("game %s: dice %q (%v), want %q", name, g.Dice, err, adjudicator.DiceBeacon)
		}
		return nil
	})
	for _, addr := range []string{ann, bob} {
		var told bool
		for _, m := range to(outbox(t, f.db), addr) {
			told = told || m.Kind == "invite" && strings.Contains(m.Body, "This game plays with the beacon")
		}
		if !told {
			t.Errorf("the invitation to %s does not say the game plays with the beacon", addr)
		}
	}
}
