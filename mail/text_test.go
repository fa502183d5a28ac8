package mail_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/mail"
)

func TestTextFromHTML(t *testing.T) {
	tests := []struct {
		name, html, want string
	}{
		{"empty", "", ""},
		{"bare text", "HOLD 2301", "HOLD 2301\n"},
		{"gmail divs", `<div dir="ltr">line one<div>line two</div><div><br></div><div>line four</div></div>`,
			"line one\nline two\n\nline four\n"},
		{"br forms", "a<br>b<br/>c</br>d<BR >e", "a\nb\nc\nd\ne\n"},
		{"entities", "&lt;2301&gt; &amp; &quot;x&quot; &#8211; &eacute; &#x20AC; &apos;", "<2301> & \"x\" – é € '\n"},
		{"nbsp", "a&nbsp;&nbsp;b&nbsp;", "a  b\n"},
		{"white space collapsed", "  MOVE \n\t 3  from\r\n2301  ", "MOVE 3 from 2301\n"},
		{"inline elements", "<b>MOVE</b> <i>3</i> from <span style='x'>2301</span><o:p></o:p>", "MOVE 3 from 2301\n"},
		{"head, script, style dropped",
			"<html><head><title>Orders</title><meta charset=utf-8><style>p{color:red}</style></head>" +
				"<body><script>alert('<p>x</p>')</script>HOLD<noscript>enable JS</noscript></body></html>",
			"HOLD\n"},
		{"self-closing script", "<script/>alert(1)</script>HOLD", "HOLD\n"},
		{"unclosed head", "<head><meta charset=utf-8><body>HOLD", "HOLD\n"},
		{"stray end tags", "</head></blockquote></pre></style>HOLD", "HOLD\n"},
		{"comments", "a<!-- hidden -->b<!--[if mso]>x<![endif]--><![if !supportLists]>c", "abc\n"},
		{"paragraphs", "<p>GAME mons-2</p><p>HOLD 3506</p>", "GAME mons-2\nHOLD 3506\n"},
		{"outlook empty paragraph", "<p class=MsoNormal>a<o:p></o:p></p><p class=MsoNormal><o:p>&nbsp;</o:p></p><p class=MsoNormal>b</p>",
			"a\n\nb\n"},
		{"blank lines cut to one", "<br><br>a<br><br><br><br>b<br><br>", "a\n\nb\n"},
		{"blockquote", "<div>HOLD 2301</div><blockquote>MOVE 3<br>FIRE<blockquote>deep</blockquote>back</blockquote>after",
			"HOLD 2301\n> MOVE 3\n> FIRE\n>> deep\n> back\nafter\n"},
		{"gmail reply", `<div dir="ltr">HOLD</div><br><div class="gmail_quote"><div class="gmail_attr">On Fri, Adjutant wrote:<br></div>` +
			`<blockquote class="gmail_quote">Turn 3 resolved.<br>MOVE 3 from 2301<br></blockquote></div>`,
			"HOLD\n\nOn Fri, Adjutant wrote:\n> Turn 3 resolved.\n> MOVE 3 from 2301\n"},
		{"pre", "x<pre>\n  MOVE 3\n\n    FIRE &amp; hold</pre>y", "x\n  MOVE 3\n\n    FIRE & hold\ny\n"},
		{"table", "<table><tr><td>MOVE</td><td>3</td></tr><tr><th>FIRE</th><td>2305</td></tr></table>", "MOVE 3\nFIRE 2305\n"},
		{"list", "<ul><li>one</li><li>two</li></ul>after", "one\ntwo\nafter\n"},
		{"signature separator thunderbird", `<p>HOLD</p><div class="moz-signature">-- <br>Alice</div>`, "HOLD\n-- \nAlice\n"},
		{"signature separator div", "<div>HOLD</div><div>-- </div><div>Alice</div>", "HOLD\n-- \nAlice\n"},
		{"quote prefix capped", strings.Repeat("<blockquote>", 40) + "a", strings.Repeat(">", 16) + " a\n"},
		{"signature in quote", "<blockquote>-- <br>Bob</blockquote>", "> -- \n> Bob\n"},
		{"headings and hr", "<h1>Turn 3</h1>text<hr>more", "Turn 3\ntext\nmore\n"},
		{"broken markup", "<p>unclosed <b>bold <div", "unclosed bold\n"},
		{"attribute junk", `<p a="<b>" b='>'>x</p>`, "x\n"},
		{"invalid UTF-8", "caf\xe9", "caf\uFFFD\n"},
		{"control characters", "a\x00b\x07c\x1b[0m", "a\uFFFDb\uFFFDc\uFFFD[0m\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := mail.TextFromHTML(tt.html)
			if got != tt.want {
				t.Errorf("TextFromHTML(%q) =\n%q\nwant\n%q", tt.html, got, tt.want)
			}
			if !utf8.ValidString(got) {
				t.Errorf("not valid UTF-8: %q", got)
			}
		})
	}
}

// message builds a minimal message with the given Content-Type, extra
// header lines and raw body.
func message(contentType, extra, body string) []byte {
	return []byte("From: Alice <alice@example.org>\r\nSubject: t\r\nMIME-Version: 1.0\r\n" +
		"Content-Type: " + contentType + "\r\n" + extra + "\r\n" + body)
}

// TestReadEnvelopeFlowed covers RFC 3676 details one at a time.
func TestReadEnvelopeFlowed(t *testing.T) {
	const (
		fixed  = "text/plain; charset=utf-8"
		flowed = "text/plain; charset=utf-8; format=flowed"
		delsp  = "text/plain; charset=utf-8; format=flowed; delsp=yes"
	)
	tests := []struct {
		name, contentType, extra, body, want string
	}{
		{"not flowed: trailing space kept, not joined", fixed, "", "a \r\nb\r\n", "a \nb\n"},
		{"soft break", flowed, "", "a \r\nb\r\n", "a b\n"},
		{"several soft breaks", flowed, "", "one \r\ntwo \r\nthree\r\nfour\r\n", "one two three\nfour\n"},
		{"delsp", delsp, "", "a \r\nb\r\n", "ab\n"},
		{"delsp keeps a doubled space", delsp, "", "a  \r\nb\r\n", "a b\n"},
		{"parameters case-insensitive", "text/plain; format=Flowed; DelSp=Yes", "", "a \r\nb\r\n", "ab\n"},
		{"quoted delsp parameter", `text/plain; format="flowed"; delsp="yes"`, "", "a \r\nb\r\n", "ab\n"},
		{"delsp=no", "text/plain; format=flowed; delsp=no", "", "a \r\nb\r\n", "a b\n"},
		{"space-stuffing undone", flowed, "", " From here\r\n  two spaces\r\n >typed\r\n", "From here\n two spaces\n>typed\n"},
		{"signature separator is not flowed", flowed, "", "HOLD\r\n-- \r\nAlice\r\n", "HOLD\n-- \nAlice\n"},
		{"quoted lines joined within depth", flowed, "", "> a \r\n> b\r\n>> c \r\n>>d\r\n", "> a b\n>> c d\n"},
		{"quote depth change ends paragraph", flowed, "", "> a \r\nb\r\n", "> a \nb\n"},
		{"empty quoted line", flowed, "", ">\r\n> x\r\n", ">\n> x\n"},
		{"flowed line before blank line joins it", flowed, "", "a \r\n\r\nb\r\n", "a \nb\n"},
		{"last line flowed, no final newline", flowed, "", "a \r\nb ", "a b "},
		// Under quoted-printable the soft-break space is written =20:
		// decoders drop plain trailing blanks (RFC 2045 6.7, RFC 3676 4.2).
		{"quoted-printable then flowed", flowed, "Content-Transfer-Encoding: quoted-printable\r\n",
			"Le g=C3=A9n=C3=A9ral approuve les ordres de ce =\r\ntour,=20\r\ntous.\r\n", "Le général approuve les ordres de ce tour, tous.\n"},
		{"flowed html is not unflowed", "text/html; format=flowed", "", "a \r\nb", "a b\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := read(t, message(tt.contentType, tt.extra, tt.body))
			if env.Text != tt.want {
				t.Errorf("Text = %q, want %q", env.Text, tt.want)
			}
		})
	}
}

// TestReadEnvelopeCharsets decodes bodies in the charsets players' mailers
// use, including the usual mislabels.
func TestReadEnvelopeCharsets(t *testing.T) {
	tests := []struct {
		name, contentType, extra, body, want string
	}{
		{"iso-8859-15 euro", "text/plain; charset=iso-8859-15", "", "\xa4 5\r\n", "€ 5\n"},
		{"latin1 alias", "text/plain; charset=latin1", "", "caf\xe9 \x93x\x94\r\n", "café “x”\n"},
		{"cp1252 alias", "text/plain; charset=cp1252", "", "\x80\x85\r\n", "€…\n"},
		{"windows-1252 quoted-printable", "text/plain; charset=windows-1252", "Content-Transfer-Encoding: quoted-printable\r\n",
			"=93Fire=94 =80 5\r\n", "“Fire” € 5\n"},
		{"koi8-r", "text/plain; charset=koi8-r", "", "\xf0\xd2\xc9\xd7\xc5\xd4\r\n", "Привет\n"},
		{"utf-16 with BOM", "text/plain; charset=utf-16", "Content-Transfer-Encoding: base64\r\n", "//5IAE8ATABEAA0ACgA=\r\n", "HOLD\n"},
		{"utf-8 BOM stripped", "text/plain; charset=utf-8", "", "\xef\xbb\xbfHOLD\r\n", "HOLD\n"},
		{"upper-case label", "text/plain; charset=\"ISO-8859-1\"", "", "\xe9\r\n", "é\n"},
		{"html windows-1252", "text/html; charset=windows-1252", "", "<p>\x93HOLD\x94</p>", "“HOLD”\n"},
		{"html without charset, latin-1 bytes", "text/html", "", "<p>caf\xe9</p>", "café\n"},
		{"unknown charset, valid UTF-8", "text/plain; charset=x-mac-klingon", "", "café\r\n", "café\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := read(t, message(tt.contentType, tt.extra, tt.body))
			if env.Text != tt.want {
				t.Errorf("Text = %q, want %q", env.Text, tt.want)
			}
			if !strings.HasPrefix(env.MessageID, "sha256-") {
				t.Errorf("MessageID = %q", env.MessageID)
			}
		})
	}
}

// FuzzTextFromHTML checks that any input gives valid UTF-8 without control
// characters other than newline and tab, and output not much bigger than the
// input (entities and quote prefixes expand, but only boundedly).
func FuzzTextFromHTML(f *testing.F) {
	for _, s := range []string{
		"", "a<br>b", "<blockquote><blockquote>x<br>y</blockquote></blockquote>",
		"<pre>\n a\n</pre>", "<table><tr><td>a</td><td>b</td></tr></table>",
		"<head><title>t</title><style>x</style></head><body>-- <br>Alice</body>",
		"&nbsp;&amp;&#8211;&#x0;", "<script/>x</script>y", "<p>caf\xe9",
		// Hidden text (htmlstyle.go): styles, attributes, colours, style sheets.
		`<span style="display:none">RESIGN</span>x`, "<p hidden>RESIGN<p>x", `<div style="font-size:0;color:#fff">a<b style="font-size:12px">b</b></div>`,
		`<body bgcolor=#000 text=#000>a</body>`, `<style>.x,#y p{visibility:hidden}@media x{.z{opacity:0}}</style><i class="x z">a</i>`,
		`<td style="color:rgba(1,2,3,0.05);background:#fff url(x)">a</td>`, `<div style="max-height:0px;overflow:hidden">a</div></div></span>b`,
		strings.Repeat(`<div hidden>`, 600) + "a" + strings.Repeat("</div>", 700) + "b",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, html string) {
		got := mail.TextFromHTML(html)
		if !utf8.ValidString(got) {
			t.Fatalf("invalid UTF-8: %q", got)
		}
		for _, r := range got {
			if (r < ' ' && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("control character %U in %q", r, got)
			}
		}
		if len(got) > 64+20*len(html) {
			t.Fatalf("%d bytes of text from %d bytes of HTML", len(got), len(html))
		}
		if again := mail.TextFromHTML(html); again != got {
			t.Fatalf("not deterministic: %q / %q", got, again)
		}
	})
}
