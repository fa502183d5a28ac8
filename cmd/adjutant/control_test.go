package main

import (
	"bytes"
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestHostCommandsWhileServing runs `serve` as a separate process and, while it holds
// the store, creates a game, extends its deadline, lists the games and verifies an audit
// with the same command lines as without a daemon: they go through the control socket.
func TestHostCommandsWhileServing(t *testing.T) {
	r := newRig(t)
	cfgPath := filepath.Join(t.TempDir(), "adjutant.toml")
	writeConfig(t, cfgPath, r.cfg)
	socket := r.db + ".sock"
	cmd := exec.Command(os.Args[0], "serve", "--config", cfgPath)
	cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1")
	cmd.Stderr = r.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			stopServe(t, cmd)
		}
	}
	defer stop()
	for {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			break
		}
		select {
		case <-r.ctx.Done():
			t.Fatalf("the daemon never opened its control socket %s:\n%s", socket, r.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	if fi, err := os.Stat(socket); err != nil || fi.Mode().Perm() != 0o600 || fi.Mode()&os.ModeSocket == 0 {
		t.Errorf("control socket %v, %v; want a socket of mode 0600", fi.Mode(), err)
	}

	// The same command lines as without a daemon.
	const secret = "second-game-pass-1"
	out := mustCLI(t, nil, "game", "new", "--config", cfgPath, "--name", "second", "--deadline", "48h",
		"--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+secret)
	if !strings.Contains(out, "us\t"+sampleUS+"\t"+secret) {
		t.Errorf("game new through the socket printed %q", out)
	}
	out = mustCLI(t, nil, "deadline", "--config", cfgPath, "--game", "second", "--extend", "24h")
	if !strings.Contains(out, "second: deadline ") {
		t.Errorf("deadline printed %q", out)
	}
	out = mustCLI(t, nil, "games", "--config", cfgPath)
	if !strings.Contains(out, sampleGame+" (soldiers1918)") || !strings.Contains(out, "second (soldiers1918)") {
		t.Errorf("games printed:\n%s", out)
	}
	out = mustCLI(t, nil, "audit", "verify", "--config", cfgPath, "--game", "second")
	if !strings.HasPrefix(out, "audit of second verified: ") {
		t.Errorf("audit verify printed %q", out)
	}
	// A mail fed by pipe while serve holds the store (a host whose MTA pipes to
	// handle, or both ways at once) is handled by the daemon, once: it used to exit 75
	// until serve stopped.
	raw := eml(scripted{From: sampleUS, Subject: "status", Body: "GAME second\nPASSWORD " + secret + "\nSTATUS\n"}, sampleAddress, "piped-1@players.example", time.Now())
	if code, out, errs := cli(t, raw, "handle", "--config", cfgPath); code != 0 || !strings.HasPrefix(out, "handled") {
		t.Errorf("handle through the socket: exit %d, %q, %q; want handled", code, out, errs)
	}
	if code, out, _ := cli(t, raw, "handle", "--config", cfgPath); code != 0 || strings.TrimSpace(out) != "duplicate" {
		t.Errorf("the same mail again through the socket: exit %d, %q; want duplicate", code, out)
	}
	if code, _, _ := cli(t, raw, "handle", "--config", cfgPath, "--no-such-flag"); code != 2 {
		t.Errorf("handle with a wrong flag through the socket: exit %d, want 2", code)
	}
	if _, err := r.us.waitFor(r.ctx, nil, func(m received) bool {
		return strings.Contains(m.Env.Subject, "[second]") && strings.Contains(m.Env.Text, "Password: accepted")
	}); err != nil {
		t.Errorf("no reply to the piped mail: %v", err)
	}
	// A wrong command line fails in the daemon as it would here.
	if code, _, errs := cli(t, nil, "audit", "verify", "--config", cfgPath, "--game", "nope"); code != 1 || !strings.Contains(errs, "nope") {
		t.Errorf("audit verify of no game: exit %d, %q", code, errs)
	}
	// The daemon runs host commands only.
	var so, se bytes.Buffer
	code, ok, err := forward(&env{ctx: context.Background(), stdout: &so, stderr: &se}, socket, []string{"serve", "--config", cfgPath})
	if !ok || err != nil || code != 2 || !strings.Contains(se.String(), "host commands only") {
		t.Errorf("serve through the socket: %d %v %v %q", code, ok, err, se.String())
	}
	// The players hear of it by mail: the invitation and the new deadline, sent by the
	// daemon.
	if _, err := r.de.waitFor(r.ctx, nil, func(m received) bool {
		return strings.Contains(m.Env.Subject, "[second]") && strings.Contains(m.Env.Text, "the host has set the deadline")
	}); err != nil {
		t.Errorf("no mail of the new deadline: %v", err)
	}
	logs := r.logs.String()
	if !strings.Contains(logs, `msg="host command" command="game new" exit=0`) {
		t.Errorf("the daemon did not log the host command:\n%s", logs)
	}
	if strings.Contains(logs, secret) {
		t.Errorf("the daemon logged a password")
	}
	stop()
	if _, err := os.Stat(socket); !os.IsNotExist(err) {
		t.Errorf("the socket is left after the daemon stopped: %v", err)
	}
	// Without the daemon the same command line opens the file.
	out = mustCLI(t, nil, "audit", "verify", "--config", cfgPath, "--game", "second")
	if !strings.HasPrefix(out, "audit of second verified: ") {
		t.Errorf("audit verify without the daemon printed %q", out)
	}
}

// stopServe stops a daemon run as a child process with SIGTERM and checks that it
// exits 0.
func stopServe(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("after SIGTERM the daemon exited with %v, want 0", err)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Error("the daemon did not stop on SIGTERM")
	}
}

// TestStaleControlSocket: a socket left by a daemon that died is no daemon: the host
// command opens the file, and the next daemon replaces the socket.
func TestStaleControlSocket(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "games.db")
	l, err := net.Listen("unix", db+".sock")
	if err != nil {
		t.Fatal(err)
	}
	l.(*net.UnixListener).SetUnlinkOnClose(false)
	l.Close() // the file stays, nobody listens
	mustCLI(t, nil, "game", "new", "--db", db, "--name", "g", "--player", "us="+sampleUS, "--player", "de="+sampleDE)
	if out := mustCLI(t, nil, "games", "--db", db); !strings.Contains(out, "g (soldiers1918)") {
		t.Errorf("games: %q", out)
	}
	ln, err := listenControl(db + ".sock")
	if err != nil {
		t.Fatalf("listen over a stale socket: %v", err)
	}
	ln.Close()
	if err := os.WriteFile(db+".sock", []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := listenControl(db + ".sock"); err == nil || !strings.Contains(err.Error(), "no socket") {
		t.Errorf("listen over a plain file: %v", err)
	}
}
