package store

// FlateCalls is the number of inflates and deflates of outbox bodies so far.
func FlateCalls() int64 { return flateCalls.Load() }
