package orders

import "sort"

// The kinds of ignored lines that [Runs] merges, and what a line of each is told.
const (
	quoteKind   = "quote"
	closingKind = "closing"

	quotedWhy      = "quoted from an earlier mail: never executed"
	attributionWhy = "reply attribution: not an order"
	closingWhy     = "not an order (closing text)"
	// quoteBlockWhy is said of a run of quoted lines and attributions: a reply that
	// quotes a whole results mail gets one line for it, not three hundred.
	quoteBlockWhy = "quoted from an earlier mail, not read"
)

// Runs merges the ignored lines of a mail that belong together into one entry each, in
// the order of the mail: a quoted block (quoted lines and reply attributions, with the
// blank lines between them) and a run of closing text. A run never spans a line that was
// read: kept are the lines the mail's orders were read from. Any other entry (a
// signature, END, a quoted original, each of which already covers the rest of the
// mail) stays as it is.
func Runs(ignored []Ignored, kept []Line) []Ignored {
	sorted := append([]Ignored(nil), ignored...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].No < sorted[j].No })
	read := make([]int, len(kept))
	for i, l := range kept {
		read[i] = l.No
	}
	sort.Ints(read)
	// readBetween reports whether a line was read after line a and before line b.
	readBetween := func(a, b int) bool {
		i := sort.SearchInts(read, a+1)
		return i < len(read) && read[i] < b
	}
	var out []Ignored
	for _, ig := range sorted {
		if n := len(out); n > 0 && ig.kind != "" && out[n-1].kind == ig.kind && !readBetween(out[n-1].end(), ig.No) {
			run := &out[n-1]
			run.Last = max(ig.end(), run.end())
			if ig.kind == quoteKind {
				run.Why = quoteBlockWhy
			}
			continue
		}
		out = append(out, ig)
	}
	return out
}

// end is the last line the entry covers.
func (ig Ignored) end() int { return max(ig.No, ig.Last) }
