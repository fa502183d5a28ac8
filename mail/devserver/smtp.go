package devserver

import (
	"errors"
	"fmt"
	"io"
	"net"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

var errSMTPDown = &smtp.SMTPError{
	Code:         421,
	EnhancedCode: smtp.EnhancedCode{4, 3, 2},
	Message:      "Service not available, try again later",
}

type smtpBackend struct{ s *Server }

func (b smtpBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	return &smtpSession{s: b.s, conn: c}, nil
}

// smtpSession is one SMTP connection. Submission is accepted without authentication
// (the server listens on loopback only); AUTH PLAIN checks the Users' passwords.
type smtpSession struct {
	s        *Server
	conn     *smtp.Conn
	authUser string

	from  string
	rcpts []*account
}

var _ smtp.AuthSession = (*smtpSession)(nil)

func (sess *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (sess *smtpSession) Auth(mech string) (sasl.Server, error) {
	if mech != sasl.Plain {
		return nil, smtp.ErrAuthUnknownMechanism
	}
	return sasl.NewPlainServer(func(identity, username, password string) error {
		if identity != "" && canonAddr(identity) != canonAddr(username) {
			return smtp.ErrAuthFailed
		}
		acct := sess.s.checkLogin(username, password)
		if acct == nil {
			sess.s.log.Debug("devserver SMTP auth failed", "user", username)
			return smtp.ErrAuthFailed
		}
		sess.authUser = acct.addr
		return nil
	}), nil
}

func (sess *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if sess.s.smtpIsDown() {
		return errSMTPDown
	}
	sess.from = from
	return nil
}

func (sess *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if sess.s.smtpIsDown() {
		return errSMTPDown
	}
	acct := sess.s.account(to)
	if acct == nil || sess.s.isRejected(to) {
		sess.s.log.Debug("devserver SMTP recipient refused", "to", to, "known", acct != nil)
		return &smtp.SMTPError{
			Code:         550,
			EnhancedCode: smtp.EnhancedCode{5, 1, 1},
			Message:      fmt.Sprintf("<%s>: Recipient address rejected: user unknown", to),
		}
	}
	for _, a := range sess.rcpts {
		if a == acct {
			return nil // the same mailbox once
		}
	}
	sess.rcpts = append(sess.rcpts, acct)
	return nil
}

func (sess *smtpSession) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		var smtpErr *smtp.SMTPError
		if errors.As(err, &smtpErr) {
			return smtpErr // 552 message too big
		}
		return err
	}
	if sess.s.smtpIsDown() {
		return errSMTPDown
	}
	if sess.s.isShut() {
		return errSMTPDown
	}
	sess.s.mu.Lock()
	sess.s.queueID++
	id := fmt.Sprintf("%08X", sess.s.queueID)
	sess.s.mu.Unlock()

	for _, acct := range sess.rcpts {
		msg := append(sess.traceHeaders(acct.addr, id), raw...)
		uid, err := sess.s.appendInbox(acct, msg)
		if err != nil {
			sess.s.log.Error("devserver SMTP delivery failed", "to", acct.addr, "err", err)
			return &smtp.SMTPError{
				Code:         451,
				EnhancedCode: smtp.EnhancedCode{4, 3, 0},
				Message:      "Local error in delivery, try again later",
			}
		}
		sess.s.log.Debug("devserver delivered", "id", id, "from", sess.from, "to", acct.addr, "uid", uid, "bytes", len(msg))
	}
	sess.s.mu.Lock()
	sess.s.accepted++
	sess.s.mu.Unlock()
	return nil
}

// traceHeaders are the Return-Path and Received fields a delivering MTA prepends.
func (sess *smtpSession) traceHeaders(rcpt, id string) []byte {
	with := "ESMTP"
	if sess.authUser != "" {
		with = "ESMTPA" // RFC 3848
	}
	remote := "127.0.0.1"
	if addr, ok := sess.conn.Conn().RemoteAddr().(*net.TCPAddr); ok {
		remote = addr.IP.String()
	}
	helo := sess.conn.Hostname()
	if helo == "" {
		helo = "unknown"
	}
	return fmt.Appendf(nil, "Return-Path: <%s>\r\nReceived: from %s (localhost [%s])\r\n\tby localhost (Adjutant devserver) with %s id %s\r\n\tfor <%s>; %s\r\n",
		sess.from, helo, remote, with, id, rcpt, time.Now().Format(time.RFC1123Z))
}

func (sess *smtpSession) Reset() {
	sess.from = ""
	sess.rcpts = nil
}

func (sess *smtpSession) Logout() error { return nil }
