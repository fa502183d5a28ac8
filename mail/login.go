package mail

import (
	"errors"
	"fmt"
	"strings"

	"github.com/emersion/go-imap/v2"
)

// LoginError says that a server refused the game mailbox's login (or that the login could
// not be attempted, such as a server offering no AUTH the client can use). It names the
// protocol, the user and the server, and gives the server's answer; never the password.
// The intake and the sender return it so that the daemon's log, and `adjutant config
// check`, can say which login failed and why, rather than "connection failed".
type LoginError struct {
	Proto string // "IMAP" or "SMTP"
	User  string
	Addr  string // host:port
	Err   error  // the server's answer
}

func (e *LoginError) Error() string {
	return fmt.Sprintf("%s login refused for user %s at %s: %s", e.Proto, e.User, e.Addr, loginReason(e.Err))
}

func (e *LoginError) Unwrap() error { return e.Err }

// loginReason is the server's answer without the library's prefix ("imap: NO
// [AUTHENTICATIONFAILED] ..." becomes "NO [AUTHENTICATIONFAILED] ...").
func loginReason(err error) string {
	if err == nil {
		return "no reason given"
	}
	var ierr *imap.Error
	if errors.As(err, &ierr) {
		return strings.TrimPrefix(ierr.Error(), "imap: ")
	}
	// go-mail's wrapping of a refused AUTH, which the protocol already says.
	return strings.TrimPrefix(err.Error(), "SMTP AUTH failed: ")
}
