package mons1914_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/mons1914"
)

// TestRevisionBritishSeeEntries: a game created before revision 1 keeps telling the
// British how many German units are still to enter and listing them in the map's key,
// as its results mails did (invariant 4); a new game tells them 8.2's schedule alone
// (6.6).
func TestRevisionBritishSeeEntries(t *testing.T) {
	r, err := mons1914.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		revision int
		want     bool // the count and list of German units still to enter shown
	}{
		{0, true},
		{mons1914.Revision, false},
	} {
		s, err := r.New(nil)
		if err != nil {
			t.Fatal(err)
		}
		st := s.(*mons1914.State)
		if st.Revision != mons1914.Revision {
			t.Fatalf("New made a game of revision %d, want %d", st.Revision, mons1914.Revision)
		}
		st.Revision = tc.revision
		status, m := r.Status(st, mons1914.BEF), r.Map(st, mons1914.BEF)
		if got := strings.Contains(status, " still to enter,"); got != tc.want {
			t.Errorf("revision %d: British status tells the count still to enter: %v, want %v:\n%s", tc.revision, got, tc.want, status)
		}
		if got := strings.Contains(status, "German entry (8.2"); got == tc.want {
			t.Errorf("revision %d: British status gives the entry schedule: %v, want %v:\n%s", tc.revision, got, !tc.want, status)
		}
		if got := strings.Contains(m, "Still to enter (8.2)"); got != tc.want {
			t.Errorf("revision %d: British map lists the units still to enter: %v, want %v", tc.revision, got, tc.want)
		}
	}
}
