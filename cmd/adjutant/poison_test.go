package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestServePoisonMailDelaysNothing runs `adjutant serve` as a child process over a
// backlog of mails for three games with, in the middle, the mail that used to stop the
// intake for good (issue 19: ABSENT UNTIL 9999-12-31 from a player who has used some
// absence, whose game could not be saved). Every mail, the poison one included, is
// answered in the daemon's first pass over the backlog: the intake never stops a pass
// to retry a mail, and the daemon is still running afterwards (a later mail is
// answered, and SIGTERM stops it cleanly).
func TestServePoisonMailDelaysNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, dir, gs := backlogGames(t, "poison", 3, "--deadline", "48h")
	db := filepath.Join(dir, "games.db")

	// The backlog: each game's players write; the German of the second game first takes
	// a day off, then, between the second game's mails and the third's, the poison.
	soon := time.Now().UTC().Add(24 * time.Hour).Format("2006-01-02")
	type sent struct {
		id string
		p  *player
	}
	var inbound []sent
	send := func(p *player, g, pw, body string) sent {
		t.Helper()
		id, err := p.send(ctx, sampleAddress, "["+g+"] orders", "GAME "+g+"\nPASSWORD "+pw+"\n"+body)
		if err != nil {
			t.Fatal(err)
		}
		s := sent{id, p}
		inbound = append(inbound, s)
		return s
	}
	var poison sent
	for i, g := range gs {
		send(g.us, g.name, "pu", "STATUS\n")
		send(g.de, g.name, "pd", "ABSENT UNTIL "+soon+"\n")
		if i == 1 {
			poison = send(g.de, g.name, "pd", "ABSENT UNTIL 9999-12-31\n")
		}
		send(g.us, g.name, "pu", usSetupOrders)
		send(g.de, g.name, "pd", "STATUS\n")
	}

	cfgPath := filepath.Join(dir, "adjutant.toml")
	writeConfig(t, cfgPath, demoConfig(srv, db))
	logs := &syncBuffer{}
	defer func() {
		if t.Failed() {
			t.Logf("daemon logs:\n%s", logs)
		}
	}()
	cmd := exec.CommandContext(ctx, os.Args[0], "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1")
	cmd.Stderr = logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer func() {
		if cmd.ProcessState == nil {
			cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
	}()

	got := map[*player][]received{}
	answered := func(want []sent) bool {
		for _, p := range []*player{gs[0].us, gs[0].de, gs[1].us, gs[1].de, gs[2].us, gs[2].de} {
			more, err := p.fetchNew(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got[p] = append(got[p], more...)
		}
		for _, s := range want {
			if reply(got[s.p], s.id) == nil {
				return false
			}
		}
		return true
	}
	wait := func(what string, want []sent) {
		t.Helper()
		for !answered(want) {
			select {
			case err := <-exited:
				t.Fatalf("the daemon exited (%v) before %s", err, what)
			case <-ctx.Done():
				t.Fatalf("%s: not every mail was answered in time", what)
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	wait("the backlog", inbound)
	if r := reply(got[poison.p], poison.id); !strings.Contains(strings.Join(strings.Fields(r.Env.Text), " "), "at most a year ahead") {
		t.Errorf("the poison mail's answer:\n%s", r.Env.Text)
	}
	// One pass: the intake never stopped a pass to retry a mail, nor left one unseen.
	for _, bad := range []string{"imap pass stopped", "not handled", "set aside"} {
		if strings.Contains(logs.String(), bad) {
			t.Errorf("the daemon logged %q", bad)
		}
	}
	// Still serving.
	later := send(gs[2].us, gs[2].name, "pu", "STATUS\n")
	wait("a mail after the backlog", []sent{later})
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if err := <-exited; err != nil {
		t.Errorf("the daemon did not stop cleanly on SIGTERM: %v", err)
	}
}

// reply is the mail of got that answers id, or nil.
func reply(got []received, id string) *received {
	for i := range got {
		if got[i].Env.InReplyTo == id {
			return &got[i]
		}
	}
	return nil
}
