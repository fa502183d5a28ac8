package teaching

import (
	"io/fs"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// TestMoveAllowanceOnTheKitsCost: a unit's allowance (rule 3: its chip) is measured
// against what the path costs on the kit's terrain effects table (tec.txt), so that a
// table that makes a trench dearer makes a move into it dearer; with the shipped table
// (a hex a step) the refusal says hexes, as it always has, and uncut wire is named by
// rule 4's own words, not the table's.
func TestMoveAllowanceOnTheKitsCost(t *testing.T) {
	shipped, err := fs.ReadFile(dataFS, "data/tec.txt")
	if err != nil {
		t.Fatal(err)
	}
	dear := string(shipped) + "enter support 2 | reconstructed: test, a trench costs two\n"
	for _, tc := range []struct {
		name, tec, unit, move, want string
		ok                          bool
	}{
		{"shipped, two hexes on a blue chip", string(shipped), "unit marine 0504 blue", "MOVE MARINE 0504-0505-0506", "", true},
		{"shipped, three hexes on a blue chip", string(shipped), "unit marine 0503 blue", "MOVE MARINE 0503-0504-0505-0506", "units whose chip allows fewer than 3 hexes (rule 3)", false},
		{"dear trench on a blue chip", dear, "unit marine 0504 blue", "MOVE MARINE 0504-0505-0506", "units whose chip allows fewer than the 3 MP the path costs (rule 3, tec.txt)", false},
		{"dear trench on a black chip", dear, "unit marine 0504 black", "MOVE MARINE 0504-0505-0506", "", true},
		{"uncut wire", string(shipped), "unit marine 0115 black", "MOVE MARINE 0115-0116-0117", "uncut barbed wire on 0116/0117 may not be crossed (rule 4)", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files := fstest.MapFS{"tec.txt": {Data: []byte(tc.tec)}}
			for _, name := range []string{"map.txt", "scatter.txt", "mix.txt"} {
				b, err := fs.ReadFile(dataFS, "data/"+name)
				if err != nil {
					t.Fatal(err)
				}
				files[name] = &fstest.MapFile{Data: b}
			}
			sc, err := ParseScenario(files)
			if err != nil {
				t.Fatal(err)
			}
			r := &Rules{sc: sc}
			st, err := CaseAdapter{Rules: r}.State([]string{"turn 2", "unit mg 0619", tc.unit})
			if err != nil {
				t.Fatal(err)
			}
			lines, _ := orders.Split(tc.move)
			got := r.Check(st, American, lines, nil)
			if len(got) != 1 || got[0].OK != tc.ok || !strings.Contains(got[0].Reason, tc.want) {
				t.Errorf("Check(%s) = %+v, want OK %v and %q", tc.move, got, tc.ok, tc.want)
			}
		})
	}
}
