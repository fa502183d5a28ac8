package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/mail"
)

// glance is what a demo's Maildir shows of the mails to its players (issue 20): how
// many, and the median and longest text in lines.
type glance struct {
	mails, median, longest int
}

// readMaildirAtAGlance reads every mail a demo wrote to its Maildir as a mail client
// would, and checks what a player sees first: every mail to a player starts with what
// is due from him ("Your move", "Waiting for", "Game over"), and every mail of one game
// to one player has the same subject (Re: aside), so that every client threads it.
func readMaildirAtAGlance(t *testing.T, dir string) glance {
	t.Helper()
	files, err := os.ReadDir(filepath.Join(dir, "new"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no mails in the Maildir %s: %v", dir, err)
	}
	subjects := map[string]string{}
	var lengths []int
	for _, f := range files {
		raw, err := os.Open(filepath.Join(dir, "new", f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		env, err := mail.ReadEnvelope(raw, 64<<20)
		raw.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.Name(), err)
		}
		first, _, _ := strings.Cut(env.Text, "\n")
		if !strings.HasPrefix(first, "Your move: ") && !strings.HasPrefix(first, "Waiting for ") && !strings.HasPrefix(first, "Game over: ") {
			t.Errorf("%s to %v (%q) starts %q: want what is due from him", f.Name(), env.To, env.Subject, first)
		}
		game, _, _ := strings.Cut(env.Subject, "]")
		key := game + "|" + strings.Join(env.To, ",")
		subject := strings.TrimPrefix(env.Subject, "Re: ")
		if s, ok := subjects[key]; ok && s != subject {
			t.Errorf("%s to %v has subject %q, an earlier mail of the game %q", f.Name(), env.To, subject, s)
		}
		subjects[key] = subject
		lengths = append(lengths, strings.Count(strings.TrimRight(env.Text, "\n"), "\n")+1)
	}
	slices.Sort(lengths)
	g := glance{mails: len(lengths), median: lengths[(len(lengths)-1)/2], longest: lengths[len(lengths)-1]}
	t.Logf("%d mails to players in %s: median %d lines, longest %d", g.mails, dir, g.median, g.longest)
	return g
}
