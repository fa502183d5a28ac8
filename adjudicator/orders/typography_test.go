package orders_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

func TestTypography(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"en dash in a path", "MOVE 4/DC 4209–4210", "MOVE 4/DC 4209-4210"},
		{"em dash", "MOVE 2300—2301", "MOVE 2300-2301"},
		{"minus sign", "MOVE 2300−2301", "MOVE 2300-2301"},
		{"non-breaking hyphen", "MOVE 2300\u20112301", "MOVE 2300-2301"},
		{"hyphen", "MOVE 2300\u20102301", "MOVE 2300-2301"},
		{"figure dash", "MOVE 2300\u20122301", "MOVE 2300-2301"},
		{"curly quotes", "NAME “Sergeant York” ‘x’", `NAME "Sergeant York" 'x'`},
		{"fullwidth digits", "PLOT TURN １ ４３００x3", "PLOT TURN 1 4300x3"},
		{"non-breaking spaces", "MOVE\u00a02300-2301\u202f2302", "MOVE 2300-2301 2302"},
		{"look-alike letters stay", "МOVE 2300–2301", "МOVE 2300-2301"}, // Cyrillic М
		{"fullwidth letters stay", "ＭＯＶＥ 2300", "ＭＯＶＥ 2300"},
		{"a password is compared as written", "PASSWORD pass–word—１", "PASSWORD pass–word—１"},
		{"a host password too", "HOST PASSWORD pass–word", "HOST PASSWORD pass–word"},
		{"ASCII unchanged", "MOVE 2300-2301", "MOVE 2300-2301"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := orders.Typography(tt.in); got != tt.want {
				t.Errorf("Typography(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestSplitForgivesTypography: the lines Split gives rulesets carry the ASCII forms, in
// Text and in Fields, and a keyword with a look-alike letter is no keyword.
func TestSplitForgivesTypography(t *testing.T) {
	lines, _ := orders.Split("MOVE\u00a04/DC 4209–4210\nМOVE 2300\nPASSWORD a–b\n")
	if len(lines) != 3 {
		t.Fatalf("Split gave %d lines, want 3", len(lines))
	}
	if l := lines[0]; l.Text != "MOVE 4/DC 4209-4210" || len(l.Fields) != 3 || l.Fields[2] != "4209-4210" || l.Keyword() != "MOVE" {
		t.Errorf("line 1 = %q %q", l.Text, l.Fields)
	}
	if l := lines[1]; l.Keyword() == "MOVE" {
		t.Errorf("%q is read as MOVE", l.Text)
	}
	if l := lines[2]; l.Rest(1) != "a–b" {
		t.Errorf("the password is read as %q, want it as written", l.Rest(1))
	}
}

func TestVisible(t *testing.T) {
	tests := []struct{ in, want string }{
		{"4209\u20154210", "4209<U+2015>4210"},
		{"МOVE 2300", "<U+041C>OVE 2300"},
		{"ſtatuſ", "<U+017F>tatu<U+017F>"},
		{"zero\u200bwidth", "zero<U+200B>width"},
		{"tab\there", "tab<U+0009>here"},
		{"Grüße, Bernd", "Grüße, Bernd"},
		{"2×3", "2<U+00D7>3"},
		{"bad \xff byte", "bad <0xff> byte"},
		{"plain", "plain"},
	}
	for _, tt := range tests {
		if got := orders.Visible(tt.in); got != tt.want {
			t.Errorf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestClip(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		n       int
		visible bool
		want    string
	}{
		{"short", "MOVE 2300", 100, false, "MOVE 2300"},
		{"long", strings.Repeat("a", 1234), 10, false, "aaaaaaaaaa…(1,224 more characters)"},
		{"counts characters, not bytes", strings.Repeat("ä", 12), 10, false, "ääääääääää…(2 more characters)"},
		{"visible", "МOVE " + strings.Repeat("1", 20), 6, true, "<U+041C>OVE 1…(19 more characters)"},
		{"exactly n", "abc", 3, false, "abc"},
	}
	for _, tt := range tests {
		if got := orders.Clip(tt.in, tt.n, tt.visible); got != tt.want {
			t.Errorf("%s: Clip = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestClipWords(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		n, total int
		want     string
	}{
		{"a long word in a reason", `path "` + strings.Repeat("2301-", 1000) + `": no such hex`, 10, 400,
			`path "2301-2301…(4,993 more characters) no such hex`},
		{"a long reason", strings.Repeat("word ", 100), 10, 20, "word word word word …(480 more characters)"},
		{"short", "unknown order", 10, 400, "unknown order"},
		{"one mark where the total cuts a word", "abc " + strings.Repeat("x", 50) + " tail", 20, 10, "abc xxxxxx…(49 more characters)"},
	}
	for _, tt := range tests {
		if got := orders.ClipWords(tt.in, tt.n, tt.total, false); got != tt.want {
			t.Errorf("%s: ClipWords = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9980: "9,980", 1048576: "1,048,576", -1234: "-1,234"} {
		if got := orders.Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestRuns: a quoted block, with its attribution and the blank lines in it, is one entry;
// so is a run of closing text; a line that was read ends a run.
func TestRuns(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []string // Where: Why
	}{
		{"Gmail", "STATUS\n\nOn Sat, 28 Nov 2026 at 09:12, Adjutant <a@b> wrote:\n\n> one\n>\n> two\n\n> three\n",
			[]string{"lines 3-9: quoted from an earlier mail, not read"}},
		{"a single quoted line", "STATUS\n> one\n", []string{"line 2: quoted from an earlier mail: never executed"}},
		{"inline answers split the quote", "> q1\n> q2\nSTATUS\n> q3\n> q4\n",
			[]string{"lines 1-2: quoted from an earlier mail, not read", "lines 4-5: quoted from an earlier mail, not read"}},
		{"closing text then the iPhone quote", "STATUS\n\nThanks\nBob\n\nSent from my iPhone\n\n> On 28 Nov 2026, at 09:12, Adjutant wrote:\n>\n> x\n",
			[]string{"lines 3-6: not an order (closing text)", "lines 8-10: quoted from an earlier mail, not read"}},
		{"a signature stays one entry", "STATUS\n-- \nBob\nx\n", []string{"line 2: signature: the 2 line(s) after it were not read"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, ignored := orders.Split(tt.text)
			kept, closing := orders.ClosingText(lines, keywords)
			var got []string
			for _, ig := range orders.Runs(append(ignored, closing...), kept) {
				got = append(got, ig.Where()+": "+ig.Why)
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("Runs =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

func FuzzRuns(f *testing.F) {
	for _, s := range []string{"STATUS\n> a\n\n> b\nThanks\nBob", "> a\nSTATUS\n> b\n-- \nx", "On x wrote:\n> y\nMOVE 1–2\nZ"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, ignored := orders.Split(text)
		kept, closing := orders.ClosingText(lines, keywords)
		all := append(ignored, closing...)
		runs := orders.Runs(all, kept)
		// Every ignored line is in exactly one run; runs are in order, do not overlap,
		// and no line that was read is inside one.
		covered := 0
		for i, r := range runs {
			last := max(r.Last, r.No)
			if i > 0 && r.No <= max(runs[i-1].Last, runs[i-1].No) {
				t.Fatalf("run %s overlaps the one before", r.Where())
			}
			for _, l := range kept {
				if l.No >= r.No && l.No <= last {
					t.Fatalf("run %s spans line %d, which was read", r.Where(), l.No)
				}
			}
			for _, ig := range all {
				if ig.No >= r.No && ig.No <= last {
					covered++
				}
			}
		}
		if covered != len(all) {
			t.Fatalf("runs cover %d of %d ignored lines", covered, len(all))
		}
	})
}

func FuzzTypography(f *testing.F) {
	for _, s := range []string{"MOVE 4/DC 4209–4210", "PASSWORD a–b", "PLOT TURN １ ４３００x3", "“x”\u00a0—\u2212", "\xff\u2013"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := orders.Typography(s)
		if again := orders.Typography(got); again != got {
			t.Fatalf("Typography is not idempotent on %q: %q then %q", s, got, again)
		}
		if utf8.ValidString(s) && !utf8.ValidString(got) {
			t.Fatalf("Typography(%q) = %q: invalid UTF-8", s, got)
		}
		if !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s)), "PASS") && !strings.HasPrefix(strings.ToUpper(strings.TrimSpace(s)), "HOST") {
			for _, r := range "\u2010\u2011\u2012\u2013\u2014\u2212“”‘’０９\u00a0" {
				if strings.ContainsRune(got, r) && got != s {
					t.Fatalf("Typography(%q) = %q keeps %U", s, got, r)
				}
			}
		}
		v := orders.Visible(got)
		for _, r := range v {
			if r > 0xFF || r < ' ' || (r >= 0x7F && r < 0xC0) {
				t.Fatalf("Visible(%q) = %q shows %U as it is", got, v, r)
			}
		}
	})
}
