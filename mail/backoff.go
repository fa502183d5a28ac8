package mail

import "time"

// Backoff is the wait before retry number attempt (1 for the first retry): min doubled
// for each earlier failure, capped at max. It is deterministic: no jitter, so that tests
// and logs can say exactly when the next try is due.
func Backoff(attempt int, min, max time.Duration) time.Duration {
	if attempt < 1 {
		attempt = 1
	}
	d := min
	for i := 1; i < attempt && d < max; i++ {
		d *= 2
	}
	if d > max {
		d = max
	}
	return d
}
