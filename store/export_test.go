package store

// FlateCalls is the number of inflates and deflates of outbox bodies so far.
func FlateCalls() int64 { return flateCalls.Load() }

// SeqKey is the key of the outbox mail seq.
func SeqKey(seq uint64) []byte { return u64(seq) }

// ForgetDictionaries empties the process's cache of deflate dictionaries.
func ForgetDictionaries() {
	dicts.Clear()
	dictWriters.Clear()
}
