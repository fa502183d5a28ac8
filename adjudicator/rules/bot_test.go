package rules

import "testing"

func TestScript(t *testing.T) {
	s := Script{{Side: "us", Subject: "[g] one", Body: "FIRE NONE\n"}, {Side: "de", Subject: "[g] two", Body: "MOVE NONE\n"}}
	for _, c := range []struct {
		i    int
		ok   bool
		side Side
	}{{0, true, "us"}, {1, true, "de"}, {2, false, ""}, {-1, false, ""}} {
		m, ok, err := s.Next(c.i, nil)
		if err != nil || ok != c.ok || m.Side != c.side {
			t.Errorf("Next(%d) = %+v, %v, %v; want side %q, %v", c.i, m, ok, err, c.side, c.ok)
		}
	}
	if got, want := s[1].Text("g", "pw"), "GAME g\nPASSWORD pw\nMOVE NONE\n"; got != want {
		t.Errorf("Text = %q, want %q", got, want)
	}
}
