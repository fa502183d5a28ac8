package mail_test

import (
	"testing"
	"time"

	"github.com/adjutant-pbem/adjutant/mail"
)

func TestBackoff(t *testing.T) {
	for _, tt := range []struct {
		attempt int
		want    time.Duration
	}{{0, time.Second}, {1, time.Second}, {2, 2 * time.Second}, {3, 4 * time.Second}, {6, 32 * time.Second}, {7, time.Minute}, {100, time.Minute}} {
		if got := mail.Backoff(tt.attempt, time.Second, time.Minute); got != tt.want {
			t.Errorf("Backoff(%d) = %v, want %v", tt.attempt, got, tt.want)
		}
	}
}
