package adjudicator_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
)

// TestCheckMails verifies a game from the US player's mails alone, then shows that each
// input of a roll, a seed, a sealed order or a signed head changed in one mail is caught.
func TestCheckMails(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	f.orders("us", passU, "ROLLS")
	var bodies []string
	rollsReply := -1
	for _, m := range to(f.outbox(), us) {
		if strings.Contains(m.Body, "== ROLLS ==") {
			rollsReply = len(bodies)
		}
		bodies = append(bodies, m.Body)
	}
	if rollsReply < 0 {
		t.Fatal("no ROLLS reply")
	}
	got, err := adjudicator.CheckMails("g1", bodies)
	if err != nil {
		t.Fatalf("CheckMails: %v", err)
	}
	if got.Verified == 0 || got.Seeds == 0 || got.Sealed == 0 || got.Signatures == 0 || got.Rolls != got.Verified+got.Unrevealed {
		t.Fatalf("CheckMails = %+v; want rolls verified, a seed, a sealed order and a signature checked", got)
	}
	// The ROLLS reply alone gives the same rolls as the results mails.
	alone, err := adjudicator.CheckMails("g1", append(bodies[:rollsReply:rollsReply], bodies[rollsReply]))
	if err != nil || alone.Rolls != got.Rolls {
		t.Errorf("CheckMails up to the ROLLS reply = %+v, %v; want the %d rolls", alone, err, got.Rolls)
	}

	// The results mails alone, in their compact form, give rolls to verify too.
	results := append(append([]string(nil), bodies[:rollsReply]...), bodies[rollsReply+1:]...)
	if compact, err := adjudicator.CheckMails("g1", results); err != nil || compact.Verified == 0 || !strings.Contains(strings.Join(results, ""), "\n  1d6, rule \"") {
		t.Errorf("CheckMails of the results mails without the ROLLS reply = %+v, %v; want rolls of the compact form verified", compact, err)
	}

	firstRoll := regexp.MustCompile(`index 0: 1d6 -> \[(\d)\] = (\d)`)
	firstCompact := regexp.MustCompile(`(?m)^  0 \[(\d)\] "`) // the results mails' compact form
	seed := regexp.MustCompile(`seed \(32 bytes, written in hex\)\n  ([0-9a-f])`)
	salt := regexp.MustCompile(`(?:characters\): |\(salt )([0-9a-f])`)
	digest := regexp.MustCompile(`orders digest:\n  ([0-9a-f])`)
	sigLine := regexp.MustCompile(`128 hex digits\):\n  ([0-9a-f])`)
	head := regexp.MustCompile(`adjutant-results-v1\|[^\n]*\n  ([0-9a-f])`)
	flipHex := func(re *regexp.Regexp) func(string) string {
		return func(body string) string {
			loc := re.FindStringSubmatchIndex(body)
			if loc == nil {
				return body
			}
			c := "0"
			if body[loc[2]] == '0' {
				c = "1"
			}
			return body[:loc[2]] + c + body[loc[3]:]
		}
	}
	cases := []struct {
		name   string
		change func(string) string
		want   string
		all    bool // changed in every mail, not only the first that has it
	}{
		{"roll value", func(body string) string {
			body = firstRoll.ReplaceAllStringFunc(body, func(s string) string {
				m := firstRoll.FindStringSubmatch(s)
				v, _ := strconv.Atoi(m[1])
				return "index 0: 1d6 -> [" + strconv.Itoa(v%6+1) + "] = " + strconv.Itoa(v%6+1)
			})
			return firstCompact.ReplaceAllStringFunc(body, func(s string) string {
				v, _ := strconv.Atoi(firstCompact.FindStringSubmatch(s)[1])
				return "  0 [" + strconv.Itoa(v%6+1) + "] \""
			})
		}, "seed gives", true},
		{"purpose", func(body string) string { return strings.Replace(body, `purpose "3.4 `, `purpose "3.5 `, 1) }, "an earlier mail gave", false},
		{"purpose, compact", func(body string) string { return strings.Replace(body, `] "3.4 `, `] "3.5 `, 1) }, "an earlier mail gave", false},
		{"seed", flipHex(seed), "hashes to", false},
		{"salt", flipHex(salt), "hash to", false},
		{"orders digest", flipHex(digest), "an earlier mail gave", false},
		{"signature", flipHex(sigLine), "does not verify", false},
		{"chain head", flipHex(head), "does not verify", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			changed := false
			bad := append([]string(nil), bodies...)
			for i, b := range bad {
				if nb := c.change(b); nb != b {
					bad[i], changed = nb, true
					if !c.all {
						break
					}
				}
			}
			if !changed {
				t.Fatalf("nothing to change for %s", c.name)
			}
			_, err := adjudicator.CheckMails("g1", bad)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("CheckMails with the %s changed in one mail = %v, want an error containing %q", c.name, err, c.want)
			}
		})
	}
}

// TestMailField: a field read back from a mail is the field written, whatever its
// spaces, quotes and bytes, and what is written survives wrapping at spaces.
func TestMailField(t *testing.T) {
	for _, s := range []string{"", "10.8", "12.2 US bombardment of 1911, unit 1 of 3", " lead", "trail ", "two  spaces",
		`a "quoted" word`, "100% | pipe", "tab\there", "line\nbreak", "Grüße", "bad \xff byte", "   "} {
		enc := adjudicator.MailField(s)
		if strings.Contains(enc, "  ") || strings.HasPrefix(enc, " ") || strings.HasSuffix(enc, " ") || strings.ContainsAny(enc, "\"|\n\t") {
			t.Errorf("MailField(%q) = %q: would not survive a mail", s, enc)
		}
		if back, err := adjudicator.UnmailField(enc); err != nil || back != s {
			t.Errorf("UnmailField(MailField(%q)) = %q, %v", s, back, err)
		}
	}
	for _, bad := range []string{"%", "%4", "%zz"} {
		if _, err := adjudicator.UnmailField(bad); err == nil {
			t.Errorf("UnmailField(%q) succeeded", bad)
		}
	}
}

func FuzzMailField(f *testing.F) {
	for _, s := range []string{"12.2 US bombardment", "  ", "%41", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		enc := adjudicator.MailField(s)
		if back, err := adjudicator.UnmailField(enc); err != nil || back != s {
			t.Fatalf("UnmailField(MailField(%q)) = %q, %v", s, back, err)
		}
		if strings.Contains(enc, "  ") || strings.ContainsAny(enc, "\"|\n") {
			t.Fatalf("MailField(%q) = %q", s, enc)
		}
	})
}

// TestCheckMailsFormat writes two mails by hand in the documented format (docs/dice.md),
// with a shuffle, a modified roll of two dice, a wrapped record and fields that need
// escapes, and checks them: the format is the contract, not whatever the desk renders.
func TestCheckMailsFormat(t *testing.T) {
	seed, err := dice.NewSeed(strings.NewReader(strings.Repeat("s", 32)))
	if err != nil {
		t.Fatal(err)
	}
	game, phase, digest := "cup.final", "IV|b", strings.Repeat("ab", 32)
	st := dice.NewStream(seed, dice.Context{Game: game, Turn: 3, Phase: phase, OrdersDigest: digest})
	sh := st.Shuffle("deal the  event cards", "6.1", 10)
	r := st.Roll(dice.Request{Purpose: `fire of "York" at 100% odds, a long purpose that is wrapped over two lines`, Rule: "10.8", Count: 2, Sides: 6, Modifier: 1})
	vals := func(v []int) string { return strings.Trim(fmt.Sprint(v), "[]") }
	commit := "Turn 3: seed drawn; SHA-256 of its 32 bytes:\n  " + seed.Commitment() + "\n"
	record := fmt.Sprintf("index 1: 2d6 -> [%s] +1 = %d, rule \"10.8\", purpose \"%s\"", vals(r.Values), r.Result, adjudicator.MailField(r.Purpose))
	cut := strings.LastIndex(record[:70], " ")
	results := fmt.Sprintf("Game \"%s\". Each roll ...\n"+
		"Turn 3, phase \"%s\", orders digest:\n  %s\n"+
		"  index 0: shuffle of 10 -> [%s], rule \"6.1\", purpose \"%s\"\n"+
		"  %s\n    %s\n\n"+
		"Turn 3: seed (32 bytes, written in hex)\n  %s\n  SHA-256 of the 32 bytes (not of their hex), its commitment:\n  %s\n",
		game, adjudicator.MailField(phase), digest, vals(sh.Values), adjudicator.MailField(sh.Purpose), record[:cut], record[cut+1:], seed, seed.Commitment())
	got, err := adjudicator.CheckMails(game, []string{commit, results})
	if err != nil || got.Rolls != 2 || got.Verified != 2 || got.Seeds != 1 {
		t.Fatalf("CheckMails = %+v, %v; want the shuffle and the roll verified\n%s", got, err, results)
	}
	// The seed revealed in the same mail as its commitment proves nothing.
	if _, err := adjudicator.CheckMails(game, []string{commit + results}); err == nil {
		t.Error("a seed checked against a commitment mailed with it")
	}
	// Another purpose gives other dice.
	if _, err := adjudicator.CheckMails(game, []string{commit, strings.Replace(results, "deal the", "deal thy", 1)}); err == nil {
		t.Error("a changed purpose passed")
	}
}

// TestHelpDiceAndRollsFitTheMail: HELP DICE answers with how to check the dice (not the
// ruleset's help), and the HELP DICE and ROLLS replies keep to 78 columns.
func TestHelpDiceAndRollsFitTheMail(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	for _, tc := range []struct{ body, want, not string }{
		{"help dice", "== HELP DICE ==", "HELP: Soldiers"},
		{"HELP", "HELP: Soldiers", "== HELP DICE =="},
		{"ROLLS", "The chain's head", "== HELP DICE =="},
	} {
		_, mails := f.orders("us", passU, tc.body)
		if len(mails) != 1 {
			t.Fatalf("%s: %d mails, want the reply", tc.body, len(mails))
		}
		body := mails[0].Body
		if !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) {
			t.Errorf("%s: the reply lacks %q or has %q:\n%s", tc.body, tc.want, tc.not, body)
		}
		for _, l := range strings.Split(body, "\n") {
			if n := len([]rune(l)); n > 78 {
				t.Errorf("%s: line of %d columns: %q", tc.body, n, l)
			}
		}
	}
	// The worked checks come from the player's own game, and say what the commands print.
	_, mails := f.orders("us", passU, "HELP DICE")
	body := mails[0].Body
	plot := regexp.MustCompile(`printf '%s' '([^']*)' '\|' \\\n    ([0-9a-f]{32}) \| sha256sum\n  ([0-9a-f]{64})  -`).FindStringSubmatch(body)
	if plot == nil || !strings.Contains(body, "From your game (g1), the roll at index 0 of turn 0") {
		t.Fatalf("HELP DICE has no worked check from the game:\n%s", body)
	}
	if sum := sha256.Sum256([]byte(plot[1] + "|" + plot[2])); hex.EncodeToString(sum[:]) != plot[3] {
		t.Errorf("HELP DICE: the plot command prints %x, the reply says %s", sum, plot[3])
	}
	if !strings.Contains(adjudicator.DiceHelp(), "adjutant-dice-v1") {
		t.Error("DiceHelp does not give the message's version field")
	}
}

// FuzzCheckMails: whatever a mail holds, checking it returns an answer, never a panic.
func FuzzCheckMails(f *testing.F) {
	f.Add("Game \"g\".\nTurn 1, phase \"I\", orders digest:\n  "+strings.Repeat("a", 64)+"\n  index 0: 1d6 -> [3] = 3, rule \"1\", purpose \"p\n    q\"\n",
		"Turn 1: seed (32 bytes, written in hex)\n  "+strings.Repeat("b", 64)+"\n  SHA-256 of the 32 bytes (not of their hex), its commitment:\n  "+strings.Repeat("c", 64)+"\n")
	f.Add("X, text:\n    PLOT\n      more\n  salt (hashed as these 2 characters): ab\n  commitment, SHA-256 of the text, \"|\" and the salt:\n  "+strings.Repeat("d", 64)+"\n",
		"Game \"g\".\n  index 0: shuffle of 3 -> [0 2 1], rule \"%zz\", purpose \"\"\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		_, _ = adjudicator.CheckMails("g", []string{a, b})
	})
}

// TestCheckMailsImpossibleRoll: a mail showing a roll no server could make (no sides, a
// million dice) is refused, not re-derived.
func TestCheckMailsImpossibleRoll(t *testing.T) {
	seed, _ := dice.NewSeed(strings.NewReader(strings.Repeat("x", 32)))
	commit := "Turn 1: seed drawn; SHA-256 of its 32 bytes:\n  " + seed.Commitment() + "\n"
	reveal := "Turn 1: seed (32 bytes, written in hex)\n  " + seed.String() + "\n  SHA-256 of the 32 bytes (not of their hex), its commitment:\n  " + seed.Commitment() + "\n"
	for _, dice := range []string{"1d0", "1d1", "1000001d6", "0d6", "1d257"} {
		mail := "Game \"g\".\nTurn 1, phase \"I\", orders digest:\n  " + strings.Repeat("a", 64) + "\n  index 0: " + dice + " -> [1] = 1, rule \"1\", purpose \"p\"\n" + reveal
		if _, err := adjudicator.CheckMails("g", []string{commit, mail}); err == nil || !strings.Contains(err.Error(), "no such roll") {
			t.Errorf("%s: CheckMails = %v, want the roll refused", dice, err)
		}
	}
}

// TestCheckMailsSealedGroups: the German checks the US plot revealed to him against the
// one commitment his notice gave for the orders the US sealed in that mail; a list of
// commitments that does not hash to it, or a revealed order whose commitment is not in
// the list, is caught.
func TestCheckMailsSealedGroups(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	f.orders("us", passU, usSetup)
	f.orders("de", passD, deSetup)
	var bodies []string
	grouped := -1
	for _, m := range to(f.outbox(), de) {
		if strings.Contains(m.Body, "Sealed in one mail, the other side told the commitment") && grouped < 0 {
			grouped = len(bodies)
		}
		bodies = append(bodies, m.Body)
	}
	if grouped < 0 {
		t.Fatal("no results mail to the German lists the commitments of a mail's sealed orders")
	}
	got, err := adjudicator.CheckMails("g1", bodies)
	if err != nil || got.Sealed == 0 {
		t.Fatalf("CheckMails of the German's mails = %+v, %v; want the US orders revealed to him checked", got, err)
	}
	list := regexp.MustCompile(`one a line:\n  ([0-9a-f]{64})\n  ([0-9a-f]{64})`)
	for name, change := range map[string]func(string) string{
		// Two commitments of the list swapped: it no longer hashes to the notice's.
		"list reordered": func(b string) string { return list.ReplaceAllString(b, "one a line:\n  $2\n  $1") },
		// The revealed order's commitment dropped from the list (and the list's hash
		// with it): the order is then committed to by nothing the German was mailed.
		"order not in the list": func(b string) string {
			m := regexp.MustCompile(`(?m)^(\S[^\n]*) \(salt ([0-9a-f]{32})\)$`).FindStringSubmatch(b)
			sum := sha256.Sum256([]byte(m[1] + "|" + m[2]))
			return strings.Replace(b, "one a line:\n  "+hex.EncodeToString(sum[:])+"\n", "one a line:\n", 1)
		},
	} {
		bad := append([]string(nil), bodies...)
		bad[grouped] = change(bad[grouped])
		if bad[grouped] == bodies[grouped] {
			t.Fatalf("%s: the change changed nothing:\n%s", name, bodies[grouped])
		}
		if _, err := adjudicator.CheckMails("g1", bad); err == nil {
			t.Errorf("%s: CheckMails found nothing wrong", name)
		}
	}
}
