package devserver

import (
	"bytes"
	"testing"
)

// feedAll runs in through a lineFilter in chunks of n bytes.
func feedAll(f *lineFilter, in []byte, n int) []byte {
	var out []byte
	for len(in) > 0 {
		k := min(n, len(in))
		out = f.feed(out, in[:k])
		in = in[k:]
	}
	return out
}

func TestLineFilterResponses(t *testing.T) {
	s := &Server{opts: Options{NoIdle: true}}
	in := "* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN] IMAP server ready\r\n" +
		"T1 OK [CAPABILITY IMAP4rev1 UNSELECT IDLE MOVE] Logged in\r\n" +
		"* CAPABILITY IMAP4rev1 IDLE UIDPLUS\r\n" +
		"* FLAGS (\\seen \\deleted $forwarded custom)\r\n" +
		"* OK [PERMANENTFLAGS (\\seen \\*)] Permanent flags\r\n" +
		"* 1 FETCH (UID 7 FLAGS (\\seen \\answered) BODY[] {44}\r\n" +
		"* CAPABILITY IDLE\r\nT9 OK [CAPABILITY IDLE] x\r\n" +
		" FLAGS (\\flagged))\r\n" +
		"* 2 FETCH (BODY[] {0}\r\n)\r\n" +
		"T2 OK FETCH completed\r\n"
	want := "* OK [CAPABILITY IMAP4rev1 SASL-IR AUTH=PLAIN] IMAP server ready\r\n" +
		"T1 OK [CAPABILITY IMAP4rev1 UNSELECT MOVE] Logged in\r\n" +
		"* CAPABILITY IMAP4rev1 UIDPLUS\r\n" +
		"* FLAGS (\\Seen \\Deleted $Forwarded custom)\r\n" +
		"* OK [PERMANENTFLAGS (\\Seen \\*)] Permanent flags\r\n" +
		"* 1 FETCH (UID 7 FLAGS (\\Seen \\Answered) BODY[] {44}\r\n" +
		"* CAPABILITY IDLE\r\nT9 OK [CAPABILITY IDLE] x\r\n" + // the literal, untouched
		" FLAGS (\\Flagged))\r\n" +
		"* 2 FETCH (BODY[] {0}\r\n)\r\n" +
		"T2 OK FETCH completed\r\n"
	for _, n := range []int{1, 3, 7, 64, len(in)} {
		f := &lineFilter{transform: s.rewriteResponse}
		if got := feedAll(f, []byte(in), n); string(got) != want {
			t.Errorf("chunks of %d:\n%s\nwant\n%s", n, got, want)
		}
		if len(f.line) != 0 || f.lit != 0 {
			t.Errorf("chunks of %d: filter not at rest: %q, %d", n, f.line, f.lit)
		}
	}
}

func TestLineFilterCommands(t *testing.T) {
	in := "a1 LOGIN {4}\r\nuser {4+}\r\nIDLE\r\na2 IDLE\r\nDONE\r\na3 idle\r\na4 APPEND INBOX {6}\r\na5 IDLE\r\n\r\n"
	want := "a1 LOGIN {4}\r\nuser {4+}\r\nIDLE\r\na2 XIDLE-UNSUPPORTED\r\nDONE\r\na3 XIDLE-UNSUPPORTED\r\na4 APPEND INBOX {6}\r\na5 IDLE\r\n\r\n"
	for _, noIdle := range []bool{false, true} {
		s := &Server{opts: Options{NoIdle: noIdle}}
		w := want
		if !noIdle {
			w = in
		}
		for _, n := range []int{1, 5, len(in)} {
			f := &lineFilter{transform: s.rewriteCommand}
			if got := feedAll(f, []byte(in), n); string(got) != w {
				t.Errorf("NoIdle %v, chunks of %d:\n%q\nwant\n%q", noIdle, n, got, w)
			}
		}
	}
}

func TestLineFilterLongLine(t *testing.T) {
	s := &Server{}
	long := append(bytes.Repeat([]byte("x"), 2*maxLine), "FLAGS (\\seen)\r\n* FLAGS (\\seen)\r\n"...)
	f := &lineFilter{transform: s.rewriteResponse}
	got := feedAll(f, long, 4096)
	want := append(bytes.Repeat([]byte("x"), 2*maxLine), "FLAGS (\\seen)\r\n* FLAGS (\\Seen)\r\n"...)
	if !bytes.Equal(got, want) {
		t.Errorf("an overlong line is not passed through as is, or the next line is not filtered")
	}
}

func TestLiteralSuffix(t *testing.T) {
	for line, want := range map[string]int64{"x {12}\r\n": 12, "x {3+}\r\n": 3, "x ~{5}\r\n": 5, "x {0}\r\n": 0} {
		if n, ok := literalSuffix([]byte(line)); !ok || n != want {
			t.Errorf("%q: %d %v", line, n, ok)
		}
	}
	for _, line := range []string{"x\r\n", "x {a}\r\n", "x \"{3}\"\r\n", "}\r\n", "{-1}\r\n"} {
		if _, ok := literalSuffix([]byte(line)); ok {
			t.Errorf("%q taken for a literal", line)
		}
	}
}
