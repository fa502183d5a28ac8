package adjudicator_test

import (
	"crypto/ed25519"
	"encoding/hex"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// TestSignedOrderCheck: an order check carries the host's signature of its text, which
// verifies with the invitation's key; a changed line, time or signature does not.
func TestSignedOrderCheck(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	_, all := f.orders("us", passU, usSetup)
	mails := to(all, us)
	invite := to(f.outbox(), us)[0].Body
	key := regexp.MustCompile(`Ed25519 key; keep this mail, it is the key:\n  ([0-9a-f]{64})`).FindStringSubmatch(invite)
	if key == nil || len(mails) == 0 {
		t.Fatalf("no host key in the invitation, or no order check")
	}
	raw, _ := hex.DecodeString(key[1])
	pub := ed25519.PublicKey(raw)
	check := mails[0].Body
	if ok, err := adjudicator.VerifyOrderCheck(check, pub); !ok || err != nil {
		t.Fatalf("the order check: signed %v, %v\n%s", ok, err, check)
	}
	// Line endings and trailing spaces as a mail client may leave them do not matter.
	if ok, err := adjudicator.VerifyOrderCheck(strings.ReplaceAll(check, "\n", " \r\n"), pub); !ok || err != nil {
		t.Fatalf("CRLF and trailing spaces: %v, %v", ok, err)
	}
	other := ed25519.NewKeyFromSeed(make([]byte, 32)).Public().(ed25519.PublicKey)
	for _, c := range []struct{ name, from, to string }{
		{"an accepted line", "PLOT TURN 1 1911x3, 3603x3", "PLOT TURN 1 1911x3, 3603x4"},
		{"the verdict", "Password: accepted.", "Password: refused."},
		{"the time", "|us|2026-11-22T09:00:00Z|", "|us|2026-11-23T09:00:00Z|"},
	} {
		if !strings.Contains(check, c.from) {
			t.Fatalf("%s: %q not in the order check:\n%s", c.name, c.from, check)
		}
		if _, err := adjudicator.VerifyOrderCheck(strings.Replace(check, c.from, c.to, 1), pub); err == nil {
			t.Errorf("%s changed: verified", c.name)
		}
	}
	if _, err := adjudicator.VerifyOrderCheck(check, other); err == nil {
		t.Error("verified with another key")
	}
	// CheckMails verifies every order check of a player's mails.
	var bodies []string
	for _, m := range to(f.outbox(), us) {
		bodies = append(bodies, m.Body)
	}
	res, err := adjudicator.CheckMails("g1", bodies)
	if err != nil || res.OrderChecks != 1 {
		t.Fatalf("CheckMails = %+v, %v", res, err)
	}
	bodies[1] = strings.Replace(bodies[1], "PLOT TURN 1 1911x3, 3603x3", "PLOT TURN 1 1911x3, 3603x4", 1)
	if _, err := adjudicator.CheckMails("g1", bodies); err == nil {
		t.Fatal("CheckMails passed a changed order check")
	}
}
