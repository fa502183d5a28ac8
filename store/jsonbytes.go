package store

// Byte classes of the hand-written JSON of audit entries (auditdecode.go, audithash.go),
// looked up in one load a byte: the byte-by-byte comparisons they replace were a third
// of verifying a trail read from bbolt (issue 23).
var (
	// jsonPlainIn marks the bytes the fast decoder takes as they are inside a string:
	// printable ASCII but the quote and the backslash.
	jsonPlainIn [256]bool
	// jsonPlainOut marks the bytes encoding/json writes as they are (HTML escaping on):
	// jsonPlainIn less '<', '>' and '&'.
	jsonPlainOut [256]bool
)

func init() {
	for c := 0x20; c < 0x80; c++ {
		jsonPlainIn[c] = c != '"' && c != '\\'
		jsonPlainOut[c] = jsonPlainIn[c] && c != '<' && c != '>' && c != '&'
	}
}

// Eight bytes at a time (the strings of an audit entry are mostly hex digests): lo has 1
// in every byte, hi the top bit of every byte.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
)

// has8 reports whether a byte of w equals c, exactly: (x - lo8) &^ x has a byte's top
// bit set where x has a zero byte, and borrows only spill above a zero byte.
func has8(w uint64, c byte) uint64 {
	x := w ^ (lo8 * uint64(c))
	return (x - lo8) &^ x
}

// plainIn returns how many bytes of s from i on are in jsonPlainIn, eight at a time
// while no byte of a word is below 0x20, at or above 0x80, a quote or a backslash.
func plainIn(s []byte, i int) int {
	start := i
	for ; i+8 <= len(s); i += 8 {
		w := word(s[i : i+8])
		if (w|(w-lo8*0x20)&^w|has8(w, '"')|has8(w, '\\'))&hi8 != 0 {
			break
		}
	}
	for i < len(s) && jsonPlainIn[s[i]] {
		i++
	}
	return i - start
}

// plainOut is plainIn for jsonPlainOut (also not '<', '>' or '&'), over a string.
func plainOut(s string, i int) int {
	start := i
	for ; i+8 <= len(s); i += 8 {
		w := word(s[i : i+8])
		if (w|(w-lo8*0x20)&^w|has8(w, '"')|has8(w, '\\')|has8(w, '<')|has8(w, '>')|has8(w, '&'))&hi8 != 0 {
			break
		}
	}
	for i < len(s) && jsonPlainOut[s[i]] {
		i++
	}
	return i - start
}

// word is the eight bytes of b as one little-endian integer: one load once the compiler
// sees b's length is 8.
func word[T string | []byte](b T) uint64 {
	_ = b[7]
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}
