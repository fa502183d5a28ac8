package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// The control socket: while `serve` holds the bbolt file (locked, one process at a time),
// the host commands reach the daemon through a Unix socket beside it, so that a host
// never stops the daemon to create a game or read an audit.
//
// The protocol is one JSON request per connection, answered by one JSON response:
//
//	request:  {"args": ["audit", "verify", "--config", "adjutant.toml", "--game", "verdun"]}
//	response: {"code": 0, "stdout": "audit of verdun verified: ...", "stderr": ""}
//
// args is the command line as the host typed it; the daemon parses it with the same flag
// sets and runs the same command function on its own desk and store (see hostCommand), so
// that the command does the same whether it ran here or there. The flags that name the
// store (--config, --db, --address) were checked by the client, which found the socket
// through them; the daemon uses its own store. The socket is mode 0600: whoever may
// connect may run host commands, as whoever may open the file could.

// controlRequest is what a host command sends to the daemon.
type controlRequest struct {
	Args []string `json:"args"`
	// Stdin is the command's standard input: the message `handle` reads.
	Stdin []byte `json:"stdin,omitempty"`
}

// controlResponse is the daemon's answer: the command's exit code and output.
type controlResponse struct {
	Code   int    `json:"code"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
}

const (
	// maxControlRequest bounds a request: a command line and, for handle, a message of
	// at most maxForwardedMessage bytes (in base64).
	maxControlRequest = maxForwardedMessage/3*4 + 1<<20
	// maxForwardedMessage bounds the message handle forwards (its --max-size is held to
	// it when it goes through the socket).
	maxForwardedMessage = 32 << 20
	// controlTimeout bounds one request, replay of a long game included.
	controlTimeout = 10 * time.Minute
)

// hostCommands are the commands the control socket runs: every command about the store
// that a host types, and nothing that serves, reads standard input or benchmarks.
var hostCommands = map[string]bool{
	"game": true, "outbox": true, "tick": true, "audit": true, "replay": true, "map": true,
	"games": true, "deadline": true, "pause": true, "resume": true, "player": true, "resend": true,
	"handle": true,
}

// served is the daemon's desk and store, given to a command run through the socket.
type served struct {
	desk *adjudicator.Desk
	db   store.Store
}

// exitCode is an error that carries the exit code of a command that ran in the daemon,
// whose output has been written already.
type exitCode int

func (c exitCode) Error() string { return fmt.Sprintf("exit %d", int(c)) }

// listenControl opens the control socket at path, mode 0600. A socket file left by a
// daemon that died is removed; since the caller holds the store's lock, no other daemon
// of this store is listening on it.
func listenControl(path string) (net.Listener, error) {
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("control socket %s: a file that is no socket is in the way", path)
		}
		if err := os.Remove(path); err != nil {
			return nil, fmt.Errorf("control socket %s: remove the old one: %w", path, err)
		}
	}
	// Created 0600 from the start, not chmod-ed after a moment of being open to others.
	old := syscall.Umask(0o177)
	l, err := net.Listen("unix", path)
	syscall.Umask(old)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		l.Close()
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	return l, nil
}

// serveControl answers host commands on l until ctx is done.
func (d *daemon) serveControl(ctx context.Context, l net.Listener) {
	go func() {
		<-ctx.Done()
		l.Close()
	}()
	for {
		conn, err := l.Accept()
		if err != nil {
			if ctx.Err() != nil || errors.Is(err, net.ErrClosed) {
				return
			}
			d.log.Error("control socket", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		go d.answer(ctx, conn)
	}
}

// answer answers one connection: one request, one response.
func (d *daemon) answer(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(controlTimeout))
	var req controlRequest
	resp := controlResponse{Code: 2}
	if err := json.NewDecoder(io.LimitReader(conn, maxControlRequest)).Decode(&req); err != nil {
		resp.Stderr = fmt.Sprintf("adjutant: control socket: unreadable request: %v\n", err)
	} else {
		resp = d.execute(ctx, req.Args, req.Stdin)
	}
	if err := json.NewEncoder(conn).Encode(resp); err != nil {
		d.log.Warn("control socket: answer not delivered", "err", err)
	}
}

// execute runs one host command on the daemon's desk. The log names the command, never
// its arguments (game new --password carries passwords).
func (d *daemon) execute(ctx context.Context, args []string, stdin []byte) controlResponse {
	if len(args) == 0 || !hostCommands[args[0]] {
		name := ""
		if len(args) > 0 {
			name = args[0]
		}
		return controlResponse{Code: 2, Stderr: fmt.Sprintf("adjutant: the control socket runs host commands only, not %q\n", name)}
	}
	var out, errb bytes.Buffer
	e := &env{ctx: ctx, stdin: bytes.NewReader(stdin), stdout: &out, stderr: &errb, now: d.now, served: &served{desk: d.desk, db: d.db}}
	code := runEnv(e, args)
	d.log.Info("host command", "command", commandName(args), "exit", code)
	d.poke() // mails it queued go out now
	return controlResponse{Code: code, Stdout: out.String(), Stderr: errb.String()}
}

// commandName is a command's name and its subcommand, for the log.
func commandName(args []string) string {
	if len(args) > 1 && (args[0] == "game" || args[0] == "audit") {
		return args[0] + " " + args[1]
	}
	return args[0]
}

// forward runs the command line args in the daemon listening on socket, when there is
// one, writing its output and returning its exit code. ok is false when no daemon
// answers there (no socket, or one left by a daemon that died): the caller then opens
// the store itself.
func forward(e *env, socket string, args []string) (code int, ok bool, err error) {
	return forwardStdin(e, socket, args, nil)
}

// forwardStdin is forward with the command's standard input.
func forwardStdin(e *env, socket string, args []string, stdin []byte) (code int, ok bool, err error) {
	conn, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return 0, false, nil
	}
	defer conn.Close()
	// From here the request may have reached the daemon: never fall back to the file,
	// which could do it twice.
	conn.SetDeadline(time.Now().Add(controlTimeout))
	if err := json.NewEncoder(conn).Encode(controlRequest{Args: args, Stdin: stdin}); err != nil {
		return 0, true, fmt.Errorf("control socket %s: send: %w", socket, err)
	}
	if uc, isUnix := conn.(*net.UnixConn); isUnix {
		uc.CloseWrite()
	}
	var resp controlResponse
	if err := json.NewDecoder(conn).Decode(&resp); err != nil {
		return 0, true, fmt.Errorf("control socket %s: no answer from the daemon (the command may or may not have run; look before running it again): %w", socket, err)
	}
	io.WriteString(e.stdout, resp.Stdout)
	io.WriteString(e.stderr, resp.Stderr)
	return resp.Code, true, nil
}
