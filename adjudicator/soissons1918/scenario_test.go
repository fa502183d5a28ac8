package soissons1918

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
)

func h(s string) hex.Hex { return hex.MustParse(s) }

func loadT(t *testing.T) *Scenario {
	t.Helper()
	sc, err := LoadScenario()
	if err != nil {
		t.Fatal(err)
	}
	return sc
}

func TestLoadScenario(t *testing.T) {
	sc := loadT(t)
	if len(sc.Turns) != 17 {
		t.Errorf("%d turns, want 17 (3.2)", len(sc.Turns))
	}
	if sc.Prepare[DE] != 2 || sc.Prepare[EN] != 13 {
		t.Errorf("Prepare markers %v, want de 2 en 13 (19.4)", sc.Prepare)
	}
}
