package main

import (
	"bytes"
	"context"
	"fmt"
	"image/png"
	"io"
	"sort"
	"strings"
	"time"

	"github.com/emersion/go-imap/v2"
	"github.com/emersion/go-imap/v2/imapclient"
	"github.com/emersion/go-message"
	"github.com/emersion/go-smtp"

	"github.com/adjutant-pbem/adjutant/mail"
)

// player is a scripted player with a mail account: it sends over SMTP and reads its
// INBOX over IMAP, as a person with a mail client would. The demo and the daemon's tests
// use it; it is never part of `serve`.
type player struct {
	addr, password string
	imapAddr       string
	smtpAddr       string
	sent           int
}

// received is one mail a player has read.
type received struct {
	UID     uint32
	Raw     []byte
	Env     *mail.Envelope
	Arrived time.Time
}

// send submits one mail to the game over SMTP; it returns the Message-ID it used.
func (p *player) send(ctx context.Context, to, subject, body string) (string, error) {
	p.sent++
	id := fmt.Sprintf("%d.%d@%s", p.sent, time.Now().UnixNano(), domainOf(p.addr))
	raw := eml(scripted{From: p.addr, Subject: subject, Body: body}, to, id, time.Now())
	return id, p.sendRaw(ctx, to, raw)
}

func (p *player) sendRaw(ctx context.Context, to string, raw []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	// A plain loopback submission, as a mail client configured without TLS would make
	// (go-smtp's SendMail insists on STARTTLS).
	c, err := smtp.Dial(p.smtpAddr)
	if err != nil {
		return fmt.Errorf("%s sends to %s: %w", p.addr, to, err)
	}
	defer c.Close()
	if err := c.SendMail(p.addr, []string{to}, bytes.NewReader(raw)); err != nil {
		return fmt.Errorf("%s sends to %s: %w", p.addr, to, err)
	}
	return c.Quit()
}

func domainOf(addr string) string {
	if _, d, ok := strings.Cut(addr, "@"); ok {
		return d
	}
	return "localhost"
}

// fetchNew logs in, reads every unseen mail of the INBOX in UID order, flags it \Seen and
// logs out.
func (p *player) fetchNew(ctx context.Context) ([]received, error) {
	c, err := imapclient.DialInsecure(p.imapAddr, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: dial IMAP: %w", p.addr, err)
	}
	defer c.Close()
	if err := c.Login(p.addr, p.password).Wait(); err != nil {
		return nil, fmt.Errorf("%s: login: %w", p.addr, err)
	}
	if _, err := c.Select("INBOX", nil).Wait(); err != nil {
		return nil, err
	}
	res, err := c.UIDSearch(&imap.SearchCriteria{NotFlag: []imap.Flag{imap.FlagSeen}}, nil).Wait()
	if err != nil {
		return nil, err
	}
	uids := res.AllUIDs()
	if len(uids) == 0 {
		c.Logout().Wait()
		return nil, nil
	}
	set := imap.UIDSetNum(uids...)
	msgs, err := c.Fetch(set, &imap.FetchOptions{UID: true, InternalDate: true, BodySection: []*imap.FetchItemBodySection{{Peek: true}}}).Collect()
	if err != nil {
		return nil, err
	}
	var out []received
	for _, m := range msgs {
		var raw []byte
		for _, b := range m.BodySection {
			raw = b.Bytes
		}
		// A player's mail program reads any size his server accepts: the record of a
		// game (a zip) may pass the 1 MiB the game mailbox reads.
		env, err := mail.ReadEnvelope(bytes.NewReader(raw), int64(len(raw))+1)
		if err != nil {
			return nil, fmt.Errorf("%s: read mail %d: %w", p.addr, m.UID, err)
		}
		out = append(out, received{UID: uint32(m.UID), Raw: raw, Env: env, Arrived: m.InternalDate})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].UID < out[j].UID })
	if err := c.Store(set, &imap.StoreFlags{Op: imap.StoreFlagsAdd, Silent: true, Flags: []imap.Flag{imap.FlagSeen}}, nil).Close(); err != nil {
		return nil, err
	}
	c.Logout().Wait()
	return out, nil
}

// waitFor reads new mail until one satisfies ok, printing every mail to w as it comes.
// It gives up at the context's deadline.
func (p *player) waitFor(ctx context.Context, w io.Writer, ok func(received) bool) ([]received, error) {
	var all []received
	for {
		got, err := p.fetchNew(ctx)
		if err != nil {
			return all, err
		}
		done := false
		for _, r := range got {
			if w != nil {
				printMail(w, p.addr, r)
			}
			all = append(all, r)
			done = done || ok(r)
		}
		if done {
			return all, nil
		}
		select {
		case <-ctx.Done():
			return all, fmt.Errorf("%s waited in vain: %w", p.addr, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func printMail(w io.Writer, to string, r received) {
	fmt.Fprintf(w, "%s\nDelivered to %s\nSubject: %s\n\n%s\n", strings.Repeat("=", 78), to, r.Env.Subject, strings.TrimRight(r.Env.Text, "\n"))
	if pics := pictureSizes(r.Raw); len(pics) > 0 {
		fmt.Fprintf(w, "\n[With the text above, as its HTML alternative, a picture of the map inline:\n %s.]\n", strings.Join(pics, ", "))
	}
}

// pictureSizes describes each PNG picture of a raw mail ("a 1960x1418 PNG of 145 KB").
func pictureSizes(raw []byte) []string {
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil {
		return nil
	}
	var out []string
	e.Walk(func(_ []int, part *message.Entity, err error) error {
		if err != nil {
			return err
		}
		if t, _, _ := part.Header.ContentType(); t != "image/png" {
			return nil
		}
		b, err := io.ReadAll(part.Body)
		if err != nil {
			return nil
		}
		if c, err := png.DecodeConfig(bytes.NewReader(b)); err == nil {
			out = append(out, fmt.Sprintf("a %dx%d PNG of %d KB", c.Width, c.Height, (len(b)+512)/1024))
		}
		return nil
	})
	return out
}
