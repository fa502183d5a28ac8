package orders_test

import (
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/adjutant-pbem/adjutant/adjudicator/hex"
	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

func TestSplit(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		lines   []string // Text of each line
		nos     []int
		ignored []string // Why prefixes
	}{
		{"keywords and comments", "GAME verdun\n\n# a comment\nplot turn 1 4300x3 # trailing\n", []string{"GAME verdun", "plot turn 1 4300x3"}, []int{1, 4}, nil},
		{"quoted lines never run", "> PLOT TURN 1 4300x3\nPLOT NONE\n  > also quoted\n", []string{"PLOT NONE"}, []int{2}, []string{"quoted", "quoted"}},
		{"END stops", "STATUS\nend\nPLOT 4300x3\n", []string{"STATUS"}, []int{1}, []string{"END"}},
		{"END at the end says nothing", "STATUS\nEND\n\n", []string{"STATUS"}, []int{1}, nil},
		{"signature stops", "MAP\n-- \nJohn\nPLOT 4300x3\n", []string{"MAP"}, []int{1}, []string{"signature"}},
		{"CRLF", "HELP\r\nSTATUS\r\n", []string{"HELP", "STATUS"}, []int{1, 2}, nil},
		{"dash-dash without space is a signature too", "MAP\n--\nx\n", []string{"MAP"}, []int{1}, []string{"signature"}},
		{"a line of dashes is not", "MAP\n---\n", []string{"MAP", "---"}, []int{1, 2}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, ignored := orders.Split(tt.text)
			var got []string
			var nos []int
			for _, l := range lines {
				got = append(got, l.Text)
				nos = append(nos, l.No)
			}
			if !reflect.DeepEqual(got, tt.lines) || !reflect.DeepEqual(nos, tt.nos) {
				t.Errorf("Split(%q) lines = %q at %v, want %q at %v", tt.text, got, nos, tt.lines, tt.nos)
			}
			if len(ignored) != len(tt.ignored) {
				t.Fatalf("Split(%q) ignored = %+v, want %d", tt.text, ignored, len(tt.ignored))
			}
			for i, ig := range ignored {
				if !strings.HasPrefix(ig.Why, tt.ignored[i]) {
					t.Errorf("ignored[%d].Why = %q, want prefix %q", i, ig.Why, tt.ignored[i])
				}
			}
		})
	}
}

func TestLine(t *testing.T) {
	lines, _ := orders.Split("cancel Bombardment now")
	l := lines[0]
	if l.Keyword() != "CANCEL" || !l.Is("CANCEL", "BOMBARDMENT") || l.Is("CANCEL", "PLOT") || l.Rest(1) != "Bombardment now" || l.Rest(5) != "" {
		t.Errorf("Line helpers on %q: Keyword %q Rest(1) %q", l.Text, l.Keyword(), l.Rest(1))
	}
}

func TestParsePlotItems(t *testing.T) {
	h := hex.MustParse
	tests := []struct {
		in      string
		want    []orders.PlotItem
		wantErr string
	}{
		// Soldiers 1918 3.3: the rulebook's own example.
		{"4300x3, 4400x3, 4500x2, 4600x4", []orders.PlotItem{{h("4300"), 3}, {h("4400"), 3}, {h("4500"), 2}, {h("4600"), 4}}, ""},
		{"4300X3 4400x1;4500", []orders.PlotItem{{h("4300"), 3}, {h("4400"), 1}, {h("4500"), 1}}, ""},
		{"", nil, ""},
		{"430x3", nil, "4-digit hex"},
		{"4300x0", nil, "marker count"},
		{"4300xx3", nil, "marker count"},
		{"4300x3x", nil, "marker count"},
	}
	for _, tt := range tests {
		got, err := orders.ParsePlotItems(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("ParsePlotItems(%q) error = %v, want %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("ParsePlotItems(%q) = %v, %v, want %v", tt.in, got, err, tt.want)
		}
		if err == nil && len(got) > 0 {
			if again, _ := orders.ParsePlotItems(orders.FormatPlot(got)); !reflect.DeepEqual(again, got) {
				t.Errorf("FormatPlot does not round-trip: %q", orders.FormatPlot(got))
			}
		}
	}
}

func TestParsePath(t *testing.T) {
	got, err := orders.ParsePath("2301-2302-2402")
	want := []hex.Hex{hex.MustParse("2301"), hex.MustParse("2302"), hex.MustParse("2402")}
	if err != nil || !reflect.DeepEqual(got, want) {
		t.Errorf("ParsePath = %v, %v, want %v", got, err, want)
	}
	if _, err := orders.ParsePath("2301--2302"); err == nil {
		t.Error("ParsePath(2301--2302) = nil error")
	}
}

func FuzzSplit(f *testing.F) {
	for _, s := range []string{"GAME x\nPASSWORD y\nPLOT TURN 1 4300x3\n", "> q\n-- \nsig", "END\nx", "#\n\r\n", "\xff\xfe",
		"MOVE 4/DC 4209–4210\n", "PLOT TURN １ ４３００x3\u00a0４４００x2\n", "PASSWORD a–b\nМOVE 2300—2301\n", "\u00a0\u2013\u00a0\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, ignored := orders.Split(text)
		n := strings.Count(text, "\n") + 1
		for _, l := range lines {
			if l.No < 1 || l.No > n || l.Text == "" || len(l.Fields) == 0 || strings.HasPrefix(l.Text, ">") || strings.Contains(l.Text, "#") {
				t.Fatalf("bad line %+v from %q", l, text)
			}
		}
		for _, ig := range ignored {
			if ig.No < 1 || ig.No > n {
				t.Fatalf("bad ignored %+v", ig)
			}
		}
		if utf8.ValidString(text) {
			for _, l := range lines {
				if !utf8.ValidString(l.Text) {
					t.Fatalf("invalid UTF-8 from valid input")
				}
			}
		}
	})
}

func FuzzParsePlotItems(f *testing.F) {
	for _, s := range []string{"4300x3, 4400x3, 4500x2, 4600x4", "4300", "x", "9999x99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		items, err := orders.ParsePlotItems(s)
		if err != nil {
			return
		}
		for _, it := range items {
			if it.Count < 1 || !it.Hex.Valid() {
				t.Fatalf("ParsePlotItems(%q) gave %v", s, it)
			}
		}
		again, err := orders.ParsePlotItems(orders.FormatPlot(items))
		if err != nil || !reflect.DeepEqual(again, items) {
			t.Fatalf("round trip of %q: %v %v", s, again, err)
		}
	})
}

func TestPhaseKey(t *testing.T) {
	for _, c := range []struct {
		turn  int
		phase string
		want  string
	}{
		{0, "setup", "0.setup"},
		{3, "II", "3.II"},
		{12, "de-move", "12.de-move"},
	} {
		if got := orders.PhaseKey(c.turn, c.phase); got != c.want {
			t.Errorf("PhaseKey(%d, %q) = %q, want %q", c.turn, c.phase, got, c.want)
		}
	}
}

func TestParsePathEnd(t *testing.T) {
	h := hex.MustParse
	for _, c := range []struct {
		in      string
		words   []string
		path    []hex.Hex
		end     string
		wantErr string
	}{
		{"2301-2302", []string{"EXIT"}, []hex.Hex{h("2301"), h("2302")}, "", ""},
		{"2301-2302-exit", []string{"EXIT"}, []hex.Hex{h("2301"), h("2302")}, "EXIT", ""},
		{"2301-EXIT", nil, nil, "", `path "2301-EXIT": hex id "EXIT"`},
		{"EXIT", []string{"EXIT"}, nil, "EXIT", ""},
		{"2301-EXIT-2302", []string{"EXIT"}, nil, "", `path "2301-EXIT-2302": hex id "EXIT"`},
		{"2301-", []string{"EXIT"}, nil, "", `path "2301-": hex id ""`},
	} {
		path, end, err := orders.ParsePathEnd(c.in, c.words...)
		if c.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), c.wantErr) {
				t.Errorf("ParsePathEnd(%q) err = %v, want %q", c.in, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(path, c.path) || end != c.end {
			t.Errorf("ParsePathEnd(%q) = %v %q %v, want %v %q", c.in, path, end, err, c.path, c.end)
		}
	}
}

func TestUnits(t *testing.T) {
	known := func(id string) (string, bool) {
		id = strings.ToUpper(id)
		return id, id == "1US" || id == "17/42" || id == "XX"
	}
	for _, c := range []struct {
		words   []string
		want    []string
		wantErr string
	}{
		{[]string{"1us,17/42", "XX"}, []string{"1US", "17/42", "XX"}, ""},
		{[]string{"1US,", ",XX"}, []string{"1US", "XX"}, ""},
		{nil, nil, ""},
		{[]string{"1US,2US"}, nil, `no unit "2US": write ids as in STATUS`},
	} {
		got, err := orders.Units(c.words, known, "write ids as in STATUS")
		if c.wantErr != "" {
			if err == nil || err.Error() != c.wantErr {
				t.Errorf("Units(%q) err = %v, want %q", c.words, err, c.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Units(%q) = %q %v, want %q", c.words, got, err, c.want)
		}
	}
}

// FuzzParsePathEnd: the path parser never panics, and what it accepts writes back to a
// path it reads the same.
func FuzzParsePathEnd(f *testing.F) {
	for _, s := range []string{"2301-2302-EXIT", "exit", "2301--2302", "-", "2301-2302"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path, end, err := orders.ParsePathEnd(s, "EXIT")
		if err != nil {
			return
		}
		parts := []string{}
		for _, h := range path {
			parts = append(parts, h.String())
		}
		if end != "" {
			parts = append(parts, end)
		}
		again, end2, err := orders.ParsePathEnd(strings.Join(parts, "-"), "EXIT")
		if err != nil || !reflect.DeepEqual(again, path) || end2 != end {
			t.Fatalf("%q read as %v %q, written back %q read as %v %q %v", s, path, end, strings.Join(parts, "-"), again, end2, err)
		}
	})
}
