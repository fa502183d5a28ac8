package mail

// Pictures in a mail: the text part unchanged, and beside it, as its alternative, an
// HTML part that carries the same text (preformatted) and shows each picture inline.
//
//	multipart/alternative
//	  text/plain                     the mail's text, as in a mail without pictures
//	  multipart/related; type="text/html"
//	    text/html                    the text in <pre>, then <img src="cid:..."> each
//	    image/png (Content-ID)       one part a picture
//
// A client that shows text shows the text part and loses nothing (the text map is in
// it); one that shows HTML shows the text and the pictures. go-mail writes the
// alternative, its boundary set from the Message-ID (Msg.SetBoundary); the related part
// is written here, with a boundary from the Message-ID too. go-mail's own embeds
// (Msg.EmbedReader with AddAlternativeString) would nest the alternative inside a
// related part with a random boundary, or, after SetBoundary, with the same boundary
// at both levels, which breaks the mail: the same mail must give the same bytes each
// time it is built.

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"image"
	_ "image/png" // image.DecodeConfig of the pictures
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"runtime"
	"slices"
	"strings"

	gomail "github.com/wneessen/go-mail"

	"github.com/adjutant-pbem/adjutant/store"
)

// picture is one picture ready to go into a mail.
type picture struct {
	store.Picture
	png       []byte
	cid       string // Content-ID, without its angle brackets
	width     int
	height    int
	decodable bool
}

// pictures draws m's pictures (Render from their views, or the PNG already stored).
// A picture that cannot be drawn is left out, with a warning in the log: the text is
// the whole mail, and a mail that cannot be built would be given up.
func (s *Sender) pictures(id string, m store.OutMail) []picture {
	var out []picture
	sum := sha256.Sum256([]byte(id))
	for i, p := range m.Pictures {
		png := p.PNG
		if len(png) == 0 && len(p.View) > 0 {
			if s.Render == nil {
				s.log().Warn("mail picture left out: the sender has no renderer", "message_id", id, "picture", p.Name)
				continue
			}
			var err error
			if png, err = s.Render(p.View); err != nil {
				s.log().Warn("mail picture left out: it cannot be drawn", "message_id", id, "picture", p.Name, "err", err)
				continue
			}
		}
		if len(png) == 0 {
			continue
		}
		pic := picture{Picture: p, png: png, cid: fmt.Sprintf("picture%d.%s@adjutant", i+1, hex.EncodeToString(sum[:12]))}
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(png)); err == nil {
			pic.width, pic.height, pic.decodable = cfg.Width, cfg.Height, true
		}
		out = append(out, pic)
	}
	return out
}

// addPictures makes msg, whose body is the text, the alternative of that text and the
// HTML part with the pictures.
func addPictures(msg *gomail.Msg, id string, m store.OutMail, pics []picture) {
	sum := sha256.Sum256([]byte(id))
	tag := hex.EncodeToString(sum[:12])
	related := "adjutant-r-" + tag
	ct := gomail.ContentType(`multipart/related; type="text/html";` + "\r\n " + `boundary="` + related + `"`)
	msg.AddAlternativeWriter(ct, func(w io.Writer) (int64, error) {
		return writeRelated(w, related, m, pics)
	}, gomail.WithPartEncoding(gomail.NoEncoding))
	// A boundary from the Message-ID, not a random one: the same mail, the same bytes.
	msg.SetBoundary("adjutant-" + tag)
}

// counter counts the bytes written through it.
type counter struct {
	w io.Writer
	n int64
}

func (c *counter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// writeRelated writes the body of the multipart/related part: the HTML, then each
// picture with its Content-ID.
func writeRelated(dst io.Writer, boundary string, m store.OutMail, pics []picture) (int64, error) {
	c := &counter{w: dst}
	mw := multipart.NewWriter(c)
	if err := mw.SetBoundary(boundary); err != nil {
		return c.n, err
	}
	h := textproto.MIMEHeader{}
	h.Set("Content-Type", "text/html; charset=UTF-8")
	h.Set("Content-Transfer-Encoding", "quoted-printable")
	part, err := mw.CreatePart(h)
	if err != nil {
		return c.n, err
	}
	qp := quotedprintable.NewWriter(part)
	if _, err := io.WriteString(qp, pictureHTML(m, pics)); err != nil {
		return c.n, err
	}
	if err := qp.Close(); err != nil {
		return c.n, err
	}
	for _, p := range pics {
		h := textproto.MIMEHeader{}
		h.Set("Content-Type", mime.FormatMediaType("image/png", map[string]string{"name": p.Name}))
		h.Set("Content-Transfer-Encoding", "base64")
		h.Set("Content-ID", "<"+p.cid+">")
		h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": p.Name}))
		if p.Alt != "" {
			h.Set("Content-Description", mime.QEncoding.Encode("UTF-8", p.Alt))
		}
		part, err := mw.CreatePart(h)
		if err != nil {
			return c.n, err
		}
		if err := writeBase64(part, p.png); err != nil {
			return c.n, err
		}
	}
	return c.n, mw.Close()
}

// writeBase64 writes b in base64 lines of 76 characters (RFC 2045 6.8).
func writeBase64(w io.Writer, b []byte) error {
	enc := base64.StdEncoding.EncodeToString(b)
	for len(enc) > 0 {
		n := min(76, len(enc))
		if _, err := io.WriteString(w, enc[:n]+"\r\n"); err != nil {
			return err
		}
		enc = enc[n:]
	}
	return nil
}

// pictureHTML is the HTML part: the mail's text as it is (preformatted, so that the
// text map keeps its columns), each picture at its own size but never wider than the
// window (a phone shows it whole), with its alt text, before the line it names
// (Before: the text map's heading) or after the text.
func pictureHTML(m store.OutMail, pics []picture) string {
	var b bytes.Buffer
	b.WriteString("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s</title></head>\n<body>\n", html.EscapeString(m.Subject))
	// Where each picture goes: the offset of its line in the text, or the end.
	at := make([]int, len(pics))
	for i, p := range pics {
		at[i] = len(m.Body)
		if p.Before == "" {
			continue
		}
		if strings.HasPrefix(m.Body, p.Before+"\n") {
			at[i] = 0
		} else if k := strings.Index(m.Body, "\n"+p.Before+"\n"); k >= 0 {
			at[i] = k + 1
		}
	}
	from := 0
	text := func(to int) {
		if to > from {
			b.WriteString("<pre style=\"font-family: monospace; font-size: 12px; white-space: pre; overflow-x: auto\">")
			b.WriteString(html.EscapeString(m.Body[from:to]))
			b.WriteString("</pre>\n")
			from = to
		}
	}
	for _, i := range pictureOrder(at) {
		text(at[i])
		p := pics[i]
		size := ""
		if p.decodable {
			size = fmt.Sprintf(" width=\"%d\" height=\"%d\"", p.width, p.height)
		}
		// At most the width of the window: a phone shows the whole picture, and its
		// reader zooms in; height auto keeps the proportions the width and height
		// attributes give (they reserve the room before the picture has loaded).
		fmt.Fprintf(&b, "<p><img src=\"cid:%s\" alt=\"%s\"%s style=\"max-width: 100%%; height: auto\"></p>\n", p.cid, html.EscapeString(p.Alt), size)
	}
	text(len(m.Body))
	b.WriteString("</body></html>\n")
	return b.String()
}

// pictureOrder is the pictures' indexes by where they go, in their order where they
// go to the same place.
func pictureOrder(at []int) []int {
	order := make([]int, len(at))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return at[a] - at[b] })
	return order
}

// builder builds a pass's mails ahead of the one being sent, a few at once: drawing a
// picture takes longer than sending a mail, and on a machine with several cores the
// pictures of the next mails are drawn while this one is on the wire. Mails are still
// sent in outbox order, each as Build makes it.
type builder struct {
	results []chan built
	tokens  chan struct{} // one a mail built or being built and not yet taken
	done    chan struct{}
	taken   int
}

type built struct {
	msg *gomail.Msg
	err error
}

// buildAhead starts building due (heads: each is read whole from the store first), at
// most GOMAXPROCS+1 mails ahead of the sender.
func (s *Sender) buildAhead(ctx context.Context, due []store.OutMail) *builder {
	b := &builder{
		results: make([]chan built, len(due)),
		tokens:  make(chan struct{}, runtime.GOMAXPROCS(0)+1),
		done:    make(chan struct{}),
	}
	for i := range b.results {
		b.results[i] = make(chan built, 1)
	}
	go func() {
		for i, m := range due {
			select {
			case b.tokens <- struct{}{}:
			case <-b.done:
				return
			}
			go func() {
				msg, err := s.buildStored(ctx, m.Seq)
				b.results[i] <- built{msg, err}
			}()
		}
	}()
	return b
}

// readError is a mail the builder could not read from the store: the pass ends and
// the mail stays as it was, never given up for it.
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

// buildStored reads the outbox mail seq whole and builds it.
func (s *Sender) buildStored(ctx context.Context, seq uint64) (*gomail.Msg, error) {
	var m store.OutMail
	err := s.Store.Read(ctx, func(tx store.Tx) error {
		var err error
		m, err = tx.OutMailAt(seq)
		return err
	})
	if err != nil {
		return nil, &readError{fmt.Errorf("read outbox mail %d: %w", seq, err)}
	}
	return s.Build(m)
}

// next is the next mail, built; an error is Build's, or ctx's when it ended first.
func (b *builder) next(ctx context.Context) (*gomail.Msg, error) {
	select {
	case r := <-b.results[b.taken]:
		b.taken++
		<-b.tokens
		return r.msg, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// stop builds no more mails; those being built finish and are dropped.
func (b *builder) stop() { close(b.done) }
