package mail_test

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"regexp"
	"strings"
	"testing"

	gomessage "github.com/emersion/go-message"

	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// fakeRender draws a view as a small PNG whose colour and width follow the view's
// bytes: a renderer as the daemon gives the sender, without any game in it.
func fakeRender(calls *int) func([]byte) ([]byte, error) {
	return func(view []byte) ([]byte, error) {
		*calls++
		if bytes.HasPrefix(view, []byte("bad")) {
			return nil, errors.New("no such view")
		}
		sum := sha256.Sum256(view)
		img := image.NewRGBA(image.Rect(0, 0, 40+int(sum[0]%20), 30))
		for i := range img.Pix {
			img.Pix[i] = sum[i%4]
		}
		img.Set(0, 0, color.RGBA{1, 2, 3, 255})
		var b bytes.Buffer
		err := png.Encode(&b, img)
		return b.Bytes(), err
	}
}

// mimePart is one part of a parsed mail, its body decoded, its parts if multipart.
type mimePart struct {
	header gomessage.Header
	typ    string
	params map[string]string
	body   []byte
	parts  []mimePart
}

// parseMIME reads raw with go-message, as a player's mail client would, into its tree.
func parseMIME(t *testing.T, raw []byte) mimePart {
	t.Helper()
	e, err := gomessage.Read(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("the mail does not parse: %v", err)
	}
	return walkMIME(t, e)
}

func walkMIME(t *testing.T, e *gomessage.Entity) mimePart {
	t.Helper()
	typ, params, err := e.Header.ContentType()
	if err != nil {
		t.Fatalf("Content-Type %q: %v", e.Header.Get("Content-Type"), err)
	}
	p := mimePart{header: e.Header, typ: typ, params: params}
	if mr := e.MultipartReader(); mr != nil {
		for {
			c, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", typ, err)
			}
			p.parts = append(p.parts, walkMIME(t, c))
		}
		return p
	}
	if p.body, err = io.ReadAll(e.Body); err != nil {
		t.Fatalf("%s: %v", typ, err)
	}
	return p
}

// checkPictureMail checks the shape of a mail with pictures: multipart/alternative of
// the unchanged text and a multipart/related whose HTML carries the text and shows
// each picture by its Content-ID, with its alt text; each picture decodes as a PNG.
// It returns the pictures' bytes in order.
func checkPictureMail(t *testing.T, raw []byte, m store.OutMail) [][]byte {
	t.Helper()
	root := parseMIME(t, raw)
	if root.typ != "multipart/alternative" || len(root.parts) != 2 {
		t.Fatalf("the mail is %s of %d parts, want multipart/alternative of 2:\n%s", root.typ, len(root.parts), raw)
	}
	text, rel := root.parts[0], root.parts[1]
	if text.typ != "text/plain" || strings.ReplaceAll(string(text.body), "\r\n", "\n") != m.Body {
		t.Errorf("first part %s %q, want text/plain %q", text.typ, text.body, m.Body)
	}
	if rel.typ != "multipart/related" || rel.params["type"] != "text/html" || len(rel.parts) != 1+len(m.Pictures) {
		t.Fatalf("second part %s %v of %d parts, want multipart/related type=text/html of %d", rel.typ, rel.params, len(rel.parts), 1+len(m.Pictures))
	}
	htmlPart := rel.parts[0]
	if htmlPart.typ != "text/html" {
		t.Fatalf("the related part starts with %s, want text/html", htmlPart.typ)
	}
	html := strings.ReplaceAll(string(htmlPart.body), "\r\n", "\n")
	if !strings.Contains(html, "<pre") || !strings.Contains(html, "The text map.\n") || !strings.Contains(html, "  12  13 &lt;&amp;&gt;\n") {
		t.Errorf("the HTML does not carry the text:\n%s", html)
	}
	imgs := regexp.MustCompile(`<img src="cid:([^"]+)" alt="([^"]*)"`).FindAllStringSubmatch(html, -1)
	if len(imgs) != len(m.Pictures) {
		t.Fatalf("the HTML shows %d pictures, want %d:\n%s", len(imgs), len(m.Pictures), html)
	}
	var out [][]byte
	for i, img := range imgs {
		p := rel.parts[1+i]
		if p.typ != "image/png" || p.header.Get("Content-ID") != "<"+img[1]+">" {
			t.Errorf("picture %d: %s with Content-ID %q, want image/png %q", i, p.typ, p.header.Get("Content-ID"), "<"+img[1]+">")
		}
		if img[2] != m.Pictures[i].Alt {
			t.Errorf("picture %d: alt %q, want %q", i, img[2], m.Pictures[i].Alt)
		}
		if _, err := png.Decode(bytes.NewReader(p.body)); err != nil {
			t.Errorf("picture %d does not decode: %v", i, err)
		}
		out = append(out, p.body)
	}
	return out
}

func pictureMail() store.OutMail {
	return store.OutMail{
		Seq: 3, MessageID: "<adjutant-pic@adjutant.example>", To: []string{"a@example.org"},
		Subject: "Results", Body: "The text map.\n  12  13 <&>\n", Game: "g1", Kind: "results",
		Pictures: []store.Picture{
			{Name: "map-de.png", Alt: "German map, turn 3", View: []byte(`{"a view":1}`), Before: "  12  13 <&>"},
			{Name: "old.png", Alt: "drawn before", PNG: mustPNG()},
		},
	}
}

func mustPNG() []byte {
	var b bytes.Buffer
	png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2)))
	return b.Bytes()
}

// TestSenderBuildPictures: a mail with pictures is the text, unchanged, and its HTML
// alternative showing each picture inline: drawn by Render from its view, or the PNG
// stored already. The same mail gives the same bytes; a mail whose picture cannot be
// drawn, or a sender without a renderer, sends the text alone; a mail without
// pictures is plain text as before.
func TestSenderBuildPictures(t *testing.T) {
	calls := 0
	s := &mail.Sender{Config: mail.SMTPConfig{Host: "127.0.0.1", Security: "none", From: "game@adjutant.example"}, Render: fakeRender(&calls)}
	m := pictureMail()
	raw := sendBuilt(t, s, m)
	if !bytes.Equal(raw, sendBuilt(t, s, m)) {
		t.Fatal("the same mail with pictures built twice differs")
	}
	if calls != 2 {
		t.Errorf("Render called %d times for two builds, want 2", calls)
	}
	pics := checkPictureMail(t, raw, m)
	// The first picture goes before the line it names, the second after the text.
	html := string(parseMIME(t, raw).parts[1].parts[0].body)
	first, second, line := strings.Index(html, "cid:picture1"), strings.Index(html, "cid:picture2"), strings.Index(html, "  12  13")
	if first < 0 || line < 0 || second < 0 || !(first < line && line < second) {
		t.Errorf("pictures at %d and %d, the line they go around at %d:\n%s", first, second, line, html)
	}
	want, _ := fakeRender(new(int))(m.Pictures[0].View)
	if !bytes.Equal(pics[0], want) || !bytes.Equal(pics[1], m.Pictures[1].PNG) {
		t.Error("the pictures are not the view's drawing and the stored PNG")
	}
	for _, line := range strings.Split(string(raw), "\r\n") {
		if len(line) > 998 {
			t.Errorf("a line of %d characters", len(line))
		}
	}

	// A picture that cannot be drawn is left out; without a renderer, views are.
	bad := m
	bad.Pictures = []store.Picture{{Name: "x.png", Alt: "x", View: []byte("bad view")}}
	noPics := m
	noPics.Pictures = nil
	plain := sendBuilt(t, s, noPics)
	if bytes.Contains(plain, []byte("multipart")) {
		t.Errorf("a mail without pictures is multipart:\n%s", plain)
	}
	if got := sendBuilt(t, s, bad); !bytes.Equal(got, plain) {
		t.Errorf("a mail whose one picture cannot be drawn is not the text alone:\n%s", got)
	}
	s.Render = nil
	viewOnly := m
	viewOnly.Pictures = m.Pictures[:1]
	if got := sendBuilt(t, s, viewOnly); !bytes.Equal(got, plain) {
		t.Errorf("without a renderer, a mail with a view is not the text alone:\n%s", got)
	}
}

// TestSenderSendsPictures: over SMTP to a server on 127.0.0.1, the mails of a pass
// arrive in outbox order (their pictures drawn ahead, a few at once), each the one
// Build makes, its pictures drawn from the stored views, and once sent the store
// keeps each text and drops the views.
func TestSenderSendsPictures(t *testing.T) {
	k := newSMTPSink(t, nil)
	db := sendOpenStore(t)
	s := newTestSender(t, k, db, newSendClock(), nil)
	s.Render = func(view []byte) ([]byte, error) { return fakeRender(new(int))(view) } // safe at once
	var mails []store.OutMail
	for i := range 6 {
		m := pictureMail()
		m.Seq, m.MessageID = 0, fmt.Sprintf("<pic-%d@adjutant.example>", i)
		m.Pictures[0].View = []byte(fmt.Sprintf(`{"view":%d}`, i))
		switch i {
		case 2:
			m.Pictures = nil
		case 4:
			m.Pictures = []store.Picture{{Name: "x.png", View: []byte("bad view")}}
		}
		mails = append(mails, m)
	}
	queued := sendEnqueue(t, db, mails...)
	sent, failed, err := s.DrainOnce(t.Context())
	if err != nil || sent != len(mails) || failed != 0 {
		t.Fatalf("DrainOnce = %d, %d, %v; want %d, 0, nil", sent, failed, err, len(mails))
	}
	got := k.received()
	if len(got) != len(mails) {
		t.Fatalf("the server got %d mails, want %d", len(got), len(mails))
	}
	outbox := sendOutbox(t, db)
	for i, q := range queued {
		if !bytes.Equal(got[i].Raw, sendBuilt(t, s, q)) {
			t.Errorf("mail %d: the mail the server got differs from the one Build makes of it", i)
		}
		if len(q.Pictures) > 0 && i != 4 {
			checkPictureMail(t, got[i].Raw, q)
		}
		if stored := outbox[q.Seq]; !stored.Sent || len(stored.Pictures) != 0 || stored.Body != q.Body {
			t.Errorf("mail %d stored after sending: sent %v, %d pictures, body %q", i, stored.Sent, len(stored.Pictures), stored.Body)
		}
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
