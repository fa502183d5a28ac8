package adjudicator

import (
	"fmt"
	"sort"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

// What an order check lists at most, so that its size stays a few KB whatever the mail
// (a megabyte on one line, ten thousand lines): each line quoted to quoteChars
// characters, a reason to reasonChars; the lines of the mail up to the 20th refused
// one (listRefused) or the 100th other one (listOther), and the first listNotRead
// entries of what was not executed, each list then counting the rest. The count is what a player needs to
// know how much was wrong; the first lines, what kind of wrong.
const (
	quoteChars  = 100
	reasonChars = 400
	listRefused = 20
	listOther   = 100
	listNotRead = 20
)

// listLines cuts an order check's lines to what it lists: the lines of the mail in
// order, up to the one that would make more than listRefused refused or listOther
// others, each quoted at most quoteChars characters long, a refused one with its
// characters shown as orders.Visible shows them; and a sentence counting the lines not
// listed. All verdicts on one line of the mail are listed or none.
func listLines(lines []lineView) ([]lineView, string) {
	sort.SliceStable(lines, func(i, j int) bool { return lines[i].No < lines[j].No })
	refused := map[int]bool{}
	for _, l := range lines {
		if l.Verdict == "REFUSED" {
			refused[l.No] = true
		}
	}
	var out []lineView
	nRefused, nOther := 0, 0
	for i, l := range lines {
		if i == 0 || lines[i-1].No != l.No {
			if refused[l.No] && nRefused == listRefused || !refused[l.No] && nOther == listOther {
				return out, unlisted(lines[i:], refused)
			}
			if refused[l.No] {
				nRefused++
			} else {
				nOther++
			}
		}
		// The line is quoted once, with its first verdict: shown as refused if any is.
		l.Text = orders.Clip(l.Text, quoteChars, refused[l.No])
		l.Reason = orders.ClipWords(l.Reason, quoteChars, reasonChars, l.Verdict == "REFUSED")
		out = append(out, l)
	}
	return out, ""
}

// unlisted counts the lines of the mail that rest lists, refused and correct.
func unlisted(rest []lineView, refused map[int]bool) string {
	count := map[bool]int{}
	for i, l := range rest {
		if i == 0 || rest[i-1].No != l.No {
			count[refused[l.No]]++
		}
	}
	var what string
	switch r, c := count[true], count[false]; {
	case r > 0 && c > 0:
		what = fmt.Sprintf("%s more %s refused and %s more correct", orders.Thousands(r), plural(r, "line", "lines"), orders.Thousands(c))
	case r > 0:
		what = fmt.Sprintf("%s more %s refused", orders.Thousands(r), plural(r, "line", "lines"))
	default:
		what = fmt.Sprintf("%s more %s correct", orders.Thousands(c), plural(c, "line", "lines"))
	}
	return fmt.Sprintf("and %s, not listed (%s)", what, spanOf([]int{rest[0].No, rest[len(rest)-1].No}))
}

// listIgnored cuts the list of what was not executed to its first listIgnored entries,
// counting the lines of the rest.
func listIgnored(ignored []orders.Ignored) ([]orders.Ignored, string) {
	if len(ignored) <= listNotRead {
		return ignored, ""
	}
	rest := ignored[listNotRead:]
	n := 0
	for _, ig := range rest {
		n += max(ig.Last, ig.No) - ig.No + 1
	}
	return ignored[:listNotRead], fmt.Sprintf("and %s more %s not executed, not listed (%s)",
		orders.Thousands(n), plural(n, "line", "lines"), spanOf([]int{rest[0].No, max(rest[len(rest)-1].Last, rest[len(rest)-1].No)}))
}

// spanOf names the lines from the first of nos to the last: "line 31" or "lines
// 31-10012".
func spanOf(nos []int) string {
	if nos[0] == nos[len(nos)-1] {
		return fmt.Sprintf("line %d", nos[0])
	}
	return fmt.Sprintf("lines %d-%d", nos[0], nos[len(nos)-1])
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
