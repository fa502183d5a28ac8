package mail_test

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/mail"
)

// FuzzReadEnvelope checks that no input makes ReadEnvelope panic, that its
// strings are valid UTF-8, and that it is deterministic: the same bytes must
// give the same Envelope, above all the same MessageID (DESIGN invariant 1).
// The partial path of ErrTooLarge is exercised with a limit of half the input.
func FuzzReadEnvelope(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "envelope", "*.eml"))
	if err != nil {
		f.Fatal(err)
	}
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		for _, limit := range []int64{0, int64(len(raw)/2 + 1)} {
			a, errA := mail.ReadEnvelope(bytes.NewReader(raw), limit)
			b, errB := mail.ReadEnvelope(bytes.NewReader(bytes.Clone(raw)), limit)
			if a == nil {
				t.Fatalf("limit %d: nil Envelope from an in-memory reader (err %v)", limit, errA)
			}
			if (errA == nil) != (errB == nil) || (errA != nil && errA.Error() != errB.Error()) {
				t.Fatalf("limit %d: errors differ: %v / %v", limit, errA, errB)
			}
			if a.MessageID == "" {
				t.Fatalf("limit %d: empty MessageID", limit)
			}
			for _, s := range append([]string{a.MessageID, a.From, a.FromName, a.ReplyTo, a.Subject,
				a.InReplyTo, a.AutomatedReason, a.XAdjutant, a.Text}, append(a.To, a.References...)...) {
				if !utf8.ValidString(s) {
					t.Fatalf("limit %d: invalid UTF-8 %q", limit, s)
				}
				// The documented promise: no control characters, except
				// newline and tab in Text.
				for _, r := range s {
					if (r < ' ' || (r >= 0x7f && r <= 0x9f)) && !(s == a.Text && (r == '\n' || r == '\t')) {
						t.Fatalf("limit %d: control character %U in %q", limit, r, s)
					}
				}
			}
			if !sameEnvelope(a, b) {
				t.Fatalf("limit %d: not deterministic:\n%+v\n%+v", limit, a, b)
			}
		}
	})
}

// sameEnvelope compares two Envelopes; Date by instant, since each parse
// builds its own time.Location.
func sameEnvelope(a, b *mail.Envelope) bool {
	if !a.Date.Equal(b.Date) {
		return false
	}
	x, y := *a, *b
	x.Date, y.Date = time.Time{}, time.Time{}
	return reflect.DeepEqual(x, y)
}
