package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/mail"
)

// cmdCheckMails is what a player runs on the mails of one game he saved, oldest first:
// adjudicator.CheckMails, which needs no store, no host and no network. Each file is a
// whole message (.eml) or its text alone.
func cmdCheckMails(e *env, args []string) error {
	fs := newFlags(e, "checkmails")
	game := fs.String("game", "", "the game the mails are of (required)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *game == "" || fs.NArg() == 0 {
		return usageError("checkmails: --game G and the saved mails of the game, oldest first, are required")
	}
	var bodies []string
	for _, name := range fs.Args() {
		raw, err := os.ReadFile(name)
		if err != nil {
			return fmt.Errorf("checkmails: %w", err)
		}
		bodies = append(bodies, mailText(raw))
	}
	got, err := adjudicator.CheckMails(*game, bodies)
	if err != nil {
		return fmt.Errorf("checkmails: %w", err)
	}
	var extra []string
	if got.Beacons > 0 {
		extra = append(extra, fmt.Sprintf("the drand quicknet rounds of %d phases, their signatures verified with the chain's public key", got.Beacons))
	}
	if got.Cards > 0 {
		extra = append(extra, fmt.Sprintf("%d of %d cards (the rest await the deck seed)", got.CardsVerified, got.Cards))
	}
	if got.Unrevealed > 0 {
		extra = append(extra, fmt.Sprintf("%d rolls await their turn's seed", got.Unrevealed))
	}
	fmt.Fprintf(e.stdout, "%s: %d mails checked: %d rolls re-derived, %d seeds, %d sealed orders, %d signed heads, %d signed order checks verified\n",
		*game, len(bodies), got.Verified, got.Seeds, got.Sealed, got.Signatures, got.OrderChecks)
	for _, x := range extra {
		fmt.Fprintln(e.stdout, x)
	}
	return nil
}

// mailText is a saved mail's text: the first text part of a whole message, or the file
// itself when it is text alone.
func mailText(raw []byte) string {
	if env, err := mail.ReadEnvelope(bytes.NewReader(raw), int64(len(raw))+1); err == nil && env != nil && env.Text != "" && env.Subject != "" {
		return env.Text
	}
	return string(raw)
}
