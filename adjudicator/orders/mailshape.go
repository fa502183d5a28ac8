package orders

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The shapes in which mail clients wrap a reply around what the player wrote: the
// quoted original below it, the attribution line above a quote, and the closing text
// (sign-offs, "Sent from my iPhone", signatures without "-- ") after the last order.
// None of them may void an order (DESIGN.md, "Orders by email").

var (
	// originalMessage matches the separators that open a quoted or forwarded original:
	// Outlook's "-----Original Message-----" (and its localisations' shape), Gmail's
	// "---------- Forwarded message ---------".
	originalMessage = regexp.MustCompile(`(?i)^-{3,}\s*(original message|forwarded message|ursprüngliche nachricht|message d'origine|mensaje original|messaggio originale)\s*-{3,}$`)
	// headerBlockFrom and headerBlockSent match the first lines of the header block that
	// Outlook puts above a quoted original without a separator ("From: Adjutant ..." then
	// "Sent: Sunday, ..."), in English, German and French.
	headerBlockFrom = regexp.MustCompile(`(?i)^(from|von|de)\s*:\s*\S`)
	headerBlockSent = regexp.MustCompile(`(?i)^(sent|date|gesendet|datum|envoyé)\s*:\s*\S`)
	// attribution matches the line a mailer writes above a quote: "On ..., X wrote:",
	// "Am ... schrieb X:", "Le ... a écrit :", "El ... escribió:".
	attribution = regexp.MustCompile(`(?i)(\bwrote|\bschrieb\b.*|a écrit|escribió|ha scritto|schreef|skrev)\s*:$`)
	// attributionOpen matches the first half of an attribution broken over two lines.
	attributionOpen = regexp.MustCompile(`(?i)^(on|am|le|el|il|op|den)\s+\S`)
)

// quotedOriginal reports whether raw[i] opens a quoted original, and names it.
func quotedOriginal(raw []string, i int) string {
	line := strings.TrimSpace(raw[i])
	if originalMessage.MatchString(line) {
		return "quoted original"
	}
	// Outlook on the web draws a rule of underscores above the header block.
	if len(line) >= 10 && strings.Trim(line, "_") == "" {
		if j := nextNonBlank(raw, i+1); j >= 0 && headerBlockFrom.MatchString(strings.TrimSpace(raw[j])) {
			return "quoted original"
		}
	}
	if headerBlockFrom.MatchString(line) {
		// "From:" alone could be an order's text in some game; the block is only a
		// quote when a "Sent:" or "Date:" line follows within two lines.
		for j, k := i+1, 0; j < len(raw) && k < 2; j++ {
			t := strings.TrimSpace(raw[j])
			if t == "" {
				continue
			}
			k++
			if headerBlockSent.MatchString(t) {
				return "quoted original"
			}
		}
	}
	return ""
}

func nextNonBlank(raw []string, from int) int {
	for j := from; j < len(raw); j++ {
		if strings.TrimSpace(raw[j]) != "" {
			return j
		}
	}
	return -1
}

func isAttribution(line string) bool {
	// attribution ends in ":": the suffix spares most lines of a mail the expression.
	return !strings.HasPrefix(line, ">") && len(line) <= 400 && strings.HasSuffix(line, ":") && attribution.MatchString(line)
}

func attributionStart(line string) bool { return attributionOpen.MatchString(line) }

// ClosingText marks the closing text of a mail: the lines after the last line that
// starts with a keyword (and after that order's continuation lines, which start with a
// digit, as a plot list that goes on over several lines does), when they do not start
// with a keyword themselves. Sign-offs ("Thanks, Bob", "Grüße, / Bernd"), "Sent from my
// iPhone" and signatures without "-- " are closing text and harmless. An unknown word
// before or between orders is not: it is probably a mistyped order, and stays among the
// lines the ruleset refuses. So does a last line that reads like a mistyped order: a
// word a letter or two away from a keyword, followed by numbers ("MVOE 2400-2401").
//
// keywords are upper-case ASCII; a trailing colon on a mail's first word is ignored
// ("Password:"). With no keyword in the mail, nothing is closing text.
func ClosingText(lines []Line, keywords []string) (kept []Line, closing []Ignored) {
	known := make(map[string]bool, len(keywords))
	for _, k := range keywords {
		known[k] = true
	}
	isKeyword := func(l Line) bool { return known[strings.TrimSuffix(l.Keyword(), ":")] }
	last := -1
	for i, l := range lines {
		if isKeyword(l) || (last >= 0 && nearKeyword(l, keywords)) {
			last = i
		}
	}
	if last < 0 {
		return lines, nil
	}
	for last+1 < len(lines) && startsWithDigit(lines[last+1]) {
		last++
	}
	for _, l := range lines[last+1:] {
		closing = append(closing, Ignored{No: l.No, Text: MaskSecret(l.Text), Why: closingWhy, kind: closingKind})
	}
	return lines[:last+1], closing
}

// nearKeyword reports whether l reads like a mistyped order: a first word of four letters
// or more within two edits of a keyword as long, and a digit somewhere after it.
func nearKeyword(l Line, keywords []string) bool {
	w := l.Keyword()
	if len(w) < 4 || !strings.ContainsAny(l.Rest(1), "0123456789") {
		return false
	}
	for _, k := range keywords {
		if len(k) >= 4 && editDistance(w, k) <= 2 {
			return true
		}
	}
	return false
}

func startsWithDigit(l Line) bool {
	return len(l.Text) > 0 && l.Text[0] >= '0' && l.Text[0] <= '9'
}

// passTurn is Soissons' order passing a turn's steps ("PASS 18 July PM", 4.2), which
// names a day, not a password.
var passTurn = regexp.MustCompile(`(?i)^PASS [0-9]{1,2} [a-z]+( (AM|PM|night))?$`)

// MaskSecret returns line as it may be quoted back to a player: a line whose first word
// resembles PASSWORD (any case, with a colon or "=", misspelt, or written with Cyrillic
// or Greek look-alike letters) is cut to that word and asterisks, so that a password is
// never quoted in a reply, even on a line Adjutant did not understand.
func MaskSecret(line string) string {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return line
	}
	word := fields[0]
	cut := strings.IndexAny(word, ":=")
	if cut > 0 {
		word = word[:cut]
	}
	if !resemblesPassword(word) || passTurn.MatchString(strings.Join(fields, " ")) {
		return line
	}
	// A word alone, no longer than PASSWORD and with nothing after it, hides no secret
	// (Soissons' PASS order); a longer one may be a password glued to it.
	if len(fields) == 1 && cut < 0 {
		if utf8.RuneCountInString(word) <= len("PASSWORD") {
			return line
		}
		return "********"
	}
	return word + " ********"
}

// resemblesPassword reports whether word is PASSWORD or near it.
func resemblesPassword(word string) bool {
	w := skeleton(word)
	if w == "" {
		return false
	}
	if strings.HasPrefix(w, "PASS") || strings.HasPrefix(w, "PASW") {
		return true
	}
	for _, target := range []string{"PASSWORD", "PASSWORT", "PASSWD", "PWD", "PW", "KENNWORT", "MOTDEPASSE"} {
		// The distance is at least the difference in length: most words are
		// told apart without computing it (MaskSecret reads every line of a mail).
		if w == target || (len(target) >= 6 && max(len(w)-len(target), len(target)-len(w)) <= 2 && editDistance(w, target) <= 2) {
			return true
		}
	}
	return false
}

// confusables maps letters that look like Latin capitals to them: enough of Cyrillic,
// Greek and the fullwidth forms for the word PASSWORD and its misspellings.
var confusables = map[rune]rune{
	'А': 'A', 'а': 'A', 'Α': 'A', 'α': 'A', 'Р': 'P', 'р': 'P', 'Ρ': 'P', 'ρ': 'P',
	'Ѕ': 'S', 'ѕ': 'S', 'ſ': 'S', 'О': 'O', 'о': 'O', 'Ο': 'O', 'ο': 'O',
	'Ԝ': 'W', 'ԝ': 'W', 'Ш': 'W', 'ш': 'W', 'Е': 'E', 'е': 'E', 'Ε': 'E',
	'Д': 'D', 'ԁ': 'D', 'ı': 'I', 'І': 'I', 'і': 'I', 'Ι': 'I', 'С': 'C', 'с': 'C',
	'Т': 'T', 'Τ': 'T', 'М': 'M', 'Μ': 'M', 'Κ': 'K', 'К': 'K', 'Ν': 'N', 'Η': 'H', 'Н': 'H',
}

// skeleton folds word to upper-case Latin letters: look-alikes mapped, fullwidth forms
// narrowed, anything else that is not a letter dropped.
func skeleton(word string) string {
	var b strings.Builder
	for _, r := range word {
		if r >= 0xFF01 && r <= 0xFF5E { // fullwidth ASCII
			r -= 0xFEE0
		}
		if c, ok := confusables[r]; ok {
			r = c
		}
		switch {
		case 'a' <= r && r <= 'z':
			b.WriteRune(r - 'a' + 'A')
		case 'A' <= r && r <= 'Z':
			b.WriteRune(r)
		case unicode.IsLetter(r):
			b.WriteRune('?') // an unknown letter still counts as one edit
		}
	}
	return b.String()
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// TooMany is the most command lines Adjutant reads from one mail; a longer submission is
// refused whole with a clear answer rather than half read.
const TooMany = 500

// TooManyLines says why a submission of n command lines is refused.
func TooManyLines(n int) string {
	return fmt.Sprintf("your mail has %s command lines; Adjutant reads at most %d in one mail. Nothing was changed: send your orders in several mails, or fewer lines.", Thousands(n), TooMany)
}
