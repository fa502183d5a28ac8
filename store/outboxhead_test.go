package store

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"testing"
	"time"
)

// TestOutboxHeadBytes: the head of an order check as the desk queues it takes at most
// 200 bytes of its record (480 to 540 as JSON), sent or not, and reads back as it was
// written; the heads' dictionary is the one records were written with (a change would
// leave every record written before unreadable).
func TestOutboxHeadBytes(t *testing.T) {
	if sum := sha256.Sum256([]byte(headDict)); hex.EncodeToString(sum[:8]) != "a13de8c3cd045c8b" {
		t.Fatalf("headDict changed (digest %x): records written with it no longer read; give a new dictionary a tag of its own", sum[:8])
	}
	queued := time.Date(2026, 11, 28, 10, 0, 1, 123456789, time.UTC)
	for i, sent := range []bool{false, true} {
		m := OutMail{Seq: uint64(4711 + i), MessageID: fmt.Sprintf("adjutant-%x@localhost", sha256.Sum256([]byte{byte(i)}))[:46], To: []string{"pershing@aef.example"},
			Subject: "[game00042] Soldiers: Decision in the Trenches, 1918: US", InReplyTo: "<order-7@players.example>",
			References: []string{"adjutant-63f04eaf781f70f73f07e099@localhost", "<order-7@players.example>"}, AutoReplied: true,
			Game: "game00042", Side: "us", Kind: "reply", Queued: queued, Sent: sent}
		if sent {
			m.SentAt, m.Attempts = queued.Add(time.Second), 1
		}
		s := storedMail{OutMail: m, BodyZ: []byte("body"), Dict: "2edb80dac675bf05", Codec: codecZstd}
		raw, err := s.encode()
		if err != nil {
			t.Fatal(err)
		}
		j, _ := json.Marshal(storedMail{OutMail: m, Dict: s.Dict, Codec: s.Codec})
		if head := len(raw) - len(s.BodyZ); head > 200 {
			t.Errorf("sent %v: the head takes %d bytes (%d as JSON), want at most 200", sent, head, len(j))
		}
		var back storedMail
		if err := decodeStored(raw, &back); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(back) != fmt.Sprint(s) {
			t.Errorf("sent %v: reads back as\n%+v\nwritten\n%+v", sent, back, s)
		}
	}
}
