package mail_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/mail"
)

// TestHiddenHTMLNotRead: text of an HTML mail that the reader does not see (display:none,
// the hidden attribute, font-size 0, visibility:hidden, opacity 0, white on white or the
// colour of its background, hidden by a <style> rule) is not read, so a RESIGN nobody
// saw is never executed; what the reader sees is read as before.
func TestHiddenHTMLNotRead(t *testing.T) {
	for _, tc := range []struct {
		name, html, want string
	}{
		{"display none", `<div>STATUS<span style="display:none">RESIGN</span></div>`, "STATUS\n"},
		{"display none uppercase important", `<div style="DISPLAY: NONE !important">RESIGN</div><div>STATUS</div>`, "STATUS\n"},
		{"hidden attribute", `<p hidden>RESIGN</p><p>STATUS</p>`, "STATUS\n"},
		{"font-size 0", `<div style="font-size:0">RESIGN</div>STATUS`, "STATUS\n"},
		{"font-size 0px in a cell", `<table><tr><td style="font-size:0px;line-height:0">RESIGN</td><td>STATUS</td></tr></table>`, "STATUS\n"},
		{"font-size 1pt", `<span style="font-size: 1pt">RESIGN</span>STATUS`, "STATUS\n"},
		{"visibility hidden", `<div style="visibility:hidden">RESIGN</div>STATUS`, "STATUS\n"},
		{"opacity 0", `<div style="opacity:0">RESIGN</div>STATUS`, "STATUS\n"},
		{"white on white", `<p style="color:#ffffff">RESIGN</p><p>STATUS</p>`, "STATUS\n"},
		{"white font on white body", `<body bgcolor="#FFF"><font color="white">RESIGN</font><p>STATUS</p></body>`, "STATUS\n"},
		{"same colour as background", `<div style="background:#123456 url(x.png)"><span style="color:rgb(18, 52, 86)">RESIGN</span></div>STATUS`, "STATUS\n"},
		{"near colour", `<td bgcolor="#000000"><span style="color:#0a0a0a">RESIGN</span></td>STATUS`, "STATUS\n"},
		{"transparent", `<span style="color:rgba(0,0,0,0)">RESIGN</span>STATUS`, "STATUS\n"},
		{"preheader", `<div style="max-height:0;overflow:hidden;mso-hide:all">RESIGN</div>STATUS`, "STATUS\n"},
		{"off the page", `<div style="position:absolute;left:-9999px">RESIGN</div>STATUS`, "STATUS\n"},
		{"style rule by class", `<head><style>.x { display: none }</style></head><body><div class="a x">RESIGN</div>STATUS</body>`, "STATUS\n"},
		{"style rule by id and tag", `<style>/* c */ p#z, td{color:#fff}</style><p id=z>RESIGN</p><p>STATUS</p>`, "STATUS\n"},
		{"unclosed hidden paragraph", `<p style="display:none">RESIGN<p>STATUS`, "STATUS\n"},
		{"nested deep in a hidden one", `<div hidden><div><p><b>RESIGN</b></p></div></div>STATUS`, "STATUS\n"},
		{"formatting reopened after its paragraph", `<p><b style="display:none">x</p><p>RESIGN</p>`, ""},
		{"formatting ended by its own tag", `<p><b style="display:none">x</p></b><p>STATUS</p>`, "STATUS\n"},
		{"no line break from a hidden element", `MOVE 2301<div style="display:none">RESIGN</div>-2302`, "MOVE 2301-2302\n"},
		// What is seen is read.
		{"white on black", `<div style="background-color:black;color:white">STATUS</div>`, "STATUS\n"},
		{"visible inside hidden visibility", `<div style="visibility:hidden"><span style="visibility:visible">STATUS</span></div>`, "STATUS\n"},
		{"readable inside font-size 0", `<div style="font-size:0"><span style="font-size:14px">STATUS</span></div>`, "STATUS\n"},
		{"aria-hidden is seen", `<span aria-hidden="true">STATUS</span>`, "STATUS\n"},
		{"closed hidden span", `<span style="display:none">RESIGN</span>STATUS<br>MAP`, "STATUS\nMAP\n"},
		{"rule with a pseudo-class", `<style>.x:hover{display:none}</style><p class=x>STATUS</p>`, "STATUS\n"},
		{"grey on white", `<p style="color:#777">STATUS</p>`, "STATUS\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := mail.TextFromHTML(tc.html); got != tc.want {
				t.Errorf("TextFromHTML(%q) = %q, want %q", tc.html, got, tc.want)
			}
		})
	}
}

// TestHiddenHTMLMail: an HTML-only mail whose RESIGN is hidden reads as its visible
// orders alone.
func TestHiddenHTMLMail(t *testing.T) {
	raw := "From: us@players.example\r\nTo: adjutant@game.example\r\nSubject: orders\r\n" +
		"Message-ID: <hidden-1@players.example>\r\nMIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n" +
		`<html><body><div>GAME g1</div><div>PASSWORD pw-us-1</div><div style="display:none">RESIGN</div>` +
		`<div><span style="color:#fff">RESIGN</span></div><div>STATUS</div></body></html>`
	env, err := mail.ReadEnvelope(strings.NewReader(raw), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if env.Text != "GAME g1\nPASSWORD pw-us-1\nSTATUS\n" {
		t.Errorf("text %q, want the three visible lines", env.Text)
	}
}

// BenchmarkTextFromHTMLDeep: deeply nested and unclosed elements stay linear.
func BenchmarkTextFromHTMLDeep(b *testing.B) {
	src := strings.Repeat(`<div class="x"><span style="color:red">a`, 20000) + strings.Repeat("</p>", 20000)
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		mail.TextFromHTML(src)
	}
}
