package teaching_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/dice"
	"github.com/adjutant-pbem/adjutant/adjudicator/teaching"
)

// TestRevisionDefaultTold: a new game tells a player whose turn was played by default
// at the deadline that it was; a game created before revision 1 says nothing of it, as
// its results mails did not (invariant 4).
func TestRevisionDefaultTold(t *testing.T) {
	r, err := teaching.New()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		revision int
		want     bool
	}{
		{0, false},
		{teaching.Revision, true},
	} {
		s, err := teaching.CaseAdapter{Rules: r}.State([]string{"turn 2", "unit mg 0619", "unit marine 0611"})
		if err != nil {
			t.Fatal(err)
		}
		st := s.(*teaching.State)
		st.Revision = tc.revision
		defaults := r.Defaults(st, teaching.American, nil)
		out, err := r.Resolve(st, defaults, dice.NewScript())
		if err != nil {
			t.Fatalf("revision %d: Resolve: %v", tc.revision, err)
		}
		told := false
		for _, e := range out.Events {
			told = told || strings.Contains(e.Text, "by default, no mail by the deadline")
		}
		if told != tc.want {
			t.Errorf("revision %d: the default told: %v, want %v; events %v", tc.revision, told, tc.want, out.Events)
		}
	}
}
