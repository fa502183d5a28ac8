package adjudicator_test

import (
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/store"
)

// everyRuleset is a desk of all four rulesets over a fresh store.
func everyRuleset(t *testing.T) (*adjudicator.Desk, *store.DB) {
	t.Helper()
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	list, err := allRules()
	if err != nil {
		t.Fatal(err)
	}
	rs := map[string]rules.Ruleset{}
	for _, r := range list {
		rs[r.Name()] = r
	}
	now := time.Date(2026, 11, 28, 9, 0, 0, 0, time.UTC)
	return &adjudicator.Desk{Store: db, Rulesets: rs, Address: home, Now: func() time.Time { return now }, Rand: &detRand{}, PasswordCost: 4}, db
}

// newGameOf creates game name of ruleset with one player a side (side@players.example,
// password pw-side) and returns the mails it queued.
func newGameOf(t *testing.T, d *adjudicator.Desk, db *store.DB, ruleset, name, noOrders string) []store.OutMail {
	t.Helper()
	ng := adjudicator.NewGame{Name: name, Ruleset: ruleset, Players: map[rules.Side]string{}, Passwords: map[rules.Side]string{},
		PhaseLength: 48 * time.Hour, NoOrders: noOrders}
	for _, s := range d.Rulesets[ruleset].Sides() {
		ng.Players[s.ID] = string(s.ID) + "@players.example"
		ng.Passwords[s.ID] = "pw-" + string(s.ID)
	}
	before := outbox(t, db)
	if _, err := d.CreateGame(context.Background(), ng); err != nil {
		t.Fatalf("create %s game: %v", ruleset, err)
	}
	return outbox(t, db)[len(before):]
}

// sendAs hands the desk one mail of side in game and returns the order check it got.
func sendAs(t *testing.T, d *adjudicator.Desk, db *store.DB, game, side, body string) string {
	t.Helper()
	before := len(outbox(t, db))
	from := side + "@players.example"
	if _, err := d.Handle(context.Background(), adjudicator.Message{ID: fmt.Sprintf("%s-%s-%d@x", game, side, before), From: from, Subject: "orders",
		Text: "GAME " + game + "\nPASSWORD pw-" + side + "\n" + body}); err != nil {
		t.Fatal(err)
	}
	for _, m := range outbox(t, db)[before:] {
		if m.Kind == "reply" && m.To[0] == from {
			return m.Body
		}
	}
	t.Fatalf("no order check to %s", from)
	return ""
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// TestInvitationSpeaksItsRuleset: with --no-orders default, each ruleset's invitation
// names that ruleset's default orders, not another's.
func TestInvitationSpeaksItsRuleset(t *testing.T) {
	d, db := everyRuleset(t)
	for name, rs := range d.Rulesets {
		t.Run(name, func(t *testing.T) {
			desc, ok := rs.(rules.Describer)
			if !ok {
				t.Fatalf("%s does not describe itself (rules.Describer)", name)
			}
			for _, m := range newGameOf(t, d, db, name, "g-"+name, "default") {
				if m.Kind != "invite" {
					continue
				}
				body := oneLine(m.Body)
				if !strings.Contains(body, "the game goes on with "+oneLine(desc.DefaultOrders())+".") {
					t.Errorf("the invitation to %s does not give %s's default orders:\n%s", m.To[0], name, m.Body)
				}
				for other, ors := range d.Rulesets {
					if other != name && strings.Contains(body, oneLine(ors.(rules.Describer).DefaultOrders())) {
						t.Errorf("the invitation of %s gives %s's default orders", name, other)
					}
				}
			}
		})
	}
}

// TestTypographyThroughTheDesk: orders typed with the dashes, spaces and digits of a
// phone or Outlook are read as their ASCII forms in a Soldiers 1918 set-up and a Mons
// march; a character not forgiven is shown as its code point in the refusal.
func TestTypographyThroughTheDesk(t *testing.T) {
	d, db := everyRuleset(t)
	newGameOf(t, d, db, soldiers1918.Name, "meuse", "wait")
	newGameOf(t, d, db, mons1914.Name, "mons", "wait")
	tests := []struct {
		name, game, side, body string
		want, not              []string
	}{
		{"Soldiers: fullwidth digits, a non-breaking space, an en dash in a path", "meuse", "us",
			"PLOT TURN １ １９１１x3,\u00a0３６０３x3\nPLOT TURN 2 NONE\nPLOT TURN 3 NONE\nPLOT TURN 4 NONE\nPLOT TURN 5 NONE\nPLOT TURN 6 NONE\nSETUP DEFAULT\nMOVE 4 ARMY 2318–2319\n",
			[]string{"line 3: PLOT TURN 1 1911x3, 3603x3", "line 10: MOVE 4 ARMY 2318-2319", "Your orders are accepted"}, []string{"REFUSED"}},
		{"Mons: en and em dashes, minus sign, non-breaking hyphen in a march", "mons", "de",
			"MARCH IX/31/18 4300–4301—4302−4303\u20114304\nMOVE IX/75/17 4700\u20104701\u20124702\n",
			[]string{"line 3: MARCH IX/31/18 4300-4301-4302-4303-4304", "line 4: MOVE IX/75/17 4700-4701-4702", "Your orders are accepted"}, []string{"REFUSED"}},
		{"Mons: a horizontal bar is not forgiven, and shown", "mons", "de",
			"MARCH IX/31/18 4300\u20154301\n", []string{"line 3: MARCH IX/31/18 4300<U+2015>4301\n      REFUSED"}, nil},
		{"Mons: a keyword with a Cyrillic letter stays unknown, and shown", "mons", "de",
			"МARCH IX/31/18 4300–4301\n", []string{"line 3: <U+041C>ARCH IX/31/18 4300-4301\n      REFUSED"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := sendAs(t, d, db, tt.game, tt.side, tt.body)
			for _, w := range tt.want {
				if !strings.Contains(body, w) {
					t.Errorf("the order check does not say %q:\n%s", w, body)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(body, w) {
					t.Errorf("the order check says %q:\n%s", w, body)
				}
			}
		})
	}
}

// TestUnknownRulesetNamesTheRulesets: a game of a ruleset the desk does not have is
// refused with the names of those it has.
func TestUnknownRulesetNamesTheRulesets(t *testing.T) {
	d, _ := everyRuleset(t)
	_, err := d.CreateGame(context.Background(), adjudicator.NewGame{Name: "v", Ruleset: "verdun",
		Players: map[rules.Side]string{"us": us, "de": de}})
	if err == nil {
		t.Fatal("a game of ruleset verdun was created")
	}
	for name := range d.Rulesets {
		if !strings.Contains(err.Error(), name) || !strings.Contains(err.Error(), `unknown ruleset "verdun"`) {
			t.Errorf("the refusal %q does not name %s", err, name)
		}
	}
}
