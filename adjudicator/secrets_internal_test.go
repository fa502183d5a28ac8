package adjudicator

import (
	"math/rand/v2"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzScrub: whatever a mail's subject and text and whatever a reply holds, scrubbing
// never panics and keeps valid text valid; and a password of six characters or more
// given on a PASSWORD line is in no reply scrubbed with that mail's secrets, however
// it is written there (any case, anywhere).
func FuzzScrub(f *testing.F) {
	for _, s := range []struct {
		subject, text, pw, reply string
		at                       uint
	}{
		{"Re: [g1] pw-us-1", "GAME g1\nFIRE pw-us-1", "pw-us-1", "line 3: FIRE \n      REFUSED: \"\": no such hex", 13},
		{"", "HOST PASSWORD the host password\n> HOST PASSWORD x\nEXTEND g1 the  host\npassword", "Secret-99", "EXTEND g1 the\n    host password", 3},
		{"pw: Quoted-Secret-9", "> Password:Quoted-Secret-9 # mine", "Quoted-Secret-9", "Quoted-\n    Secret-9", 0},
		{"passwort=ünïcødé-pw", "PASSWORD ünïcødé-pw", "aaaaaa", "ÜNÏCØDÉ-PW aaaaaaa", 5},
	} {
		f.Add(s.subject, s.text, s.pw, s.reply, s.at)
	}
	f.Fuzz(func(t *testing.T, subject, text, pw, reply string, at uint) {
		h := &handling{msg: Message{Subject: subject, Text: text}}
		if got := h.scrub(reply); utf8.ValidString(reply) && !utf8.ValidString(got) {
			t.Fatalf("scrub(%q) = %q, not UTF-8", reply, got)
		}
		if len(pw) < shortSecret || len(pw) > 72 || strings.ContainsFunc(pw, func(r rune) bool { return r <= ' ' || r > '~' || r == '*' || r == '#' }) {
			return
		}
		h = &handling{msg: Message{Subject: subject, Text: text + "\nPASSWORD " + pw + "\n"}}
		cut := int(at % uint(len(reply)+1))
		for _, written := range []string{pw, strings.ToUpper(pw), strings.ToLower(pw)} {
			shown := reply[:cut] + written + reply[cut:]
			if got := h.scrub(shown); strings.Contains(strings.ToLower(got), strings.ToLower(pw)) {
				t.Fatalf("password %q still in %q (from %q)", pw, got, shown)
			}
		}
	})
}

// TestScrubCompilesOnDemand: a secret's pattern is compiled only for a text that holds
// it, so that the replies of a mail that quotes no password cost no compilation; the
// one that does is masked.
func TestScrubCompilesOnDemand(t *testing.T) {
	sc := newScrubber([]string{"Secret-99", "other password"})
	if got := sc.scrub("line 3: FIRE 2301\n      ok: understood"); got != "line 3: FIRE 2301\n      ok: understood" {
		t.Errorf("scrub changed a text without secrets: %q", got)
	}
	for i, re := range sc.patterns {
		if re != nil {
			t.Errorf("the pattern of secret %d was compiled for a text without it", i)
		}
	}
	if got := sc.scrub("PASSWORD SECRET-99 again"); strings.Contains(strings.ToLower(got), "secret-99") {
		t.Errorf("scrub = %q: the secret is still in it", got)
	}
	for i, secret := range sc.secrets {
		if compiled := sc.patterns[i] != nil; compiled != (secret == "Secret-99") {
			t.Errorf("secret %q: compiled %v, want only the one in the text compiled", secret, compiled)
		}
	}
}

// TestCompactAsMap: compact is strings.Map dropping white space and lowering the
// case, for ASCII, other scripts, white space of every kind and bytes that are not
// UTF-8.
func TestCompactAsMap(t *testing.T) {
	want := func(s string) string {
		return strings.Map(func(r rune) rune {
			if unicode.IsSpace(r) {
				return -1
			}
			return unicode.ToLower(r)
		}, s)
	}
	pieces := []string{"Pass", "WORD", " ", "\t", "\n", "\v\f\r", "\u00a0", "\u0085", "\u2028", "\u3000", "É", "ß", "İ", "ΣΑΣ", "Ǆ", "\xff", "\xe2\x82", "x", "9", "_", "~", "\x00", "\x1c"}
	r := rand.New(rand.NewPCG(23, 1))
	for range 3000 {
		var b strings.Builder
		for range r.IntN(12) {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		if got := compact(s); got != want(s) {
			t.Fatalf("compact(%q) = %q, want %q", s, got, want(s))
		}
	}
}
