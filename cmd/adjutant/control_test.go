package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
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

// nobody is the user a test running as root plays another user with.
const nobody = 65534

// TestTrustedUID: a socket file or a peer is trusted when it is the process's own user
// or root, and no one else; the tests below reach both answers with real sockets.
func TestTrustedUID(t *testing.T) {
	for _, c := range []struct {
		found, own int
		want       bool
	}{
		{1000, 1000, true},
		{0, 1000, true}, // root may read the store anyway
		{0, 0, true},
		{nobody, 1000, false},
		{1000, 0, false}, // root does not send passwords to a user's socket
		{1001, 1000, false},
	} {
		if got := trustedUID(c.found, c.own); got != c.want {
			t.Errorf("trustedUID(%d, %d) = %v, want %v", c.found, c.own, got, c.want)
		}
	}
}

// otherOwner makes the file at path belong to another user as the checks see it: chowned
// to nobody when the test runs as root, else the process plays a user that is neither
// root nor the file's owner. It returns the uid the refusal names.
func otherOwner(t *testing.T, path string) int {
	t.Helper()
	if os.Geteuid() == 0 {
		if err := os.Lchown(path, nobody, nobody); err != nil {
			t.Fatal(err)
		}
		return nobody
	}
	playUser(t, os.Geteuid()+1)
	return os.Geteuid()
}

// playUser makes the control socket's checks take uid for the process's own user.
func playUser(t *testing.T, uid int) {
	old := ownUID
	ownUID = func() int { return uid }
	t.Cleanup(func() { ownUID = old })
}

// fakeDaemon listens on path as an impostor would: it counts the bytes sent to it and
// answers every request "handled", exit 0.
func fakeDaemon(t *testing.T, path string) *atomic.Int64 {
	t.Helper()
	l, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	var got atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(10 * time.Second))
			n, _ := io.Copy(io.Discard, c)
			got.Add(n)
			io.WriteString(c, `{"code":0,"stdout":"handled\n"}`)
			c.Close()
		}
	}()
	t.Cleanup(func() { l.Close(); <-done })
	return &got
}

// TestControlSocketOfAnotherUser: a socket file made by another user (in a shared
// directory) or a symbolic link gets nothing, neither the players' passwords of game new
// nor the mail of handle, and its "handled" cannot make handle exit 0: handle exits 75,
// so that the mail system keeps the mail, and says whose file it is and what to do.
func TestControlSocketOfAnotherUser(t *testing.T) {
	const secret = "never-sent-pass-1"
	raw := eml(scripted{From: sampleUS, Subject: "orders", Body: "GAME g\nPASSWORD x\nSTATUS\n"}, sampleAddress, "foreign-1@players.example", time.Now())
	for _, c := range []struct {
		name    string
		symlink bool
	}{{"owned by another user", false}, {"a symbolic link", true}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			db := filepath.Join(dir, "games.db")
			var got *atomic.Int64
			want := "belongs to uid "
			if c.symlink {
				// A link to a socket of this very user: the link itself is refused.
				got = fakeDaemon(t, filepath.Join(dir, "elsewhere.sock"))
				if err := os.Symlink(filepath.Join(dir, "elsewhere.sock"), db+".sock"); err != nil {
					t.Fatal(err)
				}
				want = "is a symbolic link"
			} else {
				got = fakeDaemon(t, db+".sock")
				want += strconv.Itoa(otherOwner(t, db+".sock"))
			}
			code, out, errs := cli(t, raw, "handle", "--db", db)
			if code != exitTempFail || out != "" || !strings.Contains(errs, db+".sock") || !strings.Contains(errs, want) ||
				!strings.Contains(errs, "nothing was sent") || !strings.Contains(errs, "remove that file") {
				t.Errorf("handle: exit %d, %q, %q; want exit %d, naming the socket and %q, what to do", code, out, errs, exitTempFail, want)
			}
			code, out, errs = cli(t, nil, "game", "new", "--db", db, "--name", "g", "--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+secret)
			if code == 0 || strings.Contains(out, secret) || !strings.Contains(errs, want) {
				t.Errorf("game new: exit %d, %q, %q; want a failure naming %q", code, out, errs, want)
			}
			if n := got.Load(); n != 0 {
				t.Errorf("the impostor received %d bytes", n)
			}
		})
	}
}

// TestControlSocketFileCheck: the checks of the file before connecting, on real files:
// none there is no daemon (the command opens the store), a socket of the user passes,
// anything else is refused.
func TestControlSocketFileCheck(t *testing.T) {
	dir := t.TempDir()
	sock := filepath.Join(dir, "own.sock")
	fakeDaemon(t, sock)
	plain := filepath.Join(dir, "plain")
	if err := os.WriteFile(plain, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	own := os.Geteuid()
	if err := checkSocketFile(filepath.Join(dir, "none.sock"), own); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("no file: %v, want not-exist", err)
	}
	if err := checkSocketFile(sock, own); err != nil {
		t.Errorf("a socket of this user: %v", err)
	}
	if err := checkSocketFile(plain, own); err == nil || !strings.Contains(err.Error(), "regular file, not a socket") {
		t.Errorf("a plain file: %v", err)
	}
	if err := checkSocketFile(dir, own); err == nil || !strings.Contains(err.Error(), "directory, not a socket") {
		t.Errorf("a directory: %v", err)
	}
	if own != 0 { // the file is this user's, who is not root: another user must refuse it
		if err := checkSocketFile(sock, own+1); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("belongs to uid %d", own)) {
			t.Errorf("the socket checked by another user: %v", err)
		}
	}
}

// nobodyBinary copies this test binary where nobody may run it, for tests run as root
// that need a process of another user.
func nobodyBinary(t *testing.T) (bin, dir string) {
	t.Helper()
	dir, err := os.MkdirTemp("", "adjutant-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	src, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	bin = filepath.Join(dir, "adjutant.test")
	dst, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
	return bin, dir
}

// asNobody is the command line args of adjutant, run as nobody.
func asNobody(bin string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "ADJUTANT_TEST_MAIN=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	return cmd
}

// TestControlPeerOfAnotherUser: a socket file of the user (or root) whose listener is a
// process of another user (a file swapped after the check, a daemon of another user)
// gets nothing. As root, a real daemon runs as nobody and its socket is handed to root;
// as another user, the check of a real connection is told it runs as someone else.
func TestControlPeerOfAnotherUser(t *testing.T) {
	if os.Geteuid() != 0 {
		dir := t.TempDir()
		sock := filepath.Join(dir, "d.sock")
		fakeDaemon(t, sock)
		conn, err := net.Dial("unix", sock)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		if err := checkPeer(conn, sock, os.Geteuid()); err != nil {
			t.Errorf("a daemon of this user: %v", err)
		}
		want := fmt.Sprintf("runs as uid %d", os.Geteuid())
		if err := checkPeer(conn, sock, os.Geteuid()+1); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("the daemon checked by another user: %v, want %q", err, want)
		}
		return
	}
	r := newRig(t)
	bin, dir := nobodyBinary(t)
	db := filepath.Join(dir, "game.db")
	data, err := os.ReadFile(r.db)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, data, 0o600); err != nil {
		t.Fatal(err)
	}
	r.cfg.Database = db
	cfgPath := filepath.Join(dir, "adjutant.toml")
	writeConfig(t, cfgPath, r.cfg)
	for _, f := range []string{dir, db, cfgPath} {
		if err := os.Chown(f, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	cmd := asNobody(bin, "serve", "--config", cfgPath)
	cmd.Stderr = r.logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer stopServe(t, cmd)
	socket := db + ".sock"
	for {
		if c, err := net.Dial("unix", socket); err == nil {
			c.Close()
			break
		}
		select {
		case <-r.ctx.Done():
			t.Fatalf("the daemon of nobody never opened its control socket:\n%s", r.logs)
		case <-time.After(20 * time.Millisecond):
		}
	}
	// The file is root's now, as a swapped file or a daemon of root's would be: only
	// the peer's credentials tell.
	if err := os.Lchown(socket, 0, 0); err != nil {
		t.Fatal(err)
	}
	const secret = "never-sent-pass-2"
	code, out, errs := cli(t, nil, "game", "new", "--config", cfgPath, "--name", "second", "--player", "us="+sampleUS, "--player", "de="+sampleDE, "--password", "us="+secret)
	want := "the server at the other end runs as uid 65534"
	if code == 0 || strings.Contains(out, secret) || !strings.Contains(errs, want) || !strings.Contains(errs, socket) {
		t.Errorf("game new: exit %d, %q, %q; want a failure naming the socket and %q", code, out, errs, want)
	}
	raw := eml(scripted{From: sampleUS, Subject: "status", Body: "GAME " + sampleGame + "\nPASSWORD " + samplePassUS + "\nSTATUS\n"}, sampleAddress, "peer-1@players.example", time.Now())
	if code, out, errs := cli(t, raw, "handle", "--config", cfgPath); code != exitTempFail || !strings.Contains(errs, want) {
		t.Errorf("handle: exit %d, %q, %q; want exit %d and %q", code, out, errs, exitTempFail, want)
	}
	if strings.Contains(r.logs.String(), "host command") {
		t.Errorf("the daemon of nobody ran a command:\n%s", r.logs)
	}
}

// startControl runs a control server with limits lim and exec on a socket of its own,
// until the test ends.
func startControl(t *testing.T, lim controlLimits, exec func(context.Context, []string, []byte) controlResponse) (*controlServer, string) {
	t.Helper()
	return startControlAs(t, ownUID(), lim, exec)
}

func startControlAs(t *testing.T, own int, lim controlLimits, exec func(context.Context, []string, []byte) controlResponse) (*controlServer, string) {
	t.Helper()
	socket := filepath.Join(t.TempDir(), "games.db.sock")
	l, err := listenControl(socket)
	if err != nil {
		t.Fatal(err)
	}
	s := newControlServer(slog.New(slog.DiscardHandler), own, lim, exec)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve(ctx, l)
	}()
	t.Cleanup(func() { cancel(); <-done })
	return s, socket
}

// ranArgs is an exec that runs nothing and says what it was given.
func ranArgs(_ context.Context, args []string, stdin []byte) controlResponse {
	return controlResponse{Stdout: fmt.Sprintf("ran %s with %d bytes\n", strings.Join(args, " "), len(stdin))}
}

// TestControlServerRefusesAnotherUser: the daemon runs commands from its own user and
// root only. As root, a client run as nobody is refused by a daemon of root's (its socket
// opened to everyone for the test); as another user, the daemon is told it runs as
// someone else.
func TestControlServerRefusesAnotherUser(t *testing.T) {
	var ran atomic.Int64
	run := func(ctx context.Context, args []string, stdin []byte) controlResponse {
		ran.Add(1)
		return ranArgs(ctx, args, stdin)
	}
	if os.Geteuid() != 0 {
		s, socket := startControlAs(t, os.Geteuid()+1, defaultControlLimits(1<<20), run)
		var so, se bytes.Buffer
		_, _, err := forward(&env{ctx: context.Background(), stdout: &so, stderr: &se}, socket, []string{"games"})
		want := whoIs(os.Geteuid()) + " may not send commands"
		if err == nil || !strings.Contains(err.Error(), want) || ran.Load() != 0 || s.refused.Load() != 1 {
			t.Errorf("a client of another user: %v, %d ran; want %q and nothing run", err, ran.Load(), want)
		}
		return
	}
	bin, _ := nobodyBinary(t)
	s, socket := startControl(t, defaultControlLimits(1<<20), run)
	// Where nobody may reach it: the directories searchable, the socket writable by all.
	for _, p := range []string{filepath.Dir(filepath.Dir(socket)), filepath.Dir(socket)} {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chmod(socket, 0o666); err != nil {
		t.Fatal(err)
	}
	db := strings.TrimSuffix(socket, ".sock")
	cmd := asNobody(bin, "games", "--db", db)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var ee *exec.ExitError
	want := "uid 65534 (nobody) may not send commands to this daemon, which runs as uid 0 (root)"
	if !errors.As(err, &ee) || ee.ExitCode() != 1 || !strings.Contains(stderr.String(), want) {
		t.Errorf("games as nobody: %v, %q; want exit 1 and %q", err, stderr.String(), want)
	}
	if ran.Load() != 0 || s.refused.Load() != 1 {
		t.Errorf("%d commands ran and %d were refused; want 0 and 1", ran.Load(), s.refused.Load())
	}
}

// TestListenControlSafely: the daemon replaces a socket left by a daemon of its own user
// only, and opens none in a directory where anyone could replace it.
func TestListenControlSafely(t *testing.T) {
	t.Run("a socket of another user", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "games.db.sock")
		fakeDaemon(t, path)
		other := otherOwner(t, path)
		_, err := listenControl(path)
		if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("belongs to uid %d", other)) || !strings.Contains(err.Error(), "not replaced") {
			t.Errorf("listen over a socket of uid %d: %v", other, err)
		}
		if fi, err := os.Lstat(path); err != nil || fi.Mode()&fs.ModeSocket == 0 {
			t.Errorf("the other user's socket is gone: %v", err)
		}
	})
	for _, c := range []struct {
		name string
		mode fs.FileMode
		ok   bool
	}{
		{"a private directory", 0o700, true},
		{"a shared directory with the sticky bit, as /tmp", 0o777 | fs.ModeSticky, true},
		{"a directory anyone may write", 0o777, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.Chmod(dir, c.mode); err != nil {
				t.Fatal(err)
			}
			l, err := listenControl(filepath.Join(dir, "games.db.sock"))
			if err == nil {
				l.Close()
			}
			if c.ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "anyone could replace the socket")) {
				t.Errorf("listen in a directory of mode %v: %v", c.mode, err)
			}
		})
	}
}

// controlClients runs n clients of the socket at once, each sending stdin, and returns
// their results.
type controlResult struct {
	code int
	out  string
	err  error
}

func controlClient(socket string, args []string, stdin []byte, results chan<- controlResult) {
	var so, se bytes.Buffer
	code, _, err := forwardStdin(&env{ctx: context.Background(), stdout: &so, stderr: &se}, socket, args, stdin)
	results <- controlResult{code, so.String() + se.String(), err}
}

// waitUntil waits for cond, polling, for at most the test's own deadline.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("still waiting for %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// TestControlServerSlots: at most limits.slots requests run at once and limits.queue
// wait; the next ones are refused as busy at once (handle then exits 75), and the waiting
// ones run when a slot is free.
func TestControlServerSlots(t *testing.T) {
	started, release := make(chan struct{}, 8), make(chan struct{})
	lim := defaultControlLimits(1 << 20)
	lim.slots, lim.queue, lim.wait = 2, 2, 10*time.Minute
	s, socket := startControl(t, lim, func(ctx context.Context, args []string, stdin []byte) controlResponse {
		started <- struct{}{}
		<-release
		return ranArgs(ctx, args, stdin)
	})
	results := make(chan controlResult, 8)
	for i := range 2 {
		go controlClient(socket, []string{"games", strconv.Itoa(i)}, nil, results)
		<-started
	}
	for i := 2; i < 4; i++ {
		go controlClient(socket, []string{"games", strconv.Itoa(i)}, nil, results)
	}
	waitUntil(t, "two waiting requests", func() bool { return s.waiting.Load() == 2 })
	go controlClient(socket, []string{"games", "4"}, nil, results)
	if r := <-results; r.err == nil || !strings.Contains(r.err.Error(), "busy: 2 host commands are running and 2 waiting") {
		t.Errorf("a request beyond the queue: %+v, want refused as busy", r)
	}
	// A refusal is a temporary failure: handle exits 75 and the mail system keeps the mail.
	raw := eml(scripted{From: sampleUS, Subject: "orders", Body: "STATUS\n"}, sampleAddress, "busy-1@players.example", time.Now())
	if code, out, errs := cli(t, raw, "handle", "--db", strings.TrimSuffix(socket, ".sock")); code != exitTempFail || !strings.Contains(errs, "busy") || !strings.Contains(errs, "the mail is kept") {
		t.Errorf("handle beyond the queue: exit %d, %q, %q; want %d, busy", code, out, errs, exitTempFail)
	}
	close(release)
	for range 4 {
		if r := <-results; r.err != nil || r.code != 0 || !strings.HasPrefix(r.out, "ran games") {
			t.Errorf("a request given a slot: %+v", r)
		}
	}
	if ran, refused, most := s.ran.Load(), s.refused.Load(), s.mostRunning.Load(); ran != 4 || refused != 2 || most != 2 {
		t.Errorf("%d ran, %d refused, at most %d at once; want 4, 2, 2", ran, refused, most)
	}
}

// TestControlServerMemoryBound: a flood of big requests holds at most the budget: while
// one request as large as the largest message runs, every other big one is refused as
// busy once it has waited for budget as long as a request may take to be read; the one
// running is not disturbed, and the budget is whole again afterwards.
func TestControlServerMemoryBound(t *testing.T) {
	started, release := make(chan struct{}, 1), make(chan struct{})
	lim := defaultControlLimits(1 << 20) // max_message_size 1 MiB
	lim.budget = lim.maxRequest + 1<<20  // room for one such request and small ones
	lim.readTimeout = 2 * time.Second    // how long the flood waits for budget
	var first atomic.Bool
	s, socket := startControl(t, lim, func(ctx context.Context, args []string, stdin []byte) controlResponse {
		if first.CompareAndSwap(false, true) {
			started <- struct{}{}
			<-release
		}
		return ranArgs(ctx, args, stdin)
	})
	big := bytes.Repeat([]byte("orders! "), (1<<20)/8) // a 1 MiB message, 1.33 MiB in the request
	results := make(chan controlResult, 16)
	go controlClient(socket, []string{"handle", "0"}, big, results)
	<-started
	const flood = 8
	for i := 1; i <= flood; i++ {
		go controlClient(socket, []string{"handle", strconv.Itoa(i)}, big, results)
	}
	for range flood {
		if r := <-results; r.err == nil || !strings.Contains(r.err.Error(), "busy: the requests in flight hold") {
			t.Errorf("a big request beside a running one: %d %q %v, want refused as busy", r.code, r.out, r.err)
		}
	}
	close(release)
	if r := <-results; r.err != nil || r.out != fmt.Sprintf("ran handle 0 with %d bytes\n", len(big)) {
		t.Errorf("the first request: %+v", r)
	}
	// With the budget whole again, the next one runs.
	go controlClient(socket, []string{"handle", "last"}, big, results)
	if r := <-results; r.err != nil || r.code != 0 {
		t.Errorf("a big request after the flood: %+v", r)
	}
	if ran, refused := s.ran.Load(), s.refused.Load(); ran != 2 || refused != flood {
		t.Errorf("%d ran, %d refused; want 2, %d", ran, refused, flood)
	}
	most, all := s.budget.mostInUse(), int64(flood+1)*int64(base64.StdEncoding.EncodedLen(len(big)))
	if most > lim.budget || most < lim.maxRequest {
		t.Errorf("at most %d bytes buffered at once, want between %d and the budget %d (the flood sent %d)", most, lim.maxRequest, lim.budget, all)
	}
	waitUntil(t, "the budget given back", func() bool { return s.budget.inUse() == 0 })
	t.Logf("flood of %d requests of %d bytes beside one running: at most %d bytes buffered (budget %d)", flood, all/(flood+1), most, lim.budget)
}

// TestControlServerTooLarge: a request larger than the largest message of the daemon
// is refused unread beyond that size, and the client hears why although the daemon
// stopped reading what it sent.
func TestControlServerTooLarge(t *testing.T) {
	lim := defaultControlLimits(1 << 20)
	s, socket := startControl(t, lim, ranArgs)
	results := make(chan controlResult, 1)
	controlClient(socket, []string{"handle"}, make([]byte, 4<<20), results)
	if r := <-results; r.err == nil || !strings.Contains(r.err.Error(), fmt.Sprintf("larger than %d bytes", lim.maxRequest)) {
		t.Errorf("a request of 4 MiB for a daemon of 1 MiB messages: %+v", r)
	}
	if most := s.budget.mostInUse(); most > lim.maxRequest || s.ran.Load() != 0 {
		t.Errorf("%d bytes buffered, %d ran; want at most %d and none", most, s.ran.Load(), lim.maxRequest)
	}
	// The largest message handle forwards by default fits whatever max_message_size says.
	small := defaultControlLimits(1024)
	req, err := json.Marshal(controlRequest{Args: []string{"handle", "--config", "/etc/adjutant/adjutant.toml", "--max-size=1048576"}, Stdin: make([]byte, handleDefaultMaxSize+1)})
	if err != nil {
		t.Fatal(err)
	}
	if int64(len(req)) > small.maxRequest {
		t.Errorf("a request of %d bytes, more than the %d a daemon takes", len(req), small.maxRequest)
	}
}

// TestControlServerSlowClient: a client that never finishes its request holds its slot
// only until the read deadline; then it is told, and the next request gets the slot.
func TestControlServerSlowClient(t *testing.T) {
	lim := defaultControlLimits(1 << 20)
	lim.slots, lim.readTimeout = 1, 200*time.Millisecond
	s, socket := startControl(t, lim, ranArgs)
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // the test fails rather than hang
	if _, err := io.WriteString(conn, `{"args": ["games", "--db"`); err != nil {
		t.Fatal(err)
	}
	var resp controlResponse
	if err := json.NewDecoder(conn).Decode(&resp); err != nil || !strings.Contains(resp.Refused, "not read within") || resp.Code != exitTempFail {
		t.Errorf("the slow client got %+v, %v; want refused as not read in time", resp, err)
	}
	results := make(chan controlResult, 1)
	controlClient(socket, []string{"games"}, nil, results)
	if r := <-results; r.err != nil || r.out != "ran games with 0 bytes\n" {
		t.Errorf("the next request: %+v", r)
	}
	if ran, refused := s.ran.Load(), s.refused.Load(); ran != 1 || refused != 1 {
		t.Errorf("%d ran, %d refused; want 1, 1", ran, refused)
	}
}

// TestControlServerStops: a daemon that stops waits for no client that is still sending
// (serve returns when every request is answered): the client is told.
func TestControlServerStops(t *testing.T) {
	socket := filepath.Join(t.TempDir(), "games.db.sock")
	l, err := listenControl(socket)
	if err != nil {
		t.Fatal(err)
	}
	lim := defaultControlLimits(1 << 20)
	lim.readTimeout = time.Hour
	s := newControlServer(slog.New(slog.DiscardHandler), ownUID(), lim, ranArgs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.serve(ctx, l)
	}()
	conn, err := net.Dial("unix", socket)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(time.Minute)) // the test fails rather than hang
	if _, err := io.WriteString(conn, `{"args": ["games"`); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the request in a slot", func() bool { return len(s.slots) == 1 })
	cancel()
	var resp controlResponse
	if err := json.NewDecoder(conn).Decode(&resp); err != nil || resp.Refused != "the daemon is stopping" {
		t.Errorf("the client of a stopping daemon got %+v, %v", resp, err)
	}
	<-done
}
