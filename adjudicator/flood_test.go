package adjudicator

import (
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/store"
)

// floodStore is a store with one game "g" of the tally ruleset (a@example.org, password
// pa; b@example.org, pb), created by a desk with the given password key (nil: a store
// from before verifiers), and a host.
func floodStore(t *testing.T, key []byte) *store.DB {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	d := floodDesk(db, key, func() time.Time { return time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC) })
	if _, err := d.CreateGame(t.Context(), NewGame{Name: "g", Ruleset: "tally",
		Players:   map[rules.Side]string{"a": "a@example.org", "b": "b@example.org"},
		Passwords: map[rules.Side]string{"a": "pa", "b": "pb"}}); err != nil {
		t.Fatal(err)
	}
	return db
}

const floodHost = "host@example.org"

// floodHostHash is the bcrypt hash of the host password, "host-pw", the same for every
// desk, as the configuration gives it.
var floodHostHash = sync.OnceValue(func() string {
	h, _ := (&Desk{PasswordCost: 4}).hashPassword("host-pw")
	return h
})

// floodDesk is a freshly started desk (nothing remembered) over db.
func floodDesk(db store.Store, key []byte, now func() time.Time) *Desk {
	return &Desk{Store: db, Rulesets: map[string]rules.Ruleset{"tally": tallyRules{}}, Address: "adjutant@example.org",
		PasswordCost: 4, PasswordKey: key, Now: now, HostAddress: floodHost, HostPassHash: floodHostHash()}
}

// handleAll hands the desk each text from the sender and returns the outcomes.
// sent counts the mails handleAll sent, so that each has a Date of its own.
var sent atomic.Int64

func handleAll(t *testing.T, d *Desk, from string, texts ...string) []string {
	t.Helper()
	var outs []string
	for _, text := range texts {
		// Each mail its own Date, as mail programs write them: a host mail takes effect
		// once for its commands and Date (hostreplay.go).
		sent.Add(1)
		date := d.now().Add(time.Duration(sent.Load()) * time.Second)
		out, err := d.Handle(t.Context(), Message{ID: fmt.Sprintf("%d-%s@x", time.Now().UnixNano(), from), From: from, Text: text, Date: date})
		if err != nil {
			t.Fatal(err)
		}
		outs = append(outs, out)
	}
	return outs
}

func repeat(text string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(text, i)
	}
	return out
}

// TestForgedFloodRightPasswordOpens (issue 19): after a restart, a flood of mails forged
// From a player's (or the host's) address with wrong passwords is refused without
// bcrypt, and the real mail with the right password that follows is accepted: for a
// player of a new game, for one of a store from before verifiers once his password was
// checked once, and for the host.
func TestForgedFloodRightPasswordOpens(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	for _, c := range []struct {
		name      string
		createKey []byte // the key the game was created with
		from      string
		forged    string
		right     string
		warm      bool // a right mail before the restart (the first check of an older store's player)
	}{
		{"player of a new game", key, "a@example.org", "GAME g\nPASSWORD guess-%d\nSTATUS", "GAME g\nPASSWORD pa\nSTATUS", false},
		{"player of an older store", nil, "a@example.org", "GAME g\nPASSWORD guess-%d\nSTATUS", "GAME g\nPASSWORD pa\nSTATUS", true},
		{"host", key, floodHost, "HOST PASSWORD guess-%d\nGAMES", "HOST PASSWORD host-pw\nGAMES", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := floodStore(t, c.createKey)
			if c.warm {
				if out := handleAll(t, floodDesk(db, key, clock), c.from, c.right)[0]; !strings.HasPrefix(out, Handled) {
					t.Fatalf("the right password before the flood: %q", out)
				}
			}
			d := floodDesk(db, key, clock) // the daemon restarts
			outs := handleAll(t, d, c.from, repeat(c.forged, 3*MaxFailedChecks)...)
			for i, out := range outs {
				if strings.HasPrefix(out, Handled) {
					t.Fatalf("forged mail %d accepted: %q", i, out)
				}
			}
			if n := d.bcryptChecks.Load(); n != 0 {
				t.Errorf("%d forged mails cost %d bcrypt checks, want none", len(outs), n)
			}
			if out := handleAll(t, d, c.from, c.right)[0]; !strings.HasPrefix(out, Handled) {
				t.Errorf("the right password after %d forged mails: %q, want handled", len(outs), out)
			}
			if n := d.bcryptChecks.Load(); n != 0 {
				t.Errorf("the right password cost %d bcrypt checks, want none", n)
			}
		})
	}
}

// TestVerifierFollowsPassword (issue 19): a verifier is made for one bcrypt hash with
// one key. When the password changes behind it (a new hash) or the key file is
// replaced, the password is checked by bcrypt again, the old password no longer opens,
// and the new verifier is kept.
func TestVerifierFollowsPassword(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	other := []byte("fedcba9876543210fedcba9876543210")
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db := floodStore(t, key)
	d := floodDesk(db, other, clock) // a new key file
	if out := handleAll(t, d, "a@example.org", "GAME g\nPASSWORD pa\nSTATUS")[0]; !strings.HasPrefix(out, Handled) || d.bcryptChecks.Load() != 1 {
		t.Fatalf("under a new key: %q after %d bcrypt checks, want handled after 1", out, d.bcryptChecks.Load())
	}
	d = floodDesk(db, other, clock)
	if out := handleAll(t, d, "a@example.org", "GAME g\nPASSWORD pa\nSTATUS")[0]; !strings.HasPrefix(out, Handled) || d.bcryptChecks.Load() != 0 {
		t.Fatalf("after a restart: %q after %d bcrypt checks, want handled after none", out, d.bcryptChecks.Load())
	}
	hash, _ := d.hashPassword("new")
	if err := db.Write(t.Context(), func(tx store.Tx) error {
		g, err := tx.Game("g")
		if err != nil {
			return err
		}
		g.Players[0].PassHash = hash
		return tx.PutGame(g)
	}); err != nil {
		t.Fatal(err)
	}
	d = floodDesk(db, other, clock)
	outs := handleAll(t, d, "a@example.org", "GAME g\nPASSWORD pa\nSTATUS", "GAME g\nPASSWORD new\nSTATUS")
	if !strings.HasPrefix(outs[0], Refused) || !strings.HasPrefix(outs[1], Handled) {
		t.Errorf("old and new password after a change: %q, want refused then handled", outs)
	}
	d = floodDesk(db, other, clock)
	if out := handleAll(t, d, "a@example.org", "GAME g\nPASSWORD new\nSTATUS")[0]; !strings.HasPrefix(out, Handled) || d.bcryptChecks.Load() != 0 {
		t.Errorf("the new password after a restart: %q after %d bcrypt checks, want handled after none", out, d.bcryptChecks.Load())
	}
}

// TestForgedFloodPlayerTold (issue 19): when the refusals to a player's address stop,
// the player is told once a window, at that address, what happened and that his own
// mails are still accepted; the host likewise.
func TestForgedFloodPlayerTold(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	db := floodStore(t, key)
	d := floodDesk(db, key, func() time.Time { return now })
	for _, c := range []struct{ from, forged string }{
		{"a@example.org", "GAME g\nPASSWORD guess-%d"},
		{floodHost, "HOST PASSWORD guess-%d\nGAMES"},
	} {
		for window := range 2 {
			var before int
			db.Read(t.Context(), func(tx store.Tx) error { o, _ := tx.Outbox(); before = len(o); return nil })
			outs := handleAll(t, d, c.from, repeat(c.forged, 10)...)
			var mails []store.OutMail
			db.Read(t.Context(), func(tx store.Tx) error { o, _ := tx.Outbox(); mails = o[before:]; return nil })
			var kinds []string
			for _, m := range mails {
				kinds = append(kinds, m.Kind)
				if len(m.To) != 1 || m.To[0] != c.from {
					t.Errorf("%s: a mail to %v", c.from, m.To)
				}
			}
			if got := strings.Join(kinds, " "); got != "refused refused refused throttled" {
				t.Fatalf("%s, window %d: mails %q (outcomes %q), want 3 refusals and one notice", c.from, window, got, outs)
			}
			notice := mails[3].Body
			for _, want := range []string{"refused 4 mails from your address", "someone is sending mail in your name", "right password are still"} {
				if !strings.Contains(strings.Join(strings.Fields(notice), " "), want) {
					t.Errorf("%s: the notice does not say %q:\n%s", c.from, want, notice)
				}
			}
			if strings.Contains(notice, "guess") {
				t.Errorf("the notice quotes a forged password:\n%s", notice)
			}
			now = now.Add(61 * time.Minute)
		}
	}
}

// TestRegisteredAddressBudget (issue 19): a player's address is answered as a player's
// (3 refusals an hour) for mails refused before he is known (no game named, unreadable,
// too large), not once a day as a stranger's; and strangers who use up the hourly cap of
// refusals do not silence the answers to players.
func TestRegisteredAddressBudget(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	db := floodStore(t, nil) // the address index needs no key
	d := floodDesk(db, nil, func() time.Time { return now })
	d.RefusalCap = 5
	for i := range 10 {
		handleAll(t, d, fmt.Sprintf("stranger%d@x.example", i), "GAME g\nPASSWORD guess")
	}
	for i, m := range []Message{
		{From: "a@example.org", Text: "no game named"},
		{From: "a@example.org", Unreadable: "it holds no text"},
		{From: "a@example.org", TooLarge: true},
		{From: "b@example.org", Text: "GAME nosuch\nPASSWORD pb"},
		{From: floodHost, Text: "hello"},
	} {
		m.ID = fmt.Sprintf("reg%d@x", i)
		out, err := d.Handle(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, Refused) {
			t.Errorf("mail %d from %s: %q, want refused (answered)", i, m.From, out)
		}
	}
	if out := handleAll(t, d, "late-stranger@x.example", "hello")[0]; out != Throttled {
		t.Errorf("a stranger past the cap: %q, want throttled", out)
	}
}

// TestPasswordRefusedUnchecked (issue 19): a password line with a control character
// (or U+FFFD, which the mail reader puts for one) is refused with its own answer, and a
// mail that could not be decoded is refused as unreadable: neither costs a bcrypt check
// nor counts as a wrong password.
func TestPasswordRefusedUnchecked(t *testing.T) {
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	db := floodStore(t, nil)
	d := floodDesk(db, nil, func() time.Time { return now })
	d.RefusalLimit = 10
	for i, c := range []struct {
		m    Message
		want string
	}{
		{Message{Text: "GAME g\nPASSWORD p\x00a\nSTATUS"}, Refused + ": bad-password"},
		{Message{Text: "GAME g\nPASSWORD p\uFFFDa\nSTATUS"}, Refused + ": bad-password"},
		{Message{Text: "GAME g\nPASSWORD pa\x1b[2J\nSTATUS"}, Refused + ": bad-password"},
		{Message{Text: "GAME g\nPASSWORD cut-by-damage", Unreadable: "the encoding of its text is damaged"}, Refused + ": unreadable"},
	} {
		c.m.ID, c.m.From = fmt.Sprintf("u%d@x", i), "a@example.org"
		out, err := d.Handle(t.Context(), c.m)
		if err != nil {
			t.Fatal(err)
		}
		if out != c.want {
			t.Errorf("mail %d: %q, want %q", i, out, c.want)
		}
	}
	if n := d.bcryptChecks.Load(); n != 0 {
		t.Errorf("%d bcrypt checks, want none", n)
	}
	if w := d.passwords.fails; len(w) != 0 {
		t.Errorf("failed checks counted: %v", w)
	}
	for _, pw := range []string{"ok-pw", "with space", "ünïcode", "p@ss:w0rd!"} {
		if !validPassword(pw) {
			t.Errorf("validPassword(%q) = false", pw)
		}
	}
}

// tallyMatch is the tally ruleset played as matches.
type tallyMatch struct{ tallyRules }

func (tallyMatch) NewMatchGame(rules.State, rules.Options) (rules.State, error) {
	return tallyState{}, nil
}
func (tallyMatch) MatchVerdict(_, _ rules.State, _, _ map[rules.Side]string) string { return "" }

// TestMatchCarriesVerifier (issue 19): the second game of a match, whose players keep
// their passwords, keeps their verifiers too: no bcrypt is needed to open it.
func TestMatchCarriesVerifier(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	now := time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	db := floodStore(t, key)
	if err := db.Write(t.Context(), func(tx store.Tx) error {
		g, err := tx.Game("g")
		if err != nil {
			return err
		}
		g.Over = true
		return tx.PutGame(g)
	}); err != nil {
		t.Fatal(err)
	}
	d := floodDesk(db, key, clock)
	d.Rulesets = map[string]rules.Ruleset{"tally": tallyMatch{}}
	if _, err := d.CreateGame(t.Context(), NewGame{Name: "g2", Ruleset: "tally", MatchOf: "g"}); err != nil {
		t.Fatal(err)
	}
	d = floodDesk(db, key, clock)
	d.Rulesets = map[string]rules.Ruleset{"tally": tallyMatch{}}
	outs := handleAll(t, d, "a@example.org", "GAME g2\nPASSWORD pa\nSTATUS")
	outs = append(outs, handleAll(t, d, "b@example.org", "GAME g2\nPASSWORD pb\nSTATUS")...)
	for i, out := range outs {
		if !strings.HasPrefix(out, Handled) {
			t.Errorf("player %d in the second game: %q, want handled", i, out)
		}
	}
	if n := d.bcryptChecks.Load(); n != 0 {
		t.Errorf("%d bcrypt checks to open the second game, want none", n)
	}
}

// TestForgedFloodAfterNewPassword: a password the host gives a side (ADDRESS, adjutant
// player --password) has its verifier at once, so that a flood of forged mails after a
// restart neither costs bcrypt nor locks the new player out before his first mail.
func TestForgedFloodAfterNewPassword(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	clock := func() time.Time { return time.Date(2026, 11, 28, 10, 0, 0, 0, time.UTC) }
	db := floodStore(t, key)
	if _, err := floodDesk(db, key, clock).ReplaceAddress(t.Context(), "g", "a", "c@example.org", "pc-new"); err != nil {
		t.Fatal(err)
	}
	d := floodDesk(db, key, clock) // the daemon restarts
	outs := handleAll(t, d, "c@example.org", repeat("GAME g\nPASSWORD guess-%d\nSTATUS", 3*MaxFailedChecks)...)
	if out := handleAll(t, d, "c@example.org", "GAME g\nPASSWORD pc-new\nSTATUS")[0]; !strings.HasPrefix(out, Handled) {
		t.Errorf("the new player's password after %d forged mails: %q, want handled", len(outs), out)
	}
	if n := d.bcryptChecks.Load(); n != 0 {
		t.Errorf("%d forged mails and the right one cost %d bcrypt checks, want none", len(outs), n)
	}
}
