package mail_test

import (
	"fmt"
	"testing"

	"github.com/adjutant-pbem/adjutant/store"
)

// BenchmarkDrainOnce sends passes of 50 mails over loopback SMTP into a bbolt outbox and
// reports mails per second (each mail is marked sent in its own transaction).
func BenchmarkDrainOnce(b *testing.B) {
	const perPass = 50
	k := newSMTPSink(b, nil)
	db := sendOpenStore(b)
	s := newTestSender(b, k, db, nil, nil)
	body := "Turn 3 results.\n" + fmt.Sprintf("%0200d\n", 0)
	n := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		mails := make([]store.OutMail, perPass)
		for j := range mails {
			n++
			mails[j] = sendMail(fmt.Sprintf("bench-%d@adjutant.example", n), "a@example.org", "g1", body)
		}
		sendEnqueue(b, db, mails...)
		b.StartTimer()
		sent, failed, err := s.DrainOnce(b.Context())
		if err != nil || sent != perPass || failed != 0 {
			b.Fatalf("DrainOnce = %d, %d, %v", sent, failed, err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N*perPass)/b.Elapsed().Seconds(), "mails/s")
}
