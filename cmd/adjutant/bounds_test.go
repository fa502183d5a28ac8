package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCommandLineDatesBounded: the host's command lines that set a date or a length of
// time (game new --deadline/--grace, deadline --at/--extend) refuse one more than a year
// ahead with the limit in words, and change nothing: the game still pauses, resumes and
// takes a sane deadline.
func TestCommandLineDatesBounded(t *testing.T) {
	db := filepath.Join(t.TempDir(), "games.db")
	newGame := []string{"game", "new", "--db", db, "--name", "g", "--player", "us=" + sampleUS, "--player", "de=" + sampleDE}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{append(newGame, "--deadline", "9000h"), "deadline 9000h0m0s: expected a length of time from 0 to 365 days"},
		{append(newGame, "--grace", "2562047h"), "grace 2562047h0m0s: expected a length of time from 0 to 365 days"},
		{append(newGame, "--deadline", "-1h"), "expected a length of time from 0 to 365 days"},
	} {
		if code, _, errs := cli(t, nil, tc.args...); code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("adjutant %s: exit %d, %q; want exit 1 and %q", strings.Join(tc.args[4:], " "), code, errs, tc.want)
		}
	}
	mustCLI(t, nil, append(newGame, "--deadline", "48h")...)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"deadline", "--db", db, "--game", "g", "--at", "9999-12-31T23:59:59Z"}, "a deadline may be at most a year ahead (until "},
		{[]string{"deadline", "--db", db, "--game", "g", "--extend", "2562047h"}, "a deadline may be at most a year ahead (until "},
		{[]string{"deadline", "--db", db, "--game", "g", "--extend", "8800h"}, "a deadline may be at most a year ahead (until "},
	} {
		if code, _, errs := cli(t, nil, tc.args...); code != 1 || !strings.Contains(errs, tc.want) {
			t.Errorf("adjutant %s: exit %d, %q; want exit 1 and %q", strings.Join(tc.args[5:], " "), code, errs, tc.want)
		}
	}
	mustCLI(t, nil, "pause", "--db", db, "--game", "g")
	mustCLI(t, nil, "resume", "--db", db, "--game", "g")
	mustCLI(t, nil, "deadline", "--db", db, "--game", "g", "--extend", "24h")
}
