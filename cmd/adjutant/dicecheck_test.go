package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
)

// checkRollsFromMails re-verifies every roll, seed, revealed plot and signed chain head
// of each game from the text of the mails each player received, in the order queued,
// with nothing else (issue 8: every roll checkable from the player's own mail). The
// store is read afterwards only to show that the mails gave every roll the audit holds.
func checkRollsFromMails(t *testing.T, mails []outMailJSON, flags []string, games ...string) {
	t.Helper()
	for _, game := range games {
		heads := map[string]map[uint64]string{}
		for _, player := range []string{sampleUS, sampleDE} {
			var bodies []string
			results := 0
			for _, m := range mails {
				if tag := gameTag.FindStringSubmatch(m.Subject); tag == nil || tag[1] != game || len(m.To) != 1 || m.To[0] != player {
					continue
				}
				bodies = append(bodies, m.Body)
				if strings.Contains(m.Subject, "Results") || strings.Contains(m.Subject, "Game over") {
					results++
				}
			}
			got, err := adjudicator.CheckMails(game, bodies)
			if err != nil {
				t.Fatalf("%s, mails to %s: %v", game, player, err)
			}
			rolls := auditedRolls(t, game, flags)
			if got.Rolls != rolls || got.Verified != rolls || got.Unrevealed != 0 {
				t.Errorf("%s, mails to %s: %d rolls given, %d verified, %d unrevealed; the audit holds %d rolls", game, player, got.Rolls, got.Verified, got.Unrevealed, rolls)
			}
			if got.Seeds != 7 || got.Sealed != 12 || got.Signatures != results || results == 0 {
				t.Errorf("%s, mails to %s: %d seeds, %d sealed orders, %d signatures checked; want 7 seeds (turns 0-6), 12 plots, one signature for each of the %d results mails",
					game, player, got.Seeds, got.Sealed, got.Signatures, results)
			}
			heads[player] = got.Heads
		}
		// Comparing mails: both players hold the same signed head for every entry.
		for seq, h := range heads[sampleUS] {
			if heads[sampleDE][seq] != h {
				t.Errorf("%s: entry %d: the US was sent head %s, the German %s", game, seq, h, heads[sampleDE][seq])
			}
		}
		if len(heads[sampleUS]) == 0 || len(heads[sampleUS]) != len(heads[sampleDE]) {
			t.Errorf("%s: signed heads %d to the US, %d to the German", game, len(heads[sampleUS]), len(heads[sampleDE]))
		}
	}
}

// auditedRolls counts the rolls in a game's exported audit chain.
func auditedRolls(t *testing.T, game string, flags []string) int {
	t.Helper()
	var export struct {
		Entries []struct{ Kind string } `json:"entries"`
	}
	if err := json.Unmarshal([]byte(mustCLI(t, nil, append([]string{"audit", "export", "--game", game, "--format", "json"}, flags...)...)), &export); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, e := range export.Entries {
		if e.Kind == "roll" || e.Kind == "shuffle" {
			n++
		}
	}
	return n
}
