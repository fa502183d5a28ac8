package devserver

import (
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"sync"
	"time"
)

// trackListener wraps a listener so that the Server knows every connection it accepted.
type trackListener struct {
	net.Listener
	s        *Server
	imap     bool // IMAP (wire filters on) rather than SMTP
	internal bool // Mailbox's own sessions: not dropped by DropIMAPConnections

	closeOnce sync.Once
	closeErr  error
}

func (l *trackListener) Accept() (net.Conn, error) {
	for {
		nc, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if !l.imap && l.s.smtpIsDown() {
			// A server that is down answers the greeting with 421 and hangs up.
			nc.SetWriteDeadline(time.Now().Add(time.Second))
			io.WriteString(nc, "421 4.3.2 localhost Service not available, closing transmission channel\r\n")
			nc.Close()
			l.s.log.Debug("devserver SMTP down: refused a connection")
			continue
		}
		c := &trackedConn{Conn: nc, s: l.s, imap: l.imap, internal: l.internal, released: make(chan struct{})}
		if l.imap {
			c.rf = &lineFilter{transform: l.s.rewriteCommand}
			c.wf = &lineFilter{transform: l.s.rewriteResponse}
		}
		if !l.s.register(c) {
			nc.Close()
			return nil, net.ErrClosed
		}
		return c, nil
	}
}

func (l *trackListener) Close() error {
	l.closeOnce.Do(func() { l.closeErr = l.Listener.Close() })
	return l.closeErr
}

// trackedConn is an accepted connection. Close is what the protocol server calls when
// it is done with the connection; forceClose is the Server cutting it.
type trackedConn struct {
	net.Conn
	s        *Server
	imap     bool
	internal bool

	rf, wf *lineFilter // IMAP only: client commands and server responses

	rmu  sync.Mutex
	rbuf []byte // filtered bytes not yet returned by Read
	rerr error  // error to return once rbuf is drained
	wmu  sync.Mutex

	mu       sync.Mutex
	forced   bool
	closed   bool
	released chan struct{} // closed on the server's first Close
}

func (c *trackedConn) Read(p []byte) (int, error) {
	if c.rf == nil {
		n, err := c.Conn.Read(p)
		return n, c.mapErr(err)
	}
	c.rmu.Lock()
	defer c.rmu.Unlock()
	var buf [4096]byte
	for len(c.rbuf) == 0 {
		if err := c.rerr; err != nil {
			c.rerr = nil
			return 0, err
		}
		n, err := c.Conn.Read(buf[:])
		c.rbuf = c.rf.feed(c.rbuf, buf[:n])
		if err != nil {
			// Hand a partial last line over too: the connection is over anyway.
			c.rbuf = c.rf.flush(c.rbuf)
			c.rerr = c.mapErr(err)
		}
	}
	n := copy(p, c.rbuf)
	c.rbuf = c.rbuf[n:]
	return n, nil
}

func (c *trackedConn) Write(p []byte) (int, error) {
	if c.wf == nil {
		n, err := c.Conn.Write(p)
		return n, c.mapErr(err)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	out := c.wf.feed(nil, p)
	if len(out) > 0 {
		if _, err := c.Conn.Write(out); err != nil {
			return 0, c.mapErr(err)
		}
	}
	return len(p), nil
}

// mapErr reports any failure on a connection the Server cut as net.ErrClosed, which
// both servers treat as a quiet end (a net.Pipe would say io.ErrClosedPipe).
func (c *trackedConn) mapErr(err error) error {
	if err == nil {
		return nil
	}
	c.mu.Lock()
	forced := c.forced
	c.mu.Unlock()
	if forced && !errors.Is(err, net.ErrClosed) {
		return net.ErrClosed
	}
	return err
}

// Close is called by the protocol server when it is done with the connection.
func (c *trackedConn) Close() error {
	c.mu.Lock()
	first := !c.closed
	c.closed = true
	c.mu.Unlock()
	if !first {
		return nil
	}
	err := c.Conn.Close()
	if c.forcedClose() {
		err = nil
	}
	c.s.unregister(c)
	close(c.released)
	return err
}

func (c *trackedConn) forcedClose() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.forced
}

// forceClose cuts the connection under the server's feet; the server then fails to
// read or write and calls Close. It reports whether the connection was still open.
func (c *trackedConn) forceClose() bool {
	c.mu.Lock()
	open := !c.forced && !c.closed
	c.forced = true
	c.mu.Unlock()
	if open {
		c.Conn.Close()
	}
	return open
}

// pipeListener hands in-process connections (net.Pipe) to imapserver, so that Mailbox
// reads a mailbox without a socket.
type pipeListener struct {
	ch   chan net.Conn
	done chan struct{}
	once sync.Once
}

func newPipeListener() *pipeListener {
	return &pipeListener{ch: make(chan net.Conn), done: make(chan struct{})}
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.ch:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial() (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.ch <- server:
		return client, nil
	case <-l.done:
		client.Close()
		server.Close()
		return nil, ErrClosed
	}
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "devserver" }

// lineFilter rewrites an IMAP byte stream line by line, passing literals ({n}) through
// untouched. transform gets each complete line (CRLF included) and whether it starts a
// command or response (false for the rest of a line after a literal).
//
// Lines are held until complete; that is safe for IMAP, whose peers flush only after a
// CRLF or inside a literal, and never wait on a partial line.
type lineFilter struct {
	transform func(line []byte, start bool) []byte

	line     []byte
	lit      int64 // literal bytes still to pass through
	cont     bool  // the next line continues a command after a literal
	overflow bool  // the current line outgrew maxLine and is passed through as is
}

const maxLine = 64 << 10

func (f *lineFilter) feed(out, in []byte) []byte {
	for len(in) > 0 {
		if f.lit > 0 {
			n := int64(len(in))
			if n > f.lit {
				n = f.lit
			}
			out = append(out, in[:n]...)
			in = in[n:]
			f.lit -= n
			if f.lit == 0 {
				f.cont = true
			}
			continue
		}
		i := bytes.IndexByte(in, '\n')
		if i < 0 {
			f.line = append(f.line, in...)
			if len(f.line) > maxLine {
				out = append(out, f.line...)
				f.line = f.line[:0]
				f.overflow = true
			}
			break
		}
		f.line = append(f.line, in[:i+1]...)
		in = in[i+1:]
		line := f.line
		if !f.overflow {
			line = f.transform(line, !f.cont)
		}
		out = append(out, line...)
		n, ok := literalSuffix(f.line)
		switch {
		case ok && n > 0:
			f.lit = n
		case ok: // {0}: nothing to skip, the command goes on
			f.cont = true
		default:
			f.cont = false
		}
		f.line = f.line[:0]
		f.overflow = false
	}
	return out
}

func (f *lineFilter) flush(out []byte) []byte {
	out = append(out, f.line...)
	f.line = f.line[:0]
	return out
}

// literalSuffix reports whether line ends with a literal announcement, "{n}\r\n" (or
// "{n+}", "~{n}"), and its size.
func literalSuffix(line []byte) (int64, bool) {
	line = bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))
	if len(line) == 0 || line[len(line)-1] != '}' {
		return 0, false
	}
	open := bytes.LastIndexByte(line, '{')
	if open < 0 {
		return 0, false
	}
	digits := bytes.TrimSuffix(bytes.TrimSuffix(line[open+1:len(line)-1], []byte("+")), []byte("-"))
	n, err := strconv.ParseInt(string(digits), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}
