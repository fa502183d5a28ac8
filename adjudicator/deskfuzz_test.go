package adjudicator_test

import (
	"bytes"
	"context"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/store"
)

// allRules are every ruleset, in the registry's order, built once per process (reading
// their data is slow).
var allRules = sync.OnceValues(func() ([]rules.Ruleset, error) {
	reg, err := rulesets.All()
	if err != nil {
		return nil, err
	}
	var out []rules.Ruleset
	for _, n := range reg.Names() {
		out = append(out, reg[n])
	}
	return out, nil
})

var fuzzHostHash = sync.OnceValue(func() string {
	h, _ := bcrypt.GenerateFromPassword([]byte(hostPass), 4)
	return string(h)
})

// fuzzSender is who sends a mail of FuzzDesk: a player with his password or a wrong
// one, the host with the host password or a wrong one, a stranger, the game mailbox.
type fuzzSender uint8

// fuzzMail builds the raw mail sender who sends to the game g with the extra header
// lines headers and the text after the lines that authenticate him.
func fuzzMail(who fuzzSender, g string, sides []rules.Side, id int, headers, text string) string {
	from, auth := "stranger@else.example", "GAME "+g+"\nPASSWORD guess\n"
	switch who % 8 {
	case 0, 1, 2, 3:
		side := sides[int(who%8)/2%len(sides)]
		from, auth = fuzzAddr(side), "GAME "+g+"\nPASSWORD "+fuzzPass(side)+"\n"
		if who%2 == 1 {
			auth = "GAME " + g + "\nPASSWORD wrong-" + fuzzPass(side) + "\n"
		}
	case 4:
		from, auth = hostAddr, "HOST PASSWORD "+hostPass+"\n"
	case 5:
		from, auth = hostAddr, "HOST PASSWORD not-"+hostPass+"\n"
	case 7:
		from = home
	}
	return fmt.Sprintf("From: %s\r\nTo: %s\r\nSubject: [%s] orders\r\nMessage-ID: <fuzz%d@players.example>\r\n%s\r\n%s%s",
		from, home, g, id, headers, auth, text)
}

func fuzzAddr(side rules.Side) string { return string(side) + "@players.example" }
func fuzzPass(side rules.Side) string { return "pw-" + string(side) + "-1" }

// fuzzMessage reads a raw mail as the daemon does (adjudicator.ReadMessage): an
// unreadable one is recorded by its id and answered by nobody.
func fuzzMessage(raw string, arrived time.Time) (adjudicator.Message, bool) {
	m, err := adjudicator.ReadMessage(strings.NewReader(raw), 1<<20, false, arrived)
	return m, err == nil
}

var fuzzEpoch = time.Date(2026, 11, 22, 9, 0, 0, 0, time.UTC)

// fuzzDesk is the desk of FuzzDesk: one ruleset, the host by mail, deterministic.
func fuzzDesk(db store.Store, rs rules.Ruleset, now func() time.Time) *adjudicator.Desk {
	return &adjudicator.Desk{Store: db, Rulesets: map[string]rules.Ruleset{rs.Name(): rs}, Address: home,
		Now: now, Rand: &detRand{}, PasswordCost: 4, HostAddress: hostAddr, HostPassHash: fuzzHostHash()}
}

// fuzzStarts are the store files FuzzDesk starts from, by ruleset: a fresh game g with a
// 48-hour deadline and default orders, made once per process and copied for each input
// (creating a game costs more than the rest of an input).
var fuzzStarts sync.Map

func fuzzStart(rs rules.Ruleset) ([]byte, error) {
	if b, ok := fuzzStarts.Load(rs.Name()); ok {
		return b.([]byte), nil
	}
	dir, err := os.MkdirTemp("", "fuzzdesk")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "games.db")
	db, err := store.Open(path)
	if err != nil {
		return nil, err
	}
	ng := adjudicator.NewGame{Name: "g", Ruleset: rs.Name(), Players: map[rules.Side]string{}, Passwords: map[rules.Side]string{},
		PhaseLength: 48 * time.Hour, NoOrders: "default"}
	for _, s := range rs.Sides() {
		ng.Players[s.ID], ng.Passwords[s.ID] = fuzzAddr(s.ID), fuzzPass(s.ID)
	}
	desk := fuzzDesk(db, rs, func() time.Time { return fuzzEpoch })
	_, err = desk.CreateGame(context.Background(), ng)
	// The players start without map pictures, the dearest part of a results mail by
	// far, so that an input stays within the fuzzer's 10 s on a loaded machine; a mail
	// can ask for them (SET PICTURE ON).
	for i, s := range rs.Sides() {
		if err != nil {
			break
		}
		_, err = desk.Handle(context.Background(), adjudicator.Message{ID: fmt.Sprintf("start%d@players.example", i), From: fuzzAddr(s.ID),
			Text: "GAME g\nPASSWORD " + fuzzPass(s.ID) + "\nSET PICTURE OFF\n"})
	}
	if cerr := db.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	fuzzStarts.Store(rs.Name(), b)
	return b, nil
}

// FuzzDesk: whatever two mails say (any header lines, any command lines, any dates),
// from players with their passwords or wrong ones, from the host with his password or
// a wrong one, from a stranger or the game mailbox, in a fresh game of any ruleset,
// and whatever the deadlines do after them, the desk answers without a panic and
// without an error that is not temporary: no mail is set aside (a set-aside mail is a
// bug found), and Tick processes every game.
func FuzzDesk(f *testing.F) {
	// The two poison mails of issue 19.
	f.Add(uint8(0), uint8(2), uint8(2), "", "ABSENT UNTIL 2026-11-23", "ABSENT UNTIL 9999-12-31", int64(0))
	f.Add(uint8(0), uint8(4), uint8(4), "", "DEADLINE g 9999-12-31T23:59:59Z\nEXTEND g 2d\nPAUSE g", "RESUME g\nEXTEND g 24h", int64(3600))
	for rs := range uint8(4) {
		f.Add(rs, uint8(0), uint8(2), "", "HELP\nSTATUS\nMAP\nROLLS\nHELP DICE", "SET MAP FULL\nSET PICTURE ON\nMAP", int64(72*3600))
		f.Add(rs, uint8(0), uint8(2), "", "SETUP DEFAULT\nPLOT TURN 1 1911x3, 3603x3\nPLOT TURN 2 NONE", "SETUP DEFAULT\nPLOT TURN 1 2000x4\nCOMBAT NONE", int64(49*3600))
		f.Add(rs, uint8(4), uint8(0), "", "GAMES\nEXTEND g 2d\nDEADLINE g 2027-01-01T00:00:00Z\nADDRESS g de new@x.example\nRESEND g us", "RESIGN", int64(-1))
		f.Add(rs, uint8(1), uint8(6), "Auto-Submitted: auto-replied\r\n", "STATUS", "MAP ZOC", int64(1<<40))
		f.Add(rs, uint8(2), uint8(5), "Content-Type: text/html; charset=utf-8\r\n", "<p>ABSENT UNTIL 2027-11-22</p>", "END g\nPAUSE g", int64(400*24*3600))
		f.Add(rs, uint8(0), uint8(7), "Content-Transfer-Encoding: base64\r\n", "R0FNRSBn", "MOVE 4 USMC 3000-3001\nFIRE 2305 FROM 2304 2306", int64(7))
	}
	f.Add(uint8(1), uint8(0), uint8(2), "", "MARCH IX/31/18 4300-4301-4302\nCOMBAT NONE", "MOVE I/3/5 2107-2108", int64(49*3600))
	f.Add(uint8(3), uint8(0), uint8(2), "", "CHIP 1 2305\nMOVE 2 2301-2302", "FIRE 2305", int64(49*3600))
	// Made before fuzzing: each input has 10 s, and making a game of Soissons 1918 on a
	// loaded machine takes a good part of them.
	rulesets, err := allRules()
	if err != nil {
		f.Fatal(err)
	}
	for _, rs := range rulesets {
		if _, err := fuzzStart(rs); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, ruleset, who1, who2 uint8, headers, text1, text2 string, clock int64) {
		rs := rulesets[int(ruleset)%len(rulesets)]
		start, err := fuzzStart(rs)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "games.db")
		if err := os.WriteFile(path, start, 0o600); err != nil {
			t.Fatal(err)
		}
		db, err := store.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		now := fuzzEpoch
		logs := &bytes.Buffer{}
		desk := fuzzDesk(db, rs, func() time.Time { return now })
		desk.Log = slog.New(slog.NewTextHandler(logs, nil))
		var sides []rules.Side
		for _, s := range rs.Sides() {
			sides = append(sides, s.ID)
		}
		ctx := context.Background()
		// The second mail, and the deadlines after it, come up to two years later.
		later := now.Add(time.Duration(uint64(clock)%(2*365*24*3600)) * time.Second)
		for i, m := range []struct {
			who  uint8
			text string
		}{{who1, text1}, {who2, text2}} {
			msg, ok := fuzzMessage(fuzzMail(fuzzSender(m.who), "g", sides, i, headers, m.text), now)
			if !ok {
				continue
			}
			out, err := desk.Handle(ctx, msg)
			if err != nil && !adjudicator.Temporary(err) {
				t.Fatalf("mail %d: Handle: %v", i+1, err)
			}
			if strings.HasPrefix(out, "failed") {
				t.Fatalf("mail %d set aside: %s\n%s", i+1, out, logs)
			}
			now = later
		}
		report, err := desk.Tick(ctx, later.Add(72*time.Hour))
		if err != nil && !adjudicator.Temporary(err) {
			t.Fatalf("Tick: %v", err)
		}
		for _, l := range report {
			if strings.Contains(l, "failed") {
				t.Fatalf("Tick: %s\n%s", l, logs)
			}
		}
	})
}
