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

// BenchmarkEncodeMail is the cost of an outbox record (encodeMail: the body compressed
// with its kind's dictionary), over the results mails of a Soissons game, against the
// deflate with the first body as its dictionary that stores wrote before zstd, and
// against no dictionary; z-bytes/op is the record. The dictionaries are made from the
// first bodies and every body after them is measured, none of those in a dictionary.
func BenchmarkEncodeMail(b *testing.B) {
	bodies := sampleBodies(b)
	first := []byte(bodies[0])
	if len(first) > dictMax {
		first = first[len(first)-dictMax:]
	}
	flateID := dictID(first)
	dicts.Store(flateID, first)
	var grown []byte
	for _, body := range bodies[:zdictSamples] {
		grown = append(grown, body...)
	}
	grown = grown[max(0, len(grown)-zdictMax):]
	zID := dictID(grown)
	for _, c := range []struct {
		name string
		enc  func(m OutMail) ([]byte, error)
	}{
		{"zstd-dict", func(m OutMail) ([]byte, error) { return encodeMail(m, zID, grown) }},
		{"zstd-no-dict", func(m OutMail) ([]byte, error) { return encodeMail(m, "", nil) }},
		{"flate-dict", func(m OutMail) ([]byte, error) {
			z, err := deflateDict(m.Body, flateID, first)
			if err != nil {
				return nil, err
			}
			return encodeStored(m, z, "", flateID)
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			var z, in int
			i := 0
			rest := bodies[zdictSamples:]
			b.ReportAllocs()
			for b.Loop() {
				m := OutMail{Seq: uint64(i), Kind: "results", Body: rest[i%len(rest)]}
				raw, err := c.enc(m)
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

// BenchmarkDecodeMail is the cost of reading a body back (inflate, or zstd's decode)
// over the same results mails, compressed as BenchmarkEncodeMail's.
func BenchmarkDecodeMail(b *testing.B) {
	bodies := sampleBodies(b)
	first := []byte(bodies[0])
	if len(first) > dictMax {
		first = first[len(first)-dictMax:]
	}
	var grown []byte
	for _, body := range bodies[:zdictSamples] {
		grown = append(grown, body...)
	}
	grown = grown[max(0, len(grown)-zdictMax):]
	zID, flateID := dictID(grown), dictID(first)
	rest := bodies[zdictSamples:]
	for _, c := range []struct {
		name string
		enc  func(string) ([]byte, error)
		dec  func([]byte) (string, error)
	}{
		{"zstd-dict", func(s string) ([]byte, error) { return zstdEncode(s, zID, grown) }, func(z []byte) (string, error) { return zstdDecode(z, zID, grown) }},
		{"flate-dict", func(s string) ([]byte, error) { return deflateDict(s, flateID, first) }, func(z []byte) (string, error) { return inflateDict(z, first) }},
	} {
		zs := make([][]byte, len(rest))
		for i, body := range rest {
			var err error
			if zs[i], err = c.enc(body); err != nil {
				b.Fatal(err)
			}
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if got, err := c.dec(zs[i%len(zs)]); err != nil || len(got) != len(rest[i%len(rest)]) {
					b.Fatalf("body %d: %d bytes, %v", i, len(got), err)
				}
				i++
			}
		})
	}
}
