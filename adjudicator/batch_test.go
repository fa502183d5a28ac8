package adjudicator_test

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/adjutant-pbem/adjutant/adjudicator"
	"github.com/adjutant-pbem/adjutant/adjudicator/soldiers1918"
)

// batchMessages is a game's opening as players mail it: both set-ups (which resolve
// the set-up and the first phases), a duplicate, a STATUS and a wrong password.
func batchMessages() []adjudicator.Message {
	msg := func(id, from, text string) adjudicator.Message {
		return adjudicator.Message{ID: id, From: from, Subject: "orders", Text: "GAME g1\n" + text}
	}
	return []adjudicator.Message{
		msg("b1@players.example", us, "PASSWORD "+passU+"\n"+usSetup),
		msg("b2@players.example", de, "PASSWORD "+passD+"\n"+deSetup),
		msg("b1@players.example", us, "PASSWORD "+passU+"\n"+usSetup),
		msg("b3@players.example", us, "PASSWORD "+passU+"\nSTATUS"),
		msg("b4@players.example", de, "PASSWORD wrong\nSTATUS"),
	}
}

// TestHandleBatchSameAsOneByOne: handling messages in one transaction (group commit)
// has exactly the effects and replies of handling them one at a time, duplicates
// within the batch included.
func TestHandleBatchSameAsOneByOne(t *testing.T) {
	one := newFixture(t, adjudicator.NewGame{})
	var want []string
	for _, m := range batchMessages() {
		out, _ := one.sendMsg(m)
		want = append(want, out)
	}
	batch := newFixture(t, adjudicator.NewGame{})
	got, err := batch.desk.HandleBatch(context.Background(), batchMessages())
	if err != nil {
		t.Fatalf("HandleBatch: %v", err)
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %v, want %v", got, want)
	}
	if want[2] != adjudicator.Duplicate {
		t.Errorf("the repeated message: %q, want duplicate", want[2])
	}
	// bcrypt salts its hashes from crypto/rand, and each store has its own identity in
	// its Message-IDs (the threads' roots, the results mails the journal lists): the two
	// games differ only there.
	hashes := regexp.MustCompile(`"(pass_hash|thread)":"[^"]*"|"mail_ids":\[[^\]]*\]`)
	if hashes.ReplaceAllString(one.snapshot(), "") != hashes.ReplaceAllString(batch.snapshot(), "") {
		t.Error("the game after the batch differs from the game after the same messages one by one")
	}
	a, b := one.outbox(), batch.outbox()
	if len(a) != len(b) {
		t.Fatalf("%d mails queued by the batch, %d one by one", len(b), len(a))
	}
	for i := range a {
		if a[i].Body != b[i].Body || fmt.Sprint(a[i].To) != fmt.Sprint(b[i].To) {
			t.Errorf("mail %d differs:\n%s\n--- one by one:\n%s", i, b[i].Body, a[i].Body)
		}
	}
	if !strings.Contains(batch.logs.String(), "batch=5") {
		t.Error("the batch was not committed as one")
	}
}

// TestHandleBatchFailureIsOneMessages: a message whose adjudication fails inside a
// batch is set aside alone; the messages before and after it take effect.
func TestHandleBatchFailureIsOneMessages(t *testing.T) {
	f := newFixture(t, adjudicator.NewGame{})
	theRules := f.desk.Rulesets[soldiers1918.Name].(*soldiers1918.Rules)
	f.desk.Rulesets[soldiers1918.Name] = brokenRules{theRules}
	got, err := f.desk.HandleBatch(context.Background(), batchMessages())
	if err != nil {
		t.Fatalf("HandleBatch: %v", err)
	}
	want := []string{adjudicator.Handled, "failed: adjudication error", adjudicator.Duplicate, adjudicator.Handled, "refused: refused"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("outcomes %q, want %q", got, want)
	}
	if !strings.Contains(f.logs.String(), "handling its messages one by one") {
		t.Error("the log does not say the batch fell back to one by one")
	}
}
