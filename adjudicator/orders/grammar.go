package orders

import (
	"fmt"
	"slices"
	"strings"
)

// Grammar is one game's orders as keyword lines: a keyword, then fields. [Grammar.Read]
// finds a line's order and refuses, in one wording for every game, a line whose
// keyword is none of the game's and a line short of a field; what the fields mean is
// the game's to read. Keywords are compared as [Line.Keyword] gives them, ASCII case
// folded, with the mail's typography already undone by [Split].
type Grammar []Form

// Form is one order of a [Grammar].
type Form struct {
	Keyword string   // upper-case ASCII, e.g. "MOVE"
	Also    []string // other keywords of the same order, e.g. "COWED" for "COW"
	// Fields is how many fields the order needs after its keyword, at least.
	Fields int
	// Usage is the order's shape, for the refusal of a line short of a field, e.g.
	// "PREPARE <unit>".
	Usage string
	// Rule is the rule section the game's refusals of the order cite, e.g. "19.4";
	// Read does not use it.
	Rule string
}

// Keywords lists every keyword of g in order, each form's own then its Also: what a
// ruleset's Keywords tells the desk.
func (g Grammar) Keywords() []string {
	var out []string
	for _, f := range g {
		out = append(out, f.Keyword)
		out = append(out, f.Also...)
	}
	return out
}

// Read returns the form of l's keyword and the fields after the keyword. A line whose
// keyword is no form's is refused with [Grammar.Unknown]; a line with fewer fields
// than its form needs, with [Form.Want].
func (g Grammar) Read(l Line) (Form, []string, error) {
	kw := l.Keyword()
	for _, f := range g {
		if f.Keyword != kw && !slices.Contains(f.Also, kw) {
			continue
		}
		args := l.Fields[1:]
		if len(args) < f.Fields {
			return f, args, f.Want()
		}
		return f, args, nil
	}
	word := ""
	if len(l.Fields) > 0 {
		word = l.Fields[0]
	}
	return Form{}, nil, g.Unknown(word)
}

// Unknown is the refusal of an order whose keyword, word, is none of g's: the
// keywords there are, so that a mistyped one is seen at a glance.
func (g Grammar) Unknown(word string) error {
	return fmt.Errorf("unknown order %q: want one of %s (see HELP)", word, strings.Join(g.Keywords(), ", "))
}

// Want is the refusal of a line of f that is not in f's shape: "want " and its usage.
func (f Form) Want() error { return fmt.Errorf("want %s", f.Usage) }
