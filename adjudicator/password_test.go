package adjudicator

import (
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
)

// TestPasswordCache: bcrypt is paid once per player and password, a wrong password is
// never remembered, and a remembered one is tied to its hash.
func TestPasswordCache(t *testing.T) {
	d := &Desk{PasswordCost: 4}
	hash, err := d.hashPassword("right")
	if err != nil {
		t.Fatal(err)
	}
	p := store.Player{PassHash: hash}
	for i, c := range []struct {
		pw      string
		ok      bool
		bcrypts int64
	}{
		{"right", true, 1},
		{"right", true, 1}, // remembered
		{"wrong", false, 2},
		{"wrong", false, 3}, // failures are never remembered
		{"", false, 3},
		{"right", true, 3},
	} {
		if got := d.checkPassword(p, c.pw); got != c.ok || d.bcryptChecks.Load() != c.bcrypts {
			t.Errorf("check %d (%q) = %v after %d bcrypt checks, want %v after %d", i, c.pw, got, d.bcryptChecks.Load(), c.ok, c.bcrypts)
		}
	}
	other, _ := d.hashPassword("else")
	if d.checkPassword(store.Player{PassHash: other}, "right") {
		t.Error("a remembered password opened another player's hash")
	}
}

// countingStore counts the bcrypt checks its desk makes inside write transactions, and
// the read transactions.
type countingStore struct {
	store.Store
	desk    *Desk
	inWrite int64
	reads   int
}

func (s *countingStore) Read(ctx context.Context, fn func(store.Tx) error) error {
	s.reads++
	return s.Store.Read(ctx, fn)
}

func (s *countingStore) Write(ctx context.Context, fn func(store.Tx) error) error {
	before := s.desk.bcryptChecks.Load()
	err := s.Store.Write(ctx, fn)
	s.inWrite += s.desk.bcryptChecks.Load() - before
	return err
}

// tallyDesk is a desk over a fresh store that counts bcrypt checks in writes, with one
// game "g" of the tally ruleset: a@example.org (password pa) and b@example.org (pb).
func tallyDesk(t *testing.T) (*Desk, *countingStore) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "g.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	cs := &countingStore{Store: db}
	d := &Desk{Store: cs, Rulesets: map[string]rules.Ruleset{"tally": tallyRules{}}, Address: "adjutant@example.org", PasswordCost: 4}
	cs.desk = d
	if _, err := d.CreateGame(t.Context(), NewGame{Name: "g", Ruleset: "tally",
		Players:   map[rules.Side]string{"a": "a@example.org", "b": "b@example.org"},
		Passwords: map[rules.Side]string{"a": "pa", "b": "pb"}}); err != nil {
		t.Fatal(err)
	}
	return d, cs
}

// TestNoPasswordCheckInsideWrite (issue 9): bcrypt runs before the write transaction,
// for a right and a wrong password alike, so that the store's writer is never held
// while it runs.
func TestNoPasswordCheckInsideWrite(t *testing.T) {
	d, cs := tallyDesk(t)
	for i, pw := range []string{"pa", "wrong", "pa", "wrong again"} {
		out, err := d.Handle(t.Context(), Message{ID: fmt.Sprintf("m%d@x", i), From: "a@example.org", Text: "GAME g\nPASSWORD " + pw + "\nSTATUS\n"})
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]string{true: Handled, false: Refused}[pw == "pa"]; !strings.HasPrefix(out, want) {
			t.Errorf("mail %d with %q: %q, want %s", i, pw, out, want)
		}
	}
	if got := d.bcryptChecks.Load(); got != 3 {
		t.Errorf("%d bcrypt checks, want 3 (the right password once, each wrong one)", got)
	}
	if cs.inWrite != 0 {
		t.Errorf("%d bcrypt checks ran inside a write transaction, want 0", cs.inWrite)
	}
}

// TestPasswordOpenedBefore: once a password opened a game for a sender, his next mails
// are checked without reading the game before the write transaction; a password changed
// since is still checked against the new hash, in the transaction.
func TestPasswordOpenedBefore(t *testing.T) {
	d, cs := tallyDesk(t)
	n := 0
	send := func(pw, want string) {
		t.Helper()
		n++
		out, err := d.Handle(t.Context(), Message{ID: fmt.Sprintf("m%d@x", n), From: "a@example.org", Text: "GAME g\nPASSWORD " + pw + "\nSTATUS\n"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(out, want) {
			t.Errorf("mail %d with %q: %q, want %s", n, pw, out, want)
		}
	}
	send("pa", Handled)
	reads := cs.reads
	send("pa", Handled)
	send("pa", Handled)
	if cs.reads != reads {
		t.Errorf("%d reads of the game for a password that opened it before, want none", cs.reads-reads)
	}
	send("wrong", Refused)
	// The host gives side a a new password.
	hash, err := d.hashPassword("new")
	if err != nil {
		t.Fatal(err)
	}
	if err := cs.Store.Write(t.Context(), func(tx store.Tx) error {
		g, err := tx.Game("g")
		if err != nil {
			return err
		}
		g.Players[0].PassHash = hash
		return tx.PutGame(g)
	}); err != nil {
		t.Fatal(err)
	}
	send("pa", Refused)
	send("new", Handled)
}

// tallyRules is the smallest ruleset: it accepts nothing and waits for nobody.
type tallyRules struct{}

type tallyState struct{}

func (tallyState) Turn() int          { return 1 }
func (tallyState) Phase() string      { return "p" }
func (tallyState) PhaseTitle() string { return "the only phase" }
func (tallyState) Over() bool         { return false }

func (tallyRules) Name() string  { return "tally" }
func (tallyRules) Title() string { return "Tally" }
func (tallyRules) Sides() []rules.SideInfo {
	return []rules.SideInfo{{ID: "a", Name: "A"}, {ID: "b", Name: "B"}}
}
func (tallyRules) Keywords() []string                                            { return nil }
func (tallyRules) OptionNames() map[string]string                                { return nil }
func (tallyRules) New(rules.Options) (rules.State, error)                        { return tallyState{}, nil }
func (tallyRules) Decode([]byte) (rules.State, error)                            { return tallyState{}, nil }
func (tallyRules) Encode(rules.State) ([]byte, error)                            { return []byte("{}"), nil }
func (tallyRules) Waiting(rules.State, []rules.Order) []rules.Side               { return []rules.Side{"a"} }
func (tallyRules) Inputs(rules.State, []rules.Order) []rules.Order               { return nil }
func (tallyRules) Map(rules.State, rules.Side) string                            { return "" }
func (tallyRules) Status(rules.State, rules.Side) string                         { return "" }
func (tallyRules) Defaults(rules.State, rules.Side, []rules.Order) []rules.Order { return nil }
func (tallyRules) Check(_ rules.State, _ rules.Side, lines []orders.Line, _ []rules.Order) []rules.Checked {
	out := make([]rules.Checked, len(lines))
	for i, l := range lines {
		out[i] = rules.Checked{Line: l, Reason: "no orders in this ruleset"}
	}
	return out
}
func (tallyRules) Resolve(st rules.State, _ []rules.Order, _ dice.Source) (rules.Outcome, error) {
	return rules.Outcome{State: st}, nil
}

// TestPasswordFloodCapped (issue 9): a flood of wrong passwords for one player costs
// bcrypt MaxFailedChecks times an hour, not once a mail; during it a password already
// accepted since the start still opens, another player is checked as usual, and
// after the hour the player's password is checked again.
func TestPasswordFloodCapped(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.UTC)
	d := &Desk{PasswordCost: 4, Now: func() time.Time { return now }}
	hashA, _ := d.hashPassword("right-a")
	hashB, _ := d.hashPassword("right-b")
	a, b := store.Player{PassHash: hashA}, store.Player{PassHash: hashB}
	if !d.checkPassword(a, "right-a") {
		t.Fatal("the right password refused")
	}
	before := d.bcryptChecks.Load()
	for i := range 100 {
		if d.checkPassword(a, fmt.Sprintf("guess-%d", i)) {
			t.Fatalf("guess %d accepted", i)
		}
	}
	if n := d.bcryptChecks.Load() - before; n != MaxFailedChecks {
		t.Errorf("100 wrong passwords cost %d bcrypt checks, want %d", n, MaxFailedChecks)
	}
	if !d.checkPassword(a, "right-a") {
		t.Error("the password accepted before the flood is refused during it")
	}
	if !d.checkPassword(b, "right-b") {
		t.Error("another player is refused during the flood")
	}
	fresh := &Desk{PasswordCost: 4, Now: d.Now}
	fresh.passwords.fails = d.passwords.fails // the same failure counts, no password remembered
	if fresh.checkPassword(a, "right-a") {
		t.Error("an unremembered password was checked during the flood")
	}
	now = now.Add(time.Hour)
	if !fresh.checkPassword(a, "right-a") {
		t.Error("the right password refused after the hour")
	}
}
