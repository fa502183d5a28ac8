package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
	"github.com/adjutant-pbem/adjutant/adjudicator/rulesets"
	"github.com/adjutant-pbem/adjutant/templates"
)

// sideList gives a ruleset's sides as a host types them and players read them:
// "us (US), de (German)".
func sideList(r rules.Ruleset) string {
	var sides []string
	for _, s := range r.Sides() {
		sides = append(sides, fmt.Sprintf("%s (%s)", s.ID, s.Name))
	}
	return strings.Join(sides, ", ")
}

// rulesetSummary is a paragraph a ruleset, for the usage text, game new --help and an
// unknown --ruleset: "  soldiers1918   Soldiers: Decision in the Trenches, 1918; sides
// us (US), de (German)".
func rulesetSummary(rs rules.Registry) string {
	var b strings.Builder
	for _, n := range rs.Names() {
		// Wrap squeezes runs of spaces: the name's column is padded after it.
		text := block(17, 0, fmt.Sprintf("%s; sides %s", rs[n].Title(), sideList(rs[n])))
		b.WriteString(fmt.Sprintf("  %-14s %s", n, text[17:]))
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// block wraps s to 78 columns, indent spaces before every line and hang more before
// each continuation line.
func block(indent, hang int, s string) string {
	pad := strings.Repeat(" ", indent)
	return pad + strings.ReplaceAll(templates.Wrap(78-indent, hang, s), "\n", "\n"+pad) + "\n"
}

// registered applies f to the rulesets this binary adjudicates.
func registered(f func(rules.Registry) string) string {
	rs, err := rulesets.All()
	if err != nil {
		return fmt.Sprintf("(the rulesets could not be loaded: %v)", err)
	}
	return f(rs)
}

// knownRuleset refuses a name no registered ruleset has, naming those there are.
func knownRuleset(name string) error {
	rs, err := rulesets.All()
	if err != nil {
		return err
	}
	if _, ok := rs[name]; ok {
		return nil
	}
	return usageError(fmt.Sprintf("unknown ruleset %q; the rulesets are:\n%s", name, rulesetSummary(rs)))
}

// cmdRulesets prints every ruleset this binary adjudicates, read from the rulesets
// themselves: name, title, rulebook, side ids and names, options and default orders,
// with the game new line that starts a game of it.
func cmdRulesets(e *env, args []string) error {
	fs := newFlags(e, "rulesets")
	fs.Usage = func() {
		fmt.Fprintln(fs.Output(), "usage: adjutant rulesets\n\nLists the rulesets: title, rulebook, side ids and names, optional rules, and\nthe orders a side is taken to give when it misses a deadline under\n--no-orders default.")
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageError("rulesets takes no arguments")
	}
	rs, err := rulesets.All()
	if err != nil {
		return err
	}
	for i, n := range rs.Names() {
		r := rs[n]
		if i > 0 {
			fmt.Fprintln(e.stdout)
		}
		fmt.Fprintf(e.stdout, "%s: %s\n", n, r.Title())
		if d, ok := r.(rules.Describer); ok {
			fmt.Fprint(e.stdout, block(2, 4, "rulebook: "+d.Rulebook()))
		}
		fmt.Fprint(e.stdout, block(2, 4, "sides (--player ID=ADDRESS): "+sideList(r)))
		opts := r.OptionNames()
		if len(opts) == 0 {
			fmt.Fprintln(e.stdout, "  options: none")
		} else {
			fmt.Fprintln(e.stdout, "  options (--option NAME):")
			names := make([]string, 0, len(opts))
			for o := range opts {
				names = append(names, o)
			}
			sort.Strings(names)
			for _, o := range names {
				fmt.Fprint(e.stdout, block(4, 4, o+": "+opts[o]))
			}
		}
		fmt.Fprint(e.stdout, block(2, 4, "missed deadline, with --no-orders default: "+rules.DefaultOrdersOf(r)))
		start := "to start one: adjutant game new --config FILE --ruleset " + n + " --name NAME"
		for _, s := range r.Sides() {
			start += fmt.Sprintf(" --player %s=ADDRESS", s.ID)
		}
		fmt.Fprint(e.stdout, block(2, 4, start))
	}
	return nil
}
