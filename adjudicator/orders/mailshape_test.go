package orders_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
)

var keywords = []string{"GAME", "PASSWORD", "STATUS", "PLOT", "MOVE", "FIRE"}

func TestClosingText(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		kept    []string
		closing []int
	}{
		{"sign-off after the orders", "GAME g\nPLOT TURN 1 4300x3\n\nGrüße,\nBernd\n", []string{"GAME g", "PLOT TURN 1 4300x3"}, []int{4, 5}},
		{"Sent from my iPhone", "MOVE 2300-2301\n\nSent from my iPhone", []string{"MOVE 2300-2301"}, []int{3}},
		{"a plot list going on over lines is no closing text", "PLOT TURN 2 2301x4\n2302x4\nThanks, Bob", []string{"PLOT TURN 2 2301x4", "2302x4"}, []int{3}},
		{"an unknown word between orders stays", "PLOT 4300x3\nplease\nMOVE 2300-2301\nBob", []string{"PLOT 4300x3", "please", "MOVE 2300-2301"}, []int{4}},
		{"a mistyped last order stays", "PLOT 4300x3\nMVOE 2300-2301", []string{"PLOT 4300x3", "MVOE 2300-2301"}, nil},
		{"a near word without numbers is closing text", "PLOT 4300x3\nMore soon", []string{"PLOT 4300x3"}, []int{2}},
		{"keywords with a colon count", "Game: g\nPassword: x\nThanks", []string{"Game: g", "Password: x"}, []int{3}},
		{"no keyword at all: nothing is closing text", "hello\nthere", []string{"hello", "there"}, nil},
		{"a long s is no keyword", "PLOT 4300x3\nſtatuſ", []string{"PLOT 4300x3"}, []int{2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, _ := orders.Split(tt.text)
			kept, closing := orders.ClosingText(lines, keywords)
			var got []string
			for _, l := range kept {
				got = append(got, l.Text)
			}
			var nos []int
			for _, c := range closing {
				nos = append(nos, c.No)
				if c.Why != "not an order (closing text)" {
					t.Errorf("closing line %d: Why = %q", c.No, c.Why)
				}
			}
			if !reflect.DeepEqual(got, tt.kept) || !reflect.DeepEqual(nos, tt.closing) {
				t.Errorf("ClosingText = %q, closing lines %v; want %q, %v", got, nos, tt.kept, tt.closing)
			}
		})
	}
}

func TestSplitMailShapes(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		lines []string
		why   []string
	}{
		{"Outlook's original message ends the orders",
			"PLOT 4300x3\n\n-----Original Message-----\nFrom: Adjutant\nPLOT 9999x9", []string{"PLOT 4300x3"}, []string{"quoted original: the 3 line(s)"}},
		{"Outlook's header block ends the orders",
			"PLOT 4300x3\nFrom: Adjutant <a@b>\nSent: Sunday\nPLOT 9999x9", []string{"PLOT 4300x3"}, []string{"quoted original"}},
		{"Outlook on the web: a rule, then the header block",
			"PLOT 4300x3\n________________________________\nFrom: Adjutant\nSent: Sunday\nPLOT 9999x9", []string{"PLOT 4300x3"}, []string{"quoted original"}},
		{"From: alone is no quote", "From: here\nPLOT 4300x3", []string{"From: here", "PLOT 4300x3"}, nil},
		{"German Outlook", "PLOT 4300x3\nVon: Adjutant\nGesendet: Sonntag\nPLOT 9999x9", []string{"PLOT 4300x3"}, []string{"quoted original"}},
		{"attribution above a quote, orders below",
			"On Sun, 22 Nov 2026, Adjutant wrote:\n> PLOT 9999x9\nPLOT 4300x3", []string{"PLOT 4300x3"}, []string{"reply attribution", "quoted"}},
		{"attribution broken over two lines",
			"PLOT 4300x3\nOn Sun, 22 Nov 2026 at 10:00, Adjutant <\nadjutant@example.org> wrote:\n> x", []string{"PLOT 4300x3"}, []string{"reply attribution", "reply attribution", "quoted"}},
		{"German attribution", "Am 22.11.2026 um 10:00 schrieb Adjutant:\n> x\nMOVE 2300-2301", []string{"MOVE 2300-2301"}, []string{"reply attribution", "quoted"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, ignored := orders.Split(tt.text)
			var got []string
			for _, l := range lines {
				got = append(got, l.Text)
			}
			if !reflect.DeepEqual(got, tt.lines) {
				t.Errorf("Split lines = %q, want %q", got, tt.lines)
			}
			if len(ignored) != len(tt.why) {
				t.Fatalf("ignored = %+v, want %d", ignored, len(tt.why))
			}
			for i, ig := range ignored {
				if !strings.HasPrefix(ig.Why, tt.why[i]) {
					t.Errorf("ignored[%d].Why = %q, want prefix %q", i, ig.Why, tt.why[i])
				}
			}
		})
	}
}

func TestMaskSecret(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PASSWORD secret", "PASSWORD ********"},
		{"password: secret", "password ********"},
		{"Password=secret", "Password ********"},
		{"РАSSWORD secret", "РАSSWORD ********"}, // Cyrillic Р and А
		{"ΡΑSSWORD secret", "ΡΑSSWORD ********"}, // Greek Rho and Alpha
		{"ＰＡＳＳＷＯＲＤ secret", "ＰＡＳＳＷＯＲＤ ********"},
		{"pasword secret", "pasword ********"},
		{"Passwort: geheim", "Passwort ********"},
		{"passwd secret", "passwd ********"},
		{"PLOT TURN 1 4300x3", "PLOT TURN 1 4300x3"},
		// A word alone hides nothing: Soissons' PASS order is shown as written.
		{"PASS", "PASS"},
		{"  pass ", "  pass "},
		{"PASSWORD", "PASSWORD"},
		{"PASSWORD:secret", "PASSWORD ********"},
		{"PASSWORDsecret", "********"}, // glued: the whole word may be the secret
		{"pass hunter2", "pass ********"},
		// Soissons' PASS for a named turn (4.2) names a day, not a password.
		{"PASS 18 July PM", "PASS 18 July PM"},
		{"pass 19 july night", "pass 19 july night"},
		{"PASS 18 July hunter2", "PASS ********"},
		{"Thanks, Bob", "Thanks, Bob"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := orders.MaskSecret(tt.in); got != tt.want {
			t.Errorf("MaskSecret(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestASCIIFolding(t *testing.T) {
	tests := []struct {
		a, b string
		eq   bool
	}{
		{"status", "STATUS", true},
		{"ſtatuſ", "STATUS", false}, // long s
		{"sıde", "SIDE", false},     // dotless i
		{"\u212a", "K", false},      // Kelvin sign
		{"Plot", "PLOT", true},
	}
	for _, tt := range tests {
		if got := orders.EqualFold(tt.a, tt.b); got != tt.eq {
			t.Errorf("EqualFold(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.eq)
		}
		if got := orders.Upper(tt.a) == tt.b; got != tt.eq {
			t.Errorf("Upper(%q) = %q; equal to %q: %v, want %v", tt.a, orders.Upper(tt.a), tt.b, got, tt.eq)
		}
	}
}

func FuzzClosingText(f *testing.F) {
	for _, s := range []string{"GAME g\nPLOT 4300x3\nThanks", "PASSWORD x\nРАSSWORD y", "PLOT 1\n2\nMVOE 3"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		lines, _ := orders.Split(text)
		kept, closing := orders.ClosingText(lines, keywords)
		if len(kept)+len(closing) != len(lines) {
			t.Fatalf("ClosingText lost lines: %d + %d != %d", len(kept), len(closing), len(lines))
		}
		for i, l := range kept {
			if l.No != lines[i].No {
				t.Fatalf("kept line %d is line %d of the mail, want %d: closing text only at the end", i, l.No, lines[i].No)
			}
		}
		for _, c := range closing {
			if strings.Contains(c.Text, "********") {
				continue
			}
			if m := orders.MaskSecret(c.Text); m != c.Text {
				t.Fatalf("closing text %q not masked", c.Text)
			}
		}
	})
}

// TestMaskSecretAllocs: an order line, which resembles no PASSWORD, is read without
// computing its first word's distance to every spelling of PASSWORD (MaskSecret reads
// every line of every mail: 12 allocations a line before, 4 now).
func TestMaskSecretAllocs(t *testing.T) {
	for _, line := range []string{"MOVE 2301-2302", "PLOT TURN 1 4300x3", "FIRE NONE"} {
		if n := testing.AllocsPerRun(100, func() { orders.MaskSecret(line) }); n > 4 {
			t.Errorf("MaskSecret(%q) allocates %.0f times, want at most 4", line, n)
		}
	}
}
