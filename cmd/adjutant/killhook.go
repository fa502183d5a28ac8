//go:build killhook

package main

import (
	"os"
	"strconv"
	"sync/atomic"
	"syscall"
)

// The fault test of invariant 2 (TestKilledBetweenCommitAndFlag) needs a daemon that
// dies between committing a message and flagging it. Only a binary built with the tag
// killhook (make test builds the test binary so for that test) has this hook: the
// daemon of the production binary has none (nokillhook.go).

// killAfter, from ADJUTANT_TEST_KILL_AFTER_COMMIT, is the number of committed messages
// after which the process SIGKILLs itself; zero for never.
var killAfter, _ = strconv.ParseInt(os.Getenv("ADJUTANT_TEST_KILL_AFTER_COMMIT"), 10, 64)

// committed counts the messages committed since the process started.
var committed atomic.Int64

// afterCommit is told of n messages committed and not yet flagged.
func (d *daemon) afterCommit(n int) {
	if killAfter > 0 && committed.Add(int64(n)) >= killAfter {
		d.log.Warn("test hook: killing the daemon between commit and flag")
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal arrives
	}
}
