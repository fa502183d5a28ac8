package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/adjutant-pbem/adjutant/adjudicator/mapimage"
	"github.com/adjutant-pbem/adjutant/mail"
	"github.com/adjutant-pbem/adjutant/store"
)

// writeMaildir writes every mail of the outbox of db, built exactly as the sender sends
// it (pictures drawn), to the Maildir dir (created with tmp, new and cur), one file a
// mail in new, so that a person can read a game in mutt, Thunderbird or any Maildir
// reader. Files are named by the queue time and outbox number, so a second run over the
// same store rewrites the same files. It returns how many mails it wrote.
func writeMaildir(db store.Store, mails []store.OutMail, from, dir string) (int, error) {
	for _, sub := range []string{"tmp", "new", "cur"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return 0, fmt.Errorf("make maildir %s: %w", dir, err)
		}
	}
	sender := &mail.Sender{Config: mail.SMTPConfig{From: from}, Store: db, Render: mapimage.RenderEncoded, Attach: storeRecordAttach(db, from)}
	for _, m := range mails {
		msg, err := sender.Build(m)
		if err != nil {
			return 0, fmt.Errorf("maildir: %w", err)
		}
		var b bytes.Buffer
		if _, err := msg.WriteTo(&b); err != nil {
			return 0, fmt.Errorf("maildir: write mail %d: %w", m.Seq, err)
		}
		name := fmt.Sprintf("%d.%06d.adjutant", m.Queued.Unix(), m.Seq)
		tmp := filepath.Join(dir, "tmp", name)
		if err := os.WriteFile(tmp, b.Bytes(), 0o600); err != nil {
			return 0, fmt.Errorf("maildir: %w", err)
		}
		// Maildir's delivery: written in tmp, then renamed into new in one step.
		if err := os.Rename(tmp, filepath.Join(dir, "new", name)); err != nil {
			return 0, fmt.Errorf("maildir: %w", err)
		}
	}
	return len(mails), nil
}
