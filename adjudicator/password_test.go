package adjudicator

import (
	"testing"

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
