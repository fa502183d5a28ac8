package main

import (
	"bytes"
	"encoding/base64"
	"image"
	_ "image/png" // image.DecodeConfig of the mails' pictures
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	netmail "net/mail"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/mail"
)

// glance is what a demo's Maildir shows of the mails to its players (issue 20): how
// many, the median and longest text in lines, and the widest and largest picture.
type glance struct {
	mails, median, longest int
	pictures, widest       int
	heaviest               int // bytes
}

// TestDemosAtAGlance plays each ruleset's demo through pipe mode into a Maildir and
// reads the mails as a player's client would (issue 20, "Done when"): every mail to a
// player starts with what is due from him, one subject per game and player, the median
// mail at most 100 lines and none over 250, every picture at most 1280 px wide and 150
// KB, and the demo's own output at most 200 lines.
func TestDemosAtAGlance(t *testing.T) {
	for _, rs := range []string{"soldiers1918", "mons1914", "soissons1918", "teaching"} {
		t.Run(rs, func(t *testing.T) {
			dir := t.TempDir()
			out := mustCLI(t, nil, "demo", "--ruleset", rs, "--pipe", "--maildir", dir)
			if n := strings.Count(strings.TrimRight(out, "\n"), "\n") + 1; n > 200 {
				t.Errorf("the demo printed %d lines, want at most 200", n)
			}
			g := readMaildirAtAGlance(t, dir)
			if g.median > 100 || g.longest > 250 {
				t.Errorf("the mails to the players are %d lines in the median and %d at most, want at most 100 and 250", g.median, g.longest)
			}
			if g.pictures == 0 || g.widest > 1280 || g.heaviest > 150<<10 {
				t.Errorf("%d pictures, the widest %d px, the largest %d bytes: want some, at most 1280 px and 150 KB", g.pictures, g.widest, g.heaviest)
			}
		})
	}
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
	var g glance
	for _, f := range files {
		raw, err := os.ReadFile(filepath.Join(dir, "new", f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		env, err := mail.ReadEnvelope(bytes.NewReader(raw), 64<<20)
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
		text, pngs := parts(t, f.Name(), raw)
		// The text part's lines as sent, soft line breaks (format=flowed) counted: what a
		// client that does not reflow shows.
		lengths = append(lengths, strings.Count(strings.TrimRight(text, "\r\n"), "\n")+1)
		for _, png := range pngs {
			cfg, _, err := image.DecodeConfig(bytes.NewReader(png))
			if err != nil {
				t.Errorf("%s: a picture that is no PNG: %v", f.Name(), err)
				continue
			}
			g.pictures++
			g.widest, g.heaviest = max(g.widest, cfg.Width), max(g.heaviest, len(png))
		}
	}
	slices.Sort(lengths)
	g.mails, g.median, g.longest = len(lengths), lengths[(len(lengths)-1)/2], lengths[len(lengths)-1]
	t.Logf("%d mails to players in %s: median %d lines, longest %d; %d pictures, the widest %d px, the largest %d KB",
		g.mails, dir, g.median, g.longest, g.pictures, g.widest, g.heaviest>>10)
	return g
}

// parts are a mail's first text/plain part, its transfer encoding undone, and its
// image/png parts, decoded, at any depth of multipart.
func parts(t *testing.T, name string, raw []byte) (text string, pngs [][]byte) {
	t.Helper()
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	found := false
	var walk func(ctype, encoding string, body io.Reader)
	walk = func(ctype, encoding string, body io.Reader) {
		media, params, err := mime.ParseMediaType(ctype)
		if err != nil {
			return
		}
		switch {
		case strings.HasPrefix(media, "multipart/"):
			r := multipart.NewReader(body, params["boundary"])
			for {
				p, err := r.NextRawPart()
				if err != nil {
					return
				}
				walk(p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p)
			}
		case media == "image/png" || media == "text/plain" && !found:
			switch strings.ToLower(encoding) {
			case "base64":
				body = base64.NewDecoder(base64.StdEncoding, body)
			case "quoted-printable":
				body = quotedprintable.NewReader(body)
			}
			data, err := io.ReadAll(body)
			if err != nil {
				t.Errorf("%s: a %s part does not decode: %v", name, media, err)
				return
			}
			if media == "text/plain" {
				text, found = strings.ReplaceAll(string(data), "\r\n", "\n"), true
			} else {
				pngs = append(pngs, data)
			}
		}
	}
	walk(msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
	if !found {
		t.Errorf("%s: no text part", name)
	}
	return text, pngs
}
