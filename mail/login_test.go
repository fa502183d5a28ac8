package mail_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

const (
	loginUser     = "game@example.org"
	loginPassword = "right-horse-battery"
	loginWrong    = "wrong-staple-xyz"
)

func startLoginServer(t *testing.T) *devserver.Server {
	t.Helper()
	srv, err := devserver.Start(devserver.Options{Users: map[string]string{loginUser: loginPassword}, Mailboxes: []string{"Processed"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Close() })
	return srv
}

func splitHostPort(t *testing.T, addr string) (string, int) {
	t.Helper()
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		t.Fatal(err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatal(err)
	}
	return host, port
}

// TestCheckIMAP logs in to the embedded server with the right and a wrong password: the
// wrong one is a LoginError that names the protocol, the user and the server, gives the
// server's answer and never the password.
func TestCheckIMAP(t *testing.T) {
	srv := startLoginServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, password, moveTo string
		wantErr                string
		wantMoveTo             bool
	}{
		{name: "right password", password: loginPassword, moveTo: "Processed", wantMoveTo: true},
		{name: "move_to missing", password: loginPassword, moveTo: "Done"},
		{name: "wrong password", password: loginWrong, wantErr: "IMAP login refused for user " + loginUser + " at " + srv.IMAPAddr() + ": NO"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := mail.CheckIMAP(ctx, mail.IMAPConfig{Addr: srv.IMAPAddr(), Security: "none", Username: loginUser, Password: tc.password, MoveTo: tc.moveTo})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckIMAP = %v, want a login", err)
				}
				if got.MoveToExists != tc.wantMoveTo || !got.Idle {
					t.Errorf("CheckIMAP = %+v, want MoveToExists %v and IDLE", got, tc.wantMoveTo)
				}
				if _, err := srv.Mailbox(loginUser, "Done"); err == nil {
					t.Error("the check created move_to: it must change nothing")
				}
				return
			}
			var le *mail.LoginError
			if !errors.As(err, &le) || le.Proto != "IMAP" {
				t.Fatalf("CheckIMAP = %v, want an IMAP LoginError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantErr) || strings.Contains(err.Error(), tc.password) {
				t.Errorf("error %q, want it to start %q and not show the password", err, tc.wantErr)
			}
		})
	}
	// Nobody listening is not a refused login.
	_, err := mail.CheckIMAP(ctx, mail.IMAPConfig{Addr: "127.0.0.1:1", Security: "none", Username: loginUser, Password: loginPassword})
	var le *mail.LoginError
	if err == nil || errors.As(err, &le) || !strings.Contains(err.Error(), "dial") {
		t.Errorf("CheckIMAP to a closed port = %v, want a dial error", err)
	}
}

// TestCheckSMTP: with a user, AUTH with the right password passes and a wrong one is a
// LoginError; without a user nothing is asked (no password needed).
func TestCheckSMTP(t *testing.T) {
	srv := startLoginServer(t)
	host, port := splitHostPort(t, srv.SMTPAddr())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, tc := range []struct {
		name, user, password, wantErr string
	}{
		{name: "right password", user: loginUser, password: loginPassword},
		{name: "no user, no password", user: "", password: ""},
		{name: "wrong password", user: loginUser, password: loginWrong, wantErr: "SMTP login refused for user " + loginUser + " at " + srv.SMTPAddr() + ": 535"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := mail.CheckSMTP(ctx, mail.SMTPConfig{Host: host, Port: port, Security: "none", Username: tc.user, Password: tc.password, From: loginUser})
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckSMTP = %v, want nil", err)
				}
				return
			}
			var le *mail.LoginError
			if !errors.As(err, &le) || le.Proto != "SMTP" {
				t.Fatalf("CheckSMTP = %v, want an SMTP LoginError", err)
			}
			if !strings.HasPrefix(err.Error(), tc.wantErr) || strings.Contains(err.Error(), tc.password) {
				t.Errorf("error %q, want it to start %q and not show the password", err, tc.wantErr)
			}
		})
	}
	if srv.Accepted() != 0 {
		t.Errorf("the check sent %d mails, want none", srv.Accepted())
	}
}

// TestIntakeRunLoginRefusedBacksOff: with a wrong password Run logs, at error level, that
// the login was refused (user and server named, password never), and waits longer before
// each new try, doubling up to MaxBackoff.
func TestIntakeRunLoginRefusedBacksOff(t *testing.T) {
	srv := startLoginServer(t)
	var logs smtpLockedBuffer
	in := &mail.Intake{
		Config:     mail.IMAPConfig{Addr: srv.IMAPAddr(), Security: "none", Username: loginUser, Password: loginWrong},
		Handle:     func(context.Context, mail.Delivery) error { return nil },
		Log:        slog.New(slog.NewTextHandler(&logs, nil)),
		MinBackoff: 10 * time.Millisecond,
		MaxBackoff: 40 * time.Millisecond,
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- in.Run(ctx) }()
	line := regexp.MustCompile(`(?m)^.*level=ERROR msg="IMAP login refused for user ` + regexp.QuoteMeta(loginUser) + ` at ` +
		regexp.QuoteMeta(srv.IMAPAddr()) + `: NO [^"]*" attempt=(\d+) retry_in=(\S+)$`)
	deadline := time.After(30 * time.Second)
	for len(line.FindAllString(logs.String(), -1)) < 5 {
		select {
		case <-deadline:
			cancel()
			t.Fatalf("no five refused logins logged:\n%s", logs.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Run = %v, want nil after cancel", err)
	}
	out := logs.String()
	var waits []string
	for i, m := range line.FindAllStringSubmatch(out, 5) {
		if m[1] != strconv.Itoa(i+1) {
			t.Errorf("attempt %s logged as number %d", m[1], i+1)
		}
		waits = append(waits, m[2])
	}
	if got, want := strings.Join(waits, " "), "10ms 20ms 40ms 40ms 40ms"; got != want {
		t.Errorf("back-off %s, want %s", got, want)
	}
	if strings.Contains(out, loginWrong) {
		t.Errorf("the log shows the password:\n%s", out)
	}
}
