package adjudicator

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
)

// ReadMessage is the one path from a raw mail to the desk's message, for pipe mode
// (adjutant handle) and for the IMAP intake alike: the envelope package mail reads
// (mail.ReadEnvelope), in the desk's terms. truncated says the intake fetched only the
// header of a message over the size limit; arrived is when the mailbox received it.
//
// A message over maxSize is returned with TooLarge set, to be refused unread. A
// message that will never parse better is returned marked automated ("unreadable"):
// recorded by its stable id, answered by nobody. An error means nothing was read and
// the mail may be tried again.
func ReadMessage(r io.Reader, maxSize int64, truncated bool, arrived time.Time) (Message, error) {
	env, err := mail.ReadEnvelope(r, maxSize)
	tooLarge := truncated || errors.Is(err, mail.ErrTooLarge)
	switch {
	case err != nil && env == nil:
		return Message{}, fmt.Errorf("read message: %w", err)
	case err != nil && !tooLarge:
		env.Automated, env.AutomatedReason = true, "unreadable"
	}
	return MessageOf(env, tooLarge, arrived), nil
}

// MessageOf is the desk's message for a parsed envelope; tooLarge marks it for the
// size refusal.
func MessageOf(env *mail.Envelope, tooLarge bool, arrived time.Time) Message {
	return Message{
		ID: env.MessageID, From: env.From, Subject: env.Subject, Text: env.Text,
		InReplyTo: env.InReplyTo, References: env.References,
		Automated: env.Automated, AutomatedReason: env.AutomatedReason,
		OwnMail: env.XAdjutant != "", TooLarge: tooLarge, Arrived: arrived, Unreadable: env.Unreadable, BounceOf: env.BounceOf,
		BounceTag: env.BounceTag, BounceFailed: env.BounceFailed,
		Date: env.Date,
	}
}
