package mail

import (
	"bufio"
	"bytes"
	"net/textproto"
	"testing"
)

// dotWriterBytes is what textproto's DotWriter writes for data.
func dotWriterBytes(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	bw := bufio.NewWriter(&b)
	dw := textproto.NewWriter(bw).DotWriter()
	if _, err := dw.Write(data); err != nil {
		t.Fatal(err)
	}
	if err := dw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func writeDottedBytes(t testing.TB, data []byte) []byte {
	var b bytes.Buffer
	if err := writeDotted(bufio.NewWriter(&b), data); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestWriteDotted: the content of DATA as textproto's DotWriter writes it.
func TestWriteDotted(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "\r\n.\r\n"},
		{"a\r\nb\r\n", "a\r\nb\r\n.\r\n"},
		{"a\nb", "a\r\nb\r\n.\r\n"},
		{".x\r\n..\r\n.\r\nend", "..x\r\n...\r\n..\r\nend\r\n.\r\n"},
		{"a\rb\r\n", "a\rb\r\n.\r\n"},
		{"\r\n\r\n", "\r\n\r\n.\r\n"},
	} {
		if got := writeDottedBytes(t, []byte(tc.in)); string(got) != tc.want {
			t.Errorf("writeDotted(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := dotWriterBytes(t, []byte(tc.in)); string(got) != tc.want {
			t.Errorf("DotWriter(%q) = %q, want %q (the table is wrong)", tc.in, got, tc.want)
		}
	}
}

// FuzzWriteDotted: for any content with CRLF or LF line ends, writeDotted writes what
// textproto's DotWriter writes.
func FuzzWriteDotted(f *testing.F) {
	for _, s := range []string{"", "a\r\n.b\r\n", ".\n..\n", "x", "\r\n.\r\n", "a\rb\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := writeDottedBytes(t, data), dotWriterBytes(t, data); !bytes.Equal(got, want) {
			t.Errorf("writeDotted(%q) = %q, DotWriter %q", data, got, want)
		}
	})
}
