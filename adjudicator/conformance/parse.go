package conformance

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"slices"
	"strconv"
	"strings"

	"github.com/adjutant-pbem/adjutant/adjudicator/rules"
)

// Case is one adjudication case.
type Case struct {
	Name string // one word, unique in a corpus: the subtest name
	Rule string // the rule sections it pins, as written after RULE
	File string // where it was read, for messages
	Line int    // the line of its CASE keyword
	// State, Orders and Expect are the lines of their sections, comments removed and
	// trimmed. Orders lines read "side: text", or "---" to end a submission.
	State, Orders, Expect []string
	Dice                  []int
}

// Pos returns "file:line" of the case.
func (c Case) Pos() string { return fmt.Sprintf("%s:%d", c.File, c.Line) }

// Section keywords.
const (
	kwCase   = "CASE"
	kwRule   = "RULE"
	kwState  = "STATE"
	kwOrders = "ORDERS"
	kwDice   = "DICE"
	kwExpect = "EXPECT"
	kwEnd    = "END"
)

// Submission separator in ORDERS.
const orderBreak = "---"

// Prefixes of the runner's own EXPECT lines; every other EXPECT line is a state line.
const (
	expEvent   = "event:"
	expRefused = "refused:"
	expPhase   = "phase:"
	expTurn    = "turn:"
	expAbsent  = "absent:"
	expUnseen  = "unseen:"
)

// Parse reads the cases of one file. Every problem is reported, each naming file:line.
func Parse(r io.Reader, file string) ([]Case, error) {
	var (
		out     []Case
		errs    []error
		cur     *Case
		section string
		seen    map[string]int // section -> line, in the current case
		names   = map[string]int{}
	)
	errorf := func(line int, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s:%d: %s", file, line, fmt.Sprintf(format, args...)))
	}
	finish := func(endLine int) {
		c := cur
		cur, section = nil, ""
		if c.Rule == "" {
			errorf(c.Line, "case %s has no RULE line: name the rule sections it pins", c.Name)
		}
		if _, ok := seen[kwExpect]; !ok || len(c.Expect) == 0 {
			errorf(c.Line, "case %s has no EXPECT lines: a case must expect something", c.Name)
		}
		for _, err := range validate(*c) {
			errorf(endLine, "case %s: %v", c.Name, err)
		}
		out = append(out, *c)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	n := 0
	for sc.Scan() {
		n++
		text := sc.Text()
		if i := strings.IndexByte(text, '#'); i >= 0 {
			text = text[:i]
		}
		text = strings.TrimSpace(text)
		if text == "" {
			continue
		}
		word, rest, _ := strings.Cut(text, " ")
		rest = strings.TrimSpace(rest)
		if cur == nil {
			if word != kwCase {
				errorf(n, "%q outside a case: a case starts with CASE <name>", text)
				continue
			}
		}
		switch word {
		case kwCase:
			if cur != nil {
				errorf(n, "CASE inside case %s (started at line %d): end it with END first", cur.Name, cur.Line)
				finish(n)
			}
			if rest == "" || strings.ContainsAny(rest, " \t") {
				errorf(n, "want CASE <name> with a one-word name, got %q", text)
			}
			if prev, dup := names[rest]; dup {
				errorf(n, "case %s already defined at line %d", rest, prev)
			}
			names[rest] = n
			cur = &Case{Name: rest, File: file, Line: n}
			seen = map[string]int{}
			continue
		case kwRule:
			if rest == "" {
				errorf(n, "RULE needs the rule sections, e.g. RULE 12.2, 10.8")
			} else if cur.Rule != "" {
				errorf(n, "second RULE line in case %s: put every section on one line", cur.Name)
			} else {
				cur.Rule = rest
			}
			section = ""
			continue
		case kwEnd:
			if rest != "" {
				errorf(n, "END takes nothing after it, got %q", text)
			}
			finish(n)
			continue
		case kwState, kwOrders, kwDice, kwExpect:
			if prev, dup := seen[word]; dup {
				errorf(n, "second %s section in case %s (the first is at line %d)", word, cur.Name, prev)
			}
			seen[word] = n
			section = word
			if rest == "" {
				continue
			}
			if word != kwDice {
				errorf(n, "%s stands alone on its line; put its lines below it", word)
				continue
			}
			text = rest // "DICE 4 2 6"
		}
		switch section {
		case kwState:
			cur.State = append(cur.State, text)
		case kwOrders:
			if text != orderBreak {
				side, order, ok := strings.Cut(text, ":")
				side, order = strings.TrimSpace(side), strings.TrimSpace(order)
				if !ok || side == "" || strings.ContainsAny(side, " \t") || order == "" {
					errorf(n, "want an order line \"side: order\", e.g. \"us: PLOT TURN 1 NONE\", or %q, got %q", orderBreak, text)
					continue
				}
				text = side + ": " + order
			}
			cur.Orders = append(cur.Orders, text)
		case kwDice:
			for _, f := range strings.FieldsFunc(text, func(r rune) bool { return r == ' ' || r == '\t' || r == ',' }) {
				v, err := strconv.Atoi(f)
				if err != nil {
					errorf(n, "DICE value %q is not a number", f)
					continue
				}
				cur.Dice = append(cur.Dice, v)
			}
		case kwExpect:
			cur.Expect = append(cur.Expect, text)
		default:
			errorf(n, "%q before any section: put it under STATE, ORDERS, DICE or EXPECT", text)
		}
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("%s: %w", file, err))
	}
	if cur != nil {
		errorf(cur.Line, "case %s is not closed: END missing", cur.Name)
		finish(n)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// Load reads every file of fsys that matches glob (see [fs.Glob]), in name order. A glob
// that matches nothing and a case name used twice are errors: a corpus that loads no case
// would pass without testing anything.
func Load(fsys fs.FS, glob string) ([]Case, error) {
	names, err := fs.Glob(fsys, glob)
	if err != nil {
		return nil, fmt.Errorf("conformance: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("conformance: no case file matches %q", glob)
	}
	slices.Sort(names)
	var (
		out  []Case
		errs []error
		byID = map[string]Case{}
	)
	for _, name := range names {
		f, err := fsys.Open(name)
		if err != nil {
			errs = append(errs, fmt.Errorf("conformance: %w", err))
			continue
		}
		cases, err := Parse(f, name)
		f.Close()
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, c := range cases {
			if prev, dup := byID[c.Name]; dup {
				errs = append(errs, fmt.Errorf("%s: case %s already defined at %s", c.Pos(), c.Name, prev.Pos()))
				continue
			}
			byID[c.Name] = c
			out = append(out, c)
		}
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// unseen is an EXPECT "unseen:" line: no event side receives may contain text (a
// secret of the other side's, told to its owner alone).
type unseen struct {
	side rules.Side
	text string
}

// expectation is a case's EXPECT section, sorted by kind.
type expectation struct {
	state   []string
	absent  []string
	events  []string
	unseen  []unseen
	refused []string
	phase   string
	turn    int
	hasTurn bool
}

// readExpect sorts EXPECT lines by kind.
func readExpect(lines []string) (expectation, []error) {
	var e expectation
	var errs []error
	for _, l := range lines {
		switch {
		case strings.HasPrefix(l, expEvent):
			e.events = append(e.events, strings.TrimSpace(l[len(expEvent):]))
		case strings.HasPrefix(l, expRefused):
			e.refused = append(e.refused, strings.TrimSpace(l[len(expRefused):]))
		case strings.HasPrefix(l, expAbsent):
			e.absent = append(e.absent, normalize(l[len(expAbsent):]))
		case strings.HasPrefix(l, expUnseen):
			side, text, _ := strings.Cut(strings.TrimSpace(l[len(expUnseen):]), " ")
			if text = strings.TrimSpace(text); side == "" || text == "" {
				errs = append(errs, fmt.Errorf("%q: want %s <side> <text>", l, expUnseen))
			}
			e.unseen = append(e.unseen, unseen{rules.Side(side), text})
		case strings.HasPrefix(l, expPhase):
			if e.phase != "" {
				errs = append(errs, fmt.Errorf("%q: only one %s line", l, expPhase))
			}
			e.phase = strings.TrimSpace(l[len(expPhase):])
			if e.phase == "" {
				errs = append(errs, fmt.Errorf("%q: name the phase", l))
			}
		case strings.HasPrefix(l, expTurn):
			if e.hasTurn {
				errs = append(errs, fmt.Errorf("%q: only one %s line", l, expTurn))
			}
			n, err := strconv.Atoi(strings.TrimSpace(l[len(expTurn):]))
			if err != nil {
				errs = append(errs, fmt.Errorf("%q: want %s <number>", l, expTurn))
			}
			e.turn, e.hasTurn = n, true
		default:
			e.state = append(e.state, normalize(l))
		}
	}
	for _, s := range slices.Concat(e.events, e.refused, e.absent) {
		if s == "" {
			errs = append(errs, fmt.Errorf("an EXPECT event:, refused: or absent: line is empty"))
			break
		}
	}
	return e, errs
}

// validate checks what Parse can check of a case without its ruleset.
func validate(c Case) []error {
	e, errs := readExpect(c.Expect)
	if len(e.refused) > 0 {
		if len(e.events) > 0 {
			errs = append(errs, fmt.Errorf("expects both a refusal and events, but a refused submission resolves nothing"))
		}
		if len(c.Dice) > 0 {
			errs = append(errs, fmt.Errorf("expects a refusal and gives DICE, but a refused submission rolls nothing"))
		}
	}
	for i, o := range c.Orders {
		if o == orderBreak && (i == 0 || c.Orders[i-1] == orderBreak) {
			errs = append(errs, fmt.Errorf("ORDERS line %d: %q ends a submission, but none is open", i+1, orderBreak))
		}
	}
	return errs
}

func normalize(s string) string { return strings.Join(strings.Fields(s), " ") }
