package store

// AppendHashInput appends to b the bytes whose SHA-256, in lowercase hex, is the hash
// the entry must carry (ComputeHash): a verifier of a long chain hashes every entry in
// one reused buffer, allocating nothing (issue 23).
func (e *AuditEntry) AppendHashInput(b []byte) []byte { return e.appendJSON(b) }
