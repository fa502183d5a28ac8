package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
)

// wantSides are the side ids of each ruleset as the code has them (mons1914.DE and
// BEF, soissons1918.EN and DE, teaching.American and German, soldiers1918.US and DE),
// written out so that a renamed side id is noticed where hosts read it.
var wantSides = map[string][]string{
	"mons1914":     {"de", "bef"},
	"soissons1918": {"en", "de"},
	"teaching":     {"us", "de"},
	"soldiers1918": {"us", "de"},
}

// TestRulesetsSides: every registered ruleset has the side ids hosts are told of, and
// no ruleset is registered that the list does not know.
func TestRulesetsSides(t *testing.T) {
	rs, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != len(wantSides) {
		t.Errorf("%d rulesets registered, the test knows %d", len(rs), len(wantSides))
	}
	for name, r := range rs {
		var ids []string
		for _, s := range r.Sides() {
			ids = append(ids, string(s.ID))
		}
		if strings.Join(ids, " ") != strings.Join(wantSides[name], " ") {
			t.Errorf("%s: side ids %v, want %v", name, ids, wantSides[name])
		}
	}
}

// TestRulesetsCommand: `adjutant rulesets` gives each registered ruleset with its title,
// rulebook, side ids and names, options and default orders.
func TestRulesetsCommand(t *testing.T) {
	out := mustCLI(t, nil, "rulesets")
	flat := strings.Join(strings.Fields(out), " ")
	rs, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range rs {
		want := []string{name + ": " + r.Title(), "--ruleset " + name}
		if d, ok := r.(rules.Describer); ok {
			want = append(want, "rulebook: "+d.Rulebook(), strings.Join(strings.Fields(d.DefaultOrders()), " "))
		} else {
			t.Errorf("%s does not describe itself (rules.Describer)", name)
		}
		for _, s := range r.Sides() {
			want = append(want, string(s.ID)+" ("+s.Name+")", "--player "+string(s.ID)+"=ADDRESS")
		}
		for o := range r.OptionNames() {
			want = append(want, o+": ")
		}
		for _, w := range want {
			if !strings.Contains(flat, w) {
				t.Errorf("adjutant rulesets does not say %q of %s:\n%s", w, name, out)
			}
		}
	}
}

// TestUsageNamesEveryRuleset: the usage text, game new --help and an unknown --ruleset
// name every registered ruleset with its side ids; the unknown one creates no store.
func TestUsageNamesEveryRuleset(t *testing.T) {
	db := filepath.Join(t.TempDir(), "games.db")
	_, help, _ := cli(t, nil, "help")
	_, _, gameHelp := cli(t, nil, "game", "new", "-h")
	code, _, unknown := cli(t, nil, "game", "new", "--db", db, "--name", "v", "--ruleset", "verdun", "--player", "us=a@b")
	if code != 2 || !strings.Contains(unknown, `unknown ruleset "verdun"`) {
		t.Errorf("game new --ruleset verdun: exit %d, %q; want 2 and the unknown ruleset named", code, unknown)
	}
	if _, err := os.Stat(db); err == nil {
		t.Error("game new --ruleset verdun created the store")
	}
	for what, text := range map[string]string{"usage": help, "game new -h": gameHelp, "unknown ruleset": unknown} {
		flat := " " + strings.Join(strings.Fields(text), " ") + " "
		for name, sides := range wantSides {
			i := strings.Index(flat, " "+name+" ")
			if i < 0 {
				t.Errorf("%s does not name %s:\n%s", what, name, text)
				continue
			}
			// The entry of name ends where the next ruleset's begins.
			entry := flat[i+len(name)+2:]
			for other := range wantSides {
				if j := strings.Index(entry, " "+other+" "); j >= 0 && other != name {
					entry = entry[:j]
				}
			}
			for _, s := range sides {
				if !strings.Contains(entry, " "+s+" (") {
					t.Errorf("%s does not give side %s of %s:\n%s", what, s, name, text)
				}
			}
		}
	}
}

// TestReadmeNamesRulesets: README's "Running the daemon" names --ruleset, every
// ruleset and its side ids and options.
func TestReadmeNamesRulesets(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	text := string(raw)
	start := strings.Index(text, "## Running the daemon")
	end := strings.Index(text[start+1:], "\n## ")
	if start < 0 || end < 0 {
		t.Fatal(`README has no section "Running the daemon"`)
	}
	section := text[start : start+1+end]
	if !strings.Contains(section, "--ruleset") || !strings.Contains(section, "adjutant rulesets") {
		t.Errorf("Running the daemon does not name --ruleset and adjutant rulesets")
	}
	rs, err := rulesets.All()
	if err != nil {
		t.Fatal(err)
	}
	for name, r := range rs {
		row := ""
		for _, l := range strings.Split(section, "\n") {
			if strings.HasPrefix(l, "| `"+name+"`") {
				row = l
			}
		}
		if row == "" {
			t.Errorf("Running the daemon has no row for %s", name)
			continue
		}
		for _, s := range r.Sides() {
			if !strings.Contains(row, "`"+string(s.ID)+"` ("+s.Name+")") {
				t.Errorf("README's row of %s lacks side `%s` (%s): %s", name, s.ID, s.Name, row)
			}
		}
		for o := range r.OptionNames() {
			if !strings.Contains(row, "`"+o+"`") {
				t.Errorf("README's row of %s lacks option %s: %s", name, o, row)
			}
		}
	}
}
