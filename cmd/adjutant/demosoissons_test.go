package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator/soissons1918"
)

// TestSoissonsDemoByPipe plays the Soissons 1918 demo through all 17 turns: the game
// ends with the verdict, the Entente assaults and makes improvised attacks (20) on
// the first turn and later, no order of the script is refused, no mail line is longer
// than 78 columns but for hashes, and the audit and the replay hold.
func TestSoissonsDemoByPipe(t *testing.T) {
	db := filepath.Join(t.TempDir(), "s.db")
	out := mustCLI(t, nil, "demo", "--ruleset", "soissons1918", "--pipe", "--quiet", "--db", db)
	for _, want := range []string{"demo complete in", "audit of soissons verified", "replay of soissons matches"} {
		if !strings.Contains(out, want) {
			t.Errorf("demo output lacks %q:\n%s", want, out)
		}
	}
	// Every roll of Soissons is public (5: stacks may be inspected, and nothing the dice
	// decide is hidden): each player checks every one from his own mails.
	audited := regexp.MustCompile(`audit of soissons verified: \d+ entries, (\d+) rolls`).FindStringSubmatch(out)
	fromMails := regexp.MustCompile(`alone: (\d+) rolls`).FindAllStringSubmatch(out, -1)
	if audited == nil || len(fromMails) != 2 || audited[1] == "0" {
		t.Errorf("demo output lacks the audit's and each player's roll counts:\n%s", out)
	} else {
		for _, m := range fromMails {
			if m[1] != audited[1] {
				t.Errorf("a player checked %s rolls from his mails, the audit holds %s: a roll's inputs were not mailed", m[1], audited[1])
			}
		}
	}
	var verdict, withdrawn bool
	turns := map[string]map[string]bool{} // table: the turns it was used in
	notices := 0
	for _, m := range outbox(t, db) {
		// Sealed orders (4.2 C.3: the markers of both sides revealed together; combats
		// declared in secret until their segment): the other side's notice holds
		// commitments, never an order's words.
		if m.Kind == "notice" {
			notices++
			// One commitment for the orders of the mail: how many they were is a secret.
			if n := len(regexp.MustCompile(`[0-9a-f]{64}`).FindAllString(m.Body, -1)); n != 1 {
				t.Errorf("a notice of sealed orders to %v gives %d commitments, want one for them all:\n%s", m.To, n, m.Body)
			}
			for _, w := range append(strings.Fields(m.Subject), strings.Fields(m.Body)...) {
				if slices.Contains(soissons1918.Keywords, strings.ToUpper(w)) {
					t.Errorf("a notice of sealed orders to %v shows %q:\n%s\n%s", m.To, w, m.Subject, m.Body)
					break
				}
			}
		}
		flat := strings.Join(strings.Fields(m.Body), " ") // the verdict may be wrapped
		if strings.Contains(flat, "Performance Victory") || strings.Contains(flat, ": Draw (3.4)") {
			verdict = true
		}
		withdrawn = withdrawn || strings.Contains(flat, "ok: withdrawn: assault")
		if strings.Contains(m.Body, "REFUSED") || strings.Contains(m.Body, "not implemented") {
			t.Errorf("a scripted order was refused or not implemented:\n%s", m.Body)
		}
		title := ""
		for _, l := range strings.Split(m.Body, "\n") {
			long := false // a hash, which the desk never breaks
			for _, w := range strings.Fields(l) {
				long = long || len(w) >= 64
			}
			if len(l) > 78 && !long {
				t.Errorf("a mail line of %d columns: %q", len(l), l)
			}
			if strings.HasPrefix(l, "== ") {
				title, _, _ = strings.Cut(strings.TrimPrefix(l, "== "), ",")
			}
			for _, table := range []string{"Assault Combat Table", "Improvised Attack Table"} {
				if strings.Contains(l, table) && strings.HasPrefix(l, "[20.4]") {
					if turns[table] == nil {
						turns[table] = map[string]bool{}
					}
					turns[table][title] = true
				}
			}
		}
	}
	if !verdict {
		t.Error("no verdict mailed")
	}
	if !withdrawn {
		t.Error("the Entente's CANCEL of an assault was not answered as withdrawn")
	}
	if notices == 0 {
		t.Error("no notice of sealed orders was mailed")
	}
	a, im := turns["Assault Combat Table"], turns["Improvised Attack Table"]
	if !a["18 July AM"] || !im["18 July AM"] || len(a) < 3 || len(im) < 3 {
		t.Errorf("combats by table and turn: %v; want assaults and improvised attacks on 18 July AM and in at least three turns each", turns)
	}
}
