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
