package main

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail/devserver"
)

// realDSN is a bounce as Postfix writes it (RFC 3464) to the envelope sender returnPath
// of a mail it could not deliver to final.
func realDSN(id, returnPath, final, action string) []byte {
	return []byte(strings.ReplaceAll("Return-Path: <>\nDelivered-To: "+returnPath+"\n"+
		"From: MAILER-DAEMON@mx.players.example (Mail Delivery System)\nTo: "+returnPath+"\n"+
		"Subject: Undelivered Mail Returned to Sender\nMessage-Id: <"+id+">\nAuto-Submitted: auto-replied\nMIME-Version: 1.0\n"+
		"Content-Type: multipart/report; report-type=delivery-status; boundary=\"B.1\"\n\n"+
		"--B.1\nContent-Description: Notification\nContent-Type: text/plain; charset=us-ascii\n\n"+
		"This is the mail system at host mx.players.example.\n\n<"+final+">: mailbox unavailable\n\n"+
		"--B.1\nContent-Description: Delivery report\nContent-Type: message/delivery-status\n\n"+
		"Reporting-MTA: dns; mx.players.example\nArrival-Date: Sat, 28 Nov 2026 05:00:00 +0000\n\n"+
		"Final-Recipient: rfc822; "+final+"\nOriginal-Recipient: rfc822;"+final+"\nAction: "+action+"\nStatus: 5.1.1\n"+
		"Diagnostic-Code: smtp; 550 5.1.1 user unknown\n\n"+
		"--B.1\nContent-Description: Undelivered Message Headers\nContent-Type: text/rfc822-headers\n\n"+
		"From: Adjutant <"+sampleAddress+">\nTo: "+final+"\nSubject: invitation\n\n--B.1--\n", "\n", "\r\n"))
}

// TestBounceUnderServe (issue 19): the daemon sends the German his invitation over SMTP
// from a tagged VERP address; a stranger's bounces (the outbox number guessed without
// the tag, the right address with another Final-Recipient, a delay warning, a vacation
// notice) mark nobody, and the bounce his provider sends to that address marks him and
// tells the US player.
func TestBounceUnderServe(t *testing.T) {
	srv, err := devserver.Start(devserver.Options{Users: map[string]string{
		sampleAddress: "game-mailbox-password", sampleUS: "us-mail", sampleDE: "de-mail"}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	dir := t.TempDir()
	path := filepath.Join(dir, "adjutant.toml")
	writeConfig(t, path, demoConfig(srv, filepath.Join(dir, "games.db")))
	mustCLI(t, nil, "game", "new", "--config", path, "--name", sampleGame, "--player", "us="+sampleUS, "--player", "de="+sampleDE)

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	logs := &syncBuffer{}
	wait := serveConfig(ctx, path, logs)
	defer func() { cancel(); wait() }()

	de := &player{addr: sampleDE, password: "de-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	got, err := de.waitFor(ctx, nil, func(r received) bool { return strings.Contains(r.Env.Text, "You are invited") })
	if err != nil {
		t.Fatalf("no invitation: %v\n%s", err, logs)
	}
	returnPath := strings.Trim(headerOf(got[len(got)-1].Raw, "Return-Path"), "<>")
	local, domain, _ := strings.Cut(sampleAddress, "@")
	m := regexp.MustCompile(`^` + regexp.QuoteMeta(local) + `\+b-([0-9]+)-[0-9a-f]{16}@` + regexp.QuoteMeta(domain) + `$`).FindStringSubmatch(returnPath)
	if m == nil {
		t.Fatalf("the invitation's envelope sender is %q, want %s+b-<number>-<16 hex digits>@%s", returnPath, local, domain)
	}
	guessed := fmt.Sprintf("%s+b-%s@%s", local, m[1], domain)
	forged := [][]byte{
		realDSN("f1@mx", guessed, sampleDE, "failed"),
		realDSN("f2@mx", returnPath, "someone.else@players.example", "failed"),
		realDSN("f3@mx", returnPath, sampleDE, "delayed"),
		[]byte("From: " + sampleDE + "\r\nTo: " + returnPath + "\r\nSubject: Out of office\r\nMessage-ID: <f4@players.example>\r\n" +
			"Auto-Submitted: auto-replied\r\n\r\nI am away until Monday.\r\n"),
	}
	for _, raw := range forged {
		if err := srv.Deliver(sampleAddress, raw); err != nil {
			t.Fatal(err)
		}
	}
	// Once the four are handled, nobody is marked: no mail says the German bounces.
	for {
		processed, err := srv.Mailbox(sampleAddress, "Processed")
		if err == nil && len(processed) >= len(forged) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the forged bounces were not handled: %v\n%s", err, logs)
		case <-time.After(50 * time.Millisecond):
		}
	}
	for _, o := range outboxBy(t, "--config", path) {
		if strings.HasPrefix(o.Kind, "bounce:") {
			t.Fatalf("a forged bounce marked the German: %q to %v", o.Subject, o.To)
		}
	}
	if err := srv.Deliver(sampleAddress, realDSN("real@mx", returnPath, sampleDE, "failed")); err != nil {
		t.Fatal(err)
	}
	us := &player{addr: sampleUS, password: "us-mail", imapAddr: srv.IMAPAddr(), smtpAddr: srv.SMTPAddr()}
	if _, err := us.waitFor(ctx, nil, func(r received) bool { return strings.Contains(r.Env.Text, "player bounces") }); err != nil {
		t.Fatalf("the US player was not told of the real bounce: %v\n%s", err, logs)
	}
}
