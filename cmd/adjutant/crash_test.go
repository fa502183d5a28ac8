package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

// TestCrashHarness is issue 9's exactly-once harness: a backlog of mails for several games
// waits in the game mailbox; `adjutant serve` runs as a child process and is killed with
// SIGKILL at pseudo-random instants, again and again, then runs to the end. Afterwards
// every inbound mail must have exactly one reply (none lost, none answered twice), every
// sealed submission exactly one notice, at most two mails may have been delivered twice
// (the window between an SMTP server's 250 and marking the mail sent; 4 in the short run),
// and every game's
// audit and replay must verify.
//
// CI runs a short version; `make crash` runs the full one (ADJUTANT_CRASH_KILLS=100,
// ADJUTANT_CRASH_GAMES=10, ADJUTANT_CRASH_MAILS=20) and prints its figures.
func TestCrashHarness(t *testing.T) {
	kills := envInt(t, "ADJUTANT_CRASH_KILLS", 10)
	games := envInt(t, "ADJUTANT_CRASH_GAMES", 3)
	perGame := envInt(t, "ADJUTANT_CRASH_MAILS", 8)
	seed := uint64(envInt(t, "ADJUTANT_CRASH_SEED", 1))
	// The goal is at most 2 duplicates over 100 kills (make crash). The short run of
	// make test, on a CI machine busy with other packages' tests, sees fsyncs ten times
	// slower and so a wider window between a 250 and its mark: up to 2 in 10 kills was
	// seen, so it allows 4 and logs the figure.
	maxDup := envInt(t, "ADJUTANT_CRASH_MAX_DUP", 4)
	timeout := time.Duration(kills)*3*time.Second + 3*time.Minute
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	srv, dir, gs := backlogGames(t, "crash", games)
	db := filepath.Join(dir, "games.db")

	// The backlog: set-up from both sides, then order checks and a few turns' orders.
	var inbound []string
	sealing := map[string]int{} // player address -> sealing submissions sent
	for _, g := range gs {
		script := []struct {
			p     *player
			pw    string
			body  string
			seals bool
		}{
			{g.us, "pu", usSetupOrders, true},
			{g.de, "pd", "PLOT TURN 1 2400x4 2500x4\nSETUP DEFAULT\nCOW NONE\n", true},
			{g.us, "pu", "COW NONE\nSTATUS\n", false},
		}
		for len(script) < perGame {
			script = append(script, struct {
				p     *player
				pw    string
				body  string
				seals bool
			}{[]*player{g.us, g.de}[len(script)%2], []string{"pu", "pd"}[len(script)%2], "MOVE NONE\nFIRE NONE\nSTATUS\n", false})
		}
		for _, s := range script[:perGame] {
			id, err := s.p.send(ctx, sampleAddress, "["+g.name+"] orders", "GAME "+g.name+"\nPASSWORD "+s.pw+"\n"+s.body)
			if err != nil {
				t.Fatal(err)
			}
			inbound = append(inbound, id)
			if s.seals {
				sealing[s.p.addr]++
			}
		}
	}

	cfg := demoConfig(srv, db)
	cfgPath := filepath.Join(dir, "adjutant.toml")
	writeConfig(t, cfgPath, cfg)
	logs := &syncBuffer{}
	defer func() {
		if t.Failed() {
			t.Logf("daemon logs:\n%s", logs)
		}
	}()
	serve := func() *exec.Cmd {
		cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--config", cfgPath)
		cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1")
		cmd.Stderr = logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	rnd := splitmix(seed)
	for k := range kills {
		cmd := serve()
		// 30 ms to 1 s: some kills land before the first mail, most in the middle of one.
		time.Sleep(time.Duration(30+rnd()%970) * time.Millisecond)
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatalf("kill %d: %v", k, err)
		}
		cmd.Wait()
	}

	// The last run goes to the end: every mail handled and every reply delivered.
	final := serve()
	players := map[string]*player{}
	for _, g := range gs {
		players[g.us.addr], players[g.de.addr] = g.us, g.de
	}
	got := map[string][]received{} // player -> every mail read
	answered := func() bool {
		seen := map[string]bool{}
		for addr, p := range players {
			more, err := p.fetchNew(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got[addr] = append(got[addr], more...)
			for _, m := range got[addr] {
				seen[m.Env.InReplyTo] = true
			}
		}
		for _, id := range inbound {
			if !seen[id] {
				return false
			}
		}
		inbox, _ := srv.Mailbox(sampleAddress, "INBOX")
		return len(inbox) == 0
	}
	for !answered() {
		select {
		case <-ctx.Done():
			t.Fatalf("not every mail was answered in time")
		case <-time.After(200 * time.Millisecond):
		}
	}
	time.Sleep(time.Second) // let any mail still in the outbox go out, to be counted
	answered()
	final.Process.Signal(syscall.SIGTERM)
	if err := final.Wait(); err != nil {
		t.Errorf("the last run did not stop cleanly on SIGTERM: %v", err)
	}

	// Count.
	replies := map[string]map[string]bool{} // inbound id -> distinct reply Message-IDs
	deliveries := map[string]int{}          // Message-ID -> times delivered
	notices := map[string]map[string]bool{} // receiving player -> distinct notice ids
	total := 0
	for addr, mails := range got {
		for _, m := range mails {
			total++
			deliveries[m.Env.MessageID]++
			if id := m.Env.InReplyTo; id != "" {
				if replies[id] == nil {
					replies[id] = map[string]bool{}
				}
				replies[id][m.Env.MessageID] = true
			}
			if strings.Contains(m.Env.Text, " player has sealed orders") {
				if notices[addr] == nil {
					notices[addr] = map[string]bool{}
				}
				notices[addr][m.Env.MessageID] = true
			}
		}
	}
	lost, twice := 0, 0
	for _, id := range inbound {
		switch n := len(replies[id]); {
		case n == 0:
			lost++
		case n > 1:
			twice++
			t.Errorf("mail %s answered by %d different replies", id, n)
		}
	}
	var duplicated []string
	for id, n := range deliveries {
		if n > 1 {
			duplicated = append(duplicated, fmt.Sprintf("%s x%d", id, n))
		}
	}
	sort.Strings(duplicated)
	for _, g := range gs {
		for _, pair := range [][2]*player{{g.us, g.de}, {g.de, g.us}} {
			if n := len(notices[pair[1].addr]); n != sealing[pair[0].addr] {
				t.Errorf("%s: %d sealed notices reached %s, want %d (one per sealing submission of %s)", g.name, n, pair[1].addr, sealing[pair[0].addr], pair[0].addr)
			}
		}
		if out := mustCLI(t, nil, "audit", "verify", "--db", db, "--game", g.name); !strings.Contains(out, "verified") {
			t.Errorf("audit of %s: %s", g.name, out)
		}
		if out := mustCLI(t, nil, "replay", "--db", db, "--game", g.name); !strings.Contains(out, "matches") {
			t.Errorf("replay of %s: %s", g.name, out)
		}
	}
	t.Logf("crash harness: %d kills, %d games, %d inbound mails, %d mails delivered; lost %d, answered twice %d, delivered twice %d %v",
		kills, games, len(inbound), total, lost, twice, len(duplicated), duplicated)
	if lost != 0 {
		t.Errorf("%d inbound mails lost (no reply)", lost)
	}
	if len(duplicated) > maxDup {
		t.Errorf("%d mails delivered twice, want at most %d: %v", len(duplicated), maxDup, duplicated)
	}
}

// usSetupOrders is a complete US set-up in one mail.
const usSetupOrders = "PLOT TURN 1 1911x3, 3603x3\nPLOT TURN 2 NONE\nPLOT TURN 3 NONE\nPLOT TURN 4 NONE\nPLOT TURN 5 NONE\nPLOT TURN 6 NONE\nSETUP DEFAULT\n"

// splitmix is a deterministic pseudo-random sequence (SplitMix64) for the kill instants,
// so that a failing run can be repeated with its seed.
func splitmix(seed uint64) func() uint64 {
	s := seed
	return func() uint64 {
		s += 0x9e3779b97f4a7c15
		z := s
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return z ^ (z >> 31)
	}
}

func envInt(t *testing.T, name string, def int) int {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q: want a number", name, v)
	}
	return n
}

// backlogGame is a Soldiers 1918 game of backlogGames, and its two players.
type backlogGame struct {
	name   string
	us, de *player
}

// backlogGames starts the dev mail servers with an account for the game mailbox and two
// players a game, and creates n games named prefix0, prefix1, ... in dir/games.db
// (passwords pu and pd), with gameFlags added to each game new; the servers close when
// the test ends.
func backlogGames(t *testing.T, prefix string, n int, gameFlags ...string) (*devserver.Server, string, []backlogGame) {
	t.Helper()
	users := map[string]string{sampleAddress: "game-mailbox-password"}
	var gs []backlogGame
	for i := range n {
		g := backlogGame{name: fmt.Sprintf("%s%d", prefix, i),
			us: &player{addr: fmt.Sprintf("us%d@players.example", i), password: "us-mail"},
			de: &player{addr: fmt.Sprintf("de%d@players.example", i), password: "de-mail"}}
		users[g.us.addr], users[g.de.addr] = "us-mail", "de-mail"
		gs = append(gs, g)
	}
	srv, err := devserver.Start(devserver.Options{Users: users})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	dir := t.TempDir()
	for _, g := range gs {
		for _, p := range []*player{g.us, g.de} {
			p.imapAddr, p.smtpAddr = srv.IMAPAddr(), srv.SMTPAddr()
		}
		mustCLI(t, nil, append([]string{"game", "new", "--db", filepath.Join(dir, "games.db"), "--address", sampleAddress, "--name", g.name,
			"--ruleset", "soldiers1918", "--player", "us=" + g.us.addr, "--player", "de=" + g.de.addr, "--password", "us=pu", "--password", "de=pd"}, gameFlags...)...)
	}
	return srv, dir, gs
}
