package adjudicator

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice/beacon"
	"github.com/adjutant-pbem/adjutant/store"
)

// The text forms in this file are what a player checks his rolls from: the results mails
// and the ROLLS reply give every input of the HMAC message of each roll (adjudicator/dice,
// "Deriving a roll") in a canonical form, within 78 columns, from which the exact bytes
// follow by the rules below. docs/dice.md states the same rules for players, and
// CheckMails reads the text back; a change here must change both.
//
//   - A string field (game, phase, rule, purpose) is printed between double quotes with
//     MailField: every byte is itself, except that '%', '"', '|', control characters,
//     invalid UTF-8 and any space that is not a single space between two other characters
//     are written %XX (the byte in upper-case hex).
//   - A record longer than a line is broken at spaces; a line break followed by the
//     continuation's indentation stands for exactly one space. MailField guarantees that
//     no field holds a space that such a break could swallow or double.

// mailWidth is the widest line of a mail (DESIGN.md, "Text maps"; issue 8).
const mailWidth = 78

// MailField writes s so that it survives wrapping and quoting in a mail and can be read
// back exactly (UnmailField): see the rules at the top of this file.
func MailField(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		r, size := utf8.DecodeRuneInString(s[i:])
		escape := false
		switch {
		case r == utf8.RuneError && size == 1:
			escape = true
		case c == '%' || c == '"' || c == '|' || c < 0x20 || c == 0x7f:
			escape = true
		case c == ' ':
			escape = i == 0 || i == len(s)-1 || s[i-1] == ' ' || s[i+1] == ' '
		}
		if escape {
			fmt.Fprintf(&b, "%%%02X", c)
			i++
			continue
		}
		b.WriteString(s[i : i+size])
		i += size
	}
	return b.String()
}

// UnmailField undoes MailField.
func UnmailField(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		if i+2 >= len(s) {
			return "", fmt.Errorf("field %q: %% without two hex digits", s)
		}
		v, err := strconv.ParseUint(s[i+1:i+3], 16, 8)
		if err != nil {
			return "", fmt.Errorf("field %q: %%%s is not a byte in hex", s, s[i+1:i+3])
		}
		b.WriteByte(byte(v))
		i += 2
	}
	return b.String(), nil
}

// wrapRecord breaks one record into lines of at most mailWidth columns at single spaces:
// the first line indented by first, the others by cont. A word longer than a line stays
// whole. Joining the lines with one space, indentation removed, gives the record back.
func wrapRecord(record, first, cont string) []string {
	// Lengths are counted as the line grows, not recounted for each word: a results
	// mail wraps a record for every roll. first and cont are ASCII indents, so that a
	// line's runes are the sum of its parts'.
	var lines []string
	var line strings.Builder
	line.WriteString(first)
	n := utf8.RuneCountInString(first)
	empty := true
	for w := range strings.SplitSeq(record, " ") {
		wn := utf8.RuneCountInString(w)
		switch {
		case empty:
			empty = false
		case n+1+wn > mailWidth:
			lines = append(lines, line.String())
			line.Reset()
			line.WriteString(cont)
			n = utf8.RuneCountInString(cont)
		default:
			line.WriteByte(' ')
			n++
		}
		line.WriteString(w)
		n += wn
	}
	return append(lines, line.String())
}

// rollRecord is the canonical one-record form of a roll:
//
//	index 0: 1d6 -> [2] = 2, rule "10.8", purpose "..."
//	index 3: 2d6 -> [2 5] +1 = 8, rule "...", purpose "..."
//	index 0: shuffle of 52 -> [3 0 ...], rule "...", purpose "..."
//
// "NdS" is kind "roll" with count N and sides S; "shuffle of N" is kind "shuffle" with
// count N and sides 0.
func rollRecord(r dice.Roll) string {
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		vals[i] = strconv.Itoa(v)
	}
	var what string
	if r.Kind == dice.KindShuffle {
		what = fmt.Sprintf("shuffle of %d -> [%s]", r.Count, strings.Join(vals, " "))
	} else {
		mod := ""
		if r.Modifier != 0 {
			mod = fmt.Sprintf(" %+d", r.Modifier)
		}
		what = fmt.Sprintf("%dd%d -> [%s]%s = %d", r.Count, r.Sides, strings.Join(vals, " "), mod, r.Result)
	}
	return fmt.Sprintf("index %d: %s, rule \"%s\", purpose \"%s\"", r.Index, what, MailField(r.Rule), MailField(r.Purpose))
}

// diceGroup is the rolls of one phase: one HMAC context.
type diceGroup struct {
	Turn   int
	Phase  string
	Digest string
	Rolls  []dice.Roll
	Beacon *beacon.Round // the public round mixed in (--dice beacon), nil otherwise
}

// phaseHeader opens the rolls of one context: turn, phase and the orders digest.
func phaseHeader(turn int, phase, digest string) []string {
	return []string{fmt.Sprintf("Turn %d, phase \"%s\", orders digest:", turn, MailField(phase)), "  " + digest}
}

// diceText renders the inputs of the rolls of groups, with the game's name, as the
// "Dice" section of a results mail: two lines a roll (rollRecord), or with compact, as
// mails of LayoutCompact give them, one line a roll under a kind line whenever the dice
// or the rule change (compactRecord):
//
//	Turn 5, phase "III", orders digest:
//	  d3fd92e10552f652fb7aaae4ebeab99c85126dc55345b373b8434852301c2fa0
//	  1d6, rule "10.8":
//	  0 [6] "12.2 German bombardment of 4000 at 5:1, US Army platoon 1 of 4"
//	  1 [3] "12.2 German bombardment of 4000 at 5:1, US Army platoon 2 of 4"
//
// The fields and their bytes are the same; CheckMails and docs/checkdice.py read both.
// It is empty when no group has a roll.
func diceText(game string, groups []diceGroup, compact bool) string {
	var lines []string
	for _, g := range groups {
		if len(g.Rolls) == 0 {
			continue
		}
		lines = append(lines, phaseHeader(g.Turn, g.Phase, g.Digest)...)
		lines = append(lines, beaconLines(g.Beacon)...)
		kind := ""
		for _, r := range g.Rolls {
			if !compact {
				lines = append(lines, wrapRecord(rollRecord(r), "  ", "    ")...)
				continue
			}
			if k := diceKind(r); k != kind {
				kind = k
				lines = append(lines, "  "+k)
			}
			lines = append(lines, wrapRecord(compactRecord(r), "  ", "    ")...)
		}
	}
	if len(lines) == 0 {
		return ""
	}
	head := "Each roll is HMAC-SHA256 keyed with its turn's seed, which the results mail after the turn reveals; " +
		"the message hashed is made of these fields (send HELP DICE for how)."
	if compact {
		head = "Under each phase, its dice and rule, then each roll: index, faces, modifier, purpose (HELP DICE: how to check)."
	}
	out := wrapRecord(fmt.Sprintf("Game \"%s\". %s", MailField(game), head), "", "")
	if keys := beaconKeyLines(groups); keys != nil {
		out = append(out, wrapRecord("In this game the message also holds the beacon round named when the phase's last order was in, "+
			"and its randomness: SHA-256 of the round's signature.", "", "")...)
		lines = append(lines, keys...)
	}
	return strings.Join(append(out, lines...), "\n")
}

// diceKind is what a compact dice record's kind line names: "1d6, rule "10.8":" or
// "shuffle of 52, rule "1":", the dice and rule of the records after it.
func diceKind(r dice.Roll) string {
	if r.Kind == dice.KindShuffle {
		return fmt.Sprintf("shuffle of %d, rule \"%s\":", r.Count, MailField(r.Rule))
	}
	return fmt.Sprintf("%dd%d, rule \"%s\":", r.Count, r.Sides, MailField(r.Rule))
}

// compactRecord is a roll in the compact form: its index, faces (or permutation),
// modifier and purpose, "3 [5] +3 "20.4 attack 1"", the dice and rule being its kind
// line's (diceKind). The result is the faces' sum plus the modifier.
func compactRecord(r dice.Roll) string {
	vals := make([]string, len(r.Values))
	for i, v := range r.Values {
		vals[i] = strconv.Itoa(v)
	}
	mod := ""
	if r.Kind != dice.KindShuffle && r.Modifier != 0 {
		mod = fmt.Sprintf(" %+d", r.Modifier)
	}
	return fmt.Sprintf("%d [%s]%s \"%s\"", r.Index, strings.Join(vals, " "), mod, MailField(r.Purpose))
}

// visibleRolls groups the rolls of the events side may see by phase, in index order, so
// that a results mail gives the inputs of exactly the rolls it shows.
func visibleRolls(steps []stepRecord, side rules.Side) []diceGroup {
	var groups []diceGroup
	for _, s := range steps {
		g := diceGroup{Turn: s.Turn, Phase: s.Phase, Digest: s.Digest, Beacon: s.Beacon}
		seen := map[int]bool{}
		for _, e := range s.Events {
			if e.Roll == nil || !e.VisibleTo(side) || seen[e.Roll.Index] {
				continue
			}
			seen[e.Roll.Index] = true
			g.Rolls = append(g.Rolls, *e.Roll)
		}
		sort.Slice(g.Rolls, func(i, j int) bool { return g.Rolls[i].Index < g.Rolls[j].Index })
		groups = append(groups, g)
	}
	return groups
}

// seedLines reveal a turn's seed with what it was committed to.
func seedLines(turn int, secret, commitment string) []string {
	return []string{
		fmt.Sprintf("Turn %d: seed (32 bytes, written in hex)", turn),
		"  " + secret,
		"  SHA-256 of the 32 bytes (not of their hex), its commitment:",
		"  " + commitment,
	}
}

// commitLines publish a turn's seed commitment.
func commitLines(turn int, commitment string) []string {
	return []string{
		fmt.Sprintf("Turn %d: seed drawn; SHA-256 of its 32 bytes:", turn),
		"  " + commitment,
	}
}

// revealLines show a revealed sealed order: its text, indented by 4 (a line too long
// for the mail continues indented by 6, the break standing for one space), its salt and
// the commitment sent when it was sealed.
func revealLines(summary, text, salt, commitment string) []string {
	lines := []string{summary + ", text:"}
	for _, l := range strings.Split(text, "\n") {
		if l == strings.TrimSpace(l) && !strings.Contains(l, "  ") {
			lines = append(lines, wrapRecord(l, "    ", "      ")...)
		} else {
			lines = append(lines, "    "+l) // never broken where a break could change it
		}
	}
	return append(lines,
		"  salt (hashed as these "+strconv.Itoa(len(salt))+" characters): "+salt,
		"  commitment, SHA-256 of the text, \"|\" and the salt:",
		"  "+commitment)
}

// revealLine is revealLines for an order whose text is one short line and its own
// summary (a Soissons MOVE): the text, then its salt and commitment, in three lines.
// Other orders, and every order in mails of layouts before LayoutGlance, take the long
// form.
func revealLine(summary, text, salt, commitment string, layout int) []string {
	if layout >= LayoutCompact && len(text)+len(" (salt )")+len(salt) <= mailWidth && oneCleanLine(text) && len(salt) == 32 {
		return []string{revealOneLine(text, salt)}
	}
	if layout < LayoutGlance || summary != text || len(text) > 76 || strings.TrimSpace(text) != text ||
		strings.ContainsAny(text, "\n\r") || strings.Contains(text, "  ") || len(salt) != 32 {
		return revealLines(summary, text, salt, commitment)
	}
	return []string{text, "  salt " + salt + "; SHA-256 of line, \"|\", salt:", "  " + commitment}
}

// revealOneLine is a revealed order whose text is one short line, in LayoutCompact:
// "ADVANCE 128 0920 (salt 2d1a...)". Its commitment, SHA-256 of the text, "|" and the
// salt, is not shown: the reader computes it and finds it in his order check (his own
// order) or in the list of the mail it was sealed in (the other side's, groupLines).
func revealOneLine(text, salt string) string {
	return text + " (salt " + salt + ")"
}

// oneCleanLine reports whether text is one line that reads back exactly from a mail:
// no line break, no space at either end, no two spaces together.
func oneCleanLine(text string) bool {
	return text != "" && strings.TrimSpace(text) == text && !strings.ContainsAny(text, "\n\r") && !strings.Contains(text, "  ")
}

// groupLines show, once for each mail whose sealed orders are among revealed, the
// commitment the other side was mailed for them all and the commitments it is made of
// (GroupCommitment), so that each revealed order's commitment is checked against a
// commitment mailed before. The orders of side own are left out (LayoutCompact): his
// order check gave him each of their commitments when he sealed them.
func groupLines(revealed []store.Order, groups map[string][]string, own string) []string {
	var out []string
	seen := map[string]bool{}
	for _, o := range revealed {
		if o.Group == "" || seen[o.Group] || len(groups[o.Group]) == 0 || (own != "" && o.Side == own) {
			continue
		}
		seen[o.Group] = true
		out = append(out, groupHead+"\n  "+o.Group+"\n"+groupListHead+"\n  "+strings.Join(groups[o.Group], "\n  "))
	}
	return out
}

const (
	groupHead     = "Sealed in one mail, the other side told the commitment"
	groupListHead = "SHA-256 of these commitments, one a line:"
)

// DiceHelp is the reply to HELP DICE: how a player checks a roll, a seed, a sealed
// order and a signed chain head from his mail (templates/dice-help.txt). The desk's
// reply adds worked checks from the player's own game (diceHelpFor).
func DiceHelp() string {
	body, err := render("dice-help.txt", map[string]any{})
	if err != nil {
		return "HELP DICE: see docs/dice.md in the Adjutant source."
	}
	return strings.TrimRight(body, "\n")
}

// isDiceHelp reports whether the word after HELP asks for DiceHelp: "DICE" in ASCII
// letters of any case (four bytes, so no look-alike letter from another script).
func isDiceHelp(word string) bool {
	return len(word) == 4 && strings.EqualFold(word, "DICE")
}

// plotExample and rollExample fill the worked checks of HELP DICE with a player's own
// game: a revealed sealed order and a roll of a revealed turn.
type plotExample struct {
	Game, Summary, Text, Salt, Commitment string
}

type rollExample struct {
	Game, Phase, Purpose, Rule, Digest, Seed, Output, FirstHex string
	Turn, Index, Sides, First, Bound, Face                     int
	// Round and Randomness are the beacon round of a game played with --dice beacon
	// (message version 2); Round 0 otherwise.
	Round      uint64
	Randomness string
}

// shellSafe reports whether s can stand between single quotes in the worked check as it
// is hashed: one line, no quote, nothing MailField would escape, at most max bytes.
func shellSafe(s string, max int) bool {
	return len(s) <= max && MailField(s) == s && !strings.ContainsAny(s, "'\n")
}

// diceHelpFor is DiceHelp with worked checks from the player's own game: the first sealed
// order revealed and the first one-die roll of a turn whose seed is revealed, where the
// shell lines fit the mail. Only what both sides' mails already showed is used.
func (d *Desk) diceHelpFor(tx store.Tx, game string) (string, error) {
	view := map[string]any{}
	journal, err := tx.Journal(game)
	if err != nil {
		return "", err
	}
	for _, j := range journal {
		for _, o := range j.Revealed {
			if _, done := view["Plot"]; !done && o.Salt != "" && shellSafe(o.Text, 55) {
				view["Plot"] = plotExample{Game: game, Summary: o.Summary, Text: o.Text, Salt: o.Salt, Commitment: o.Commitment}
			}
		}
	}
	entries, err := tx.Audit(game)
	if err != nil {
		return "", err
	}
	seeds := map[int]dice.Seed{}
	for _, e := range entries {
		if e.Kind == "reveal" {
			if s, err := dice.ParseSeed(e.Value); err == nil {
				seeds[e.Turn] = s
			}
		}
	}
	beacons := chainBeacons(entries)
	for _, e := range entries {
		seed, ok := seeds[e.Turn]
		if e.Kind != dice.KindRoll || e.Count != 1 || !ok || !shellSafe(e.Purpose, 70) || !shellSafe(e.Rule, 20) ||
			!shellSafe(e.Phase, 20) || !shellSafe(game, 40) {
			continue
		}
		bv := beaconValue(beacons[beaconKey(e.Turn, e.Phase)])
		msg := dice.Message(dice.Context{Game: game, Turn: e.Turn, Phase: e.Phase, OrdersDigest: e.OrdersDigest, Beacon: bv},
			e.Index, e.Kind, e.Purpose, e.Rule, e.Count, e.Sides)
		mac := hmac.New(sha256.New, seed[:])
		mac.Write(append(msg, 0, 0, 0, 0))
		out := mac.Sum(nil)
		face, ok := dice.Face(out[0], e.Sides)
		if !ok || len(e.Values) != 1 || face != e.Values[0] {
			continue // the first byte was skipped: a longer story than a worked example
		}
		view["Roll"] = rollExample{Game: game, Phase: e.Phase, Purpose: e.Purpose, Rule: e.Rule, Digest: e.OrdersDigest,
			Seed: seed.String(), Output: hex.EncodeToString(out), FirstHex: hex.EncodeToString(out[:1]),
			Turn: e.Turn, Index: e.Index, Sides: e.Sides, First: int(out[0]), Bound: 256 - 256%e.Sides, Face: face,
			Round: bv.Round, Randomness: hex.EncodeToString(bv.Randomness[:])}
		break
	}
	body, err := render("dice-help.txt", view)
	if err != nil {
		return "", err
	}
	return strings.TrimRight(body, "\n"), nil
}

// deckCommitLines publish the game's deck seed commitment.
func deckCommitLines(commitment string) []string {
	return []string{
		"Deck seed drawn, sealed until the game ends; SHA-256 of its 32 bytes:",
		"  " + commitment,
	}
}

// deckSeedLines reveal the game's deck seed with what it was committed to.
func deckSeedLines(secret, commitment string) []string {
	return []string{
		"Deck seed (32 bytes, written in hex), revealed at the end of the game",
		"  " + secret,
		"  SHA-256 of the 32 bytes (not of their hex), its commitment:",
		"  " + commitment,
	}
}

// dealRecord is the canonical one-record form of a deal of a sealed deck:
//
//	deck "us" shuffle 0 of 52 cards [AS 2S ... KC], rule "1, 3", purpose "..."
//	deck "us" card 7: 10H, rule "1", purpose "..."
//
// A shuffle lists the cards in their order before it, never after: the order it gave
// is sealed until the deck seed is revealed.
func dealRecord(d dice.Deal) string {
	var what string
	if d.Kind == dice.KindDeckShuffle {
		what = fmt.Sprintf("shuffle %d of %d cards [%s]", d.Index, len(d.Cards), strings.Join(d.Cards, " "))
	} else {
		what = fmt.Sprintf("card %d: %s", d.Index, strings.Join(d.Cards, " "))
	}
	return fmt.Sprintf("deck \"%s\" %s, rule \"%s\", purpose \"%s\"", MailField(d.Deck), what, MailField(d.Rule), MailField(d.Purpose))
}

// cardsText renders deals as the "Cards" section of a mail, with the game's name; it is
// empty without deals.
func cardsText(game string, deals []dice.Deal) string {
	if len(deals) == 0 {
		return ""
	}
	lines := wrapRecord(fmt.Sprintf("Game \"%s\". Each deck's order comes from the game's deck seed, revealed "+
		"when the game ends; a card's number is its place in the deck's order (send HELP DICE for how).",
		MailField(game)), "", "")
	for _, d := range deals {
		lines = append(lines, wrapRecord(dealRecord(d), "  ", "    ")...)
	}
	return strings.Join(lines, "\n")
}

// visibleDeals lists the deals of the events side may see, in order.
func visibleDeals(steps []stepRecord, side rules.Side) []dice.Deal {
	var out []dice.Deal
	for _, s := range steps {
		for _, e := range s.Events {
			if e.Deal != nil && e.VisibleTo(side) {
				out = append(out, *e.Deal)
			}
		}
	}
	return out
}
