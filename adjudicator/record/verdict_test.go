package record

import (
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// TestVerdict: the verdict of a record is the whole headline of the mail that ended
// the game, wrapped over several lines in a results mail, not its first line alone.
func TestVerdict(t *testing.T) {
	mails := []store.OutMail{
		{Body: "Your move: turn 6\nReply with your orders.\n"},
		{Body: "Game over: End of Game Turn 6: the farthest-north US unit is in 3006; US\npenetration 06 (4.2). Switch sides.\nSend ROLLS for the whole audit trail, HELP DICE for how to check every roll.\n\nOrder check: ..."},
		{Body: "Password: accepted.\n"},
	}
	want := "Game over: End of Game Turn 6: the farthest-north US unit is in 3006; US penetration 06 (4.2). Switch sides."
	if got := verdict(mails); got != want {
		t.Errorf("verdict = %q, want %q", got, want)
	}
	if got := verdict(mails[:1]); got != "" {
		t.Errorf("verdict of a game not over = %q", got)
	}
}
