package orders

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// typography maps the characters that phones, Outlook and word processors type in place
// of ASCII ones, where the ASCII reading is the only one an order can have: the dashes
// and minus signs a path or a range is written with ("4209–4210"), curly quotes, and
// fullwidth digits (a CJK keyboard's "４２０９"). Letters are never mapped: a keyword
// written with a look-alike letter ("МOVE", Cyrillic М) stays unknown (see [Upper]).
var typography = strings.NewReplacer(
	"\u2010", "-", // hyphen
	"\u2011", "-", // non-breaking hyphen
	"\u2012", "-", // figure dash
	"\u2013", "-", // en dash
	"\u2014", "-", // em dash
	"\u2212", "-", // minus sign
	"\uFE63", "-", // small hyphen-minus
	"\uFF0D", "-", // fullwidth hyphen-minus
	"\u2018", "'", "\u2019", "'", "\u201A", "'", "\u201B", "'",
	"\u201C", `"`, "\u201D", `"`, "\u201E", `"`, "\u201F", `"`,
	"０", "0", "１", "1", "２", "2", "３", "3", "４", "4",
	"５", "5", "６", "6", "７", "7", "８", "8", "９", "9",
)

// Typography returns line with the typography a mail client substitutes read as ASCII
// (dashes, minus signs, curly quotes and fullwidth digits, see typography) and every
// space character, a non-breaking space among them, as a plain space. A line whose first
// word resembles PASSWORD (or HOST PASSWORD) is returned as it is: a password is
// compared as written.
func Typography(line string) string {
	ascii := true
	for i := 0; i < len(line); i++ {
		if line[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii || secretLine(line) {
		return line
	}
	line = typography.Replace(line)
	return strings.Map(func(r rune) rune {
		if r != ' ' && unicode.Is(unicode.Zs, r) {
			return ' '
		}
		return r
	}, line)
}

// secretLine reports whether line gives a password: its first word, or its second after
// HOST, resembles PASSWORD (see [MaskSecret]).
func secretLine(line string) bool {
	fields := strings.Fields(line)
	if len(fields) > 1 && EqualFold(fields[0], "HOST") {
		fields = fields[1:]
	}
	if len(fields) == 0 {
		return false
	}
	word := fields[0]
	if cut := strings.IndexAny(word, ":="); cut > 0 {
		word = word[:cut]
	}
	return resemblesPassword(word)
}

// Visible returns s as an order check quotes it in a refusal: printable ASCII and the
// letters of Latin-1 (ä, ß, é) as they are, every other character as its code point
// ("4209<U+2015>4210", "<U+041C>OVE"), a byte that is not UTF-8 as its value ("<0xff>"),
// so that a character that only looks like the expected one, or cannot be seen at all,
// shows why the line was refused.
func Visible(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, "<%#02x>", s[i])
		case r >= ' ' && r < 0x7F, r >= 0xC0 && r <= 0xFF && r != 0xD7 && r != 0xF7:
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
		i += size
	}
	return b.String()
}

// Clip returns s cut to at most n characters, with a visible mark of how many more it
// had ("…(1,048,476 more characters)"): an order check quotes a line, not a megabyte.
// With visible, the characters kept are shown as [Visible] shows them.
func Clip(s string, n int, visible bool) string {
	kept, more := cut(s, n)
	if visible {
		kept = Visible(kept)
	}
	return kept + moreMark(more)
}

// ClipWords returns s cut as [Clip] cuts it, to at most total characters, and every
// run of more than n characters without a space in it cut to n: a reason that quotes a
// megabyte of input quotes its first n characters, and goes on after them.
func ClipWords(s string, n, total int, visible bool) string {
	var b strings.Builder
	for used := 0; len(s) > 0; {
		if used >= total {
			b.WriteString(moreMark(utf8.RuneCountInString(s)))
			break
		}
		word, space := s, ""
		if sp := strings.IndexByte(s, ' '); sp >= 0 {
			word, space = s[:sp], " "
		}
		s = s[len(word)+len(space):]
		kept, more := cut(word, min(n, total-used))
		used += utf8.RuneCountInString(kept) + len(space)
		if more > 0 && used >= total {
			more, space, s = more+len(space)+utf8.RuneCountInString(s), "", ""
		}
		if visible {
			kept = Visible(kept)
		}
		b.WriteString(kept + moreMark(more) + space)
	}
	return b.String()
}

// cut splits s after n characters: the text kept and how many characters were not.
func cut(s string, n int) (string, int) {
	if len(s) <= n {
		return s, 0
	}
	count := 0
	for i := range s {
		if count == n {
			return s[:i], utf8.RuneCountInString(s[i:])
		}
		count++
	}
	return s, 0
}

func moreMark(n int) string {
	if n == 0 {
		return ""
	}
	return "…(" + Thousands(n) + " more characters)"
}

// Thousands writes n with commas between groups of three digits: "9,980".
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
