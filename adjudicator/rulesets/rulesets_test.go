package rulesets_test

import (
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

// TestAllRulesets: the registry holds the four rulesets under the names games store,
// and an unknown name is refused with the names there are.
func TestAllRulesets(t *testing.T) {
	reg, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(reg.Names(), " "); got != "mons1914 soissons1918 soldiers1918 teaching" {
		t.Errorf("Names = %s", got)
	}
	for _, n := range reg.Names() {
		if rs, err := reg.Lookup(n); err != nil || rs.Name() != n {
			t.Errorf("Lookup(%s) = %v, %v", n, rs, err)
		}
	}
	if _, err := reg.Lookup("verdun"); err == nil || !strings.Contains(err.Error(), "soissons1918") {
		t.Errorf("Lookup(verdun) = %v, want an error naming the rulesets", err)
	}
}
