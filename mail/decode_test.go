package mail_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// decodeFixture returns the bytes of testdata/decode/name.
func decodeFixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "decode", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamagedText (issue 19): a text part whose base64 cannot be decoded is unreadable,
// with no text, so that no part of it is read as orders or as a (cut, wrong) password;
// a truncated part, good base64 and a damaged part the text is not taken from are not.
func TestDamagedText(t *testing.T) {
	const hdr = "From: a@example.org\r\nSubject: x\r\nMIME-Version: 1.0\r\n"
	alt := func(plain, html string) string {
		return hdr + "Content-Type: multipart/alternative; boundary=b\r\n\r\n" +
			"--b\r\nContent-Type: text/plain\r\n" + plain + "\r\n" +
			"--b\r\nContent-Type: text/html\r\n" + html + "\r\n--b--\r\n"
	}
	const b64 = "Content-Transfer-Encoding: base64\r\n\r\n"
	tests := []struct {
		name       string
		raw        string
		unreadable bool
		text       string
	}{
		{"damaged fixture", string(decodeFixture(t, "damaged-base64.eml")), true, ""},
		{"damaged at the end", hdr + b64 + "SE9MRCAyMzAx!!!!\r\n", true, ""},
		{"damaged plain beside good html", alt(b64+"SE9MRCAyMzAx*", "\r\n<p>HOLD</p>"), true, ""},
		{"good plain beside damaged html", alt("\r\nHOLD", b64+"PHA+*"), false, "HOLD"},
		{"damaged html alone", hdr + "Content-Type: text/html\r\n" + b64 + "PHA+SE9MRDwvcD4*\r\n", true, ""},
		{"good base64", string(fixture(t, "base64.eml")), false, "GAME mons-2 SIDE german PASSWORD feldgrau\n"},
		{"truncated multipart, text whole", hdr + "Content-Type: multipart/mixed; boundary=b\r\n\r\n--b\r\n\r\nHOLD\r\n", false, "HOLD"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := read(t, []byte(tt.raw))
			if (env.Unreadable != "") != tt.unreadable {
				t.Errorf("Unreadable = %q, want unreadable %v", env.Unreadable, tt.unreadable)
			}
			if tt.unreadable && (env.Text != "" || !strings.Contains(env.Unreadable, "damaged")) {
				t.Errorf("Text = %q, Unreadable = %q; want no text and why", env.Text, env.Unreadable)
			}
			if !strings.HasPrefix(env.Text, tt.text) {
				t.Errorf("Text = %q, want it to begin %q", env.Text, tt.text)
			}
		})
	}
}

// TestNULPassword (issue 19): a NUL inside a password line is kept visible (U+FFFD), not
// dropped: dropped, "pw-de\x00-1" read as the password "pw-de-1".
func TestNULPassword(t *testing.T) {
	env := read(t, decodeFixture(t, "nul-password.eml"))
	if strings.Contains(env.Text, "PASSWORD pw-de-1") || !strings.Contains(env.Text, "PASSWORD pw-de\uFFFD-1") {
		t.Errorf("Text = %q, want the NUL shown as U+FFFD in the password line", env.Text)
	}
}
