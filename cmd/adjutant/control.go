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
	"os/user"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/store"
)

// The control socket: while `serve` holds the bbolt file (locked, one process at a time),
// the host commands reach the daemon through a Unix socket beside it, so that a host
// never stops the daemon to create a game or read an audit.
//
// The protocol is one JSON request per connection, after which the client shuts down its
// writing side, answered by one JSON response:
//
//	request:  {"args": ["audit", "verify", "--config", "adjutant.toml", "--game", "verdun"]}
//	response: {"code": 0, "stdout": "audit of verdun verified: ...", "stderr": ""}
//
// args is the command line as the host typed it; the daemon parses it with the same flag
// sets and runs the same command function on its own desk and store (see hostCommand), so
// that the command does the same whether it ran here or there. The flags that name the
// store (--config, --db, --address) were checked by the client, which found the socket
// through them; the daemon uses its own store. A response with "refused" set ran nothing:
// the daemon was busy, the request too large or too slow, or its sender not allowed.
//
// Both ends trust only their own user and root. Game new sends the players' passwords and
// handle a whole mail, so the client sends nothing to a socket file that another user
// owns (he could have made it, in a shared directory such as /tmp) nor to a server that
// runs as another user (SO_PEERCRED, which also covers a file swapped after it was
// looked at). The daemon runs commands only from its own user and root, makes the socket
// mode 0600, and never removes a socket file it does not own.

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
	// Refused, when set, says why the daemon ran nothing; Code is then exitTempFail.
	Refused string `json:"refused,omitempty"`
}

const (
	// maxForwardedMessage bounds the message handle forwards (its --max-size is held to
	// it when it goes through the socket).
	maxForwardedMessage = 32 << 20
	// handleDefaultMaxSize is handle's default --max-size: a daemon takes a message of
	// that size whatever its own max_message_size, so that a plain `handle` is never
	// refused for its size.
	handleDefaultMaxSize = 1 << 20
	// controlRequestMargin is what a request holds besides the message: the command
	// line and the JSON around it.
	controlRequestMargin = 64 << 10
	// controlTimeout bounds one request seen from the client: waiting for the daemon,
	// running the command (replay of a long game included) and the answer.
	controlTimeout = 10 * time.Minute
)

// controlLimits bound what the host commands in flight hold in the daemon.
type controlLimits struct {
	// slots is how many requests are read and run at once; queue how many more wait for
	// a slot, for at most wait. Beyond them a request is refused as busy at once.
	slots, queue int
	wait         time.Duration
	// maxRequest bounds one request in bytes; budget the bytes of every request being
	// read or run, counted as the capacity of their buffers.
	maxRequest, budget int64
	// readTimeout bounds the reading of one request from the moment it has a slot,
	// waiting for budget included: a client that never finishes frees its slot then.
	readTimeout time.Duration
}

// defaultControlLimits are the limits of a daemon whose max_message_size is
// maxMessage: one request as large as the largest message handle forwards to it, and
// besides it room for the small requests of the other commands.
func defaultControlLimits(maxMessage int64) controlLimits {
	msg := min(max(maxMessage, handleDefaultMaxSize), maxForwardedMessage) + 1 // handle reads one byte more to see that a message is too large
	maxRequest := int64(base64.StdEncoding.EncodedLen(int(msg))) + controlRequestMargin
	return controlLimits{slots: 4, queue: 32, wait: 30 * time.Second,
		maxRequest: maxRequest, budget: maxRequest + 8<<20, readTimeout: 30 * time.Second}
}

// hostCommands are the commands the control socket runs: every command about the store
// that a host types, and nothing that serves, reads standard input or benchmarks.
var hostCommands = map[string]bool{
	"game": true, "outbox": true, "tick": true, "audit": true, "replay": true, "map": true,
	"games": true, "deadline": true, "pause": true, "resume": true, "player": true, "resend": true,
	"handle": true, "store": true,
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

// ownUID is the user both ends of the control socket trust besides root: the
// effective user of this process. A variable so that a test run by an ordinary user can
// play another one.
var ownUID = os.Geteuid

// trustedUID says whether a socket file or a peer of user found may be trusted by a
// process of user own: only its own user and root, who can read the store anyway.
func trustedUID(found, own int) bool {
	return found == own || found == 0
}

// whoIs names a user for a message: its uid, and its login when it has one.
func whoIs(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil && u.Username != "" {
		return fmt.Sprintf("uid %d (%s)", uid, u.Username)
	}
	return fmt.Sprintf("uid %d", uid)
}

// whatToDo ends a refusal of the client: what the host can do about a socket that is not
// his daemon's.
const whatToDo = "If no daemon of yours serves this store, remove that file (or have its owner remove it); " +
	"keep the database, or control_socket in the configuration, in a directory only you can write."

// checkSocketFile checks, before connecting, that the file at path is a socket owned by
// own or root: nothing is sent to a file another user made. An error wrapping
// fs.ErrNotExist means there is no file, so no daemon.
func checkSocketFile(path string, own int) error {
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("control socket %s: %w", path, err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return fmt.Errorf("control socket %s is a symbolic link, not a socket: nothing was sent to it. %s", path, whatToDo)
	case fi.Mode()&fs.ModeSocket == 0:
		return fmt.Errorf("control socket %s is a %s, not a socket: nothing was sent to it. %s", path, fileKind(fi.Mode()), whatToDo)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("control socket %s: its owner cannot be read on this system", path)
	}
	if !trustedUID(int(st.Uid), own) {
		return fmt.Errorf("control socket %s belongs to %s, not to you (%s) or root: it is no daemon of yours, and nothing was sent to it. %s",
			path, whoIs(int(st.Uid)), whoIs(own), whatToDo)
	}
	return nil
}

// fileKind names the kind of a file that is no socket.
func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "regular file"
	default:
		return "special file"
	}
}

// checkPeer checks that the process at the other end of conn runs as own or root.
func checkPeer(conn net.Conn, socket string, own int) error {
	uid, err := peerUID(conn)
	if err != nil {
		return fmt.Errorf("control socket %s: read the user of the daemon: %w", socket, err)
	}
	if !trustedUID(uid, own) {
		return fmt.Errorf("control socket %s: the server at the other end runs as %s, not as you (%s) or root: it is no daemon of yours, and nothing was sent to it. %s",
			socket, whoIs(uid), whoIs(own), whatToDo)
	}
	return nil
}

// listenControl opens the control socket at path, mode 0600, for the daemon's user.
func listenControl(path string) (net.Listener, error) {
	return listenControlAs(path, ownUID())
}

// listenControlAs opens the control socket at path for a daemon of user own. A socket
// file left by a daemon of own that died is removed (since the caller holds the store's
// lock, no other daemon of this store is listening on it); one of another user is left
// alone and refused, as is a directory where anyone may replace the socket.
func listenControlAs(path string, own int) (net.Listener, error) {
	dir := filepath.Dir(path)
	di, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("control socket %s: %w", path, err)
	}
	if di.Mode().Perm()&0o002 != 0 && di.Mode()&fs.ModeSticky == 0 {
		return nil, fmt.Errorf("control socket %s: its directory %s may be written by anyone and has no sticky bit, so anyone could replace the socket; put the database, or control_socket in the configuration, in a directory only you can write", path, dir)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode()&os.ModeSocket == 0 {
			return nil, fmt.Errorf("control socket %s: a file that is no socket is in the way", path)
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); !ok || int(st.Uid) != own {
			owner := "an unknown user"
			if ok {
				owner = whoIs(int(st.Uid))
			}
			return nil, fmt.Errorf("control socket %s belongs to %s, not to this daemon's user (%s): not replaced. Remove it if it is no daemon's (a daemon of that user may be serving this store), or put control_socket in a directory only you can write", path, owner, whoIs(own))
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
	s := newControlServer(d.log, ownUID(), defaultControlLimits(d.cfg.MaxMessageSize), d.execute)
	s.serve(ctx, l)
}

// controlServer answers the requests of one control socket within its limits.
type controlServer struct {
	log    *slog.Logger
	own    int // the daemon's user
	limits controlLimits
	exec   func(ctx context.Context, args []string, stdin []byte) controlResponse

	slots   chan struct{}
	waiting atomic.Int64
	budget  *byteBudget

	// Counts, for the log and the tests.
	ran, refused, running, mostRunning atomic.Int64
}

func newControlServer(log *slog.Logger, own int, lim controlLimits, exec func(context.Context, []string, []byte) controlResponse) *controlServer {
	return &controlServer{log: log, own: own, limits: lim, exec: exec,
		slots: make(chan struct{}, lim.slots), budget: newByteBudget(lim.budget)}
}

// serve accepts connections on l until ctx is done, and returns when every request it
// accepted is answered.
func (s *controlServer) serve(ctx context.Context, l net.Listener) {
	var wg sync.WaitGroup
	defer wg.Wait()
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
			s.log.Error("control socket", "err", err)
			time.Sleep(100 * time.Millisecond)
			continue
		}
		wg.Go(func() { s.answer(ctx, conn) })
	}
}

// errRefused is a request the daemon will not run; its text is the reason told.
type errRefused string

func (e errRefused) Error() string { return string(e) }

// answer answers one connection: one request, one response.
func (s *controlServer) answer(ctx context.Context, conn net.Conn) {
	defer conn.Close()
	resp, run := s.admit(ctx, conn)
	if run != nil {
		defer run()
		resp = s.request(ctx, conn)
	}
	if resp.Refused != "" {
		s.refused.Add(1)
		s.log.Warn("control socket: request refused", "reason", resp.Refused)
	}
	// Not bounded by the read deadline: the command may have run for minutes.
	conn.SetWriteDeadline(time.Now().Add(time.Minute))
	if err := json.NewEncoder(conn).Encode(resp); err != nil {
		s.log.Warn("control socket: answer not delivered", "err", err)
	}
}

// refusal is the response to a request the daemon ran nothing for.
func refusal(why string) controlResponse {
	return controlResponse{Code: exitTempFail, Refused: why, Stderr: "adjutant: the daemon refused the command: " + why + "\n"}
}

// admit checks conn's peer and waits for a slot. It returns either the refusal to send or
// the function that frees the slot.
func (s *controlServer) admit(ctx context.Context, conn net.Conn) (controlResponse, func()) {
	uid, err := peerUID(conn)
	if err != nil {
		return refusal(fmt.Sprintf("the user of the client is unknown: %v", err)), nil
	}
	if !trustedUID(uid, s.own) {
		return refusal(fmt.Sprintf("%s may not send commands to this daemon, which runs as %s: only that user and root may", whoIs(uid), whoIs(s.own))), nil
	}
	if s.waiting.Add(1) > int64(s.limits.queue) {
		s.waiting.Add(-1)
		return refusal(fmt.Sprintf("busy: %d host commands are running and %d waiting; try again in a while", s.limits.slots, s.limits.queue)), nil
	}
	timer := time.NewTimer(s.limits.wait)
	defer timer.Stop()
	defer s.waiting.Add(-1)
	select {
	case s.slots <- struct{}{}:
		return controlResponse{}, func() { <-s.slots }
	case <-timer.C:
		return refusal(fmt.Sprintf("busy: %d host commands ran for longer than this one could wait (%v); try again in a while", s.limits.slots, s.limits.wait)), nil
	case <-ctx.Done():
		return refusal("the daemon is stopping"), nil
	}
}

// request reads one request within the limits and runs it.
func (s *controlServer) request(ctx context.Context, conn net.Conn) controlResponse {
	deadline := time.Now().Add(s.limits.readTimeout)
	conn.SetReadDeadline(deadline)
	rctx, cancel := context.WithDeadline(ctx, deadline)
	stop := context.AfterFunc(ctx, func() { conn.SetReadDeadline(time.Now()) }) // a stopping daemon waits for no client
	raw, held, err := s.readRequest(rctx, conn)
	stop()
	cancel()
	defer s.budget.give(held) // the decoded request, smaller than raw, lives until the end
	var refused errRefused
	switch {
	case err != nil && ctx.Err() != nil:
		return refusal("the daemon is stopping")
	case errors.As(err, &refused):
		return refusal(string(refused))
	case errors.Is(err, os.ErrDeadlineExceeded):
		return refusal(fmt.Sprintf("the request was not read within %v; the client sent %d bytes and did not finish", s.limits.readTimeout, len(raw)))
	case err != nil:
		return controlResponse{Code: 2, Stderr: fmt.Sprintf("adjutant: control socket: unreadable request: %v\n", err)}
	}
	var req controlRequest
	if err := json.Unmarshal(raw, &req); err != nil {
		return controlResponse{Code: 2, Stderr: fmt.Sprintf("adjutant: control socket: unreadable request: %v\n", err)}
	}
	n := s.running.Add(1)
	for m := s.mostRunning.Load(); n > m && !s.mostRunning.CompareAndSwap(m, n); m = s.mostRunning.Load() {
	}
	defer s.running.Add(-1)
	s.ran.Add(1)
	return s.exec(ctx, req.Args, req.Stdin)
}

// readRequest reads conn to its end into a buffer of at most limits.maxRequest bytes,
// whose capacity it takes from the budget before growing it: held is the capacity taken,
// to be given back. A request waits for budget until ctx is done; one that waited and
// then ran out of time is refused as busy, not as slow.
func (s *controlServer) readRequest(ctx context.Context, conn net.Conn) (buf []byte, held int64, err error) {
	busy := errRefused(fmt.Sprintf("busy: the requests in flight hold the %d bytes the daemon gives them; try again in a while", s.limits.budget))
	var chunk [32 << 10]byte
	starved := false
	for {
		n, rerr := conn.Read(chunk[:])
		if n > 0 {
			if int64(len(buf)+n) > s.limits.maxRequest {
				return buf, held, errRefused(fmt.Sprintf("the request is larger than %d bytes, which is what a message of this daemon's max_message_size takes; handle's --max-size should not be larger than max_message_size", s.limits.maxRequest))
			}
			if len(buf)+n > cap(buf) {
				grown := min(max(2*cap(buf), len(buf)+n, 64<<10), int(s.limits.maxRequest))
				waited, err := s.budget.take(ctx, int64(grown-cap(buf)))
				if err != nil {
					return buf, held, busy
				}
				starved = starved || waited
				held += int64(grown - cap(buf))
				buf = append(make([]byte, 0, grown), buf...)
			}
			buf = append(buf, chunk[:n]...)
		}
		switch {
		case rerr == io.EOF:
			return buf, held, nil
		case errors.Is(rerr, os.ErrDeadlineExceeded) && starved:
			return buf, held, busy
		case rerr != nil:
			return buf, held, rerr
		}
	}
}

// byteBudget is a count of bytes that requests take and give back, waiting while it is
// spent.
type byteBudget struct {
	mu         sync.Mutex
	free, peak int64
	size       int64
	given      chan struct{} // closed and replaced whenever bytes are given back
}

func newByteBudget(size int64) *byteBudget {
	return &byteBudget{free: size, size: size, given: make(chan struct{})}
}

// take takes n bytes, waiting for them until ctx is done; waited says whether it had
// to.
func (b *byteBudget) take(ctx context.Context, n int64) (waited bool, err error) {
	for ; ; waited = true {
		b.mu.Lock()
		if n <= b.free {
			b.free -= n
			b.peak = max(b.peak, b.size-b.free)
			b.mu.Unlock()
			return waited, nil
		}
		given := b.given
		b.mu.Unlock()
		select {
		case <-given:
		case <-ctx.Done():
			return waited, ctx.Err()
		}
	}
}

// give gives n bytes back.
func (b *byteBudget) give(n int64) {
	if n == 0 {
		return
	}
	b.mu.Lock()
	b.free += n
	close(b.given)
	b.given = make(chan struct{})
	b.mu.Unlock()
}

// inUse and mostInUse are the bytes taken now and at most so far.
func (b *byteBudget) inUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size - b.free
}

func (b *byteBudget) mostInUse() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.peak
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
// answers there (no socket, or one left by a daemon of this user that died): the caller
// then opens the store itself. A socket file or a server of another user is an error,
// before anything is sent: a host command fails (handle exits 75 and the mail is kept)
// until the host removes it, rather than open the store beside it, so that he learns of
// it.
func forward(e *env, socket string, args []string) (code int, ok bool, err error) {
	return forwardStdin(e, socket, args, nil)
}

// forwardStdin is forward with the command's standard input.
func forwardStdin(e *env, socket string, args []string, stdin []byte) (code int, ok bool, err error) {
	conn, err := dialControl(socket, ownUID())
	if err != nil || conn == nil {
		return 0, conn != nil, err
	}
	defer conn.Close()
	// From here the request may have reached the daemon: never fall back to the file,
	// which could do it twice.
	conn.SetDeadline(time.Now().Add(controlTimeout))
	// Sent while the answer is read: a daemon that refuses a request stops reading it,
	// and its answer says why better than the broken pipe of the send.
	sent := make(chan error, 1)
	go func() {
		err := json.NewEncoder(conn).Encode(controlRequest{Args: args, Stdin: stdin})
		if uc, isUnix := conn.(*net.UnixConn); isUnix && err == nil {
			err = uc.CloseWrite()
		}
		sent <- err
	}()
	var resp controlResponse
	err = json.NewDecoder(conn).Decode(&resp)
	if err != nil {
		conn.Close() // ends the send
		if serr := <-sent; serr != nil {
			return 0, true, fmt.Errorf("control socket %s: send: %w", socket, serr)
		}
		return 0, true, fmt.Errorf("control socket %s: no answer from the daemon (the command may or may not have run; look before running it again): %w", socket, err)
	}
	if resp.Refused != "" {
		return 0, true, fmt.Errorf("control socket %s: the daemon refused the command, which did not run: %s", socket, resp.Refused)
	}
	io.WriteString(e.stdout, resp.Stdout)
	io.WriteString(e.stderr, resp.Stderr)
	return resp.Code, true, nil
}

// dialControl connects to the daemon at socket for a client of user own, after checking
// the socket file and before sending anything, the user of the daemon. It returns no
// connection and no error when no daemon listens there.
func dialControl(socket string, own int) (net.Conn, error) {
	if err := checkSocketFile(socket, own); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	conn, err := net.DialTimeout("unix", socket, 5*time.Second)
	if err != nil {
		return nil, nil // a socket left by a daemon that died
	}
	if err := checkPeer(conn, socket, own); err != nil {
		conn.Close()
		return nil, err
	}
	return conn, nil
}
