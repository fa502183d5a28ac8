package main

import (
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// testStoreSpace: `store space` lists the buckets with their keys, and says how much of
// the file is free: after two finished games are archived the free pages are a large
// share and it advises compaction; after `store compact` they are gone and it does not.
// (The demo's store itself may already have a quarter free: the store replaces its
// first compression dictionaries once it has seen more mails.)
func testStoreSpace(t *testing.T, demo string) {
	db := copyStore(t, demo, t.TempDir())
	out := mustCLI(t, nil, "store", "space", "--db", db)
	if n := bucketKeys(t, out, "game-records"); n == 0 {
		t.Errorf("store space of the demo store: no game records listed:\n%s", out)
	}
	if n := bucketKeys(t, out, "games"); n != 2 {
		t.Errorf("store space lists %d games, want the demo's 2:\n%s", n, out)
	}

	markAllSent(t, db)
	for _, g := range []string{sampleGame, sampleReturn} {
		mustCLI(t, nil, "game", "archive", g, "--db", db, "--out", filepath.Join(t.TempDir(), g+archiveSuffix))
	}
	out = mustCLI(t, nil, "store", "space", "--db", db)
	if n := bucketKeys(t, out, "games"); n != 0 {
		t.Errorf("after archiving both games, store space lists %d games:\n%s", n, out)
	}
	if !strings.Contains(out, "compaction would give") {
		t.Errorf("after archiving every game, store space does not advise compaction:\n%s", out)
	}

	mustCLI(t, nil, "store", "compact", "--db", db)
	out = mustCLI(t, nil, "store", "space", "--db", db)
	if strings.Contains(out, "compaction would give") {
		t.Errorf("after compaction, store space still advises it:\n%s", out)
	}

	if code, _, errs := cli(t, nil, "store", "spaces", "--db", db); code == 0 || !strings.Contains(errs, "store space") {
		t.Errorf("store spaces: exit %d, %q; want a usage error naming both commands", code, errs)
	}
}

// bucketKeys reads the keys of bucket from the table of `store space`; a bucket
// not listed, a bucket bbolt does not have (or has empty) counts as no keys.
func bucketKeys(t *testing.T, out, bucket string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(bucket) + `\s+(\d+)\s`).FindStringSubmatch(out)
	if m == nil {
		return 0
	}
	n, err := strconv.Atoi(m[1])
	if err != nil {
		t.Fatal(err)
	}
	return n
}
