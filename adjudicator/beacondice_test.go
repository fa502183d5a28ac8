package adjudicator_test

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
	"github.com/adjutant-pbem/adjutant/store"
)

// beaconFixture is a Soldiers 1918 game played with --dice beacon against a local relay
// of recorded quicknet rounds, a round a minute on the fixture's clock.
func beaconFixture(t *testing.T) (*fixture, *beacon.Recorded) {
	t.Helper()
	f := &fixture{t: t, now: time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC), logs: &bytes.Buffer{}}
	f.desk, f.db = soldiersDesk(t, func() time.Time { return f.now })
	f.desk.Log = slog.New(slog.NewTextHandler(f.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	relay := &beacon.Recorded{Rounds: beacon.RecordedRounds(), Start: f.now, Period: time.Minute, Now: func() time.Time { return f.now }}
	srv := httptest.NewServer(relay)
	t.Cleanup(srv.Close)
	f.desk.Beacon = beacon.Source{Schedule: relay, Client: &beacon.Client{URL: srv.URL, Chain: beacon.Quicknet, HTTP: srv.Client()}}
	_, err := f.desk.CreateGame(context.Background(), adjudicator.NewGame{Name: "g1", Ruleset: soldiers1918.Name, Dice: adjudicator.DiceBeacon,
		Players: map[rules.Side]string{"us": us, "de": de}, Passwords: map[rules.Side]string{"us": passU, "de": passD}})
	if err != nil {
		t.Fatal(err)
	}
	return f, relay
}

func (f *fixture) audit() []store.AuditEntry {
	f.t.Helper()
	var entries []store.AuditEntry
	if err := f.db.Read(context.Background(), func(tx store.Tx) error {
		var err error
		entries, err = tx.Audit("g1")
		return err
	}); err != nil {
		f.t.Fatal(err)
	}
	return entries
}

func (f *fixture) tick() []string {
	f.t.Helper()
	report, err := f.desk.Tick(context.Background(), f.now)
	if err != nil {
		f.t.Fatal(err)
	}
	return report
}

func kinds(entries []store.AuditEntry, kind string) []store.AuditEntry {
	var out []store.AuditEntry
	for _, e := range entries {
		if e.Kind == kind {
			out = append(out, e)
		}
	}
	return out
}

// TestBeaconDice: the last order of a phase that rolls names a round not yet published,
// the orders are fixed until it is, the phase resolves when the round is in, and every
// roll verifies with the round, and not without it.
func TestBeaconDice(t *testing.T) {
	f, relay := beaconFixture(t)
	f.orders("us", passU, usSetup)
	_, mails := f.orders("de", passD, deSetup)
	check := to(mails, de)
	if len(check) != 1 || !strings.Contains(check[0].Body, "drand quicknet round") {
		t.Fatalf("the last order's check names no round: %d mails\n%v", len(mails), mails)
	}
	named := kinds(f.audit(), "beacon-round")
	if len(named) != 1 || len(kinds(f.audit(), "roll")) != 0 {
		t.Fatalf("named %v; rolls before the round: %d", named, len(kinds(f.audit(), "roll")))
	}
	at, _ := time.Parse(time.RFC3339, named[0].Value)
	if at.Sub(f.now) < adjudicator.BeaconDelay {
		t.Fatalf("round published at %v, less than %v after the last order (%v)", at, adjudicator.BeaconDelay, f.now)
	}

	// Orders are fixed while the phase waits.
	before := f.snapshot()
	out, mails := f.orders("us", passU, usSetup)
	if !strings.HasPrefix(out, adjudicator.Refused) || len(mails) != 1 || !strings.Contains(mails[0].Body, "fixed") {
		t.Fatalf("an order while the phase waits: %s\n%v", out, mails)
	}
	if f.snapshot() != before {
		t.Fatal("a refused order changed the game")
	}

	// Before the round: nothing. A relay that is down: nothing either.
	f.now = at.Add(-time.Second)
	f.tick()
	relay.SetDown(true)
	f.now = at.Add(time.Second)
	f.tick()
	if len(kinds(f.audit(), "roll")) != 0 {
		t.Fatal("rolled before the round was in")
	}
	relay.SetDown(false)
	nOut := len(f.outbox())
	f.tick()
	entries := f.audit()
	if len(kinds(entries, "beacon")) != 1 || len(kinds(entries, "roll")) == 0 {
		t.Fatalf("after the round: beacon %d, rolls %d", len(kinds(entries, "beacon")), len(kinds(entries, "roll")))
	}
	results := to(f.outbox()[nOut:], us)
	if len(results) != 1 || !strings.Contains(results[0].Body, "drand quicknet round") {
		t.Fatalf("results mail: %v", results)
	}

	rep, err := adjudicator.VerifyChain("g1", entries)
	if err != nil || rep.Verified == 0 {
		t.Fatalf("VerifyChain = %+v, %v", rep, err)
	}
	if _, err := f.desk.Replay(context.Background(), "g1"); err != nil {
		t.Fatalf("replay: %v", err)
	}
	// A changed byte of the round's signature, re-hashed into the chain, fails.
	for i, e := range entries {
		if e.Kind != "beacon" {
			continue
		}
		for _, pos := range []int{0, 40, len(e.Value) - 1} {
			bad := rehashFrom(entries, i, func(e *store.AuditEntry) {
				b := []byte(e.Value)
				b[pos] = "0123456789abcdef"[(strings.IndexByte("0123456789abcdef", b[pos])+1)%16]
				e.Value = string(b)
			})
			if _, err := adjudicator.VerifyChain("g1", bad); err == nil {
				t.Errorf("signature changed at hex digit %d: verified", pos)
			}
		}
		// Dropping the round's entry leaves rolls that need it.
		bad := append(append([]store.AuditEntry(nil), entries[:i]...), entries[i+1:]...)
		for j := i; j < len(bad); j++ {
			bad[j].Seq--
		}
		bad = rehashFrom(bad, i, func(*store.AuditEntry) {})
		if _, err := adjudicator.VerifyChain("g1", bad); err == nil {
			t.Error("rolls without their beacon round verified")
		}
	}
}

// rehashFrom changes entry i and recomputes the chain's links and hashes from it, as a
// host rewriting his store would.
func rehashFrom(entries []store.AuditEntry, i int, change func(*store.AuditEntry)) []store.AuditEntry {
	out := append([]store.AuditEntry(nil), entries...)
	change(&out[i])
	for j := i; j < len(out); j++ {
		if j > 0 {
			out[j].Prev = out[j-1].Hash
		}
		out[j].Hash = out[j].ComputeHash()
	}
	return out
}

// TestBeaconMailCheck: each player's mails alone verify every round's signature and
// every roll with its round; a changed byte of a round's signature in a mail fails.
func TestBeaconMailCheck(t *testing.T) {
	f, relay := beaconFixture(t)
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	// Play on: every phase that needs no orders and rolls waits for its round.
	for range 6 {
		f.now = f.now.Add(relay.Period * 2)
		f.tick()
	}
	if _, mails := f.orders("us", passU, "ROLLS"); len(mails) != 1 || !strings.Contains(mails[0].Body, "  beacon: drand quicknet round ") {
		t.Fatalf("ROLLS gives no beacon round:\n%v", mails)
	}
	var bodies []string
	for _, m := range to(f.outbox(), us) {
		bodies = append(bodies, m.Body)
	}
	res, err := adjudicator.CheckMails("g1", bodies)
	if err != nil || res.Beacons < 2 || res.Verified == 0 || res.Verified != res.Rolls-res.Unrevealed {
		t.Fatalf("CheckMails = %+v, %v", res, err)
	}
	changed := 0
	for i, b := range bodies {
		at := strings.Index(b, "signature (the two lines joined):\n  ")
		if at < 0 {
			continue
		}
		changed++
		for _, off := range []int{len("signature (the two lines joined):\n  "), len("signature (the two lines joined):\n  ") + 47} {
			p := at + off
			bad := append([]string(nil), bodies...)
			c := byte('0')
			if b[p] == '0' {
				c = '1'
			}
			bad[i] = b[:p] + string(c) + b[p+1:]
			if _, err := adjudicator.CheckMails("g1", bad); err == nil {
				t.Errorf("mail %d: signature changed at %d: checked", i, off)
			}
		}
		// A mail that claims another key is caught too.
		bad := append([]string(nil), bodies...)
		bad[i] = strings.Replace(b, "  83cf0f28", "  83cf0f29", 1)
		if _, err := adjudicator.CheckMails("g1", bad); err == nil && strings.Contains(b, "83cf0f28") {
			t.Errorf("mail %d: another beacon key passed", i)
		}
	}
	if changed < 2 {
		t.Fatalf("%d mails carry a beacon round", changed)
	}
}

// TestBeaconMailsNeedTheRound: in a game whose invitation announced the beacon, a roll
// whose mail gives no round (a host who rolled from the seed alone) fails the check.
func TestBeaconMailsNeedTheRound(t *testing.T) {
	f, _ := beaconFixture(t)
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	f.now = f.now.Add(3 * time.Minute)
	f.tick()
	var bodies []string
	for _, m := range to(f.outbox(), us) {
		bodies = append(bodies, m.Body)
	}
	if !strings.Contains(bodies[0], "This game plays with the beacon") {
		t.Fatalf("the invitation does not announce the beacon:\n%s", bodies[0])
	}
	if _, err := adjudicator.CheckMails("g1", bodies); err != nil {
		t.Fatal(err)
	}
	stripped := make([]string, len(bodies))
	n := 0
	for i, b := range bodies {
		lines := strings.Split(b, "\n")
		var keep []string
		for j := 0; j < len(lines); j++ {
			if strings.HasPrefix(lines[j], "  beacon: drand quicknet round ") {
				j += 2
				n++
				continue
			}
			keep = append(keep, lines[j])
		}
		stripped[i] = strings.Join(keep, "\n")
	}
	if n == 0 {
		t.Fatal("no mail gives a beacon round")
	}
	if _, err := adjudicator.CheckMails("g1", stripped); err == nil || !strings.Contains(err.Error(), "no beacon round") {
		t.Fatalf("rolls without their round: %v", err)
	}
}

// TestBeaconHelpDice: HELP DICE in a beacon game works its example with the round.
func TestBeaconHelpDice(t *testing.T) {
	f, _ := beaconFixture(t)
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	f.now = f.now.Add(3 * time.Minute)
	f.tick()
	_, mails := f.orders("us", passU, "HELP DICE")
	if len(mails) != 1 || !strings.Contains(mails[0].Body, "f adjutant-dice-v2") || !strings.Contains(mails[0].Body, "drand's public randomness") {
		t.Fatalf("HELP DICE:\n%v", mails)
	}
}

// TestDocsBeaconExample holds the beacon section of docs/dice.md to the truth: the
// round's signature verifies, the randomness printed is SHA-256 of it, and the roll its
// commands re-derive is the mail's.
func TestDocsBeaconExample(t *testing.T) {
	raw, err := os.ReadFile("../docs/dice.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(raw)
	i := strings.Index(doc, "## Dice no host can steer: the beacon")
	if i < 0 {
		t.Fatal("docs/dice.md: no beacon section")
	}
	doc = doc[i:]
	m := regexp.MustCompile(`beacon: drand quicknet round (\d+), signature \(the two lines joined\):\n      ([0-9a-f]{48})\n      ([0-9a-f]{48})\n`).FindStringSubmatch(doc)
	seed := regexp.MustCompile("turn 0 seed was\n`([0-9a-f]{64})`").FindStringSubmatch(doc)
	if m == nil || seed == nil {
		t.Fatal("the beacon section lacks its round or its seed")
	}
	n, _ := strconv.ParseUint(m[1], 10, 64)
	r, err := beacon.ParseRound(n, m[2]+m[3])
	if err != nil {
		t.Fatal(err)
	}
	if err := beacon.Quicknet.Verify(r); err != nil {
		t.Fatal(err)
	}
	rand := r.Randomness()
	if !strings.Contains(doc, "# "+hex.EncodeToString(rand[:])+"  -") || !strings.Contains(doc, "f "+m[1]+"; f "+hex.EncodeToString(rand[:])) {
		t.Error("the section does not print and hash the round's randomness")
	}
	s, err := dice.ParseSeed(seed[1])
	if err != nil {
		t.Fatal(err)
	}
	ctx := dice.Context{Game: "g1", Turn: 0, Phase: "setup-plots", OrdersDigest: "0cd6419fed2fe6ca8d47744b589febc0705618cceea48f5ab7ab5d08ba5c0f24",
		Beacon: dice.BeaconValue{Round: n, Randomness: rand}}
	msg := dice.Message(ctx, 0, dice.KindRoll, "3.4 German division-quality determination", "3.4", 1, 6)
	mac := hmac.New(sha256.New, s[:])
	mac.Write(append(msg, 0, 0, 0, 0))
	out := hex.EncodeToString(mac.Sum(nil))
	if !strings.Contains(doc, "# SHA2-256(stdin)= "+out) {
		t.Errorf("the section's HMAC output is not %s", out)
	}
	if v := dice.Derive(s, ctx, 0, dice.KindRoll, "3.4 German division-quality determination", "3.4", 1, 6); len(v) != 1 || !strings.Contains(doc, fmt.Sprintf("1d6 -> [%d] = %d", v[0], v[0])) {
		t.Errorf("the section's roll is not %v", v)
	}
}

// TestBeaconDown: a beacon that cannot be reached keeps the phase waiting; both players
// are told once; the phase rolls from the seed alone only when both agree by mail, and
// the audit chain records each consent, without which it does not verify.
func TestBeaconDown(t *testing.T) {
	f, relay := beaconFixture(t)
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	at, _ := time.Parse(time.RFC3339, kinds(f.audit(), "beacon-round")[0].Value)
	relay.SetDown(true)

	out, mails := f.orders("us", passU, "DICE SEED ALONE")
	if !strings.HasPrefix(out, adjudicator.Refused) || !strings.Contains(mails[0].Body, "has not failed") {
		t.Fatalf("consent before the beacon failed: %s\n%v", out, mails)
	}
	f.now = at.Add(time.Minute)
	n := len(f.outbox())
	f.tick()
	if len(f.outbox()) != n {
		t.Fatal("players told before BeaconPatience")
	}
	f.now = at.Add(adjudicator.BeaconPatience)
	f.tick()
	told := f.outbox()[n:]
	if len(to(told, us)) != 1 || len(to(told, de)) != 1 || !strings.Contains(told[0].Body, "DICE SEED ALONE") {
		t.Fatalf("both players should be told once: %v", told)
	}
	f.now = f.now.Add(time.Minute)
	n = len(f.outbox())
	f.tick()
	if len(f.outbox()) != n {
		t.Fatal("told twice")
	}

	out, _ = f.orders("us", passU, "DICE SEED ALONE")
	if strings.HasPrefix(out, adjudicator.Refused) || len(kinds(f.audit(), "roll")) != 0 {
		t.Fatalf("one consent: %s, rolls %d", out, len(kinds(f.audit(), "roll")))
	}
	if out, _ := f.orders("us", passU, "DICE SEED ALONE"); !strings.HasPrefix(out, adjudicator.Refused) {
		t.Fatalf("a second consent of the same side: %s", out)
	}
	f.orders("de", passD, "DICE SEED ALONE")
	entries := f.audit()
	if len(kinds(entries, "beacon-consent")) != 2 || len(kinds(entries, "beacon-fallback")) != 1 || len(kinds(entries, "roll")) == 0 {
		t.Fatalf("after both consents: %d consents, %d fallbacks, %d rolls", len(kinds(entries, "beacon-consent")), len(kinds(entries, "beacon-fallback")), len(kinds(entries, "roll")))
	}
	if _, err := adjudicator.VerifyChain("g1", entries); err != nil {
		t.Fatal(err)
	}
	if _, err := f.desk.Replay(context.Background(), "g1"); err != nil {
		t.Fatalf("replay: %v", err)
	}
	var bodies []string
	for _, m := range to(f.outbox(), us) {
		bodies = append(bodies, m.Body)
	}
	if _, err := adjudicator.CheckMails("g1", bodies); err != nil {
		t.Fatal(err)
	}
	for i, e := range entries {
		if e.Kind != "beacon-consent" {
			continue
		}
		bad := append(append([]store.AuditEntry(nil), entries[:i]...), entries[i+1:]...)
		for j := i; j < len(bad); j++ {
			bad[j].Seq--
		}
		if _, err := adjudicator.VerifyChain("g1", rehashFrom(bad, i, func(*store.AuditEntry) {})); err == nil {
			t.Errorf("the chain without consent #%d verified", e.Seq)
		}
	}
}

// TestBeaconSealedDeck: a teaching game played with the beacon keeps its deck seed
// secret until the end, the beacon's value being public (it must never be the only
// secret): no mail before the end holds the deck seed or a deck's next cards; at the
// end every card is re-derived from the revealed deck seed. The teaching game rolls no
// die: its cards come from the decks sealed when the game was created, which take no
// beacon round, so none is named and the game never waits for one.
func TestBeaconSealedDeck(t *testing.T) {
	db, err := store.Open(filepath.Join(t.TempDir(), "games.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	theRules, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)
	relay := &beacon.Recorded{Rounds: beacon.RecordedRounds(), Start: now, Period: time.Minute, Now: func() time.Time { return now }}
	srv := httptest.NewServer(relay)
	t.Cleanup(srv.Close)
	desk := &adjudicator.Desk{Store: db, Rulesets: map[string]rules.Ruleset{teaching.Name: theRules}, Address: home,
		Now: func() time.Time { return now }, Rand: &detRand{}, PasswordCost: 4, Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Beacon: beacon.Source{Schedule: relay, Client: &beacon.Client{URL: srv.URL, Chain: beacon.Quicknet, HTTP: srv.Client()}}}
	ctx := context.Background()
	if _, err := desk.CreateGame(ctx, adjudicator.NewGame{Name: "g1", Ruleset: teaching.Name, Dice: adjudicator.DiceBeacon,
		Players: map[rules.Side]string{"us": us, "de": de}, Passwords: map[rules.Side]string{"us": passU, "de": passD},
		Options: rules.Options{teaching.OptTurns12: true}}); err != nil {
		t.Fatal(err)
	}
	read := func() (rules.State, string) {
		var g store.Game
		var secret string
		if err := db.Read(ctx, func(tx store.Tx) error {
			if g, err = tx.Game("g1"); err != nil {
				return err
			}
			seeds, err := tx.Seeds("g1")
			for _, s := range seeds {
				if s.Turn == store.DeckSeedTurn {
					secret = s.Secret
				}
			}
			return err
		}); err != nil {
			t.Fatal(err)
		}
		st, err := theRules.Decode(g.State)
		if err != nil {
			t.Fatal(err)
		}
		return st, secret
	}
	settle := func() {
		for range 20 {
			now = now.Add(2 * time.Minute)
			report, err := desk.Tick(ctx, now)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(strings.Join(report, "\n"), "beacon round") {
				return
			}
		}
		t.Fatal("still waiting for beacon rounds after 20 ticks")
	}
	settle()
	st, secret := read()
	n := 0
	for ; !st.Over() && n < 200; n++ {
		for _, side := range []rules.Side{teaching.American, teaching.German} {
			body := theRules.BotOrders(st, side)
			if body == "" {
				continue
			}
			addr, pass := us, passU
			if side == teaching.German {
				addr, pass = de, passD
			}
			if _, err := desk.Handle(ctx, adjudicator.Message{ID: fmt.Sprintf("m%d-%s@p", n, side), From: addr, Subject: "orders", Text: "GAME g1\nPASSWORD " + pass + "\n" + body}); err != nil {
				t.Fatal(err)
			}
			break
		}
		settle()
		next, _ := read()
		if !next.Over() {
			for _, m := range outbox(t, db) {
				if strings.Contains(m.Body, secret) {
					t.Fatalf("mail %q holds the deck seed before the end", m.Subject)
				}
				for _, dk := range next.(*teaching.State).Decks {
					if run := strings.Join(dk.Order[dk.Next:][:3], " "); strings.Contains(m.Body, run) {
						t.Fatalf("mail %q holds the sealed run %q before the end", m.Subject, run)
					}
				}
			}
		}
		st = next
	}
	if !st.Over() {
		t.Fatalf("no end after %d mails", n)
	}
	rep, err := desk.VerifyAudit(ctx, "g1")
	if err != nil || rep.Cards == 0 || rep.CardsVerified != rep.Cards || rep.Beacons != 0 || rep.Rolls != 0 {
		t.Fatalf("audit: %+v, %v", rep, err)
	}
	for _, addr := range []string{us, de} {
		var bodies []string
		for _, m := range outbox(t, db) {
			if len(m.To) == 1 && m.To[0] == addr {
				bodies = append(bodies, m.Body)
			}
		}
		got, err := adjudicator.CheckMails("g1", bodies)
		if err != nil || got.CardsVerified != rep.Cards {
			t.Fatalf("%s's mails: %+v, %v", addr, got, err)
		}
	}
	if _, err := desk.Replay(ctx, "g1"); err != nil {
		t.Fatal(err)
	}
}

// FuzzBeaconMails: whatever a mail's beacon lines and signed order check hold,
// checking it returns an answer, never a panic.
func FuzzBeaconMails(f *testing.F) {
	r := beacon.RecordedRounds()[0]
	sig := hex.EncodeToString(r.Signature)
	f.Add("This game plays with the beacon: yes\nGame \"g\".\nTurn 1, phase \"I\", orders digest:\n  "+strings.Repeat("a", 64)+
		"\n  beacon: drand quicknet round "+strconv.FormatUint(r.Number, 10)+", signature (the two lines joined):\n  "+sig[:48]+"\n  "+sig[48:]+
		"\n  index 0: 1d6 -> [3] = 3, rule \"1\", purpose \"p\"\n",
		"Ed25519 key; keep this mail, it is the key:\n  "+strings.Repeat("1", 64)+"\n")
	f.Add("Turn 1, phase \"I\", orders digest:\n  "+strings.Repeat("a", 64)+"\n  beacon: drand quicknet round 99999999999999999999, signature (the two lines joined):\n  x\n",
		"x\n\n== Signed ==\na\nb\nc\nd\n  adjutant-ordercheck-v1|g|us|t|\n  "+strings.Repeat("e", 64)+"\nSignature (the two lines joined, 128 hex digits):\n  "+strings.Repeat("f", 64)+"\n  "+strings.Repeat("0", 64))
	f.Add("  beacon: none; the beacon could not be reached and both players agreed to the seed alone\n", "whose public key is (the three lines joined, 96 bytes):\n  "+strings.Repeat("a", 64)+"\n  "+strings.Repeat("b", 64)+"\n  "+strings.Repeat("c", 64)+"\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		_, _ = adjudicator.CheckMails("g", []string{b, a})
		_, _ = adjudicator.VerifyOrderCheck(a, make([]byte, 32))
	})
}
