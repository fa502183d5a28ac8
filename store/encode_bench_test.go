package store

import (
	"compress/gzip"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// openSoissons writes the store of the old Soissons game (adjudicator/testdata, 51
// advances, 102 results mails) into a temporary file and returns its path: the records
// of a real game, for figures of size and cost.
func openSoissons(tb testing.TB) string {
	tb.Helper()
	f, err := os.Open(filepath.Join("..", "adjudicator", "testdata", "oldgames", "soissons1918-e577e70.db.gz"))
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "sample.db")
	w, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	if _, err := io.Copy(w, zr); err != nil {
		tb.Fatal(err)
	}
	if err := w.Close(); err != nil {
		tb.Fatal(err)
	}
	return path
}

// sampleBodies are the results mails of the old Soissons game.
func sampleBodies(tb testing.TB) []string {
	tb.Helper()
	db, err := Open(openSoissons(tb))
	if err != nil {
		tb.Fatal(err)
	}
	defer db.Close()
	var bodies []string
	db.Read(context.Background(), func(tx Tx) error {
		ms, err := tx.GameOutbox("soissons")
		for _, m := range ms {
			bodies = append(bodies, m.Body)
		}
		return err
	})
	if len(bodies) < 10 {
		tb.Fatalf("%d sample bodies", len(bodies))
	}
	return bodies
}

// BenchmarkEncodeMail is the cost of an outbox record (encodeMail: the body deflated
// with its kind's dictionary, pooled writers), over the results mails of a Soissons
// game, the first one the dictionary; z-bytes/op is the deflated body.
func BenchmarkEncodeMail(b *testing.B) {
	bodies := sampleBodies(b)
	d := []byte(bodies[0])
	if len(d) > dictMax {
		d = d[len(d)-dictMax:]
	}
	id := dictID(d)
	dicts.Store(id, d)
	for _, c := range []struct {
		name string
		id   string
		d    []byte
	}{{"dict", id, d}, {"no-dict", "", nil}} {
		b.Run(c.name, func(b *testing.B) {
			var z, in int
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				m := OutMail{Seq: uint64(i), Kind: "results", Body: bodies[1+i%(len(bodies)-1)]}
				raw, err := encodeMail(m, c.id, c.d)
				if err != nil {
					b.Fatal(err)
				}
				z += len(raw)
				in += len(m.Body)
				i++
			}
			b.ReportMetric(float64(z)/float64(i), "z-bytes/op")
			b.ReportMetric(float64(in)/float64(i), "body-bytes/op")
		})
	}
}
