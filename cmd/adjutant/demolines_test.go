package main

import (
	"context"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestDemoMailsReadOnAPhone plays the demo match over IMAP and SMTP and reads every mail
// as the players' clients decode it (issue 8): no line longer than 78 characters, the
// sender shown by name, and every mail of a game in one thread per player, rooted at the
// invitation.
func TestDemoMailsReadOnAPhone(t *testing.T) {
	e := &env{ctx: context.Background(), stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, cost: 4}
	res, err := playByMail(e, demoOpts{quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	for addr, mails := range res.mails {
		roots := map[string]string{} // game -> invitation Message-ID
		for _, m := range mails {
			total++
			for i, line := range strings.Split(m.Env.Text, "\n") {
				if n := utf8.RuneCountInString(line); n > 78 {
					t.Errorf("%s, %q line %d has %d characters:\n%s", addr, m.Env.Subject, i+1, n, line)
				}
			}
			if from := headerOf(m.Raw, "From"); !strings.HasPrefix(from, `"Adjutant" <`) && !strings.HasPrefix(from, "Adjutant <") {
				t.Errorf("%q: From %q has no display name", m.Env.Subject, from)
			}
			game := strings.TrimPrefix(m.Env.Subject[:strings.IndexByte(m.Env.Subject, ']')], "[")
			if strings.Contains(m.Env.Text, "You are invited to play game") {
				roots[game] = m.Env.MessageID
				continue
			}
			root, ok := roots[game]
			if !ok {
				t.Errorf("%s: %q arrived before its game's invitation", addr, m.Env.Subject)
				continue
			}
			if len(m.Env.References) == 0 || m.Env.References[0] != root {
				t.Errorf("%s: %q has References %v, want the invitation %s first", addr, m.Env.Subject, m.Env.References, root)
			}
		}
	}
	t.Logf("the demo match delivered %d mails", total)
}
