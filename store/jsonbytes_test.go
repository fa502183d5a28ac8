package store

import "testing"

// plainByTable is what plainIn and plainOut compute, a byte at a time.
func plainByTable(s []byte, i int, table *[256]bool) int {
	n := 0
	for i+n < len(s) && table[s[i+n]] {
		n++
	}
	return n
}

// TestPlainEveryByte: any byte value, at any place of a word or after it, stops the
// eight-at-a-time scans exactly where the tables say.
func TestPlainEveryByte(t *testing.T) {
	base := []byte("0123456789abcdef0123")
	for c := range 256 {
		for at := range base {
			s := append([]byte(nil), base...)
			s[at] = byte(c)
			for from := range 3 {
				if got, want := plainIn(s, from), plainByTable(s, from, &jsonPlainIn); got != want {
					t.Fatalf("plainIn(%q, %d) = %d, want %d", s, from, got, want)
				}
				if got, want := plainOut(string(s), from), plainByTable(s, from, &jsonPlainOut); got != want {
					t.Fatalf("plainOut(%q, %d) = %d, want %d", s, from, got, want)
				}
			}
		}
	}
}

func FuzzPlain(f *testing.F) {
	f.Add([]byte("6b86b273ff34fce19d6b804eff5a3f57\"47ada4eaa22f1d49c"), 3)
	f.Add([]byte("10.8 fire into 2305 at 3:1 <b> & \x1f\x7f\x80\xff"), 0)
	f.Fuzz(func(t *testing.T, s []byte, from int) {
		if from < 0 || from > len(s) {
			return
		}
		if got, want := plainIn(s, from), plainByTable(s, from, &jsonPlainIn); got != want {
			t.Fatalf("plainIn(%q, %d) = %d, want %d", s, from, got, want)
		}
		if got, want := plainOut(string(s), from), plainByTable(s, from, &jsonPlainOut); got != want {
			t.Fatalf("plainOut(%q, %d) = %d, want %d", s, from, got, want)
		}
	})
}
