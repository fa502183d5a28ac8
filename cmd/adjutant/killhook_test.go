//go:build killhook

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledBetweenCommitAndFlag kills the daemon (SIGKILL) right after it committed a
// message and before it flagged it; restarted, it has no double effect and loses no reply.
func TestKilledBetweenCommitAndFlag(t *testing.T) {
	r := newRig(t)
	cfgPath := filepath.Join(t.TempDir(), "adjutant.toml")
	writeConfig(t, cfgPath, r.cfg)
	start := func(kill bool) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "serve", "--config", cfgPath)
		cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1")
		if kill {
			cmd.Env = append(cmd.Env, "ADJUTANT_TEST_KILL_AFTER_COMMIT=1")
		}
		cmd.Stderr = r.logs
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	id, err := r.us.send(r.ctx, sampleAddress, "orders", ordersFor(samplePassUS, "PLOT TURN 1 1911x3\n"))
	if err != nil {
		t.Fatal(err)
	}
	first := start(true)
	err = first.Wait()
	if ws, ok := first.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the daemon was not killed by the test hook: %v", err)
	}
	inbox, _ := r.srv.Mailbox(sampleAddress, "INBOX")
	if len(inbox) != 1 || len(inbox[0].Flags) != 0 {
		t.Fatalf("after the kill the message should be in INBOX, unflagged: %+v", inbox)
	}
	second := start(false)
	defer stopServe(t, second)
	r.settle(1)
	got := r.reply(r.us, id)
	time.Sleep(300 * time.Millisecond)
	more, _ := r.us.fetchNew(r.ctx)
	replies := 0
	for _, m := range append(got, more...) {
		if m.Env.InReplyTo == id {
			replies++
		}
	}
	if replies != 1 {
		t.Errorf("%d replies to the message, want exactly 1", replies)
	}
	// One effect: the plot was filed once (one notice to the German).
	notices, _ := r.de.waitFor(r.ctx, nil, func(m received) bool { return strings.Contains(m.Env.Text, "player has sealed orders") })
	time.Sleep(300 * time.Millisecond)
	moreDE, _ := r.de.fetchNew(r.ctx)
	n := 0
	for _, m := range append(notices, moreDE...) {
		if strings.Contains(m.Env.Text, "player has sealed orders") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("the German got %d notices of the sealed plot, want 1", n)
	}
	// The daemon logged at info level all along: never a password or a sealed order.
	logs := r.logs.String()
	if !strings.Contains(logs, "mail handled") {
		t.Fatalf("the daemon logged nothing useful:\n%s", logs)
	}
	for _, secret := range []string{samplePassUS, samplePassDE, r.cfg.IMAP.Password, "1911x3", "PLOT TURN"} {
		if strings.Contains(logs, secret) {
			t.Errorf("the logs show %q", secret)
		}
	}
}
