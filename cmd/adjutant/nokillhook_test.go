//go:build !killhook

package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

// TestNoKillHook: a binary built without the tag killhook, as the production binary
// is, carries no test kill hook: not even the name of its environment variable is in
// it (the name is put together at run time, so that this test does not carry it).
func TestNoKillHook(t *testing.T) {
	bin, err := os.ReadFile(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	name := strings.Join([]string{"ADJUTANT", "TEST", "KILL", "AFTER", "COMMIT"}, "_")
	if bytes.Contains(bin, []byte(name)) {
		t.Errorf("%s (built without the tag killhook) holds %s", os.Args[0], name)
	}
}
