package devserver

import (
	"bytes"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapserver"
	"github.com/emersion/go-imap/v2/imapserver/imapmemserver"
)

// imapSession is one IMAP connection's session: imapmemserver's UserSession once logged
// in, with login names matched case-insensitively.
type imapSession struct {
	s                          *Server
	*imapmemserver.UserSession // nil until Login
}

func (sess *imapSession) Login(username, password string) error {
	acct := sess.s.checkLogin(username, password)
	if acct == nil {
		sess.s.log.Debug("devserver IMAP login failed", "user", username)
		return imapserver.ErrAuthFailed
	}
	sess.UserSession = imapmemserver.NewUserSession(acct.user)
	return nil
}

// Idle replaces imapmemserver's, which waits for a wake-up from the mailbox tracker
// without first looking at the updates already queued: an update queued between the
// last command's poll and the moment the tracker's IDLE registers itself (that is,
// also after the client has read "+ idling") is not sent until some later update.
// Here one goroutine polls the session's queue on start, whenever the Server signals a
// change (every delivery and every mutating IMAP command), and every idlePoll as a
// safety net.
func (sess *imapSession) Idle(w *imapserver.UpdateWriter, stop <-chan struct{}) error {
	tick := time.NewTicker(idlePoll)
	defer tick.Stop()
	for {
		wake := sess.s.changed() // taken before polling, so that no signal is missed
		if err := sess.UserSession.Poll(w, true); err != nil {
			return err
		}
		select {
		case <-stop:
			return nil
		case <-wake:
		case <-tick.C:
		}
	}
}

const idlePoll = time.Second

// The mutating commands signal idlers in other sessions once they are done.

func (sess *imapSession) Append(mailbox string, r imap.LiteralReader, options *imap.AppendOptions) (*imap.AppendData, error) {
	defer sess.s.signal()
	return sess.UserSession.Append(mailbox, r, options)
}

func (sess *imapSession) Store(w *imapserver.FetchWriter, numSet imap.NumSet, flags *imap.StoreFlags, options *imap.StoreOptions) error {
	defer sess.s.signal()
	return sess.UserSession.Store(w, numSet, flags, options)
}

func (sess *imapSession) Fetch(w *imapserver.FetchWriter, numSet imap.NumSet, options *imap.FetchOptions) error {
	defer sess.s.signal() // a FETCH without PEEK sets \Seen
	return sess.UserSession.Fetch(w, numSet, options)
}

func (sess *imapSession) Expunge(w *imapserver.ExpungeWriter, uids *imap.UIDSet) error {
	defer sess.s.signal()
	return sess.UserSession.Expunge(w, uids)
}

func (sess *imapSession) Copy(numSet imap.NumSet, dest string) (*imap.CopyData, error) {
	defer sess.s.signal()
	return sess.UserSession.Copy(numSet, dest)
}

func (sess *imapSession) Move(w *imapserver.MoveWriter, numSet imap.NumSet, dest string) error {
	defer sess.s.signal()
	return sess.UserSession.Move(w, numSet, dest)
}

// noMoveSession hides imapmemserver's Move, so that imapserver answers MOVE with BAD
// like a server without the extension; NAMESPACE stays.
type noMoveSession struct {
	imapserver.Session
	ns imapserver.SessionNamespace
}

func (sess noMoveSession) Namespace() (*imap.NamespaceData, error) { return sess.ns.Namespace() }

func (s *Server) newIMAPSession(*imapserver.Conn) (imapserver.Session, *imapserver.GreetingData, error) {
	sess := &imapSession{s: s}
	if s.opts.NoMove {
		return noMoveSession{Session: sess, ns: sess}, nil, nil
	}
	return sess, nil, nil
}

// rewriteResponse adjusts one line the IMAP server writes (see the package doc).
func (s *Server) rewriteResponse(line []byte, start bool) []byte {
	if start && s.opts.NoIdle {
		line = dropCaps(line, "IDLE")
	}
	return canonicalFlagLists(line)
}

// rewriteCommand adjusts one line a client writes: with NoIdle, IDLE becomes a command
// the server does not know, so the client gets "BAD Unknown command".
func (s *Server) rewriteCommand(line []byte, start bool) []byte {
	if !start || !s.opts.NoIdle {
		return line
	}
	fields := bytes.Fields(line)
	if len(fields) == 2 && strings.EqualFold(string(fields[1]), "IDLE") {
		out := append([]byte{}, fields[0]...)
		return append(out, " XIDLE-UNSUPPORTED\r\n"...)
	}
	return line
}

// dropCaps removes the named capabilities from a "* CAPABILITY ..." line or from a
// "[CAPABILITY ...]" response code of an untagged or tagged status response.
func dropCaps(line []byte, drop ...string) []byte {
	var from, to int
	if rest, ok := bytes.CutPrefix(line, []byte("* CAPABILITY ")); ok {
		from = len(line) - len(rest)
		to = len(bytes.TrimRight(line, "\r\n"))
	} else {
		// "<tag> OK [CAPABILITY ...] text" (also PREAUTH, NO, BAD, BYE).
		sp := bytes.IndexByte(line, ' ')
		if sp < 0 {
			return line
		}
		rest := line[sp+1:]
		sp2 := bytes.IndexByte(rest, ' ')
		if sp2 < 0 || !bytes.HasPrefix(rest[sp2+1:], []byte("[CAPABILITY ")) {
			return line
		}
		from = sp + 1 + sp2 + 1 + len("[CAPABILITY ")
		end := bytes.IndexByte(line[from:], ']')
		if end < 0 {
			return line
		}
		to = from + end
	}
	var kept [][]byte
	for _, c := range bytes.Fields(line[from:to]) {
		keep := true
		for _, d := range drop {
			if strings.EqualFold(string(c), d) {
				keep = false
			}
		}
		if keep {
			kept = append(kept, c)
		}
	}
	out := append([]byte{}, line[:from]...)
	out = append(out, bytes.Join(kept, []byte(" "))...)
	return append(out, line[to:]...)
}

// canonicalFlagLists gives the system flags in every "FLAGS (...)" list of a line their
// canonical case (imapmemserver lower-cases all flags).
func canonicalFlagLists(line []byte) []byte {
	const key = "FLAGS ("
	if !bytes.Contains(line, []byte(key)) {
		return line
	}
	out := make([]byte, 0, len(line))
	for {
		i := bytes.Index(line, []byte(key))
		if i < 0 {
			break
		}
		i += len(key)
		out = append(out, line[:i]...)
		line = line[i:]
		j := bytes.IndexByte(line, ')')
		if j < 0 {
			break
		}
		for k, f := range bytes.Split(line[:j], []byte(" ")) {
			if k > 0 {
				out = append(out, ' ')
			}
			out = append(out, canonicalFlag(string(f))...)
		}
		line = line[j:]
	}
	return append(out, line...)
}

var systemFlags = []imap.Flag{
	imap.FlagSeen, imap.FlagAnswered, imap.FlagFlagged, imap.FlagDeleted, imap.FlagDraft,
	"\\Recent",
	imap.FlagForwarded, imap.FlagMDNSent, imap.FlagJunk, imap.FlagNotJunk, imap.FlagPhishing,
}

// canonicalFlag returns a system flag (or a well-known keyword) in its registered case,
// and any other flag unchanged.
func canonicalFlag(f string) string {
	for _, sf := range systemFlags {
		if strings.EqualFold(f, string(sf)) {
			return string(sf)
		}
	}
	return f
}
