package adjudicator

import (
	"regexp"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/templates"
)

// A password, the player's or the host's, appears in no mail Adjutant writes, wherever
// the sender wrote it: on its own line, again on a wrong line (EXTEND g1 <password>),
// in the subject, in a quoted line. The replies quote lines, arguments and subjects in
// many places (order checks, host replies, refusals, a mail set aside); rather than
// trust each of them, every mail a message causes is scrubbed of the passwords that
// message holds before it enters the outbox, so that no stored mail keeps one either.

// maxSecrets bounds the candidates read from one mail beyond the passwords the desk
// itself reads (the last PASSWORD line, the first HOST PASSWORD line): a mail of
// thousands of PASSWORD lines must not make every reply cost thousands of searches.
const maxSecrets = 32

// shortSecret is the length under which a secret is masked only as a word of its own,
// so that a host password "x" does not mask every x of a reply.
const shortSecret = 6

// secretMask is what a password reads as in a reply.
const secretMask = "********"

// mailSecrets lists what a mail holds that may be a password: whatever follows a word
// that resembles PASSWORD (PASSWORD, Password:, PW, HOST PASSWORD, Passwort=...) at the
// start of a line, quoted or not, or anywhere in the subject; the passwords the desk
// reads come first, so that the cap never drops them.
func mailSecrets(subject, text string) []string {
	var out []string
	seen := map[string]bool{"": true}
	add := func(s string) {
		s = strings.Join(strings.Fields(s), " ")
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	lines, _ := orders.Split(text)
	for _, l := range lines {
		if l.Is("HOST", "PASSWORD") {
			add(l.Rest(2)) // as isHostMail reads it
			break
		}
	}
	add(readCommands(lines).password)
	extra := 0
	more := func(fields []string) {
		for _, s := range secretsAfter(fields) {
			if extra < maxSecrets && !seen[s] {
				extra++
				add(s)
			}
		}
	}
	sf := strings.Fields(subject)
	for i := range sf {
		more(sf[i:])
	}
	for line := range strings.SplitSeq(text, "\n") {
		if extra >= maxSecrets {
			break
		}
		line = strings.TrimLeft(line, "> \t")
		f := strings.Fields(line)
		if len(f) > 1 && strings.EqualFold(f[0], "HOST") {
			f = f[1:]
		}
		more(f)
	}
	return out
}

// secretsAfter returns what follows the first of fields if that word resembles
// PASSWORD: the rest of the line, and the rest before a # comment (as the desk reads
// it). "Password:secret" gives "secret".
func secretsAfter(fields []string) []string {
	if len(fields) == 0 {
		return nil
	}
	word, glued := fields[0], ""
	if cut := strings.IndexAny(word, ":="); cut > 0 {
		word, glued = word[:cut], word[cut+1:]
	}
	// MaskSecret masks the rest of a line whose first word resembles PASSWORD.
	if probe := word + " x"; orders.MaskSecret(probe) == probe {
		return nil
	}
	rest := strings.TrimSpace(glued + " " + strings.Join(fields[1:], " "))
	out := []string{rest}
	if c := strings.IndexByte(rest, '#'); c >= 0 {
		out = append(out, strings.TrimSpace(rest[:c]))
	}
	return out
}

// scrubber masks a message's secrets in the mails it causes.
type scrubber struct {
	secrets []string
	// patterns are the secrets' patterns (secretPattern), each compiled when a text
	// first holds its secret: most mails quote no password, and compiling the pattern
	// of each cost more than the rest of the masking.
	patterns []*regexp.Regexp
	short    []bool   // the pattern at the same index must stand as a word of its own
	compact  []string // its secret in lower case without white space, to skip a search
}

// newScrubber prepares the masking of secrets, longest first (a password that holds
// another is masked whole).
func newScrubber(secrets []string) *scrubber {
	secrets = append([]string(nil), secrets...)
	sort.SliceStable(secrets, func(i, j int) bool { return len(secrets[i]) > len(secrets[j]) })
	s := &scrubber{}
	for _, secret := range secrets {
		if secret == "" || len(secret) > maxSecretLen {
			continue
		}
		s.secrets = append(s.secrets, secret)
		s.patterns = append(s.patterns, nil)
		s.short = append(s.short, utf8.RuneCountInString(secret) < shortSecret)
		s.compact = append(s.compact, compact(secret))
	}
	return s
}

// maxSecretLen is the longest secret masked, in bytes: bcrypt reads 72 bytes of a
// password at most, so a longer "password" can open nothing (and a megabyte of one
// must not become a regular expression).
const maxSecretLen = 128

// secretPattern matches a secret as a reply may show it: in any case (keywords and
// some arguments are quoted upper-cased), its words apart by any white space, and
// each word possibly cut where a long line was wrapped (templates.Wrap cuts a word
// longer than a line and indents the next).
func secretPattern(secret string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("(?i)")
	for i, word := range strings.Fields(secret) {
		if i > 0 {
			b.WriteString(`\s+`)
		}
		for j, r := range word {
			if j > 0 {
				b.WriteString(`(?:\n *)?`)
			}
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	return regexp.Compile(b.String())
}

// scrub returns s with every secret masked, a line the masking joined wrapped again.
func (sc *scrubber) scrub(s string) string { return rewrapMasked(sc.mask(s)) }

// mask returns s with every secret masked.
func (sc *scrubber) mask(s string) string {
	if sc == nil || len(sc.patterns) == 0 {
		return s
	}
	// A secret that is not in the text with its white space and case dropped is not
	// in it at all: most secrets of most mails cost one scan, not one search each.
	in := compact(s)
	for i, re := range sc.patterns {
		if !strings.Contains(in, sc.compact[i]) {
			continue
		}
		if re == nil {
			var err error
			if re, err = secretPattern(sc.secrets[i]); err != nil {
				continue // cannot be: every rune is quoted
			}
			sc.patterns[i] = re
		}
		locs := re.FindAllStringIndex(s, -1)
		if locs == nil {
			continue
		}
		var b strings.Builder
		last := 0
		for _, loc := range locs {
			if sc.short[i] && !standsAlone(s, loc[0], loc[1]) {
				continue
			}
			b.WriteString(s[last:loc[0]])
			b.WriteString(secretMask)
			last = loc[1]
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return s
}

// rewrapMasked wraps again, at 78 columns, a line that masking a secret cut over two
// lines has joined: a reply stays readable on a phone. Other lines are left as they are.
func rewrapMasked(s string) string {
	if !strings.Contains(s, secretMask) {
		return s
	}
	lines := strings.Split(s, "\n")
	changed := false
	for i, l := range lines {
		if utf8.RuneCountInString(l) <= 78 || !strings.Contains(l, secretMask) {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		pad := strings.Repeat(" ", indent)
		lines[i] = pad + strings.ReplaceAll(templates.Wrap(78-indent, 2, l[indent:]), "\n", "\n"+pad)
		changed = true
	}
	if !changed {
		return s
	}
	return strings.Join(lines, "\n")
}

// compact is s in lower case without its white space.
func compact(s string) string {
	// Each mail's body is compacted once a secret of the mail it answers: ASCII, most
	// of it, byte by byte; any other rune as strings.Map would map it (an invalid
	// byte becomes U+FFFD), so that the text is the same (TestCompactAsMap).
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch {
			case c == ' ' || c >= '\t' && c <= '\r':
			case c >= 'A' && c <= 'Z':
				b = append(b, c+'a'-'A')
			default:
				b = append(b, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !unicode.IsSpace(r) {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return string(b)
}

// standsAlone reports whether s[i:j] is neither preceded nor followed by a letter or a
// digit.
func standsAlone(s string, i, j int) bool {
	if r, _ := utf8.DecodeLastRuneInString(s[:i]); i > 0 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	if r, _ := utf8.DecodeRuneInString(s[j:]); j < len(s) && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
		return false
	}
	return true
}

// fixedKinds are the kinds of mail whose body is the desk's own text, whatever the
// mail it answers held (the refusal of a wrong password, general help): their body is
// not scrubbed, so that a password that is a word of that text ("wrong") does not make
// one refusal differ from another, which would tell a stranger something. Their
// subject, which copies the sender's, is. Every other body is scrubbed, in case it
// quotes the mail one day.
var fixedKinds = map[string]bool{"refused": true, "help": true}

// scrubBody is scrub for the body of a mail of the given kind.
func (h *handling) scrubBody(kind, body string) string {
	if fixedKinds[kind] {
		return body
	}
	return h.scrub(body)
}

// scrubLine masks the secrets of the message in hand in one line of it that a reply
// quotes, before the reply cuts or wraps it.
func (h *handling) scrubLine(line string) string {
	if h.msg.Text == "" && h.msg.Subject == "" {
		return line
	}
	if h.secrets == nil {
		h.secrets = newScrubber(mailSecrets(h.msg.Subject, h.msg.Text))
	}
	return h.secrets.mask(line)
}

// scrub masks the secrets of the message in hand in text of a mail it causes.
func (h *handling) scrub(text string) string {
	if h.msg.Text == "" && h.msg.Subject == "" {
		return text
	}
	if h.secrets == nil {
		h.secrets = newScrubber(mailSecrets(h.msg.Subject, h.msg.Text))
	}
	return h.secrets.scrub(text)
}
