package adjudicator

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/adjutant-pbem/adjutant/adjudicator/orders"
	"github.com/adjutant-pbem/adjutant/store"
)

// A host command takes effect once. A host mail sent again under a new Message-ID (a
// mail program's resend, a relay that duplicates, someone who kept a copy) would
// otherwise run again: a second EXTEND 24h. So a host mail is carried out only when
// its Date is within HostMailSkew of its arrival, and only once for the same commands
// under the same Date: the digest of each host mail carried out is kept with the
// store's throttle records, whose purge (Tick) bounds them, for as long as a copy
// could still pass the date check.

// HostMailSkew is how far a host mail's Date may be from its arrival.
const HostMailSkew = 24 * time.Hour

// hostDigestKept is how long after its Date a host mail's digest is kept: beyond the
// skew, so that a copy that arrived in time but waited (a daemon down for days) is
// still known.
const hostDigestKept = 7 * 24 * time.Hour

// hostDigestKey is the throttle key of a host mail's digest: the commands, as the
// desk reads them (words apart by one space, any case), and the Date to the second.
func hostDigestKey(date time.Time, lines []orders.Line) string {
	sum := sha256.New()
	sum.Write([]byte("adjutant host mail v1\x00" + strconv.FormatInt(date.Unix(), 10) + "\x00"))
	for _, l := range lines {
		if l.Is("HOST", "PASSWORD") {
			continue
		}
		sum.Write([]byte(strings.ToUpper(strings.Join(l.Fields, " ")) + "\n"))
	}
	// No "@": no address's throttle record can have this key.
	return "host mail " + hex.EncodeToString(sum.Sum(nil))
}

// hostReplay says why the host mail in hand is not to be carried out ("" when it is):
// no Date, a Date too far from its arrival, or the same commands under the same Date
// done already. key is the mail's digest, for markHostMail.
func (h *handling) hostReplay(lines []orders.Line) (reason, key string, err error) {
	date, arrived := h.msg.Date, h.msg.Arrived
	if arrived.IsZero() {
		arrived = h.now
	}
	switch {
	case date.IsZero():
		return "your mail has no Date: header, and a host mail must have one, so that a copy of it sent again later does nothing", "", nil
	case date.Sub(arrived) > HostMailSkew || arrived.Sub(date) > HostMailSkew:
		return fmt.Sprintf("your mail is dated %s but arrived %s, more than a day apart. A host mail is carried out only near its date, so that an old one sent again does nothing; if your clock is wrong, set it right and send the commands again",
			date.UTC().Format(timeFormat), arrived.UTC().Format(timeFormat)), "", nil
	}
	key = hostDigestKey(date, lines)
	th, err := h.tx.Throttle(key)
	if err != nil {
		return "", "", fmt.Errorf("read host mail digest: %w", err)
	}
	if th.Count > 0 {
		return fmt.Sprintf("the same commands, in a mail with the same Date (%s), were handled already: each host mail takes effect once. To do them again, send them in a new mail",
			date.UTC().Format(time.RFC1123Z)), "", nil
	}
	return "", key, nil
}

// markHostMail records that the host mail with this digest was carried out.
func (h *handling) markHostMail(key string) error {
	// The purge deletes a record a day after its WindowStart.
	keep := store.Throttle{WindowStart: h.msg.Date.UTC().Add(hostDigestKept - 24*time.Hour), Count: 1}
	if err := h.tx.PutThrottle(key, keep); err != nil {
		return fmt.Errorf("record host mail digest: %w", err)
	}
	return nil
}
