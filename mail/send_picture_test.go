package mail_test

import (
	"bytes"
	"io"
	"strings"
	"testing"

	gomessage "github.com/emersion/go-message/mail"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// A mail with pictures is its text, unchanged, then each picture as a PNG attachment
// with its description; the same mail gives the same bytes; a mail without pictures
// is plain text as before.
func TestSenderBuildPictures(t *testing.T) {
	s := &mail.Sender{Config: mail.SMTPConfig{Host: "127.0.0.1", Security: "none", From: "game@adjutant.example"}}
	png := []byte("\x89PNG\r\n\x1a\nnot really a picture, but bytes that must arrive intact \x00\xff")
	m := store.OutMail{
		Seq: 3, MessageID: "<adjutant-pic@adjutant.example>", To: []string{"a@example.org"},
		Subject: "Results", Body: "The text map.\n  12  13\n", Game: "g1", Kind: "results",
		Pictures: []store.Picture{{Name: "map-de.png", Alt: "German map, turn 3", PNG: png}},
	}
	write := func(m store.OutMail) []byte { return sendBuilt(t, s, m) }
	raw := write(m)
	if !bytes.Equal(raw, write(m)) {
		t.Fatal("the same mail with a picture built twice differs")
	}
	r, err := gomessage.CreateReader(bytes.NewReader(raw))
	if err != nil {
		t.Fatal(err)
	}
	var text string
	var got []byte
	for {
		p, err := r.NextPart()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(p.Body)
		switch h := p.Header.(type) {
		case *gomessage.InlineHeader:
			text = strings.ReplaceAll(string(b), "\r\n", "\n")
		case *gomessage.AttachmentHeader:
			name, _ := h.Filename()
			ct, _, _ := h.ContentType()
			if name != "map-de.png" || ct != "image/png" || h.Get("Content-Description") != "German map, turn 3" {
				t.Errorf("attachment %q %q %q", name, ct, h.Get("Content-Description"))
			}
			got = b
		}
	}
	if text != m.Body {
		t.Errorf("text part %q, want %q", text, m.Body)
	}
	if !bytes.Equal(got, png) {
		t.Errorf("picture arrived as %q", got)
	}
	m.Pictures = nil
	if plain := write(m); bytes.Contains(plain, []byte("multipart")) {
		t.Errorf("a mail without pictures is multipart:\n%s", plain)
	}
}

// sendBuilt is the bytes of m as Build makes it.
func sendBuilt(t *testing.T, s *mail.Sender, m store.OutMail) []byte {
	t.Helper()
	msg, err := s.Build(m)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if _, err := msg.WriteTo(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}
